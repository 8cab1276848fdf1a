"""What surrounds a memory in search (``retrieval._context``, fused by ``fusion``): the
passages of one ingested file are a group and each other's neighbours, the lines of one dated
session too; notes that only share how they arrived ("cli") are neither. Real vault, real model."""

from __future__ import annotations

from pathlib import Path

from cairn.app.ingestion.request import IngestRequest
from cairn.app.retrieval import search as retrieval
from cairn.app.service import MemoryService
from cairn.storage import graph_rows
from cairn.storage.vault import Vault

ALL = ["personal"]
SESSION = "Ines, 3:10 pm on 4 March, 2024"
OTHER_SESSION = "Ines, 9:40 am on 2 June, 2024"


def _surroundings(vault: Vault, ids: list[str]) -> tuple[dict[str, list[str]], dict[str, object]]:
    with vault.read() as conn:
        rows = graph_rows.nodes_by_ids(conn, ids, ALL)
        seq_of = {row["id"]: row["seq"] for row in rows}
        id_of = {seq: node_id for node_id, seq in seq_of.items()}
        heads = {row["seq"]: row for row in graph_rows.heads_by_seqs(conn, list(id_of), ALL)}
        neighbours, groups = retrieval._context(conn, set(id_of), heads, ALL)
    return (
        {id_of[s]: [id_of[n] for n in ns if n in id_of] for s, ns in neighbours.items()},
        {id_of[s]: group for s, group in groups.items()},
    )


def test_notes_that_only_share_how_they_arrived_are_not_a_document(
    service: MemoryService,
    vault: Vault,
) -> None:
    first = service.write("Note", "Kiln", "Cone 6 for the stoneware.", source="cli").node
    second = service.write("Note", "Bike lock", "The code is 3-1-4.", source="cli").node
    assert first is not None and second is not None
    neighbours, groups = _surroundings(vault, [first.id, second.id])
    assert groups == {} and neighbours == {}


def test_the_passages_of_one_file_are_a_group_and_neighbours(
    service: MemoryService, vault: Vault, tmp_path: Path
) -> None:
    sections = [
        f"## Part {n}\n\n"
        + " ".join(f"The kiln log for firing {n} notes step {i}." for i in range(60))
        for n in range(3)
    ]
    note = tmp_path / "kiln-log.md"
    note.write_text("# Kiln log\n\n" + "\n\n".join(sections), encoding="utf-8")
    report = service.ingest(IngestRequest.of([note]))
    assert report.counts() == {"ingested": 1}
    found = service.list_memories(scopes=ALL, types=["Passage"], limit=50)
    passages = sorted(found, key=lambda node: node.recorded_at)
    assert len(passages) >= 3
    ids = [p.id for p in passages]
    neighbours, groups = _surroundings(vault, ids)
    assert len(set(groups.values())) == 1 and set(groups) == set(ids)
    middle = ids[1]
    assert set(neighbours[middle]) == {ids[0], ids[2]}


def test_the_lines_of_one_dated_session_are_a_group_apart_from_another(
    service: MemoryService,
    vault: Vault,
) -> None:
    asked = service.write("Note", SESSION, "Ines: What games did you play at the party?").node
    answer = service.write("Note", SESSION, "Maya: Some fun ones like charades.").node
    later = service.write("Note", OTHER_SESSION, "Maya: We played charades again.").node
    assert asked is not None and answer is not None and later is not None
    neighbours, groups = _surroundings(vault, [asked.id, answer.id, later.id])
    assert groups[asked.id] == groups[answer.id] != groups[later.id]
    assert neighbours[answer.id] == [asked.id]  # the next line is of another session
