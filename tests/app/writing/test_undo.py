"""Taking back a link, an edit and a merge (``unlink``, ``unrevise``, ``unmerge``): each leaves
the vault as it was before the act, as search, ``get``, ``history`` and the graph read it, and
each can be done again (real vault, real model)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.app.errors import InvalidRequest
from cairn.app.ingestion.request import IngestRequest
from cairn.app.models import SearchHit
from cairn.app.service import MemoryService
from cairn.storage import undo_rows
from cairn.storage.vault import Vault
from tests.app.ingest_files import write

ALL = ["personal"]
# A near miss the gate keeps and asks about (see tests/app/dedup/test_review_queue.py).
KEY = ("Spare key", "The spare house key is under the blue flower pot.")
KEY_REWORDED = ("Hidden key", "A spare key to the house sits beneath the blue plant pot.")


def _receipt_kinds(service: MemoryService) -> list[str]:
    return [r["kind"] for r in service.export_receipts().receipts]


def _edges(service: MemoryService, node_id: str) -> set[tuple[str, str, str]]:
    detail = service.get([node_id], scopes=ALL, use=False).nodes[0]
    return {(e.type, e.direction, e.other_id) for e in detail.edges}


def _hits(service: MemoryService, query: str, **options: object) -> list[str]:
    return [hit.id for hit in service.search(query, scopes=ALL, **options).results]  # type: ignore[arg-type]


def _reached(service: MemoryService, start: str) -> set[str]:
    return {node.id for node in service.traverse(start, scopes=ALL, depth=2).nodes}


# -- a link -----------------------------------------------------------------------------------


def test_unlink_removes_exactly_the_link_made(service: MemoryService) -> None:
    note = service.write("Note", "Allotment", "Plot 14 by the east gate.").node
    ana = service.write("Person", "Ana Ruiz", "Runs the allotment society.").node
    bea = service.write("Person", "Bea Lund", "Has the plot next to ours.").node
    service.link(note.id, bea.id, "involves", scopes=ALL)
    before = _edges(service, note.id)
    made = service.link(note.id, ana.id, "involves", scopes=ALL)
    assert made.created

    assert service.unlink(note.id, ana.id, "involves", scopes=ALL) is True
    assert _edges(service, note.id) == before  # the other link stays
    assert ana.id not in _reached(service, note.id)
    assert _receipt_kinds(service)[-1] == "unlink"
    assert service.unlink(note.id, ana.id, "involves", scopes=ALL) is False  # nothing left

    service.link(note.id, ana.id, "involves", scopes=ALL)  # the redo
    assert ("involves", "out", ana.id) in _edges(service, note.id)


def test_unlink_of_an_undirected_link_takes_either_order(service: MemoryService) -> None:
    one = service.write("Note", "Seeds", "Tomato seeds from the market.").node
    two = service.write("Note", "Greenhouse", "The greenhouse door sticks.").node
    service.link(one.id, two.id, "relates_to", scopes=ALL)
    assert service.unlink(two.id, one.id, "relates_to", scopes=ALL) is True
    assert _edges(service, one.id) == set()


def test_a_version_link_is_not_unlinked_on_its_own(service: MemoryService) -> None:
    old = service.write("Note", "Gate code", "The gate code is 1234.").node
    new = service.revise(old.id, "Gate code", "The gate code is 4321.", scopes=ALL)
    newest = new.chain[-1].id
    with pytest.raises(InvalidRequest, match="undo the edit"):
        service.unlink(newest, old.id, "supersedes", scopes=ALL)


# -- an archive -------------------------------------------------------------------------------


def test_archive_and_unarchive_undo_each_other(service: MemoryService) -> None:
    note = service.write("Note", "Seeds", "Tomato seeds from the market stall.").node
    service.archive(note.id, scopes=ALL)
    assert note.id not in _hits(service, "tomato seeds")
    service.unarchive(note.id, scopes=ALL)  # the undo
    assert note.id in _hits(service, "tomato seeds")
    service.archive(note.id, scopes=ALL)  # the redo
    assert note.id not in _hits(service, "tomato seeds")
    assert _receipt_kinds(service)[-3:] == ["archive", "unarchive", "archive"]


# -- an edit ----------------------------------------------------------------------------------


def test_unrevise_makes_the_older_version_current_again(service: MemoryService) -> None:
    old = service.write("Note", "Ferry times", "The ferry leaves at 7:40 from pier two.").node
    ana = service.write("Person", "Ana Ruiz", "Runs the ferry kiosk.").node
    service.link(old.id, ana.id, "involves", scopes=ALL)
    links_before = _edges(service, old.id)
    edited = service.revise(
        old.id, "Ferry times", "The ferry leaves at 8:10 from [[Quay Nine]].", scopes=ALL
    )
    new_id = edited.chain[-1].id
    assert old.id not in _hits(service, "ferry leaves")
    assert "Quay Nine" in [hit.title for hit in service.search("Quay Nine", scopes=ALL).results]

    history = service.unrevise(new_id, scopes=ALL)

    assert [entry.id for entry in history.chain] == [old.id]
    again = service.get([old.id], scopes=ALL, use=False).nodes[0].node
    assert again.status == "active" and again.valid_to is None
    assert again.body == "The ferry leaves at 7:40 from pier two."
    assert _edges(service, old.id) == links_before
    assert service.get([new_id], scopes=ALL).missing == [new_id]
    assert old.id in _hits(service, "ferry leaves pier")
    assert new_id not in _hits(service, "ferry 8:10 quay", include_history=True)
    # The stub the edit's [[link]] made went with it.
    titles = [hit.title for hit in service.search("Quay Nine", scopes=ALL).results]
    assert "Quay Nine" not in titles
    assert old.id in _reached(service, ana.id) and new_id not in _reached(service, ana.id)
    assert _receipt_kinds(service)[-1] == "unrevise"

    redone = service.revise(old.id, "Ferry times", "The ferry leaves at 8:10.", scopes=ALL)
    assert [entry.id for entry in redone.chain][:2] == [old.id, redone.chain[-1].id]
    assert redone.chain[-1].body == "The ferry leaves at 8:10."
    assert ("involves", "out", ana.id) in _edges(service, redone.chain[-1].id)


def test_links_made_to_the_newer_version_move_back(service: MemoryService) -> None:
    old = service.write("Note", "Bike lock", "The code is 3-1-4.").node
    new_id = service.revise(old.id, "Bike lock", "The code is 2-7-1.", scopes=ALL).chain[-1].id
    bea = service.write("Person", "Bea Lund", "Lends me the bike.").node
    service.link(new_id, bea.id, "involves", scopes=ALL)
    service.unrevise(new_id, scopes=ALL)
    assert ("involves", "out", bea.id) in _edges(service, old.id)


def test_unrevise_refuses_what_it_would_lose(service: MemoryService) -> None:
    old = service.write("Note", "Locker", "Code 4411.").node
    first = service.revise(old.id, "Locker", "Code 4412.", scopes=ALL).chain[-1].id
    service.revise(first, "Locker", "Code 4413.", scopes=ALL)
    with pytest.raises(InvalidRequest, match="edited again since"):
        service.unrevise(first, scopes=ALL)
    # A supersede of two memories written apart is no edit: the newer one is not taken back.
    a = service.write("Fact", "Boiler", "Serviced in March.").node
    b = service.write("Fact", "Boiler service", "Serviced again in October.").node
    service.supersede(a.id, b.id, scopes=ALL)
    with pytest.raises(InvalidRequest, match="no edit"):
        service.unrevise(b.id, scopes=ALL)
    assert service.get([b.id], scopes=ALL).nodes[0].node.status == "active"


# -- a merge ----------------------------------------------------------------------------------


def _merged(service: MemoryService):
    first = service.write("Note", *KEY).node
    second = service.write("Note", *KEY_REWORDED, attrs={"tags": ["garden"]})
    assert second.outcome == "pending"
    ana = service.write("Person", "Ana Ruiz", "Our neighbour.").node
    service.link(second.node.id, ana.id, "involves", scopes=ALL, rationale="she hid it")
    service.resolve_duplicate(second.verdict, "merge", scopes=ALL)
    return first, second, ana


def test_unmerge_brings_the_folded_memory_back_as_it_was(service: MemoryService) -> None:
    first, second, ana = _merged(service)
    folded = second.node
    kept = service.get([first.id], scopes=ALL, use=False).nodes[0]
    assert kept.addenda and kept.node.attrs == {"tags": ["garden"]}

    back = service.unmerge(second.verdict, scopes=ALL)

    assert (back.id, back.title, back.body) == (folded.id, folded.title, folded.body)
    assert back.attrs == {"tags": ["garden"]}
    got = service.get([folded.id], scopes=ALL, use=False).nodes[0]
    assert got.requested_as is None and got.node.id == folded.id  # no longer an alias
    assert _edges(service, folded.id) == {("involves", "out", ana.id)}
    kept = service.get([first.id], scopes=ALL, use=False).nodes[0]
    assert kept.addenda == [] and kept.merged_ids == []
    assert kept.node.attrs == first.attrs
    assert _edges(service, first.id) == set()
    assert folded.id in _hits(service, "beneath the blue plant pot")
    assert [item.id for item in service.pending(scopes=ALL)] == [second.verdict]
    assert _receipt_kinds(service)[-1] == "unmerge"

    redone = service.resolve_duplicate(second.verdict, "merge", scopes=ALL)  # the redo
    assert redone.node.id == first.id
    assert ("involves", "out", ana.id) in _edges(service, first.id)
    assert service.unmerge(second.verdict, scopes=ALL).id == folded.id  # and undone again
    with pytest.raises(InvalidRequest, match="no record"):
        service.unmerge(second.verdict, scopes=ALL)


def test_a_forgotten_kept_memory_takes_what_its_merges_kept(
    service: MemoryService, vault: Vault
) -> None:
    first, second, _ = _merged(service)
    with vault.read() as conn:
        assert undo_rows.merge_of(conn, second.verdict) is not None
    service.forget(first.id, scopes=ALL)
    with vault.read() as conn:
        assert undo_rows.merge_of(conn, second.verdict) is None
        assert conn.execute("SELECT count(*) FROM merges").fetchone()[0] == 0


def test_unrevise_of_a_note_file_takes_its_new_sections_and_the_file_record_back(
    service: MemoryService, tmp_path: Path
) -> None:
    folder = write(tmp_path / "notes", {"Ferry times.md": "# Ferry times\n\nLeaves at 7:10.\n"})
    service.ingest(IngestRequest.of([folder]))
    [old] = [n for n in service.list_memories(scopes=ALL, shelf="Note")]
    edited = old.body + "\n## Fares\n\nA return ticket costs 4 euros.\n"
    new_id = service.revise(old.id, "Ferry times", edited, scopes=ALL).chain[-1].id
    assert any(h.part_of and h.part_of.id == new_id for h in _search(service, "return ticket"))

    service.unrevise(new_id, scopes=ALL)

    assert not any("4 euros" in h.snippet for h in _search(service, "return ticket euros"))
    [row] = [s for s in service.sources() if s.path.endswith("Ferry times.md")]
    assert row.document_id == old.id
    again = service.get([old.id], scopes=ALL, use=False).nodes[0]
    assert again.node.status == "active"
    assert [e.type for e in again.edges if e.direction == "in"] == ["part_of"]


def _search(service: MemoryService, query: str) -> list[SearchHit]:
    return service.search(query, scopes=ALL, include_history=True).results
