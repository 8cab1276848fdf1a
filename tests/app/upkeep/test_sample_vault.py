"""The sample vault: written into the open vault through the write path, every memory marked as
the sample's, and removed in one step without anything of the person's."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.errors import InvalidRequest
from cairn.app.service import MemoryService
from cairn.app.upkeep import sample_data
from cairn.app.upkeep.sample_vault import SOURCE
from cairn.storage import graph_rows
from cairn.storage.vault import Vault
from tests.conftest import create_service

EVERY_STATUS = ["active", "stub", "superseded", "archived"]
SAMPLE = sample_data.memories(date.today())
SAMPLE_TITLES = {memory.title for memory in SAMPLE}


def _everything(service: MemoryService) -> list:
    return service.list_memories(scopes=service.scopes(), statuses=EVERY_STATUS, limit=500)


def _titles(service: MemoryService, query: str) -> list[str]:
    return [hit.title for hit in service.search(query, scopes=service.scopes(), limit=10).results]


def test_the_sample_is_a_small_world_that_search_the_graph_and_review_can_show(
    service: MemoryService,
) -> None:
    scopes = service.scopes()
    assert not service.sample_in_vault()
    added = service.add_sample()
    assert service.sample_in_vault()
    memories = _everything(service)
    assert len(memories) == len(added.written) == len(SAMPLE)
    assert {m.source for m in memories} == {SOURCE}
    assert {m.title for m in memories} == SAMPLE_TITLES
    assert sum(m.type == "Person" for m in memories) == 3

    # The [[links]] of a note are edges to the people and places it names.
    [visit] = [m for m in memories if m.title == "Site visit at the footbridge"]
    linked = {e.other_title for e in service.get([visit.id], scopes=scopes).nodes[0].edges}
    assert {"Old Mill Footbridge", "Ottilie Brask", "Spring floods"} <= linked
    # The project reaches its people, place, commitment and event.
    reach = service.traverse(added.project_id, scopes=scopes, depth=1)
    assert {"Ottilie Brask", "Old Mill Footbridge", "Send the load test plan to Kasimir"} <= {
        n.title for n in reach.nodes
    }
    # A fact that changed: the old one is history, found by what it said as of last year.
    [limit] = [m for m in memories if m.type == "Fact" and m.status == "active"]
    chain = service.history(limit.id, scopes=scopes).chain
    assert [e.status for e in chain] == ["superseded", "active"]
    assert "5 tonnes" in chain[0].body and "3 tonnes" in chain[1].body
    year_ago = (date.today() - timedelta(days=365)).isoformat()
    then = service.search("footbridge load limit", scopes=scopes, as_of=year_ago).results
    assert then[0].id == chain[0].id
    # A commitment due within the week, a possible duplicate and a name to describe.
    briefing = service.briefing(scopes=scopes)
    assert [d.title for d in briefing.due] == ["Send the load test plan to Kasimir"]
    assert [s.title for s in briefing.stubs_to_enrich] == ["Spring floods"]
    [pending] = service.pending(scopes=scopes, kinds=["duplicate"])
    assert added.held_for_review
    assert pending.node is not None and pending.node.title == "Site visit, typed up later"
    assert pending.other is not None and pending.other.title == "Site visit at the footbridge"
    # Found by meaning, not only by its words.
    assert _titles(service, "weight limit")[0] == "Footbridge load limit"
    assert _titles(service, "engineer")[0] == "Ottilie Brask"


def test_the_sample_is_written_once_and_removed_once(service: MemoryService) -> None:
    service.add_sample()
    with pytest.raises(InvalidRequest, match="already in this vault"):
        service.add_sample()
    service.remove_sample()
    with pytest.raises(InvalidRequest, match="no sample to remove"):
        service.remove_sample()
    # Removed, it can be tried again.
    assert len(service.add_sample().written) == len(SAMPLE)


def test_removing_the_sample_leaves_every_memory_of_the_persons_with_its_text(
    service: MemoryService,
) -> None:
    scopes = service.scopes()
    before = service.write("Note", "Kiln schedule", "Fire the kiln to cone 6 on Friday.").node
    assert before is not None
    service.add_sample()
    # A note of theirs that links to a sample person, by [[link]] and by hand.
    note = service.write(
        "Note",
        "Glaze idea",
        "Ask [[Ottilie Brask]] whether celadon survives a kiln at cone 10.",
    ).node
    assert note is not None
    [hedda] = [m for m in _everything(service) if m.title == "Hedda Quill"]
    service.link(note.id, hedda.id, "mentions", scopes=scopes)
    linked = {e.other_title for e in service.get([note.id], scopes=scopes).nodes[0].edges}
    assert {"Ottilie Brask", "Hedda Quill"} <= linked
    sample_ids = [m.id for m in _everything(service) if m.source == SOURCE]

    removed = service.remove_sample()

    assert removed.forgotten == len(SAMPLE) and removed.kept == 0
    assert sorted(removed.ids) == sorted(sample_ids)
    assert "Your own memories stay" in removed.sentence()
    assert not service.sample_in_vault()
    assert service.get(sample_ids, scopes=scopes, use=False).missing == sample_ids
    left = _everything(service)
    assert sorted((m.title, m.body) for m in left) == [
        ("Glaze idea", "Ask [[Ottilie Brask]] whether celadon survives a kiln at cone 10."),
        ("Kiln schedule", "Fire the kiln to cone 6 on Friday."),
    ]
    assert service.get([note.id], scopes=scopes).nodes[0].edges == []  # only the links went
    assert set(_titles(service, "footbridge load test Ottilie")) <= {"Glaze idea", "Kiln schedule"}
    report = service.verify()
    assert report.ok, report.as_dict()
    assert service.export_receipts().receipts[-1]["kind"] == "forget"


def test_what_the_person_wrote_into_the_sample_stays_theirs(service: MemoryService) -> None:
    scopes = service.scopes()
    service.add_sample()
    by_title = {m.title: m for m in _everything(service) if m.status != "superseded"}
    # An edit of a sample memory is a new version of theirs.
    edited = service.revise(
        by_title["Call with the council"].id,
        "Call with the council",
        "Kasimir can close the footpath in the first week of May.",
        scopes=scopes,
    ).chain[-1]
    # A note of theirs, held as a possible duplicate of a sample note, merged into it.
    theirs = service.write(
        "Note",
        "Pottery evening",
        "At the pottery Hedda Quill said the towpath by the footbridge is always first to "
        "flood; she has photos of last year's spring floods. Give the glaze book back.",
    )
    assert theirs.outcome == "pending" and theirs.verdict is not None
    service.resolve_duplicate(theirs.verdict, "merge", scopes=scopes)
    # Their write of a sample person adds a phone number to it (the resolver folds it in).
    same = service.write("Person", "Hedda Quill", "", attrs={"phone": "0100 200 300"})
    assert same.outcome == "absorbed"
    # A name the sample left undescribed, described by them.
    described = service.write("Topic", "Spring floods", "The river rises every March.")
    assert described.outcome == "enriched"
    # Their words, the same as a sample memory's: the gate keeps the one memory.
    calls = by_title["Ottilie prefers calls before ten"]
    again = service.write("Preference", calls.title, calls.body, attrs=calls.attrs)
    assert again.outcome == "absorbed" and again.node is not None and again.node.id == calls.id
    untouched = [by_title["Footbridge survey"].id]

    removed = service.remove_sample()

    assert removed.kept == 5
    assert "What you wrote into the sample stays as yours (5 memories)" in removed.sentence()
    kept = {m.title: m for m in _everything(service)}
    assert set(kept) == {
        "Call with the council",
        "Evening at the pottery",
        "Hedda Quill",
        "Spring floods",
        "Ottilie prefers calls before ten",
    }
    assert kept["Call with the council"].id == edited.id
    assert kept["Call with the council"].body == (
        "Kasimir can close the footpath in the first week of May."
    )
    pottery = service.get([kept["Evening at the pottery"].id], scopes=scopes).nodes[0]
    assert any("photos of last year's spring floods" in a.text for a in pottery.addenda)
    assert kept["Hedda Quill"].attrs["phone"] == "0100 200 300"
    assert kept["Spring floods"].body == "The river rises every March."
    assert {m.source for m in kept.values()} == {None}  # theirs now, not the sample's
    assert service.get(untouched, scopes=scopes, use=False).missing == untouched
    assert not service.sample_in_vault()


def test_a_sample_memory_changed_in_any_way_stays(service: MemoryService, vault: Vault) -> None:
    """A change no log records (made beneath the service here) still keeps a sample memory:
    it no longer says what the sample wrote."""
    service.add_sample()
    [calls] = [m for m in _everything(service) if m.type == "Preference"]
    with vault.write() as conn:
        graph_rows.update_node(conn, calls.id, {"body": "Calls before nine, not ten."})
    assert service.remove_sample().kept == 1
    assert [(m.title, m.body) for m in _everything(service)] == [
        ("Ottilie prefers calls before ten", "Calls before nine, not ten.")
    ]


def test_the_sample_never_adds_to_a_memory_of_the_persons(service: MemoryService) -> None:
    """Should the gate find the sample's second site visit already said by the person, it is
    left out rather than folded into their memory."""
    [twin] = [m for m in SAMPLE if m.key == sample_data.TWIN]
    mine = service.write("Note", twin.title, twin.body, attrs=twin.attrs).node
    assert mine is not None
    added = service.add_sample()
    assert not added.held_for_review and len(added.written) == len(SAMPLE) - 1
    detail = service.get([mine.id], scopes=service.scopes()).nodes[0]
    assert detail.node.body == twin.body and detail.addenda == []
    assert detail.node.source is None
    service.remove_sample()
    # What stays is the person's note, and the names it states (stubs it mentions).
    left = _everything(service)
    assert [m.id for m in left if m.status != "stub"] == [mine.id]
    named = {
        edge.other_id for edge in service.get([mine.id], scopes=service.scopes()).nodes[0].edges
    }
    assert {m.id for m in left if m.status == "stub"} <= named


def test_a_whole_export_carries_the_sample_so_the_import_can_remove_it(
    service: MemoryService, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    service.add_sample()
    service.write("Note", "Kiln schedule", "Fire the kiln to cone 6 on Friday.")
    exported = service.export(tmp_path / "out", format="jsonl")
    assert exported.file is not None
    with create_service(tmp_path / "restored.cairn", embedder) as restored:
        restored.service.import_jsonl(exported.file)
        assert restored.service.sample_in_vault()
        assert restored.service.remove_sample().forgotten == len(SAMPLE)
        left = _everything(restored.service)
        assert [m.title for m in left] == ["Kiln schedule"]
