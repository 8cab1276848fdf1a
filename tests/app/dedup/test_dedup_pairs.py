"""The dedup gate on the labelled pair set (tests/data/dedup_pairs.json, 249 pairs), through the
real write path: the hard lines of the issue hold on every run.

- no contradiction (a number, a date or a negation that differs) is ever absorbed;
- paraphrases are caught (absorbed, merge-linked or held for review) at least 90% of the time;
- nothing unrelated is absorbed or merge-linked, nothing new is absorbed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from bench.dedup_quality import CONTRADICTIONS, caught_rate, confusion, load_pairs, run_pairs
from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.service import MemoryService
from tests.conftest import PASSPHRASE


@pytest.fixture(scope="module")
def service_for_module(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder
) -> Iterator[MemoryService]:
    """One vault for the module: each pair is written into a scope of its own."""
    path = tmp_path_factory.mktemp("pairs") / "pairs.cairn"
    with compose.create_vault(path, PASSPHRASE, embedder=embedder) as service:
        yield service


@pytest.fixture(scope="module")
def table(service_for_module: MemoryService) -> dict[str, Counter[str]]:
    return confusion(run_pairs(service_for_module, load_pairs()))


def test_the_pair_set_is_large_and_covers_every_kind() -> None:
    pairs = load_pairs()
    kinds = Counter(pair["kind"] for pair in pairs)
    assert len(pairs) >= 200
    assert set(kinds) >= {"restatement", "paraphrase", *CONTRADICTIONS, "new_information"}
    assert min(kinds.values()) >= 10


def test_no_contradiction_is_ever_absorbed(table: dict[str, Counter[str]]) -> None:
    for kind in CONTRADICTIONS:
        assert table[kind]["absorbed"] == 0, kind


def test_contradictions_that_reach_the_same_topic_band_are_flagged(
    service_for_module: MemoryService,
) -> None:
    service_for_module.add_scope("flagged")
    service_for_module.write("Fact", "The rent is 900 euros a month.", scope="flagged")
    second = service_for_module.write("Fact", "The rent is 950 euros a month.", scope="flagged")
    assert second.outcome == "merge_linked"
    assert second.flags == ("possible_contradiction",)
    assert second.suggestion is not None and "supersede" in second.suggestion


def test_paraphrases_and_restatements_are_caught(table: dict[str, Counter[str]]) -> None:
    assert caught_rate(table, "paraphrase") >= 0.90
    assert caught_rate(table, "restatement") >= 0.90


def test_new_or_unrelated_memories_are_never_folded_away(table: dict[str, Counter[str]]) -> None:
    assert table["new_information"]["absorbed"] == 0
    assert table["distinct_event"]["absorbed"] == 0
    assert table["unrelated"]["absorbed"] == table["unrelated"]["merge_linked"] == 0


def test_memories_alike_only_in_form_are_kept_apart(table: dict[str, Counter[str]]) -> None:
    # Turns under a speaker-and-date title, notes under one pattern title, and events that
    # differ in a date, a person, a place, a number or a negation are two memories: never
    # absorbed, and hardly ever asked about (the few left are events that differ in a detail
    # no slot names: "the broken heater" / "the leaking roof").
    for kind in ("distinct_turn", "templated_title", "distinct_event"):
        row = table[kind]
        assert row["absorbed"] == 0, kind
        assert row["inserted"] >= 0.7 * sum(row.values()), (kind, dict(row))
    assert table["templated_title"]["inserted"] == sum(table["templated_title"].values())


def test_restatements_in_a_conversation_are_still_caught(table: dict[str, Counter[str]]) -> None:
    assert caught_rate(table, "conversational_restatement") == 1.0
    assert caught_rate(table, "restatement") == 1.0
