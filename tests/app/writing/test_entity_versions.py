"""People, places, projects and the other entities are edited as new versions (pack version 4):
the person stays linked, the card shows the new value, and the old value stays in the history,
found by a search of history and shown as a changed value. An edit may also clear an attribute,
and a capture may be promoted with the attributes filled in for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.errors import CairnError
from cairn.app.packs import Pack
from cairn.app.service import MemoryService
from tests.conftest import PASSPHRASE, open_service

ALL = ["personal"]
ENTITY_RULES = ("Person", "Organization", "Place", "Project", "Topic")


def _node(service: MemoryService, node_id: str):  # type: ignore[no-untyped-def]
    return service.get([node_id], scopes=ALL).nodes[0]


def test_a_person_edited_keeps_the_old_phone_number_in_the_history(
    service: MemoryService,
) -> None:
    ada = service.write(
        "Person", "Ada Lindqvist", "Repairs boats.", attrs={"phone": "0611 223 344"}
    ).node
    assert ada is not None
    versions = service.revise(
        ada.id, "Ada Lindqvist", "Repairs boats.", scopes=ALL, attrs={"phone": "0622 998 877"}
    )
    new = versions.chain[versions.position]
    assert [entry.id for entry in versions.chain] == [ada.id, new.id]
    assert _node(service, new.id).node.attrs == {"phone": "0622 998 877"}
    assert _node(service, ada.id).node.status == "superseded"
    # The old number is in the history, as an attribute of the old version and as a change.
    assert versions.chain[0].attrs == {"phone": "0611 223 344"}
    # Only what changed is marked, with the title and text around it (not the attributes
    # that stayed, which would push the change out of a short line).
    assert new.changes == "Ada Lindqvist phone: [-0611 223 344-] {+0622 998 877+} Repairs boats."
    # A search of history finds whose number it was; a default search shows the person now.
    old_hits = service.search("0611 223 344", scopes=ALL, include_history=True).results
    assert (old_hits[0].id, old_hits[0].status) == (ada.id, "superseded")
    now_hits = service.search("Ada Lindqvist", scopes=ALL).results
    assert now_hits[0].id == new.id and ada.id not in [hit.id for hit in now_hits]


def test_an_edited_person_stays_linked_and_named(service: MemoryService) -> None:
    ada = service.write("Person", "Ada Lindqvist", "Repairs boats.").node
    note = service.write("Note", "Boat trip", "Sailed with [[Ada Lindqvist]] to the island.").node
    assert ada is not None and note is not None
    versions = service.revise(
        ada.id, "Ada Lindqvist", "Repairs boats.", scopes=ALL, attrs={"email": "ada@kade.example"}
    )
    new_id = versions.chain[versions.position].id
    # What linked to the person links to the person as they are now.
    linked = {(e.direction, e.other_id) for e in _node(service, note.id).edges}
    assert ("out", new_id) in linked
    # A note written after the edit names the new version, not the one it replaced.
    later = service.write("Note", "Sails", "Ada Lindqvist mended the jib on Sunday.").node
    assert later is not None
    mentioned = {e.other_id for e in _node(service, later.id).edges if e.type == "mentions"}
    assert mentioned == {new_id}
    # Writing the person again adds to the person as they are now: no conflict with history.
    again = service.write("Person", "Ada Lindqvist", attrs={"occupation": "boat builder"})
    assert again.outcome == "absorbed" and again.id == new_id
    assert again.label_conflict == [] and again.revive_candidate == []


def test_an_edit_can_clear_an_attribute(service: MemoryService) -> None:
    project = service.write(
        "Project", "Garden shed", attrs={"status": "on hold", "due": "2025-09-01"}
    ).node
    assert project is not None
    assert project.attrs == {"status": "paused", "due": "2025-09-01"}
    versions = service.revise(
        project.id, "Garden shed", "", scopes=ALL, attrs={"status": "active", "due": None}
    )
    new = _node(service, versions.chain[versions.position].id).node
    assert new.attrs == {"status": "active"}
    assert versions.chain[0].attrs == {"status": "paused", "due": "2025-09-01"}
    assert (
        versions.chain[1].changes == "Garden shed [-due: 2025-09-01-] status: [-paused-] {+active+}"
    )


@pytest.mark.parametrize("kind", ENTITY_RULES)
def test_every_entity_of_the_pack_has_versions(kind: str) -> None:
    pack = Pack.bundled()
    assert pack.version >= 4
    assert pack.edge_for(kind, kind, ("supersedes",)) == "supersedes"
    assert pack.edge_for(kind, "Fact", ("supersedes",)) is None  # only by its own kind


def test_a_vault_of_the_older_pack_learns_entity_versions_when_opened(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    current = Pack.bundled()
    edge = current.edge_types["supersedes"]
    older_rules = tuple(rule for rule in edge.rules if rule[0] not in ENTITY_RULES)
    older = Pack(
        current.name,
        3,
        current.node_types,
        {**current.edge_types, "supersedes": type(edge)(**{**vars(edge), "rules": older_rules})},
    )
    path = tmp_path / "older.cairn"
    made = compose.new_vault(path, PASSPHRASE, pack=older)
    made.close()
    with open_service(path, embedder) as opened:
        assert opened.service.pack_rules().version == current.version
        place = opened.service.write("Place", "Harbour Lane", attrs={"country": "NL"}).node
        assert place is not None
        versions = opened.service.revise(
            place.id, "Harbour Lane", "", scopes=ALL, attrs={"address": "Harbour Lane 4"}
        )
        assert len(versions.chain) == 2


def test_a_capture_promoted_with_attributes_keeps_them(service: MemoryService) -> None:
    item = service.inbox_capture("Bea Kovacs, the new neighbour")
    result = service.inbox_promote(
        item.id,
        scopes=ALL,
        type="Person",
        title="Bea Kovacs",
        body="The new neighbour.",
        attrs={"email": "bea@example.org", "birthday": "1990-04-12"},
    )
    assert result.node is not None
    assert result.node.attrs == {"email": "bea@example.org", "birthday": "1990-04-12"}
    assert (result.node.source, result.node.title) == ("inbox", "Bea Kovacs")
    assert service.inbox_list(scopes=ALL) == []


def test_a_promote_with_a_wrong_attribute_keeps_the_capture(service: MemoryService) -> None:
    item = service.inbox_capture("Bea Kovacs")
    with pytest.raises(CairnError):
        service.inbox_promote(item.id, scopes=ALL, type="Person", attrs={"birthday": "soon"})
    assert [open_item.id for open_item in service.inbox_list(scopes=ALL)] == [item.id]
