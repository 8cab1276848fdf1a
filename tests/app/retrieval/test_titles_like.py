"""The names a person may be typing after ``[[``: titles from the whole vault, in any case,
those that start with the text first, then a word's start, then anywhere; active memories only,
no sections of documents, only the scopes asked for."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.app.errors import InvalidRequest
from cairn.app.ingestion.request import IngestRequest
from cairn.app.retrieval.titles import (
    CONTAINS,
    STARTS,
    WORD_STARTS,
    like_pattern,
    match_rank,
    ranked,
)
from cairn.app.service import MemoryService

WORDS = [
    "kiln",
    "glaze",
    "harbour",
    "ferry",
    "orchard",
    "violin",
    "lantern",
    "pepper",
    "quarry",
    "meadow",
    "saddle",
    "tunnel",
    "compass",
    "walnut",
    "blanket",
    "pigeon",
    "ladder",
    "thimble",
    "cobalt",
    "marble",
    "fennel",
    "barley",
    "canoe",
]


def test_the_best_matches_come_first_in_any_case(service: MemoryService) -> None:
    for title in (
        "Advanced Queries",
        "Unqueried boxes",
        "Community/Query sprint",
        "Queries",
        "Query table",
        "Harbour lane",
    ):
        service.write("Topic", title)
    scopes = service.scopes()
    assert service.titles_like("Quer", scopes=scopes) == [
        "Queries",
        "Query table",
        "Advanced Queries",
        "Community/Query sprint",
        "Unqueried boxes",
    ]
    assert service.titles_like("QUER", scopes=scopes)[:1] == ["Queries"]
    assert service.titles_like("quer", scopes=scopes, limit=2) == ["Queries", "Query table"]
    assert service.titles_like("  ", scopes=scopes) == []
    with pytest.raises(InvalidRequest):
        service.titles_like("quer", scopes=scopes, limit=51)


def test_letters_beyond_ascii_match_in_any_case(service: MemoryService) -> None:
    service.write("Organization", "Über den Wolken GmbH")
    service.write("Place", "Ærøskøbing harbour")
    scopes = service.scopes()
    assert service.titles_like("über", scopes=scopes) == ["Über den Wolken GmbH"]
    assert service.titles_like("ÆRØ", scopes=scopes) == ["Ærøskøbing harbour"]
    assert service.titles_like("wolken", scopes=scopes) == ["Über den Wolken GmbH"]


def test_wildcards_typed_are_only_characters(service: MemoryService) -> None:
    service.write("Fact", "Battery at 100% after the night", "The charger works.")
    service.write("Fact", "Battery at 1000 cycles", "Worn, but it holds.")
    service.write("Topic", "snake_case names")
    scopes = service.scopes()
    assert service.titles_like("100%", scopes=scopes) == ["Battery at 100% after the night"]
    assert service.titles_like("e_c", scopes=scopes) == ["snake_case names"]


def test_only_active_memories_and_no_sections_in_the_scopes_asked(
    service: MemoryService, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "Lantern festival.md").write_text(
        "# Lantern festival\n\n## Lantern route\n\nFrom the harbour to the old mill.\n",
        encoding="utf-8",
    )
    assert not service.ingest(IngestRequest.of([notes])).failed
    archived = service.write("Note", "Lantern repair", "Replace the wick.").node
    assert archived is not None
    service.archive(archived.id, scopes=service.scopes())
    service.add_scope("work")
    service.write("Note", "Lantern order for the shop", "Forty lanterns.", scope="work")
    # The note file, not its sections; not the archived note; not the other scope's note.
    assert service.titles_like("lantern", scopes=["personal"]) == ["Lantern festival"]
    assert service.titles_like("lantern", scopes=["personal", "work"]) == [
        "Lantern festival",
        "Lantern order for the shop",
    ]


@pytest.mark.slow
def test_a_title_older_than_the_newest_five_hundred_is_found(service: MemoryService) -> None:
    scopes = service.scopes()
    service.write("Note", "Queries", "How the query language finds blocks.")
    pick = random.Random(7)
    for number in range(510):
        words = " ".join(pick.sample(WORDS, 6))
        service.write("Note", f"{words} {number}", f"{words}, entry {number}.")
    newest = service.list_memories(scopes=scopes, limit=500)
    assert "Queries" not in {node.title for node in newest}  # what [[ used to offer
    assert service.titles_like("Quer", scopes=scopes)[0] == "Queries"


def test_ranks_and_patterns() -> None:
    assert match_rank("que", "Queries") == STARTS
    assert match_rank("que", "foam-queries") == WORD_STARTS
    assert match_rank("que", "Unqueried") == CONTAINS
    assert match_rank("que", "Harbour") is None
    assert like_pattern("100%_x\\") == "100\\%\\_x\\\\"
    assert like_pattern("Über") == "_ber"


@given(st.text(min_size=1, max_size=4), st.lists(st.text(max_size=12), max_size=12))
def test_ranked_keeps_each_match_once_best_tier_first(typed: str, titles: list[str]) -> None:
    result = ranked(typed, titles)
    expected = {t for t in titles if typed.casefold() in t.casefold()}
    assert sorted(result) == sorted(expected)
    tiers = [match_rank(typed, title) for title in result]
    assert tiers == sorted(tiers)  # type: ignore[type-var]


def test_a_name_linked_before_it_was_described_is_offered_too(service: MemoryService) -> None:
    service.write("Note", "Levee", "The levee held during [[Spring floods]].")
    assert "Spring floods" in service.titles_like("spring", scopes=service.scopes())
