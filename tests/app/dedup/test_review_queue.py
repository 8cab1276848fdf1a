"""The dedup gate's verdicts and the review queue: possible duplicates, kept searchable and
marked awaiting review, settled as distinct or merged; dismissed label conflicts, absorbed
restatements, guarded contradictions and the dedup log (real vault, real model)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.errors import InvalidRequest, ReviewItemNotFound
from cairn.app.ingestion.request import IngestRequest
from cairn.app.models import AwaitingReview
from cairn.app.service import MemoryService
from cairn.storage import dedup_rows, graph_rows
from cairn.storage.schema import SCHEMA_VERSION, schema_version
from cairn.storage.vault import Vault
from tests.conftest import open_service

ALL = ["personal"]
# Two wordings of one fact whose cosine (about 0.85) lies between the default bands.
RENT = ("Rent", "The rent for the flat is 900 euros a month.")
RENT_REWORDED = ("Rent", "Our monthly rent for the apartment comes to 900 euros.")
# A restatement with one word more (cosine about 0.98, word overlap 9/11).
RENT_AGREED = ("Rent", "The rent for the flat is 900 euros a month, as agreed.")
# A near miss (cosine about 0.88, mid-band) with no date, figure or event that would make the
# gate read the two as different things: it waits for review.
KEY = ("Spare key", "The spare house key is under the blue flower pot.")
KEY_REWORDED = ("Hidden key", "A spare key to the house sits beneath the blue plant pot.")
KEY_QUERY = "spare key house plant pot"


def _ids(service: MemoryService, query: str, scopes: list[str] = ALL) -> list[str]:
    return [hit.id for hit in service.search(query, scopes=scopes).results]


def _text_hits(service: MemoryService, query: str) -> list[str]:
    """Hits the full-text leg found: the words are in the memory, not merely near it."""
    results = service.search(query, scopes=ALL).results
    return [hit.id for hit in results if hit.ranks["text"] is not None]


def _edges(service: MemoryService, node_id: str) -> list[tuple[str, str]]:
    detail = service.get([node_id], scopes=ALL).nodes[0]
    return sorted((e.type, e.other_id) for e in detail.edges)


def _decisions(vault: Vault) -> list[dict]:
    with vault.read() as conn:
        return dedup_rows.decisions(conn)


def _node_count(vault: Vault) -> int:
    with vault.read() as conn:
        return graph_rows.node_count(conn)


def _pending_pair(service: MemoryService, scope: str = "personal"):
    first = service.write("Note", *KEY, scope=scope)
    second = service.write("Note", *KEY_REWORDED, scope=scope)
    assert first.outcome == "inserted"
    assert second.outcome == "pending", second.matched
    return first, second


# -- pending verdicts -------------------------------------------------------------------------


def test_a_near_paraphrase_is_kept_searchable_and_awaits_review(service: MemoryService) -> None:
    first, second = _pending_pair(service)
    settings = service.settings()
    assert second.verdict is not None
    # Nothing a person writes is invisible: stored active at once, with its review item open.
    assert second.node.status == "active"
    assert second.node.id != first.node.id
    assert second.matched is not None
    assert second.matched.id == first.node.id
    assert settings["dedup_low"] <= second.matched.score < settings["dedup_high"]
    assert "absorbed" not in second.outcome
    response = service.search(KEY_QUERY, scopes=ALL)
    marks = {hit.id: hit.awaiting_review for hit in response.results}
    assert marks[second.node.id] is True
    assert marks[first.node.id] is False
    assert {h["id"]: h["awaiting_review"] for h in response.as_dict()["results"]} == marks
    hit = next(h for h in response.results if h.id == second.node.id)
    assert hit.ranks["vector"] is not None and hit.ranks["text"] is not None
    detail = service.get([second.node.id], scopes=ALL).nodes[0]
    assert detail.node.status == "active"
    assert detail.awaiting_review == AwaitingReview(
        item=second.verdict,
        other_id=first.node.id,
        other_title=first.node.title,
        reason=second.matched.reason,
    )
    assert detail.as_dict()["awaiting_review"] == detail.awaiting_review.as_dict()
    assert service.get([first.node.id], scopes=ALL).nodes[0].as_dict()["awaiting_review"] is None
    # Counted like any active memory.
    assert service.stats(scopes=ALL).nodes_by_status == {"active": 2}


def test_a_memory_awaiting_review_is_linked_and_traversed(service: MemoryService) -> None:
    _, second = _pending_pair(service)
    ana = service.write("Person", "Ana Ruiz", "Our landlady.").node
    service.link(second.node.id, ana.id, "involves", scopes=ALL)
    reached = service.traverse(ana.id, scopes=ALL).nodes
    assert second.node.id in [n.id for n in reached]


def test_an_older_vaults_pending_memory_is_visible_after_the_upgrade(
    service: MemoryService, vault: Vault, vault_path: Path, embedder: MiniLMEmbedder
) -> None:
    first, second = _pending_pair(service)
    stray = service.write("Note", "Bike", "The bike lock code is on a card in the drawer.").node
    # As a vault before schema 10 kept them: a possible duplicate out of sight as 'pending'
    # with its review item open, and (nothing may stay hidden) one without an item.
    with vault.write() as conn:
        conn.execute(
            "UPDATE nodes SET status = 'pending' WHERE id IN (?, ?)", (second.node.id, stray.id)
        )
        # Schema 10 made pending memories active; schema 11 (compact vectors) and 12 (what a
        # merge keeps for its undo) came after it.
        conn.execute("ALTER TABLE embedding_spaces DROP COLUMN encoding")
        conn.execute("DROP TABLE merges")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 3}")
    assert second.node.id not in _ids(service, KEY_QUERY)
    service.close()

    with open_service(vault_path, embedder) as (upgraded, upgraded_vault):
        with upgraded_vault.read() as conn:
            assert schema_version(conn) == SCHEMA_VERSION
        hits = upgraded.search(KEY_QUERY, scopes=ALL).results
        hit = next(h for h in hits if h.id == second.node.id)
        assert hit.status == "active" and hit.awaiting_review
        assert hit.ranks["vector"] is not None  # the vector index loaded the new status
        assert stray.id in [h.id for h in upgraded.search("bike lock code", scopes=ALL).results]
        [item] = upgraded.pending(scopes=ALL)
        assert (item.id, item.state, item.node.status) == (second.verdict, "open", "active")
        assert upgraded.stats(scopes=ALL).nodes_by_status == {"active": 3}
        kept = upgraded.resolve_duplicate(second.verdict, "distinct", scopes=ALL)
        assert kept.node.status == "active"
        assert ("relates_to", first.node.id) in _edges(upgraded, second.node.id)


def test_pending_lists_the_item_with_both_previews(service: MemoryService) -> None:
    first, second = _pending_pair(service)
    items = service.pending(scopes=ALL)
    assert len(items) == 1
    item = items[0]
    assert item.id == second.verdict
    assert item.kind == "duplicate"
    assert item.state == "open"
    assert item.decision is None
    assert item.score == second.matched.score
    assert item.node.id == second.node.id
    assert item.node.status == "active"
    assert item.node.text == KEY_REWORDED[1]
    assert item.other.id == first.node.id
    assert item.other.status == "active"
    assert item.other.text == KEY[1]
    assert item.node.shelf == item.other.shelf == "Note"
    assert service.pending(scopes=ALL, kinds=["duplicate"]) == items
    assert service.pending(scopes=ALL, kinds=["label_conflict"]) == []
    assert service.briefing(scopes=ALL).review_count == 1
    with pytest.raises(InvalidRequest):
        service.pending(scopes=ALL, kinds=["duplicates"])


def test_distinct_keeps_both_joined_by_relates_to(service: MemoryService, vault: Vault) -> None:
    first, second = _pending_pair(service)
    result = service.resolve_duplicate(second.verdict, "distinct", scopes=ALL)
    assert result.outcome == "distinct"
    assert result.node.id == second.node.id
    assert result.node.status == "active"
    assert result.degree == 1
    assert _edges(service, second.node.id) == [("relates_to", first.node.id)]
    assert service.get([first.node.id], scopes=ALL).nodes[0].node.status == "active"
    assert service.pending(scopes=ALL) == []
    hits = service.search(KEY_QUERY, scopes=ALL).results
    assert {first.node.id, second.node.id} <= {hit.id for hit in hits}
    assert not any(hit.awaiting_review for hit in hits)  # settled: the mark is gone
    assert service.get([second.node.id], scopes=ALL).nodes[0].awaiting_review is None
    log = _decisions(vault)[0]
    assert (log["node_id"], log["outcome"]) == (second.node.id, "resolved: distinct")
    with pytest.raises(InvalidRequest, match="already settled"):
        service.resolve_duplicate(second.verdict, "merge", scopes=ALL)


def test_merge_folds_the_memory_awaiting_review_into_the_kept_one(
    service: MemoryService,
    vault: Vault,
) -> None:
    first, second = _pending_pair(service)
    ana = service.write("Person", "Ana Ruiz", "Our landlady.").node
    service.link(second.node.id, ana.id, "involves", scopes=ALL, rationale="she collects it")
    # Searchable while it waited, it was used (the link counts as a use of both).
    uses = {
        d.node.id: d.node.access_count
        for d in service.get([first.node.id, second.node.id], scopes=ALL, use=False).nodes
    }
    assert uses[second.node.id] >= 1
    assert second.node.id in _ids(service, "beneath")
    before = _node_count(vault)

    result = service.resolve_duplicate(second.verdict, "merge", scopes=ALL)
    assert result.outcome == "merged"
    assert result.node.id == first.node.id
    assert result.node.status == "active"
    assert _node_count(vault) == before - 1
    # The old id still leads somewhere: to the kept memory.
    got = service.get([second.node.id], scopes=ALL)
    assert got.missing == []
    kept = got.nodes[0]
    assert kept.node.id == first.node.id
    assert kept.requested_as == second.node.id
    assert kept.merged_ids == [second.node.id]
    # Its text is an addendum, and searchable.
    assert any("beneath" in a.text for a in kept.addenda)
    assert [a.origin for a in kept.addenda] == ["merged"]
    assert first.node.id in _text_hits(service, "beneath")
    assert second.node.id not in _ids(service, "beneath")
    # Its edges moved over.
    assert ("involves", ana.id) in _edges(service, first.node.id)
    assert result.degree == 1
    assert service.pending(scopes=ALL) == []
    # Its uses count for the memory that remains.
    kept_uses = service.get([first.node.id], scopes=ALL, use=False).nodes[0].node.access_count
    assert kept_uses >= uses[first.node.id] + uses[second.node.id]
    assert not any(h.awaiting_review for h in service.search(KEY_QUERY, scopes=ALL).results)


def test_a_write_repeating_a_merged_memory_is_then_compared_with_the_kept_one(
    service: MemoryService,
) -> None:
    # With the high band above a restatement's 0.98, a write that restates the memory awaiting
    # review waits for review against it: it is the nearest memory, since it is searchable.
    service.change_setting("dedup_high", 0.99)
    first, second = _pending_pair(service)
    third = service.write("Note", "Hidden key", KEY_REWORDED[1].rstrip(".") + ", as agreed.")
    assert third.outcome == "pending", third.matched
    assert third.matched.id == second.node.id
    service.resolve_duplicate(second.verdict, "merge", scopes=ALL)
    [item] = service.pending(scopes=ALL)
    assert item.id == third.verdict
    assert (item.node.id, item.other.id) == (third.node.id, first.node.id)
    assert service.get([third.node.id], scopes=ALL).nodes[0].awaiting_review.other_id == (
        first.node.id
    )


def test_resolving_a_merged_item_again_is_an_error(service: MemoryService) -> None:
    _, second = _pending_pair(service)
    service.resolve_duplicate(second.verdict, "merge", scopes=ALL)
    # The settled item outlives the memory merged away, and says it was settled.
    with pytest.raises(InvalidRequest, match="already settled"):
        service.resolve_duplicate(second.verdict, "merge", scopes=ALL)
    with pytest.raises(InvalidRequest, match="already settled"):
        service.resolve_duplicate(second.verdict, "distinct", scopes=ALL)


def test_unknown_items_and_decisions_are_refused(service: MemoryService) -> None:
    _, second = _pending_pair(service)
    with pytest.raises(ReviewItemNotFound):
        service.resolve_duplicate("01J00000000000000000000000", "merge", scopes=ALL)
    with pytest.raises(ReviewItemNotFound):
        service.dismiss("01J00000000000000000000000", scopes=ALL)
    with pytest.raises(InvalidRequest):
        service.resolve_duplicate(second.verdict, "keep both", scopes=ALL)
    assert [i.id for i in service.pending(scopes=ALL)] == [second.verdict]


def test_review_items_are_scoped(service: MemoryService) -> None:
    service.add_scope("work")
    _, second = _pending_pair(service, scope="work")
    assert service.pending(scopes=ALL) == []
    assert service.briefing(scopes=ALL).review_count == 0
    with pytest.raises(ReviewItemNotFound):
        service.resolve_duplicate(second.verdict, "merge", scopes=ALL)
    assert [i.id for i in service.pending(scopes=["work"])] == [second.verdict]
    assert service.resolve_duplicate(second.verdict, "distinct", scopes=["work"]).outcome == (
        "distinct"
    )


def test_memories_in_other_scopes_are_never_duplicates(service: MemoryService) -> None:
    service.add_scope("work")
    service.write("Note", *RENT)
    again = service.write("Note", *RENT, scope="work")
    assert again.outcome == "inserted"
    assert again.matched is None


def test_a_dismissed_label_conflict_closes_and_keeps_both(service: MemoryService) -> None:
    person = service.write("Person", "Jordan").node
    place = service.write("Place", "Jordan").node
    [item] = service.pending(scopes=ALL)
    assert item.kind == "label_conflict"
    closed = service.dismiss(item.id, scopes=ALL)
    assert (closed.state, closed.decision) == ("resolved", "dismissed")
    assert service.pending(scopes=ALL) == []
    got = service.get([person.id, place.id], scopes=ALL)
    assert [d.node.status for d in got.nodes] == ["active", "active"]
    with pytest.raises(InvalidRequest, match="already settled"):
        service.dismiss(item.id, scopes=ALL)


def test_a_duplicate_is_not_dismissed_into_limbo(service: MemoryService) -> None:
    # Regression: dismissing a duplicate closed it and left its memory pending for good.
    _, second = _pending_pair(service)
    with pytest.raises(InvalidRequest, match="resolve_duplicate"):
        service.dismiss(second.verdict, scopes=ALL)
    assert [i.id for i in service.pending(scopes=ALL)] == [second.verdict]


def test_merging_into_an_archived_entity_revives_it(service: MemoryService) -> None:
    mill = service.write("Place", "Old Mill", "The mill by the river.").node
    service.archive(mill.id, scopes=ALL)
    again = service.write("Place", "Old Mill", attrs={"address": "Mill Lane 1"})
    [item] = service.pending(scopes=ALL, kinds=["revive_candidate"])
    result = service.resolve_duplicate(item.id, "merge", scopes=ALL)
    assert result.node.id == mill.id
    assert result.node.status == "active"
    assert result.node.attrs == {"address": "Mill Lane 1"}
    assert service.get([again.node.id], scopes=ALL).nodes[0].requested_as == again.node.id


# -- absorbed, merge-linked, contradictions ---------------------------------------------------


def test_the_same_note_twice_is_absorbed(service: MemoryService, vault: Vault) -> None:
    first = service.write("Note", *RENT)
    again = service.write("Note", *RENT)
    assert again.outcome == "absorbed"
    assert again.node.id == first.node.id
    assert again.matched is not None
    assert again.matched.id == first.node.id
    assert again.matched.jaccard == 1.0
    assert again.matched.score >= service.settings()["dedup_high"]
    assert again.verdict is None
    assert again.flags == ()
    assert _node_count(vault) == 1
    # Word for word: nothing to keep beside it.
    assert service.get([first.node.id], scopes=ALL).nodes[0].addenda == []
    assert again.resonance == []  # never itself, nor what it matched


def test_a_near_restatement_is_absorbed_with_a_searchable_addendum(
    service: MemoryService,
    vault: Vault,
) -> None:
    first = service.write("Note", *RENT)
    again = service.write("Note", *RENT_AGREED)
    assert again.outcome == "absorbed"
    assert again.node.id == first.node.id
    assert again.matched.jaccard >= service.settings()["dedup_jaccard"]
    assert _node_count(vault) == 1
    addenda = service.get([first.node.id], scopes=ALL).nodes[0].addenda
    assert [a.origin for a in addenda] == ["absorbed"]
    assert "as agreed" in addenda[0].text
    assert _text_hits(service, "agreed") == [first.node.id]


def test_a_changed_number_is_never_absorbed(service: MemoryService, vault: Vault) -> None:
    first = service.write("Note", "Rent", "The rent is 900 euros a month.")
    changed = service.write("Note", "Rent", "The rent is 950 euros a month.")
    assert changed.outcome in ("merge_linked", "pending")
    assert changed.node.id != first.node.id
    assert "possible_contradiction" in changed.flags
    assert changed.suggestion is not None
    assert "supersede" in changed.suggestion
    assert first.node.id in changed.suggestion
    assert _node_count(vault) == 2
    if changed.outcome == "merge_linked":
        assert _edges(service, changed.node.id) == [("same_topic", first.node.id)]
        assert changed.degree == 1
    else:
        assert service.pending(scopes=ALL)[0].flags == ["possible_contradiction"]


def test_the_contradiction_guard_holds_whatever_the_overlap_setting(
    service: MemoryService,
    vault: Vault,
) -> None:
    # Word overlap 0.75: absorbed at a 0.5 threshold, were it not for the changed number.
    service.change_setting("dedup_jaccard", 0.5)
    first = service.write("Note", "Rent", "The rent is 900 euros a month.")
    changed = service.write("Note", "Rent", "The rent is 950 euros a month.")
    assert changed.outcome != "absorbed"
    assert changed.node.id != first.node.id
    assert "possible_contradiction" in changed.flags
    assert _decisions(vault)[0]["flags"] == ["possible_contradiction"]


def test_the_bands_are_per_vault_settings(service: MemoryService) -> None:
    with pytest.raises(InvalidRequest):
        service.change_setting("dedup_high", 1.5)
    with pytest.raises(InvalidRequest):
        service.change_setting("dedup_low", 0.99)  # above dedup_high
    with pytest.raises(InvalidRequest):
        service.change_setting("entity_mode", "refuse")
    with pytest.raises(InvalidRequest):
        service.change_setting("no_such_setting", 1)
    assert service.settings()["dedup_high"] == 0.95
    # A restatement at cosine 0.98 waits for review when the high band is above it ...
    assert service.change_setting("dedup_high", 0.99)["dedup_high"] == 0.99
    service.write("Note", *RENT)
    assert service.write("Note", *RENT_AGREED).outcome == "pending"


def test_a_paraphrase_above_a_lowered_high_band_is_merge_linked(service: MemoryService) -> None:
    # ... and a paraphrase at 0.85 is the same topic, with new words, below a high band of 0.8.
    service.change_setting("dedup_high", 0.8)
    first = service.write("Note", *RENT)
    second = service.write("Note", *RENT_REWORDED)
    assert second.outcome == "merge_linked"
    assert second.node.status == "active"
    assert second.flags == ()
    assert second.verdict is None
    assert _edges(service, second.node.id) == [("same_topic", first.node.id)]


# -- the dedup log ----------------------------------------------------------------------------


def test_every_write_leaves_a_row_in_the_dedup_log(service: MemoryService, vault: Vault) -> None:
    first = service.write("Note", *RENT)
    second = service.write("Note", *RENT_REWORDED)
    third = service.write("Note", *RENT)
    person = service.write("Person", "Ana Ruiz")
    again = service.write("Person", "ana ruiz")
    rows = list(reversed(_decisions(vault)))
    assert [(r["node_id"], r["outcome"]) for r in rows] == [
        (first.node.id, "inserted"),
        (second.node.id, "pending"),
        (first.node.id, "absorbed"),
        (person.node.id, "inserted"),
        (again.node.id, "absorbed"),
    ]
    assert third.node.id == first.node.id
    assert rows[0]["candidate_id"] is None
    assert rows[1]["candidate_id"] == first.node.id
    assert rows[1]["score"] == second.matched.score
    assert rows[1]["jaccard"] == pytest.approx(second.matched.jaccard, abs=1e-4)
    assert rows[2]["jaccard"] == 1.0
    assert all(r["reason"] for r in rows)
    with vault.read() as conn:
        assert len(dedup_rows.decisions(conn, first.node.id)) == 3  # as node or candidate


def test_a_pair_of_note_files_is_shown_as_notes(service: MemoryService, tmp_path: Path) -> None:
    """A note read from a file is a Note to the person, in review as on the shelves."""
    folder = tmp_path / "notes"
    folder.mkdir()
    plan = (
        "# Garden plan\n\nLena Vos suggested moving the herb bed next to the pond. The "
        "tomatoes need more sun; try the south wall. Order seeds from Green Acre Ltd before "
        "March.\n\n## Watering\n\nWater early in the morning. The rain barrel holds 200 litres."
    )
    for number in range(3):  # a letter that repeats the plan, written again and again
        (folder / f"letter-{number}.md").write_text(f"# Letter {number}\n\n" + plan * 3)
    service.ingest(IngestRequest.of([folder]))
    items = service.pending(scopes=ALL, kinds=["duplicate"])
    assert items, "letters that repeat each other wait for review"
    for item in items:
        assert item.node is not None and item.other is not None
        assert (item.node.type, item.node.shelf) == ("Document", "Note")
        assert item.other.shelf == "Note"
