"""Who a question asks about, and the memories by or about them (the ``balanced`` graph leg).

A question that names someone ("What activities does Ines do?") is answered by what Ines said
and by what is said of her; its other words ("activities") often match none of it. Two signs
tie a memory to a person, both read from the vault, neither guessed:

- the memory is a line they said: its text opens with their name and a colon (``text.said``),
  as a chat's messages, a transcript's turns and a conversation pasted into a note are kept;
- the memory is linked to their entity (``ABOUT_EDGES``: a ``[[link]]``, a name the memory
  states, a memory that involves them).

A candidate tied to someone the question names gains ``WHO_WEIGHT`` on top of its fused score,
and an entity's own memories join the candidates, scored by both legs like any other, so one
that neither leg ranked in its top can still come up. A name is any capitalised run of the
question (a possessive dropped), and counts only when a candidate's speaker or an entity of
the vault carries it: "What" is in no vault's names.

Who is asked about is then left to the tie, and what is asked to meaning: the vector leg is
asked again without the people the question names (``what_is_asked``). A person's name means
nothing to the model, yet pulls the question's vector towards every line that says it ("Thanks,
Ines!"). On the dev conversations this took Recall@10 from 0.792 to 0.801 and open-domain
questions' from 0.479 to 0.542; the same done to the word leg lost 1.1 points (a name is a
rare word there, and a good one), so the words are asked whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from cairn.app.text import said
from cairn.app.text.names import normalize
from cairn.app.text.words import FUNCTION_WORDS
from cairn.storage import graph_rows, name_index
from cairn.storage.connection import Connection
from cairn.storage.rows import HeadRow

# What a tie to a named person adds to a fused score in [0, 1]: on the dev conversations,
# where 97% of the evidence turns of a question naming one speaker are that speaker's, 0.1-0.5
# is a plateau of Recall@10 (+1.2 to +1.1 points) along which multi-hop rises (+1.3 to +4.2);
# 0.3, where with sessions weighed as one occasion (``fusion.OCCASION_WEIGHT``) multi-hop
# passes 0.55 (0.2: 0.53; 0.35-0.4: Recall@10 the same, multi-hop 0.56).
WHO_WEIGHT = 0.3
# An entity's memories that join the candidates, newest links first: as many as a stub may
# reach (``linking.stubs``), so a name's memories come whole and a hub's do not flood a search.
ENTITY_MEMORIES = 30
# The edges that make a memory one about an entity: it links to it, names it, or involves it.
ABOUT_EDGES = ("references", "mentions", "involves")
# The longest name looked for, in words ("Anna Maria Rossi").
MAX_NAME_WORDS = 3
_CAPITALISED_RUN = re.compile(r"[A-Z][\w'’-]*(?:[ \t]+[A-Z][\w'’-]*)*")
_POSSESSIVE = re.compile(r"['’]s?$")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Named:
    """The names a question may hold, normalised (``text.names``), and the entities of the
    vault that carry one of them."""

    names: frozenset[str]
    entities: dict[str, str] = field(default_factory=dict)  # entity id -> the name it carries
    people: frozenset[str] = frozenset()  # the names the vault's Person entities carry

    def __bool__(self) -> bool:
        return bool(self.names)


def names_in(question: str) -> frozenset[str]:
    """Every run of one to ``MAX_NAME_WORDS`` capitalised words of ``question`` (each part of a
    longer run too: "Did Ines" holds "Ines"), normalised; the vault's names sort them out."""
    found: set[str] = set()
    for run in _CAPITALISED_RUN.findall(question):
        words = [_POSSESSIVE.sub("", word) for word in run.split()]
        for start in range(len(words)):
            for end in range(start + 1, min(start + MAX_NAME_WORDS, len(words)) + 1):
                if norm := normalize(" ".join(words[start:end])):
                    found.add(norm)
    return frozenset(found)


def named(conn: Connection, question: str, scopes: Sequence[str]) -> Named:
    """The question's possible names, and the entities (active or stub) in ``scopes`` whose
    title or alias is one of them exactly."""
    names = names_in(question)
    if not names:
        return Named(names)
    rows = [
        row
        for row in name_index.exact(conn, sorted(names), scopes)
        if row["kind"] in ("title", "alias") and row["status"] in ("active", "stub")
    ]
    people = frozenset(row["norm"] for row in rows if row["type"] == "Person")
    return Named(names, {row["id"]: row["norm"] for row in rows}, people)


def entity_memories(
    conn: Connection, asked: Named, scopes: Sequence[str], statuses: Sequence[str]
) -> dict[int, str]:
    """The memories linked to an entity the question names: seq -> the name."""
    reached = graph_rows.neighbours_by_types(
        conn, list(asked.entities), ABOUT_EDGES, scopes, statuses, ENTITY_MEMORIES
    )
    return {
        row["seq"]: asked.entities[entity_id] for entity_id, rows in reached.items() for row in rows
    }


def spoken_by(conn: Connection, asked: Named, seqs: Iterable[int]) -> dict[int, str]:
    """Of ``seqs``, the said lines of a person the question names: seq -> the name."""
    openings = graph_rows.openings(conn, sorted(seqs), said.OPENING_CHARS)
    tied = {}
    for seq, opening in openings.items():
        speaker = said.speaker(opening or "")
        if speaker and (norm := normalize(speaker)) in asked.names:
            tied[seq] = norm
    return tied


def only_named(row: HeadRow, query: str) -> bool:
    """Whether ``row`` is a stub, holding nothing but a name that is less than half of
    ``query``'s words: the question is about more than who, and the stub's memories answer it.
    A search for the name itself ("Hendrik", "Harry Potter books") still finds the stub."""
    if row["status"] != "stub":
        return False
    return 2 * len(_WORD.findall(row["title"])) < len(_WORD.findall(query))


def what_is_asked(question: str, asked: Named, spoken: Mapping[int, str]) -> str:
    """What ``question`` asks by meaning: the question without the people it names (speakers
    of its candidates' said lines, Person entities), whose memories the tie finds. A person's
    name means nothing to the embedding model but pulls the question's vector towards every
    line that names them; a topic's or a place's name is the meaning, and stays. A question
    left with no word of its own ("Who is Ines?") is asked whole."""
    stripped = without(question, {*spoken.values(), *asked.people})
    if stripped == " ".join(question.split()):
        return question  # nobody taken out: the first vector search already asked this
    words = _WORD.findall(stripped.casefold())
    return stripped if any(word not in FUNCTION_WORDS for word in words) else question


def without(question: str, names: Iterable[str]) -> str:
    """``question`` with each of ``names`` (normalised), possessive and all, taken out: what is
    asked of them."""
    for name in sorted(names, key=len, reverse=True):
        words = r"[\s_-]+".join(map(re.escape, name.split()))
        question = re.sub(rf"\b{words}(?:['’]s?)?(?!\w)", " ", question, flags=re.IGNORECASE)
    return " ".join(question.split())
