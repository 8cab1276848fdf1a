"""The JSON shape of the service's answers (``as_dict``): what ``--json`` prints and the graph
server sends. The names and kinds of every field are pinned here, so a change to how the
answers are built in Python cannot change what a script reading them sees (real vault, real
model)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cairn.app.ingestion.request import IngestRequest
from cairn.app.models import Forgotten
from cairn.app.service import MemoryService
from cairn.app.writing import review
from cairn.storage import dedup_rows
from cairn.storage.vault import Vault

ALL = ["personal"]
TODAY = "2030-01-10"


def shape(value: Any) -> Any:
    """A value's shape: a dict's keys with their shapes, a list's distinct item shapes, and
    the JSON kind of anything else."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in sorted(value.items())}
    if isinstance(value, list | tuple):
        seen: list[Any] = []
        for item in value:
            if shape(item) not in seen:
                seen.append(shape(item))
        return seen
    if value is None:
        return "null"
    return {bool: "bool", int: "int", float: "float", str: "str"}[type(value)]


def as_json(answer: Any) -> Any:
    data = answer.as_dict()
    assert json.loads(json.dumps(data, sort_keys=True)) == data  # plain JSON all through
    return data


NODE = {
    "access_count": "int",
    "attrs": {},
    "body": "str",
    "id": "str",
    "importance": "float",
    "last_access": "null",
    "locator": "null",
    "recorded_at": "str",
    "retention_label": "str",
    "scope": "str",
    "source": "null",
    "stability": "float",
    "status": "str",
    "title": "str",
    "type": "str",
    "updated_at": "str",
    "valid_from": "null",
    "valid_to": "null",
}
EMPTY_WRITE = {
    "did_you_mean": [],
    "enrich_hints": [],
    "label_conflict": [],
    "links": [],
    "possible_duplicate_of": [],
    "relations_from_tags": [],
    "resonance": [],
    "revive_candidate": [],
    "stubs_created": [],
    "suggested_relations": [],
}
WRITE = {
    "degree": "int",
    "embedded": "bool",
    "flags": [],
    "id": "str",
    "matched": "null",
    "node": NODE,
    "orphan_warning": "bool",
    "outcome": "str",
    "suggestion": "null",
    "verdict": "null",
    "warnings": [],
} | EMPTY_WRITE
SIMILAR = {"id": "str", "score": "float", "title": "str", "type": "str"}
RELATION = {"edge_type": "str", "id": "str", "reason": "str", "title": "str", "type": "str"}
ENTITY_MATCH = {
    "id": "str",
    "reason": "str",
    "score": "float",
    "status": "str",
    "title": "str",
    "type": "str",
}
PREVIEW = {
    "id": "str",
    "recorded_at": "str",
    "shelf": "str",
    "source": "null",
    "status": "str",
    "text": "str",
    "title": "str",
    "type": "str",
}
REVIEW_ITEM = {
    "created_at": "str",
    "decision": "null",
    "flags": [],
    "id": "str",
    "kind": "str",
    "node": PREVIEW,
    "other": PREVIEW,
    "reason": "str",
    "score": "float",
    "state": "str",
}


def test_a_write_with_links_stubs_and_an_enrich_hint(service: MemoryService) -> None:
    service.write("Note", "Market", "Met [[Zebulon Farrow]] at the Saturday market.")
    service.write("Note", "Ladder", "[[Zebulon Farrow]] lent me a ladder for the roof.")
    third = service.write("Note", "Card", "Birthday card for [[Zebulon Farrow]] is in a drawer.")
    assert shape(as_json(third)) == WRITE | {
        "links": [{"id": "str", "target_type": "str", "title": "str", "type": "str"}],
        "enrich_hints": [{"hint": "str", "id": "str", "title": "str"}],
        "resonance": [SIMILAR],
    }
    first = service.write("Note", "Fence", "Painted the fence with [[Ada Quill]].")
    assert shape(as_json(first))["stubs_created"] == [{"id": "str", "title": "str", "type": "str"}]


def test_an_orphan_write_with_resonance_and_suggestions(service: MemoryService) -> None:
    service.write("Note", "Paint", "Bought green paint for the garden shed.")
    second = service.write("Note", "Door", "Painted the door of the garden shed.")
    assert second.outcome == "inserted"
    assert shape(as_json(second)) == WRITE | {
        "resonance": [SIMILAR],
        "suggested_relations": [RELATION],
    }


def test_writes_with_tags_suggested_and_linked(service: MemoryService) -> None:
    service.write("Project", "Yarrow", "Renovating the garden shed.")
    suggested = service.write("Note", "Hinges", "New hinges for the door #Yarrow")
    assert shape(as_json(suggested))["suggested_relations"] == [RELATION]
    service.change_setting("tag_anchoring", "auto")
    linked = service.write("Note", "Floor", "Hung the new door on the shed. #yarrow")
    assert shape(as_json(linked))["relations_from_tags"] == [RELATION]


def test_an_absorbed_memory_and_a_pending_one(service: MemoryService) -> None:
    service.write("Note", "Rent", "The rent for the flat is 900 euros a month.")
    absorbed = service.write(
        "Note", "Rent", "The rent for the flat is 900 euros a month, as agreed."
    )
    assert absorbed.outcome == "absorbed"
    assert shape(as_json(absorbed)) == WRITE | {
        "matched": {
            "id": "str",
            "jaccard": "float",
            "reason": "str",
            "score": "float",
            "title": "str",
            "type": "str",
        },
    }
    service.write("Note", "Spare key", "The spare house key is under the blue flower pot.")
    pending = service.write(
        "Note", "Hidden key", "A spare key to the house sits beneath the blue plant pot."
    )
    assert pending.outcome == "pending"
    data = shape(as_json(pending))
    assert data["verdict"] == "str"
    assert data["matched"] == shape(as_json(absorbed))["matched"]


def test_entity_writes_absorbed_conflicting_reviving_and_blocked(service: MemoryService) -> None:
    service.write("Person", "John Smith")
    again = service.write("Person", "John Smith")
    assert again.outcome == "absorbed"
    assert shape(as_json(again)) == WRITE | {"matched": ENTITY_MATCH}
    spelled = service.write("Person", "Jon Smith")
    assert shape(as_json(spelled)) == WRITE | {
        "possible_duplicate_of": [ENTITY_MATCH],
        "suggested_relations": [RELATION],
        "resonance": [SIMILAR],
    }
    service.write("Person", "Jordan")
    conflict = service.write("Place", "Jordan")
    assert shape(as_json(conflict))["label_conflict"] == [ENTITY_MATCH]
    mill = service.write("Place", "Old Mill", "The mill by the river.").node
    assert mill is not None
    service.archive(mill.id, scopes=ALL)
    revived = service.write("Place", "Old Mill")
    assert shape(as_json(revived))["revive_candidate"] == [ENTITY_MATCH]
    service.change_setting("entity_mode", "block")
    blocked = service.write("Person", "Jonn Smith", "Likes chess.")
    assert blocked.outcome == "blocked"
    assert shape(as_json(blocked)) == {
        "degree": "int",
        "embedded": "bool",
        "flags": [],
        "id": "null",
        "matched": "null",
        "node": "null",
        "orphan_warning": "bool",
        "outcome": "str",
        "suggestion": "null",
        "verdict": "null",
        "warnings": [],
    } | EMPTY_WRITE | {
        "possible_duplicate_of": [ENTITY_MATCH],
        "did_you_mean": [ENTITY_MATCH],
    }


def test_review_items_open_and_settled(service: MemoryService) -> None:
    service.write("Note", "Spare key", "The spare house key is under the blue flower pot.")
    pending = service.write(
        "Note", "Hidden key", "A spare key to the house sits beneath the blue plant pot."
    )
    service.write("Person", "Jordan")
    service.write("Place", "Jordan")
    items = service.pending(scopes=ALL)
    assert {item.kind: shape(as_json(item)) for item in items} == {
        "duplicate": REVIEW_ITEM,
        "label_conflict": REVIEW_ITEM,
    }
    conflict = next(item for item in items if item.kind == "label_conflict")
    assert shape(as_json(service.dismiss(conflict.id, scopes=ALL))) == REVIEW_ITEM | {
        "decision": "str"
    }
    assert pending.verdict is not None
    merged = service.resolve_duplicate(pending.verdict, "merge", scopes=ALL)
    assert shape(as_json(merged)) == WRITE


def test_a_review_item_whose_side_cannot_be_seen_shows_it_empty(
    service: MemoryService, vault: Vault
) -> None:
    service.write("Person", "Jordan")
    service.write("Place", "Jordan")
    with vault.read() as conn:
        [row] = dedup_rows.review_items(conn, ALL, kinds=["label_conflict"])
    assert shape(review._item(row, {}).as_dict()) == REVIEW_ITEM | {"node": {}, "other": {}}


def test_the_briefing(service: MemoryService) -> None:
    service.write("Commitment", "Return the library books", "Soon.", attrs={"due": "2030-01-05"})
    service.write("Note", "Spare key", "The spare house key is under the blue flower pot.")
    service.write("Note", "Hidden key", "A spare key to the house sits beneath the blue plant pot.")
    for title in ("Market", "Ladder", "Card"):
        service.write("Note", title, f"{title}: [[Zebulon Farrow]] was there.")
    brief = service.briefing(scopes=ALL, today=TODAY)
    assert shape(as_json(brief)) == {
        "due": [
            {
                "due": "str",
                "id": "str",
                "overdue": "bool",
                "recorded_at": "str",
                "title": "str",
                "type": "str",
            }
        ],
        "recent": [
            {
                "awaiting_review": "bool",
                "id": "str",
                "recorded_at": "str",
                "title": "str",
                "type": "str",
            }
        ],
        "review_count": "int",
        "reviews": [{"id": "str", "kind": "str", "reason": "str", "score": "float"}],
        "stubs_to_enrich": [{"degree": "int", "id": "str", "title": "str", "type": "str"}],
        "today": "str",
    }


def test_a_memory_read_with_its_addenda_and_its_review(service: MemoryService) -> None:
    kept = service.write("Note", "Rent", "The rent for the flat is 900 euros a month.").node
    service.write("Note", "Rent", "The rent for the flat is 900 euros a month, as agreed.")
    service.write("Note", "Spare key", "The spare house key is under the blue flower pot.")
    pending = service.write(
        "Note", "Hidden key", "A spare key to the house sits beneath the blue plant pot."
    )
    assert kept is not None and pending.node is not None
    [rent] = service.get([kept.id], scopes=ALL).nodes
    data = shape(as_json(rent))
    assert data["addenda"] == [
        {"origin": "str", "recorded_at": "str", "source": "null", "text": "str"}
    ]
    assert data["awaiting_review"] == "null"
    assert data["edge_counts"] == {"in": "int", "out": "int"}
    [waiting] = service.get([pending.node.id], scopes=ALL).nodes
    assert shape(as_json(waiting))["awaiting_review"] == {
        "item": "str",
        "other_id": "str",
        "other_title": "str",
        "reason": "str",
    }


def test_a_forget_says_how_many_went_and_a_note_only_when_there_is_one(
    service: MemoryService,
) -> None:
    gone = service.write("Note", "Scratch", "A note to forget.").node
    assert gone is not None
    assert as_json(service.forget(gone.id, scopes=ALL)) == {"forgotten": 1, "title": "Scratch"}
    busy = Forgotten(1, "Scratch", "compacted later")
    assert busy.as_dict() == {"forgotten": 1, "title": "Scratch", "note": "compacted later"}


def test_the_statistics(service: MemoryService) -> None:
    service.add_scope("work")
    service.write("Note", "Payroll", "Due on the 25th.", scope="work")
    space = {"dim": "int", "name": "str", "state": "str"}
    stats = {
        "edges": "int",
        "embedder": "str",
        "embedding_spaces": [space | {"vectors": "int"}],
        "file_bytes": "int",
        "nodes_by_scope": {"work": "int"},
        "nodes_by_status": {"active": "int"},
        "nodes_by_type": {"Note": "int"},
        "pack": {"name": "str", "version": "int"},
        "receipts": "int",
        "shelves": {"Note": "int"},
        "vault": "str",
        "vector_search": "bool",
    }
    assert shape(as_json(service.stats(scopes=["personal", "work"]))) == stats
    assert shape(as_json(service.stats(scopes=["personal"]))) == stats | {
        "embedding_spaces": [space],
        "nodes_by_scope": {},
        "nodes_by_status": {},
        "nodes_by_type": {},
        "shelves": {},
    }


def test_a_file_the_vault_keeps_track_of(service: MemoryService, tmp_path: Path) -> None:
    note = tmp_path / "kiln.txt"
    note.write_text("The kiln needs a new shelf before the fair.\n", encoding="utf-8")
    service.ingest(IngestRequest.of([note]))
    [row] = service.sources()
    assert shape(as_json(row)) == {
        "document_id": "str",
        "error": "null",
        "first_seen": "str",
        "media_type": "str",
        "mtime_ns": "int",
        "passages": "int",
        "path": "str",
        "path_bytes": "null",
        "scope": "str",
        "sha256": "str",
        "size": "int",
        "state": "str",
        "updated_at": "str",
        "warnings": [],
    }
