"""Hybrid search through the service: both legs, determinism, limits, snippets."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.errors import InvalidRequest
from cairn.app.service import MemoryService
from tests.conftest import PASSPHRASE

ALL = ["personal"]

NOTES = [
    ("Dentist appointment", "Check-up with Dr. Lind on Tuesday at 9."),
    ("Sourdough starter", "Feed the starter twice a day with rye flour."),
    ("Bike maintenance", "Chain needs oil; rear brake pads are worn."),
    ("Tax return", "Send the receipts for the home office deduction."),
    ("Holiday plan", "Train to Lyon, then hiking in the Vercors."),
    ("Plumber", "Leaking pipe under the kitchen sink."),
]


@pytest.fixture
def filled(service: MemoryService) -> MemoryService:
    for title, body in NOTES:
        service.write("Note", title, body)
    return service


def test_a_fact_stored_only_as_an_attribute_is_found(service: MemoryService) -> None:
    person = service.write("Person", "Jo Marsh", attrs={"occupation": "nurse"}).node
    hits = service.search("nurse", scopes=ALL).results
    assert hits[0].id == person.id
    assert hits[0].ranks["text"] == 1


def test_meaning_without_shared_words_comes_from_the_vector_leg(filled: MemoryService) -> None:
    hits = filled.search("bread baking", scopes=ALL).results
    assert hits[0].title == "Sourdough starter"
    assert hits[0].ranks["text"] is None
    assert hits[0].ranks["vector"] == 1


def test_words_without_the_vector_leg(vault_path: Path) -> None:
    with compose.create_vault(vault_path, PASSPHRASE, with_embedder=False) as svc:
        svc.write("Note", "Plumber", "Leaking pipe under the kitchen sink.")
        response = svc.search("kitchen pipe", scopes=ALL)
        assert response.vector_search is False
        assert response.notes
        assert [h.title for h in response.results] == ["Plumber"]
        assert response.results[0].highlights


def test_snippet_highlights_the_matched_words(filled: MemoryService) -> None:
    hit = filled.search("brake", scopes=ALL).results[0]
    assert hit.title == "Bike maintenance"
    assert [hit.snippet[a:b].lower() for a, b in hit.highlights] == ["brake"]


def test_same_vault_same_query_same_order(
    filled: MemoryService, vault_path: Path, embedder: MiniLMEmbedder
) -> None:
    """Invariant I7, across calls and across a reopen."""
    # Identical texts make ties that only the tie-break can order (the dedup gate would fold
    # them into one, so it is skipped here).
    copies = [
        filled.write("Note", "Same note", "Identical words in every copy.", dedup=False).node.id
        for _ in range(8)
    ]
    queries = ["identical words", "kitchen", "train hiking", "receipts"]
    first = {q: [h.id for h in filled.search(q, scopes=ALL, limit=25).results] for q in queries}
    again = {q: [h.id for h in filled.search(q, scopes=ALL, limit=25).results] for q in queries}
    assert first == again
    filled.close()
    with compose.open_vault(vault_path, PASSPHRASE, embedder=embedder) as reopened:
        after = {
            q: [h.id for h in reopened.search(q, scopes=ALL, limit=25).results] for q in queries
        }
    assert after == first
    # Equal scores: newer first. The copies are identical, so read-time collapse shows only
    # the newest (the others are listed under it, see test_retrieval_complete).
    assert first["identical words"][0] == copies[-1]
    assert not set(copies[:-1]) & set(first["identical words"])


def test_limit_is_between_1_and_25(filled: MemoryService) -> None:
    assert len(filled.search("the", scopes=ALL, limit=2).results) <= 2
    for bad in (0, 26):
        with pytest.raises(InvalidRequest):
            filled.search("x", scopes=ALL, limit=bad)


def test_query_syntax_is_never_an_error(filled: MemoryService) -> None:
    for query in ['"unbalanced', "NEAR(", "a AND OR", "text:foo", "*", "", "   ", "(()"]:
        filled.search(query, scopes=ALL)


def test_a_hit_as_json_data_is_the_dataclass_field_for_field(filled: MemoryService) -> None:
    response = filled.search("starter rye flour", scopes=ALL, diagnostics=True)
    hit = response.results[0]
    data = hit.as_dict()
    expected = asdict(hit)
    expected["highlights"] = [list(span) for span in hit.highlights]
    assert data == expected and list(data) == list(expected)
    assert data["highlights"] and data["diagnostics"] is not None
    # A copy: changing the data leaves the hit as it was.
    data["ranks"]["text"] = None
    data["collapsed"].append("x")
    data["diagnostics"]["collapsed"].append("x")
    assert hit.ranks["text"] is not None
    assert hit.collapsed == [] and hit.diagnostics is not None
    assert hit.diagnostics["collapsed"] == []
