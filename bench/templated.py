"""The templated workload: thousands of distinct, look-alike events in one vault.

A work log is full of notes that differ only in a name, a date or a project ("Esther emailed
Nadia on 2024-03-19 with notes on project Juniper from the Lyon workshop"). To an embedding
they are near-copies; to the person they are different events, each of which must stay
findable. The workload writes ``N`` distinct events, one per Note, through
``MemoryService.write`` (the dedup gate and all), then asks for 200 of them by a paraphrase of
their slots ("When did Esther email Nadia about Juniper from Lyon?") and counts the asked
memory in the top 10 of a default search.

An event has six slots: actor and recipient (two different first names of :data:`NAMES`), an
act (:data:`ACTS`: emailed, called, met, ...), a day in 2023-2025, a project (a plant or tree
name) and a city. No two events share all six. The note is titled the way a log entry is, by
the act and the day ("Email, 2024-03-19"); its body is the sentence, in one of four shapes.
A question names the actor, the act, the recipient and two of the other slots; the slots it
names pick out exactly one event (checked when the questions are drawn).

Everything is drawn from ``random.Random(seed)``: the same ``N`` and seed give the same events
and questions. Besides the default search, the questions are run against plain BM25 over the
same notes (``bench.baselines``): a sanity line for the questions, not for the engine.
"""

from __future__ import annotations

import datetime as dt
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.baselines import BM25
from bench.writes import WriteLog, hidden, statuses_of
from cairn.app.service import MemoryService

_NAMES_TEXT = (
    "Esther Nadia Omar Priya Lukas Mei Tomas Ingrid Kofi Sofia Mateo Aiko Farid Greta Hugo "
    "Leila Marco Nina Pavel Rosa Samir Tara Viktor Yara Anders Bianca Chen Dalia Emil Fatima "
    "Goran Hana Ivan Jonas Keiko Lena Milan Noor Oskar Rania"
)
_PROJECTS_TEXT = (
    "Juniper Willow Aspen Cedar Maple Rowan Hazel Alder Birch Laurel Linden Magnolia Acacia "
    "Cypress Hawthorn Sequoia Yarrow Sorrel Fennel Clover Bramble Heather Ivy Lavender Sage "
    "Thistle Tamarind Olive Myrtle Sycamore"
)
_CITIES_TEXT = (
    "Lyon Porto Leipzig Bergen Krakow Ghent Turin Seville Tallinn Graz Bilbao Utrecht Aarhus "
    "Brno Nantes Bologna Malmo Cork Split Basel Lille Geneva Zagreb Riga Vilnius Ljubljana "
    "Bordeaux Antwerp Salzburg Tampere"
)
NAMES = _NAMES_TEXT.split()
PROJECTS = _PROJECTS_TEXT.split()
CITIES = _CITIES_TEXT.split()


@dataclass(frozen=True)
class Act:
    past: str  # as the note says it: "wrote to"
    base: str  # as a question asks it: "write to"
    noun: str  # the note's title: "Letter"


ACTS = (
    Act("emailed", "email", "Email"),
    Act("called", "call", "Call"),
    Act("met", "meet", "Meeting"),
    Act("messaged", "message", "Message"),
    Act("visited", "visit", "Visit"),
    Act("wrote to", "write to", "Letter"),
    Act("texted", "text", "Text"),
    Act("had lunch with", "have lunch with", "Lunch"),
)
SCOPE = "personal"
TOP = 10
QUERIES = 200
FIRST_DAY = dt.date(2023, 1, 1)
DAYS = (dt.date(2025, 12, 31) - FIRST_DAY).days + 1


@dataclass(frozen=True)
class Event:
    actor: str
    act: Act
    recipient: str
    day: str  # ISO date
    project: str
    city: str
    shape: int

    @property
    def key(self) -> tuple[str, str, str, str, str, str]:
        return (self.actor, self.act.past, self.recipient, self.day, self.project, self.city)

    @property
    def title(self) -> str:
        return f"{self.act.noun}, {self.day}"

    @property
    def body(self) -> str:
        return SHAPES[self.shape](self)


SHAPES: tuple[Callable[[Event], str], ...] = (
    lambda e: (
        f"{e.actor} {e.act.past} {e.recipient} on {e.day} with notes on project {e.project} "
        f"from the {e.city} workshop."
    ),
    lambda e: (
        f"On {e.day}, {e.actor} {e.act.past} {e.recipient} about the {e.project} project, "
        f"following up on the {e.city} visit."
    ),
    lambda e: (
        f"{e.actor} {e.act.past} {e.recipient} on {e.day} to go over {e.project}; they had "
        f"first talked about it in {e.city}."
    ),
    lambda e: f"{e.day}: {e.actor} {e.act.past} {e.recipient} regarding {e.project} ({e.city}).",
)


def events(count: int, seed: int = 16) -> list[Event]:
    """``count`` distinct events, in the order they are written."""
    rng = random.Random(seed)
    seen: set[tuple[str, ...]] = set()
    out: list[Event] = []
    while len(out) < count:
        actor, recipient = rng.sample(NAMES, 2)
        day = (FIRST_DAY + dt.timedelta(days=rng.randrange(DAYS))).isoformat()
        event = Event(
            actor,
            rng.choice(ACTS),
            recipient,
            day,
            rng.choice(PROJECTS),
            rng.choice(CITIES),
            rng.randrange(len(SHAPES)),
        )
        if event.key not in seen:
            seen.add(event.key)
            out.append(event)
    return out


# What a question names besides the actor, the act and the recipient, and how it asks.
QUESTION_SHAPES: tuple[tuple[tuple[str, ...], Callable[[Event], str]], ...] = (
    (
        ("project", "city"),
        lambda e: f"When did {e.actor} {e.act.base} {e.recipient} about {e.project} from {e.city}?",
    ),
    (
        ("project", "city"),
        lambda e: (
            f"Which day was it that {e.actor} had to {e.act.base} {e.recipient} on the "
            f"{e.project} project after {e.city}?"
        ),
    ),
    (
        ("day", "project"),
        lambda e: (
            f"What was {e.actor}'s {e.act.noun.lower()} with {e.recipient} on {e.day} "
            f"about {e.project} connected to?"
        ),
    ),
    (
        ("day", "city"),
        lambda e: (
            f"Did {e.actor} {e.act.base} {e.recipient} on {e.day}, and which project was "
            f"it, the one from {e.city}?"
        ),
    ),
)


@dataclass(frozen=True)
class Query:
    event: int  # the asked event's place in the event list
    text: str


def queries(written: list[Event], count: int = QUERIES, seed: int = 17) -> list[Query]:
    """``count`` questions, each about one event of ``written`` that the slots it names pick
    out alone (an event another one shares those slots with is not asked about)."""
    rng = random.Random(seed)
    keyed: list[dict[tuple[str, ...], int]] = []
    for slots, _ in QUESTION_SHAPES:
        counts: dict[tuple[str, ...], int] = {}
        for event in written:
            key = _asked(event, slots)
            counts[key] = counts.get(key, 0) + 1
        keyed.append(counts)
    out: list[Query] = []
    for index in rng.sample(range(len(written)), len(written)):
        shape = rng.randrange(len(QUESTION_SHAPES))
        slots, ask = QUESTION_SHAPES[shape]
        if keyed[shape][_asked(written[index], slots)] == 1:
            out.append(Query(index, ask(written[index])))
        if len(out) == count:
            break
    return out


def _asked(event: Event, slots: tuple[str, ...]) -> tuple[str, ...]:
    named = {"day": event.day, "project": event.project, "city": event.city}
    return (event.actor, event.act.past, event.recipient, *(named[s] for s in slots))


def run(service: MemoryService, count: int, say: Callable[[str], None]) -> dict[str, Any]:
    """Write ``count`` events into ``service``'s vault, ask the questions, and count."""
    written = events(count)
    asked = queries(written)
    log = WriteLog()
    start = time.perf_counter()
    for number, event in enumerate(written, start=1):
        log.record(service.write("Note", event.title, event.body, scope=SCOPE))
        if number % 1000 == 0 or number == count:
            rate = number / (time.perf_counter() - start)
            say(f"templated: written {number:>6,}/{count:,} ({rate:.0f}/s)")
    write_s = time.perf_counter() - start
    statuses = statuses_of(service, [m for m in log.memories if m is not None], SCOPE)
    start = time.perf_counter()
    found = []
    for query in asked:
        response = service.search(query.text, scopes=[SCOPE], limit=TOP)
        found.append(log.memories[query.event] in {hit.id for hit in response.results})
    search_s = time.perf_counter() - start
    lexical = BM25([f"{e.title}\n{e.body}" for e in written])
    plain = [q.event in lexical.rank(q.text, TOP) for q in asked]
    # Hit rate by what the gate did with the asked event: where the misses come from.
    by_outcome: dict[str, list[bool]] = {}
    for query, hit in zip(asked, found, strict=True):
        outcome = log.per_write[query.event]
        by_outcome.setdefault(outcome, []).append(hit)
    superseded = sum(1 for m in log.memories if m is not None and statuses.get(m) == "superseded")
    return {
        "events": count,
        "queries": len(asked),
        **log.summary(),
        "distinct_events_absorbed": log.outcomes["absorbed"],
        "distinct_events_superseded": superseded,
        "events_hidden_at_end": hidden(log.memories, statuses),
        f"hit@{TOP}": round(sum(found) / len(asked), 4),
        f"bm25_hit@{TOP}": round(sum(plain) / len(asked), 4),
        f"hit@{TOP}_by_outcome": {
            outcome: {"n": len(hits), "hit": round(sum(hits) / len(hits), 4)}
            for outcome, hits in sorted(by_outcome.items())
        },
        "misses": [
            {"query": q.text, "event": written[q.event].body, "outcome": log.per_write[q.event]}
            for q, hit in zip(asked, found, strict=True)
            if not hit
        ],
        "write_s": round(write_s, 1),
        "search_ms_mean": round(1000 * search_s / len(asked), 2),
    }
