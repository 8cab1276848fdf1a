"""The service contract: writes, links, reads, scopes, inbox, archive (real vault, real model)."""

from __future__ import annotations

import pytest

from cairn.app.errors import (
    DiskFull,
    InvalidRequest,
    NodeNotFound,
    RowRejected,
    UnknownScope,
    UnknownType,
)
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault

ALL = ["personal"]


def test_write_returns_the_stored_node_and_reports_embedding(service: MemoryService) -> None:
    result = service.write(
        "Fact", "Kettle wattage", "The kettle draws 2.2 kW.", attrs={"subject": "kettle"}
    )
    assert result.outcome == "inserted"
    assert result.embedded is True
    assert result.degree == 0
    got = service.get([result.node.id], scopes=ALL)
    assert got.missing == []
    assert got.nodes[0].node.body == "The kettle draws 2.2 kW."
    assert got.nodes[0].node.attrs == {"subject": "kettle"}


def test_write_refuses_unknown_type_scope_and_bad_attributes(service: MemoryService) -> None:
    with pytest.raises(UnknownType, match="Person"):
        service.write("Recipe", "Soup")
    with pytest.raises(UnknownScope, match="cairn scope add health"):
        service.write("Note", "Blood test", scope="health")
    with pytest.raises(RowRejected, match="no attribute"):
        service.write("Note", "x", attrs={"colour": "red"})
    with pytest.raises(InvalidRequest):
        service.write("Note", "   ")
    assert service.stats(scopes=ALL).nodes_by_type == {}


def test_scopes_hide_rows_completely(service: MemoryService) -> None:
    service.add_scope("work")
    secret = service.write("Note", "Salary review", "The raise is 4 percent.", scope="work")
    public = service.write("Note", "Garden", "Plant the tulips in October.")
    assert service.search("raise percent salary", scopes=ALL).results == [] or all(
        hit.id != secret.node.id for hit in service.search("salary raise", scopes=ALL).results
    )
    found = service.search("salary raise", scopes=["work"]).results
    assert [hit.id for hit in found][:1] == [secret.node.id]
    got = service.get([secret.node.id, public.node.id], scopes=ALL)
    assert [d.node.id for d in got.nodes] == [public.node.id]
    assert got.missing == [secret.node.id]
    with pytest.raises(NodeNotFound):
        service.link(public.node.id, secret.node.id, "relates_to", scopes=ALL)
    with pytest.raises(NodeNotFound):
        service.traverse(secret.node.id, scopes=ALL)
    with pytest.raises(InvalidRequest):
        service.search("x", scopes=[])


def test_link_validates_and_is_idempotent(service: MemoryService) -> None:
    ana = service.write("Person", "Ana Ruiz").node
    ben = service.write("Person", "Ben Ito").node
    acme = service.write("Organization", "Acme Tools").node
    assert service.link(ana.id, acme.id, "works_at", scopes=ALL).created
    assert not service.link(ana.id, acme.id, "works_at", scopes=ALL).created
    with pytest.raises(RowRejected, match="may not join"):
        service.link(acme.id, ana.id, "works_at", scopes=ALL)
    # knows is undirected: asking either way round stores one edge.
    assert service.link(ben.id, ana.id, "knows", scopes=ALL).created
    assert not service.link(ana.id, ben.id, "knows", scopes=ALL).created
    with pytest.raises(InvalidRequest):
        service.link(ana.id, ana.id, "knows", scopes=ALL)
    with pytest.raises(InvalidRequest, match="no edge type"):
        service.link(ana.id, ben.id, "likes", scopes=ALL)
    detail = service.get([ana.id], scopes=ALL).nodes[0]
    assert sorted((e.type, e.other_title) for e in detail.edges) == [
        ("knows", "Ben Ito"),
        ("works_at", "Acme Tools"),
    ]


def test_traverse_depth_direction_and_edge_filter(service: MemoryService) -> None:
    a = service.write("Project", "Roof repair").node
    b = service.write("Project", "House upkeep").node
    c = service.write("Project", "Home").node
    d = service.write("Person", "Roofer Sam").node
    service.link(a.id, b.id, "part_of", scopes=ALL)
    service.link(b.id, c.id, "part_of", scopes=ALL)
    service.link(a.id, d.id, "involves", scopes=ALL)
    one = service.traverse(a.id, scopes=ALL, depth=1)
    assert {n.title for n in one.nodes} == {"House upkeep", "Roofer Sam"}
    two = service.traverse(a.id, scopes=ALL, depth=2, edge_types=["part_of"])
    assert [(n.title, n.depth) for n in two.nodes] == [("House upkeep", 1), ("Home", 2)]
    incoming = service.traverse(c.id, scopes=ALL, depth=4, direction="in")
    assert {n.title for n in incoming.nodes} == {"House upkeep", "Roof repair"}
    assert service.traverse(c.id, scopes=ALL, depth=4, direction="out").nodes == []
    with pytest.raises(InvalidRequest):
        service.traverse(a.id, scopes=ALL, depth=5)
    with pytest.raises(InvalidRequest):
        service.traverse(a.id, scopes=ALL, edge_types=["nope"])


def test_everything_traverse_reaches_is_found_by_search(service: MemoryService) -> None:
    """Invariant I4: graph reach and the two search indexes agree."""
    hub = service.write("Topic", "Beekeeping").node
    titles = ["Hive inspection in May", "Varroa mite treatment", "Honey harvest notes"]
    for title in titles:
        note = service.write("Note", title, f"{title} for the apiary.").node
        service.link(note.id, hub.id, "mentions", scopes=ALL)
    archived = service.write("Note", "Old swarm story", "A swarm in the chimney.").node
    service.link(archived.id, hub.id, "mentions", scopes=ALL)
    service.archive(archived.id, scopes=ALL)
    reached = service.traverse(hub.id, scopes=ALL, depth=2).nodes
    assert {n.title for n in reached} == set(titles)
    for node in reached:
        ids = [hit.id for hit in service.search(node.title, scopes=ALL, limit=25).results]
        assert node.id in ids


def test_archive_hides_from_default_reads_and_is_reversible(service: MemoryService) -> None:
    node = service.write("Note", "Parking spot", "Level 3, bay 42 at the airport.").node
    assert service.archive(node.id, scopes=ALL).status == "archived"
    assert node.id not in [h.id for h in service.search("airport parking", scopes=ALL).results]
    with_archived = service.search("airport parking", scopes=ALL, include_archived=True)
    assert node.id in [h.id for h in with_archived.results]
    assert service.get([node.id], scopes=ALL).nodes[0].node.status == "archived"
    assert service.unarchive(node.id, scopes=ALL).status == "active"
    assert node.id in [h.id for h in service.search("airport parking", scopes=ALL).results]


def test_inbox_capture_promote_discard(service: MemoryService) -> None:
    first = service.inbox_capture("Buy stamps\nand envelopes for the letters")
    second = service.inbox_capture("idea: a shelf above the desk")
    assert [i.id for i in service.inbox_list(scopes=ALL)] == [first.id, second.id]
    promoted = service.inbox_promote(first.id, scopes=ALL)
    assert promoted.node.title == "Buy stamps"
    assert promoted.node.source == "inbox"
    assert service.inbox_discard(second.id, scopes=ALL).state == "discarded"
    assert service.inbox_list(scopes=ALL) == []
    kept = service.inbox_list(scopes=ALL, include_decided=True)
    assert [(i.state, i.node_id) for i in kept] == [
        ("promoted", promoted.node.id),
        ("discarded", None),
    ]
    with pytest.raises(InvalidRequest, match="already"):
        service.inbox_promote(second.id, scopes=ALL)
    with pytest.raises(InvalidRequest):
        service.inbox_capture("   ")
    assert [h.id for h in service.search("stamps envelopes", scopes=ALL).results][:1] == [
        promoted.node.id
    ]


def test_a_discarded_capture_is_restored_to_the_inbox(service: MemoryService) -> None:
    kept = service.inbox_capture("idea: a shelf above the desk")
    assert service.inbox_discard(kept.id, scopes=ALL).state == "discarded"
    back = service.inbox_restore(kept.id, scopes=ALL)
    assert (back.state, back.node_id, back.decided_at) == ("open", None, None)
    assert (back.text, back.captured_at) == (kept.text, kept.captured_at)
    assert [item.id for item in service.inbox_list(scopes=ALL)] == [kept.id]
    with pytest.raises(InvalidRequest, match="not discarded"):
        service.inbox_restore(kept.id, scopes=ALL)  # open: nothing to restore
    promoted = service.inbox_promote(kept.id, scopes=ALL)
    with pytest.raises(InvalidRequest, match="promoted"):
        service.inbox_restore(kept.id, scopes=ALL)  # a memory now: not put back
    assert promoted.node is not None
    assert service.verify_receipts().ok


def test_a_full_disk_rolls_back_the_write_and_keeps_everything_stored(
    service: MemoryService,
    vault: Vault,
) -> None:
    kept = service.write("Note", "Before the disk filled", "Still here afterwards.").node
    with vault.write() as conn:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        # SQLite reports SQLITE_FULL exactly as for a full disk once the file may not grow.
        conn.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(DiskFull, match="free some space"):
        service.write("Note", "Too big", "x" * 90_000)
    with vault.write() as conn:
        conn.execute("PRAGMA max_page_count = 4294967294")
    assert service.stats(scopes=ALL).nodes_by_type == {"Note": 1}
    hits = service.search("disk filled afterwards", scopes=ALL).results
    assert [h.id for h in hits] == [kept.id]
    assert service.verify().ok
