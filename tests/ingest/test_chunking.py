"""Chunking: passages of about 200-300 tokens that never cross a heading or a page and keep
where they came from."""

from __future__ import annotations

from itertools import pairwise

from cairn.ingest.chunking import MAX_TOKENS, TARGET_TOKENS, chunk, tokens
from cairn.ingest.document import Locator, Segment
from cairn.ingest.textfile import extract


def _sentence(i: int) -> str:
    return f"Sentence number {i} says something about the garden and the weather."


def test_paragraphs_under_one_heading_are_joined_up_to_the_target() -> None:
    segments = [
        Segment(_sentence(i), Locator(heading=("A",), line_start=i + 1, line_end=i + 1))
        for i in range(60)
    ]
    passages = chunk(segments)
    assert len(passages) > 1
    assert all(tokens(p.text) <= TARGET_TOKENS for p in passages)
    assert [p.ordinal for p in passages] == list(range(len(passages)))
    # Nothing lost, nothing repeated, in order.
    assert "\n".join(p.text for p in passages) == "\n".join(s.text for s in segments)
    assert passages[0].locator.line_start == 1
    assert passages[-1].locator.line_end == 60
    assert all(a.locator.line_end + 1 == b.locator.line_start for a, b in pairwise(passages))


def test_headings_and_pages_are_never_crossed() -> None:
    segments = [
        Segment("one", Locator(heading=("A",))),
        Segment("two", Locator(heading=("B",))),
        Segment("three", Locator(page=1)),
        Segment("four", Locator(page=2)),
    ]
    assert [p.text for p in chunk(segments)] == ["one", "two", "three", "four"]


def test_time_ranges_are_joined_and_span_their_segments() -> None:
    segments = [
        Segment(f"words {i}", Locator(start_s=i * 5.0, end_s=i * 5.0 + 5)) for i in range(4)
    ]
    (passage,) = chunk(segments)
    assert (passage.locator.start_s, passage.locator.end_s) == (0.0, 20.0)


def test_a_segment_too_long_for_one_passage_is_cut_between_sentences() -> None:
    long = " ".join(_sentence(i) for i in range(80))
    passages = chunk([Segment(long, Locator(page=3))])
    assert len(passages) > 1
    assert all(tokens(p.text) <= MAX_TOKENS for p in passages)
    assert all(p.text.endswith(".") for p in passages)
    assert all(p.locator.page == 3 for p in passages)
    assert " ".join(p.text for p in passages) == long


def test_a_markdown_note_becomes_located_passages() -> None:
    note = "# Trip\n\nWe left at dawn.\n\n## Day two\n\nRain all day.\n"
    passages = chunk(extract(note.encode(), "trip.md").segments)
    assert [(p.text, p.locator.heading) for p in passages] == [
        ("Trip\nWe left at dawn.", ("Trip",)),
        ("Day two\nRain all day.", ("Trip", "Day two")),
    ]
