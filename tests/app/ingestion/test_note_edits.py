"""A note read from a file, edited in Cairn: a new version in the vault, read as the file
would be, keeping its links; the file on disk untouched; a later change of the file the next
version, the edit kept in the history."""

from __future__ import annotations

from pathlib import Path

from cairn.app.api import IngestRequest
from cairn.app.service import MemoryService
from tests.app.ingest_files import write

FERRY = "# Ferry times\n\nThe first ferry leaves at 7:10 for [[Island trip]].\n"
TRIP = "# Island trip\n\nTwo nights at the lighthouse cottage.\n"


def _sections(service: MemoryService, document_id: str) -> list[str]:
    detail = service.get([document_id], scopes=service.scopes()).nodes[0]
    ids = [e.other_id for e in detail.edges if e.type == "part_of" and e.direction == "in"]
    return [n.node.body for n in service.get(ids, scopes=service.scopes()).nodes]


def test_an_edit_is_a_version_in_cairn_and_the_file_is_unchanged(
    service: MemoryService, tmp_path: Path
) -> None:
    folder = write(tmp_path / "vault", {"Ferry times.md": FERRY, "Island trip.md": TRIP})
    service.ingest(IngestRequest.of([folder]))
    scopes = service.scopes()
    [old] = [
        n for n in service.list_memories(scopes=scopes, shelf="Note") if n.title == "Ferry times"
    ]
    trip = next(
        n for n in service.list_memories(scopes=scopes, shelf="Note") if n.title == "Island trip"
    )
    old_links = {
        (e.type, e.other_id)
        for e in service.get([old.id], scopes=scopes).nodes[0].edges
        if e.type != "part_of"
    }
    assert ("references", trip.id) in old_links

    edited = old.body + "\n## Fares\n\nA return ticket costs 4 euros #budget\n"
    history = service.revise(old.id, "Ferry times", edited, scopes=scopes)
    new_id = history.chain[-1].id
    assert [entry.id for entry in history.chain] == [old.id, new_id]

    new = service.get([new_id], scopes=scopes).nodes[0]
    assert new.node.type == "Document" and new.node.body == edited
    assert "budget" in new.node.attrs["tags"]
    kept = {(e.type, e.other_id) for e in new.edges if e.type not in ("part_of", "supersedes")}
    assert old_links <= kept  # every link of the old version
    assert any("4 euros" in body for body in _sections(service, new_id))
    assert not any("4 euros" in body for body in _sections(service, old.id))
    hits = service.search("return ticket euros", scopes=scopes).results
    assert any(h.part_of and h.part_of.id == new_id for h in hits)

    assert (folder / "Ferry times.md").read_text(encoding="utf-8") == FERRY
    [row] = [s for s in service.sources() if s.path.endswith("Ferry times.md")]
    assert row.document_id == new_id
    again = service.ingest(IngestRequest.of([folder]))
    assert again.count("unchanged") == 2  # the file did not change: nothing is read again


def test_a_later_change_of_the_file_becomes_the_next_version(
    service: MemoryService, tmp_path: Path
) -> None:
    folder = write(tmp_path / "vault", {"Ferry times.md": FERRY})
    service.ingest(IngestRequest.of([folder]))
    scopes = service.scopes()
    [old] = service.list_memories(scopes=scopes, shelf="Note")
    edit = service.revise(old.id, "Ferry times", old.body + "\nEdited in Cairn.\n", scopes=scopes)
    (folder / "Ferry times.md").write_text(FERRY + "\nThe last ferry is at 22:00.\n")
    service.ingest(IngestRequest.of([folder]))
    [newest] = service.list_memories(scopes=scopes, shelf="Note")
    chain = service.history(newest.id, scopes=scopes).chain
    assert [e.id for e in chain[:2]] == [old.id, edit.chain[-1].id]
    assert "22:00" in newest.body and len(chain) == 3
