"""A question's time matched against the time each candidate speaks of (``text.when``).

Two questions are about time, and neither is answered by matching words:

- "What did I do in May 2023?", "What happened last summer?": the question names a span. A
  memory matches when a time it speaks of overlaps it: a time its text states ("last week",
  resolved against the memory's own day) or that own day itself (a session of 21 May 2023, a
  mail sent then). A turn of 2 June saying "last week" is about May, though no word says so.
- "When did Ines paint the harbour?", "How long ago …?": the question asks for a time. A
  memory that states one ("I painted it last year") answers it better than one about the
  same thing that does not ("I love painting the harbour").

A matching candidate's fused score is raised by ``TIME_WEIGHT``. Only the legs' candidates are
read (their body and attributes, one query): a question is matched against what its words or
its meaning already found, so time reorders relevant memories and never brings an unrelated one
of the same week. A question naming a span has the legs look ``TIME_DEPTH_FACTOR`` times
deeper first, so a memory its words rank low can still be found by its time. The question's
own expressions are resolved against the day it is asked: an as-of read's date, else today.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from cairn.app.text import shelves, when
from cairn.app.text.when import Span
from cairn.storage import graph_rows, shelf_rows
from cairn.storage.connection import Connection
from cairn.storage.rows import HeadRow

# What a time match adds to a fused score in [0, 1]: enough to order the memories that state a
# time above equally relevant ones that do not, too little to lift a memory the legs barely found
# over a clear match. On the dev conversations 0.1, 0.2 and 0.3 are a plateau (temporal R@5
# 0.837, 0.837, 0.831 from 0.799 without; R@10 overall 0.739, 0.740, 0.742 from 0.735): the
# middle.
TIME_WEIGHT = 0.2

# A question naming a time looks this much deeper in each leg, as an as-of read does: its time
# sets apart memories its words rank low ("last month" answers "in March" with no word alike).
# On the dev conversations it took temporal R@10 from 0.860 to 0.876 and R@20 from 0.906 to
# 0.916 (with TIME_WEIGHT 0.2); no category fell.
TIME_DEPTH_FACTOR = 3


@dataclass(frozen=True)
class TimeQuestion:
    """What a question asks of time: the spans it names, and whether it asks when."""

    spans: tuple[Span, ...]
    asks_when: bool

    @property
    def about_time(self) -> bool:
        return bool(self.spans) or self.asks_when

    def depth_factor(self) -> int:
        """How much deeper than usual the legs look for this question."""
        return TIME_DEPTH_FACTOR if self.spans else 1


def read_question(query: str, asked_on: date) -> TimeQuestion:
    return TimeQuestion(when.spans(query, asked_on), when.asks_when(query))


def asked_on(as_of_instant: str | None) -> date:
    """The day a question is asked from: an as-of read's, else today (UTC, as stamps are)."""
    if as_of_instant:
        return date.fromisoformat(as_of_instant[:10])
    return datetime.now(UTC).date()


def matches(
    conn: Connection,
    question: TimeQuestion,
    rows: Mapping[int, HeadRow],
    seqs: set[int],
    scopes: Sequence[str],
) -> set[int]:
    """The candidates ``seqs`` whose time answers ``question``."""
    if not question.about_time or not seqs:
        return set()
    texts = graph_rows.bodies_and_attrs(conn, list(seqs))
    # A passage speaks from its document's day (a mail's sent date, a file's), not from the
    # day it was read in: "yesterday" in a mail of 2 June is 1 June.
    sections = [rows[seq]["id"] for seq in texts if rows[seq]["type"] == shelves.SECTION]
    documents = shelf_rows.containing_documents(conn, sections, scopes)
    matched = set()
    for seq, (body, attrs_json) in texts.items():
        row = rows[seq]
        attrs = json.loads(attrs_json) if attrs_json else {}
        if row["id"] in documents:
            _, title, document_attrs = documents[row["id"]]
            attrs = {**_dates(json.loads(document_attrs)), **attrs}
            if row["valid_from"] is None and not any(key in attrs for key in when.DATE_ATTRS):
                attrs["date"] = when.own_day(title, {}, None, row["recorded_at"]).isoformat()
        own = when.own_day(row["title"], attrs, row["valid_from"], row["recorded_at"])
        if _answers(question, body, own):
            matched.add(seq)
    return matched


def _dates(attrs: Mapping[str, Any]) -> dict[str, Any]:
    return {key: attrs[key] for key in when.DATE_ATTRS if key in attrs}


def raised(fused: Mapping[int, float], matched: set[int], weight: float) -> dict[int, float]:
    """``fused`` with each matched candidate's score raised by ``weight``."""
    return {seq: score + (weight if seq in matched else 0.0) for seq, score in fused.items()}


def _answers(question: TimeQuestion, body: str, own: date) -> bool:
    """Whether a memory with ``body``, speaking from the day ``own``, answers ``question``'s
    time: it says when (or for how long) and the question asks when, or a time it speaks of,
    stated or its own, overlaps one the question names."""
    stated = when.spans(body, own)
    if question.asks_when and (stated or when.says_how_long(body)):
        return True
    return bool(question.spans) and _overlap((*stated, Span(own, own)), question.spans)


def _overlap(times: tuple[Span, ...], wanted: tuple[Span, ...]) -> bool:
    return any(time.overlaps(span) for time in times for span in wanted)
