"""Ask: a question in, the sentences of the person's own memories that answer it out, each with
its citation, or an honest abstention.

Extractive: nothing is written that a memory does not say. The search (``balanced``) finds the
memories; their sentences are read and each is weighed by how near it is in meaning to what is
asked (the question without the people it names, as search asks it), by how many of the
question's words it holds, and by its memory's place in the results. The best sentence is the
answer; the next one of the same memory joins it when it continues it.

Two checks keep an answer honest:

- **About whom.** A question naming a person whose said lines are among the results ("What did
  Ines paint?") is answered only by a sentence Ines said or one that names her. The best
  sentence said by someone else is the closest, not the answer: what B did is no answer to what
  A did.
- **Support.** A best sentence far from the question (``SUPPORT_FLOOR``), or a search that
  found nothing close, is an abstention that still shows the closest sentence.

A question asking when is answered with the time the cited sentence speaks of, worked out from
its memory's own day ("yesterday", said on 8 May 2023, is 7 May 2023).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import numpy as np

from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest
from cairn.app.models import JsonObject, SearchHit
from cairn.app.retrieval import search as retrieval
from cairn.app.retrieval import who
from cairn.app.text import said, when
from cairn.app.text.names import normalize
from cairn.app.text.surface import reading_text
from cairn.app.text.words import FUNCTION_WORDS
from cairn.storage import graph_rows
from cairn.storage.vault import Vault

# How many of the search's best memories are read for sentences: the answer is nearly always in
# the first few, and every sentence read is embedded (a few milliseconds each).
MEMORIES_READ = 5
# Sentences longer than this many characters are cut at a word for the quote.
QUOTE_CHARS = 400
# The words shown around a quote, each side.
AROUND_CHARS = 120
# Below this weight the best sentence is not support enough: it is shown as the closest. On the
# dev conversations 0.45 keeps 94 % of the answers that cite a gold turn and abstains on a third
# of the questions about what was never said (LoCoMo's category 5); 0.5 keeps 85 % and abstains
# on 47 %, 0.6 61 % and 72 %. Weight alone does not tell them apart well: see bench notes.
SUPPORT_FLOOR = 0.45
# How a sentence is weighed: nearness in meaning (cosine), the share of the question's content
# words it holds, and its memory's place in the search (1 for the first, 1/2 the second, ...).
MEANING, WORDS, PLACE = 0.5, 0.3, 0.2

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=\S)")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Citation:
    """Where a quoted sentence stands: its memory, and where in it."""

    id: str
    type: str
    title: str
    locator: str  # "page 3", "at 12:05", "line 4"; "" for a memory of one line
    quote: str
    before: str = ""  # the words just before the quote in its memory
    after: str = ""
    said_by: str | None = None

    def as_dict(self) -> JsonObject:
        return {
            "id": self.id,
            "type": self.type,
            "title": self.title,
            "locator": self.locator,
            "quote": self.quote,
            "before": self.before,
            "after": self.after,
            "said_by": self.said_by,
        }


@dataclass(frozen=True)
class Answer:
    question: str
    cited: list[Citation]  # the answer, sentence by sentence; empty when it abstains
    confidence: float  # 0-1: the weight of the best sentence
    abstained: bool
    note: str  # what a reader is told besides the quotes
    closest: Citation | None = None  # an abstention's nearest sentence
    when: str | None = None  # a "when" question: the time the cited sentence speaks of
    notes: tuple[str, ...] = field(default=())  # the search's notes (vector search off, ...)

    @property
    def text(self) -> str:
        return " ".join(c.quote for c in self.cited)

    def as_dict(self) -> JsonObject:
        return {
            "question": self.question,
            "answer": self.text,
            "cited": [c.as_dict() for c in self.cited],
            "confidence": round(self.confidence, 4),
            "abstained": self.abstained,
            "note": self.note,
            "closest": self.closest.as_dict() if self.closest else None,
            "when": self.when,
            "notes": list(self.notes),
        }


@dataclass
class _Sentence:
    citation: Citation
    memory: int  # the memory's place in the search, from 0
    start: int  # where it starts in its memory's text
    end: int
    own_day: date  # the day its memory speaks from
    weight: float = 0.0


def ask(
    vault: Vault,
    space: EmbeddingSpace,
    question: str,
    scopes: list[str],
    *,
    as_of: str | None = None,
) -> Answer:
    """Answer ``question`` from the memories of ``scopes`` (see the module's docstring)."""
    if not question.strip():
        raise InvalidRequest("The question is empty: ask something, e.g. 'When did I …?'")
    options = retrieval.SearchOptions(limit=MEMORIES_READ, as_of=as_of)
    found = retrieval.search(vault, space, question, scopes, options)
    notes = tuple(found.notes)
    if not found.results:
        return Answer(question, [], 0.0, True, "Nothing in your memory says this.", notes=notes)
    with vault.read() as conn:
        found_rows = graph_rows.nodes_by_ids(conn, [hit.id for hit in found.results], scopes)
    rows = {row["id"]: row for row in found_rows}
    sentences = [
        sentence
        for place, hit in enumerate(found.results)
        if hit.id in rows
        for sentence in _sentences(hit, rows[hit.id], place)
    ]
    if not sentences:
        return Answer(question, [], 0.0, True, "Nothing in your memory says this.", notes=notes)
    asked = who.names_in(question)
    speakers = {normalize(s.citation.said_by) for s in sentences if s.citation.said_by}
    about = asked & speakers  # the people asked about who speak in what was found
    what = who.without(question, about) if about else question
    _weigh(space, what, sentences)
    ranked = sorted(sentences, key=lambda s: -s.weight)
    best = next((s for s in ranked if _about(s, about)), None)
    top = ranked[0]
    if best is None or best.weight < SUPPORT_FLOOR or found.nothing_close:
        # What someone else said is the closest when it is nearer than anything of theirs.
        closest = top if best is None or top.weight > best.weight else best
        if not _about(closest, about):
            names = " and ".join(sorted(name.title() for name in about))
            sayer = closest.citation.said_by
            what = f"what {sayer} said" if sayer else "below"
            note = f"Nothing in your memory says this of {names}; the closest is {what}."
        else:
            note = "Nothing in your memory says this for sure; the closest is below."
        return Answer(question, [], closest.weight, True, note, closest.citation, notes=notes)
    cited = [best]
    follower = _continuing(best, sentences)
    if follower is not None:
        cited.append(follower)
    time = _time_of(question, best)
    note = f"When: {time}." if time else ""
    return Answer(
        question, [s.citation for s in cited], best.weight, False, note, when=time, notes=notes
    )


def _sentences(hit: SearchHit, row: Any, place: int) -> list[_Sentence]:
    """The sentences of one memory, each with its citation."""
    text = reading_text(row["body"] or "")
    if not text.strip():
        text = row["title"]
    own = when.own_day(row["title"], _attrs(row), row["valid_from"], row["recorded_at"])
    out = []
    lines = text.split("\n")
    offset = 0
    many_lines = sum(1 for line in lines if line.strip()) > 1
    for number, line in enumerate(lines, start=1):
        speaker = said.speaker(line)
        lead = len(speaker) + 2 if speaker else 0
        body = line[lead:]
        pos = 0
        for piece in _SENTENCE_END.split(body):
            at = body.find(piece, pos)
            pos = at + len(piece)
            quote = piece.strip()
            if not quote or not _WORD.search(quote):
                continue
            start = offset + lead + at
            end = start + len(piece)
            citation = Citation(
                hit.id,
                hit.type,
                hit.title,
                _locator(row, number if many_lines else None),
                _head(quote, QUOTE_CHARS),
                _tail(text[:offset] + body[:at], AROUND_CHARS),
                _head(" ".join(text[end:].split()), AROUND_CHARS),
                speaker,
            )
            out.append(_Sentence(citation, place, start, end, own))
        offset += len(line) + 1
    return out


def _weigh(space: EmbeddingSpace, what: str, sentences: list[_Sentence]) -> None:
    words = _content(what)
    vectors = None
    if space.embedder is not None:
        texts = [what, *(s.citation.quote for s in sentences)]
        embedded = np.asarray(space.embedder.embed(texts), dtype=np.float32)
        vectors = embedded[1:] @ embedded[0]
    for i, sentence in enumerate(sentences):
        held = len(words & _content(sentence.citation.quote)) / len(words) if words else 0.0
        meaning = float(max(vectors[i], 0.0)) if vectors is not None else held
        sentence.weight = MEANING * meaning + WORDS * held + PLACE / (1 + sentence.memory)


def _about(sentence: _Sentence, about: frozenset[str]) -> bool:
    """Whether ``sentence`` can answer for the people asked about: said by one, or naming one."""
    if not about:
        return True
    sayer = sentence.citation.said_by
    if sayer and normalize(sayer) in about:
        return True
    quote = normalize(sentence.citation.quote)
    return any(re.search(rf"\b{re.escape(name)}\b", quote) for name in about)


def _continuing(best: _Sentence, sentences: Sequence[_Sentence]) -> _Sentence | None:
    """The sentence right after ``best`` in its memory, when it says as much of the question."""
    for s in sentences:
        if (
            s.citation.id == best.citation.id
            and s.start > best.end
            and s.citation.said_by == best.citation.said_by
            and s.citation.locator == best.citation.locator
            and best.end + 3 >= s.start
            and s.weight >= best.weight - 0.05
        ):
            return s
    return None


def _time_of(question: str, best: _Sentence) -> str | None:
    """For a question asking when: the time the cited sentence speaks of, in words."""
    if not when.asks_when(question):
        return None
    spans = when.spans(best.citation.quote, best.own_day)
    if not spans:
        return None
    return _in_words(spans[0])


def _in_words(span: when.Span) -> str:
    """A span as a person says it: a day, a month, a year, or the days between."""
    first, last = span.first, span.last

    def day(d: Any) -> str:
        return f"{d.day} {d:%B %Y}"

    if first == last:
        return day(first)
    next_day = last + timedelta(days=1)
    if first.day == 1 and next_day.day == 1:
        if first.month == 1 and next_day.month == 1 and next_day.year == first.year + 1:
            return str(first.year)
        if (first.year, first.month) == (last.year, last.month):
            return f"{first:%B %Y}"
    if (first.year, first.month) == (last.year, last.month):
        return f"{first.day}-{last.day} {first:%B %Y}"
    return f"{day(first)} to {day(last)}"


def _locator(row: Any, line: int | None) -> str:
    attrs = _attrs(row)
    if isinstance(attrs.get("page"), int):
        return f"page {attrs['page']}"
    if isinstance(attrs.get("start_s"), int | float):
        seconds = int(attrs["start_s"])
        return f"at {seconds // 60}:{seconds % 60:02d}"
    return f"line {line}" if line is not None else ""


def _attrs(row: Any) -> dict[str, Any]:
    try:
        value = json.loads(row["attrs"] or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _content(text: str) -> set[str]:
    return {w for w in (m.casefold() for m in _WORD.findall(text)) if w not in FUNCTION_WORDS}


def _tail(text: str, chars: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= chars else "…" + text[-chars:].split(" ", 1)[-1]


def _head(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:chars].rsplit(" ", 1)[0] + "…"
