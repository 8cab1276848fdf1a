"""Passages from segments: about 200-300 tokens each, never across a heading or a page.

A passage is what search returns and what is embedded, so it should hold one thought and say
where it came from. Consecutive segments under the same heading on the same page are joined up
to ``TARGET_TOKENS``; a time range (a recording) may be joined with the next one, the passage
then spanning both. A segment longer than ``MAX_TOKENS`` is cut between sentences.

Tokens are counted the way the embedder's word-piece tokenizer roughly counts them: each word
and each punctuation mark is one (long or rare words become several pieces, so this counts low
rather than high, and the embedder truncates at 256 pieces).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from cairn.ingest.document import Locator, Segment

TARGET_TOKENS = 220
MAX_TOKENS = 300
_TOKEN = re.compile(r"\w+|[^\w\s]")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")


@dataclass(frozen=True)
class Passage:
    text: str
    locator: Locator
    ordinal: int  # 0-based position in the document


def tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


def chunk(segments: Sequence[Segment]) -> list[Passage]:
    passages: list[Passage] = []
    group: list[Segment] = []
    size = 0
    for segment in _pieces(segments):
        count = tokens(segment.text)
        joinable = group and _same_place(group[-1].locator, segment.locator)
        if group and (not joinable or size + count > TARGET_TOKENS):
            passages.append(_passage(group, len(passages)))
            group, size = [], 0
        group.append(segment)
        size += count
    if group:
        passages.append(_passage(group, len(passages)))
    return passages


def _same_place(a: Locator, b: Locator) -> bool:
    return a.page == b.page and a.heading == b.heading


def _pieces(segments: Iterable[Segment]) -> Iterator[Segment]:
    """Each segment, or, if it is too long for one passage, its sentences grouped to fit."""
    for segment in segments:
        if tokens(segment.text) <= MAX_TOKENS:
            yield segment
            continue
        piece: list[str] = []
        size = 0
        for sentence in _sentences(segment.text):
            count = tokens(sentence)
            if piece and size + count > TARGET_TOKENS:
                yield Segment(" ".join(piece), segment.locator)
                piece, size = [], 0
            piece.append(sentence)
            size += count
        if piece:
            yield Segment(" ".join(piece), segment.locator)


def _sentences(text: str) -> Iterator[str]:
    """Sentences, and any "sentence" still too long cut into runs of words."""
    for sentence in _SENTENCE_END.split(text):
        run: list[str] = []
        size = 0
        for word in _words(sentence):
            count = tokens(word)
            if run and size + count > MAX_TOKENS:
                yield " ".join(run)
                run, size = [], 0
            run.append(word)
            size += count
        if run:
            yield " ".join(run)


def _words(sentence: str) -> Iterator[str]:
    """Words; one longer than a passage (a pasted blob) comes in pieces, none of it dropped."""
    for word in sentence.split():
        if tokens(word) <= MAX_TOKENS:
            yield word
            continue
        piece = ""
        for token in _TOKEN.findall(word):
            if tokens(piece + token) > MAX_TOKENS // 2:
                yield piece
                piece = ""
            piece += token
        if piece:
            yield piece


def _passage(group: list[Segment], ordinal: int) -> Passage:
    first, last = group[0].locator, group[-1].locator
    locator = Locator(
        page=first.page,
        start_s=first.start_s,
        end_s=last.end_s if last.end_s is not None else first.end_s,
        heading=first.heading,
        line_start=first.line_start,
        line_end=last.line_end if last.line_end is not None else first.line_end,
        message=first.message,
    )
    return Passage("\n".join(segment.text for segment in group), locator, ordinal)
