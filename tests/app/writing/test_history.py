"""Supersede and history (DESIGN §4, item 5): a changed fact replaces the old one, the old one
stays as history, walkable and found "as of" a date (real vault, real model)."""

from __future__ import annotations

import pytest

from cairn.app.clock import now_iso
from cairn.app.errors import InvalidRequest, NodeNotFound
from cairn.app.models import Node
from cairn.app.service import MemoryService

ALL = ["personal"]
RENT_900 = "The rent for the flat on Kade Street is 900 euros a month."
RENT_950 = "The rent for the flat on Kade Street is 950 euros a month."
RENT_1010 = "The rent for the flat on Kade Street is 1010 euros a month."


def fact(service: MemoryService, body: str, valid_from: str | None = None) -> Node:
    # dedup=False: two versions of one fact differ only in a number, so the gate would
    # merge-link them (a same_topic edge and a contradiction flag) or, in the pending band,
    # hold the newer one out of sight. A supersede states the new version on purpose, which is
    # what dedup=False is for; the gate's own suggestion is covered by the end-to-end test.
    result = service.write("Fact", "Flat rent", body, valid_from=valid_from, dedup=False)
    assert result.outcome == "inserted"
    assert result.node is not None
    return result.node


def ids(response: object) -> list[str]:
    return [hit.id for hit in response.results]  # type: ignore[attr-defined]


def node(service: MemoryService, node_id: str) -> Node:
    return service.get([node_id], scopes=ALL).nodes[0].node


def receipts(service: MemoryService) -> int:
    return int(service.stats(scopes=ALL).receipts)


# -- supersede --------------------------------------------------------------------------------


def test_supersede_flips_the_old_one_closes_its_validity_and_links_new_to_old(
    service: MemoryService,
) -> None:
    old = fact(service, RENT_900, valid_from="2020-01-01")
    new = fact(service, RENT_950, valid_from="2023-06-01")
    before = receipts(service)

    history = service.supersede(old.id, new.id, scopes=ALL)

    assert [e.id for e in history.chain] == [old.id, new.id]
    assert history.position == 1  # the answer is about the new one
    assert [e.status for e in history.chain] == ["superseded", "active"]
    stored_old = node(service, old.id)
    assert stored_old.status == "superseded"
    # Its validity closes when the new one became true, not when the person said so.
    assert stored_old.valid_to == "2023-06-01"
    stored_new = node(service, new.id)
    assert stored_new.status == "active" and stored_new.valid_to is None
    new_edges = service.get([new.id], scopes=ALL).nodes[0].edges
    assert [(e.type, e.direction, e.other_id, e.layer) for e in new_edges] == [
        ("supersedes", "out", old.id, "temporal")
    ]
    old_edges = service.get([old.id], scopes=ALL).nodes[0].edges
    assert [(e.type, e.direction, e.other_id) for e in old_edges] == [("supersedes", "in", new.id)]
    assert receipts(service) == before + 1
    assert service.verify().ok


def test_without_valid_from_the_old_one_ends_when_it_was_superseded(
    service: MemoryService,
) -> None:
    old = fact(service, RENT_900)
    new = fact(service, RENT_950)
    start = now_iso()
    service.supersede(old.id, new.id, scopes=ALL)
    valid_to = node(service, old.id).valid_to
    assert valid_to is not None and start <= valid_to <= now_iso()


def test_the_old_version_is_history_not_a_current_answer(service: MemoryService) -> None:
    old = fact(service, RENT_900, valid_from="2020-01-01")
    new = fact(service, RENT_950, valid_from="2023-06-01")
    service.supersede(old.id, new.id, scopes=ALL)
    query = "rent for the flat on Kade Street"

    current = ids(service.search(query, scopes=ALL))
    assert new.id in current and old.id not in current

    history = service.search(query, scopes=ALL, include_history=True)
    assert {new.id, old.id} <= set(ids(history))
    statuses = {hit.id: hit.status for hit in history.results}
    assert statuses[old.id] == "superseded" and statuses[new.id] == "active"


def test_as_of_finds_the_version_valid_then(service: MemoryService) -> None:
    old = fact(service, RENT_900, valid_from="2020-01-01")
    new = fact(service, RENT_950, valid_from="2023-06-01")
    service.supersede(old.id, new.id, scopes=ALL)
    cases = [
        ("2021-03-15", old, new),
        ("2023-05-31", old, new),  # the last day of the old rent
        ("2023-06-01", new, old),  # a bare date is that whole day: the new rent holds by its end
        ("2024-01-01", new, old),
        ("2024-01-01T12:00:00+00:00", new, old),
    ]
    for as_of, holds, gone in cases:
        found = ids(service.search("Kade Street rent", scopes=ALL, as_of=as_of))
        assert holds.id in found and gone.id not in found, as_of


def test_as_of_before_anything_was_true_finds_neither(service: MemoryService) -> None:
    old = fact(service, RENT_900, valid_from="2020-01-01")
    new = fact(service, RENT_950, valid_from="2023-06-01")
    service.supersede(old.id, new.id, scopes=ALL)
    # A memory without valid_from holds from when it was recorded (today), not in 2019.
    undated = service.write("Note", "Kade Street", "Kade Street has a new bakery.").node
    found = ids(service.search("Kade Street", scopes=ALL, as_of="2019-12-31"))
    assert old.id not in found and new.id not in found and undated.id not in found


def test_history_walks_a_three_version_chain_from_any_version(service: MemoryService) -> None:
    v1 = fact(service, RENT_900, valid_from="2019-01-01")
    v2 = fact(service, RENT_950, valid_from="2021-01-01")
    v3 = fact(service, RENT_1010, valid_from="2024-01-01")
    service.supersede(v1.id, v2.id, scopes=ALL)
    service.supersede(v2.id, v3.id, scopes=ALL)

    chain = [v1.id, v2.id, v3.id]
    for position, asked in enumerate(chain):
        history = service.history(asked, scopes=ALL)
        assert [e.id for e in history.chain] == chain  # oldest first, from wherever it starts
        assert history.position == position
    middle = service.history(v2.id, scopes=ALL)
    assert [e.status for e in middle.chain] == ["superseded", "superseded", "active"]
    assert [(e.valid_from, e.valid_to) for e in middle.chain] == [
        ("2019-01-01", "2021-01-01"),
        ("2021-01-01", "2024-01-01"),
        ("2024-01-01", None),
    ]
    # What each version said, and the words each changed from the one before it.
    assert [e.body for e in middle.chain] == [RENT_900, RENT_950, RENT_1010]
    assert middle.chain[0].changes is None
    assert "[-900-] {+950+}" in (middle.chain[1].changes or "")
    assert "[-950-] {+1010+}" in (middle.chain[2].changes or "")
    assert middle.as_dict()["position"] == 1
    assert [e["id"] for e in middle.as_dict()["chain"]] == chain


def test_history_of_a_memory_never_superseded_is_itself(service: MemoryService) -> None:
    alone = fact(service, RENT_900)
    history = service.history(alone.id, scopes=ALL)
    assert [e.id for e in history.chain] == [alone.id] and history.position == 0
    with pytest.raises(NodeNotFound):
        service.history("01ARZ3NDEKTSV4RRFFQ69G5FAV", scopes=ALL)


# -- what supersede refuses -------------------------------------------------------------------


def test_a_memory_cannot_supersede_itself(service: MemoryService) -> None:
    old = fact(service, RENT_900)
    before = receipts(service)
    with pytest.raises(InvalidRequest, match="itself"):
        service.supersede(old.id, old.id, scopes=ALL)
    assert node(service, old.id).status == "active"
    assert receipts(service) == before


def test_the_pack_decides_which_types_may_supersede_which(service: MemoryService) -> None:
    old = fact(service, RENT_900)
    note = service.write("Note", "Rent talk", "Talked to the landlord about the rent.").node
    before = receipts(service)
    with pytest.raises(InvalidRequest, match="A Fact cannot be superseded by a Note"):
        service.supersede(old.id, note.id, scopes=ALL)
    assert node(service, old.id).status == "active"
    assert service.get([note.id], scopes=ALL).nodes[0].edges == []
    assert receipts(service) == before


def test_an_already_superseded_memory_points_at_its_successor(service: MemoryService) -> None:
    v1 = fact(service, RENT_900)
    v2 = fact(service, RENT_950)
    v3 = fact(service, RENT_1010)
    service.supersede(v1.id, v2.id, scopes=ALL)
    with pytest.raises(InvalidRequest, match=f"already superseded by {v2.id}"):
        service.supersede(v1.id, v3.id, scopes=ALL)
    # The other way round would make the old version newer than its successor.
    with pytest.raises(InvalidRequest, match="already superseded"):
        service.supersede(v2.id, v1.id, scopes=ALL)
    assert [e.id for e in service.history(v3.id, scopes=ALL).chain] == [v3.id]
    assert node(service, v3.id).status == "active"


def test_a_supersede_that_would_close_a_cycle_is_refused(service: MemoryService) -> None:
    v1 = fact(service, RENT_900)
    v2 = fact(service, RENT_950)
    v3 = fact(service, RENT_1010)
    service.supersede(v1.id, v2.id, scopes=ALL)
    service.supersede(v2.id, v3.id, scopes=ALL)
    # Archiving and unarchiving a superseded version brings it back as history, not as a
    # current memory: "v1 supersedes v3" would close the loop v1 -> v3 -> v2 -> v1.
    service.archive(v1.id, scopes=ALL)
    assert service.unarchive(v1.id, scopes=ALL).status == "superseded"
    with pytest.raises(InvalidRequest, match=r"already superseded|cycle"):
        service.supersede(v3.id, v1.id, scopes=ALL)
    assert node(service, v3.id).status == "active"
    chain = service.history(v2.id, scopes=ALL).chain
    assert [e.id for e in chain] == [v1.id, v2.id, v3.id]  # each version once


def test_supersede_needs_both_memories_in_the_callers_scopes(service: MemoryService) -> None:
    service.add_scope("work")
    old = fact(service, RENT_900)
    hidden = service.write("Fact", "Flat rent", RENT_950, scope="work", dedup=False).node
    with pytest.raises(NodeNotFound):
        service.supersede(old.id, hidden.id, scopes=ALL)
    assert node(service, old.id).status == "active"


# -- with the dedup gate ----------------------------------------------------------------------


def test_a_pending_duplicate_that_supersedes_its_candidate_becomes_active(
    service: MemoryService,
) -> None:
    old = service.write("Note", "Lunch", "Had lunch with Marta at the harbour cafe.").node
    pending = service.write(
        "Note", "Lunch with Marta", "Lunch with Marta at the cafe by the harbour, she ordered fish."
    )
    assert pending.outcome == "pending" and pending.verdict is not None
    assert [item.id for item in service.pending(scopes=ALL)] == [pending.verdict]
    before = receipts(service)

    history = service.supersede(old.id, pending.id, scopes=ALL)

    assert [(e.id, e.status) for e in history.chain] == [
        (old.id, "superseded"),
        (pending.id, "active"),
    ]
    assert service.pending(scopes=ALL) == []
    assert service.briefing(scopes=ALL).review_count == 0
    # The review item was settled by the supersede, so it cannot be resolved again.
    with pytest.raises(InvalidRequest, match="already settled"):
        service.resolve_duplicate(pending.verdict, "merge", scopes=ALL)
    assert ids(service.search("lunch with Marta harbour", scopes=ALL))[:1] == [pending.id]
    assert receipts(service) == before + 1


def test_the_gate_suggests_a_supersede_and_following_it_works(service: MemoryService) -> None:
    """No dedup=False here: the whole flow a person sees, end to end."""
    old = service.write("Fact", "Flat rent", RENT_900)
    assert old.outcome == "inserted"
    new = service.write("Fact", "Flat rent", RENT_950)
    # The same topic, but a number differs: never absorbed, kept as its own node and flagged.
    assert new.outcome == "merge_linked"
    assert new.flags == ("possible_contradiction",)
    assert new.matched is not None and new.matched.id == old.id
    assert new.suggestion is not None and "950 euros vs 900 euros" in new.suggestion
    suggested = new.suggestion.split("cairn supersede ", 1)[1].split()
    assert suggested == [old.id, new.id]
    before = receipts(service)

    history = service.supersede(*suggested, scopes=ALL)

    assert [e.id for e in history.chain] == [old.id, new.id]
    assert node(service, old.id).status == "superseded"
    edges = {(e.type, e.other_id) for e in service.get([new.id], scopes=ALL).nodes[0].edges}
    assert edges == {("same_topic", old.id), ("supersedes", old.id)}
    found = ids(service.search("Kade Street flat rent", scopes=ALL))
    assert new.id in found and old.id not in found
    assert old.id in ids(service.search("Kade Street flat rent", scopes=ALL, include_history=True))
    assert receipts(service) == before + 1
    # The next restatement of the current rent is compared with the current version only.
    again = service.write("Fact", "Flat rent", RENT_950)
    assert again.outcome == "absorbed" and again.id == new.id


def test_traverse_as_of_walks_the_graph_as_it_stood(service: MemoryService) -> None:
    """A superseded version is reached as of a date it held, its successor is not."""
    home = service.write("Place", "Our flat").node
    assert home is not None
    old = service.write("Fact", "Rent", RENT_900, valid_from="2020-01-01", dedup=False).node
    new = service.write("Fact", "Rent", RENT_950, valid_from="2023-06-01", dedup=False).node
    assert old is not None and new is not None
    for fact_id in (old.id, new.id):
        service.link(fact_id, home.id, "involves", scopes=ALL)
    service.supersede(old.id, new.id, scopes=ALL)

    def reached(as_of: str | None) -> set[str]:
        response = service.traverse(home.id, scopes=ALL, as_of=as_of)
        return {n.id for n in response.nodes}

    assert reached(None) == {new.id}
    assert reached("2021-03-01") == {old.id}
    assert reached("2024-01-01") == {new.id}


def test_a_superseded_version_can_be_got_and_walked_from(service: MemoryService) -> None:
    old = fact(service, RENT_900)
    new = fact(service, RENT_950)
    service.supersede(old.id, new.id, scopes=ALL)
    got = service.get([old.id], scopes=ALL).nodes
    assert [(d.node.id, d.node.status) for d in got] == [(old.id, "superseded")]
    reach = service.traverse(old.id, scopes=ALL)
    assert new.id in {r.id for r in reach.nodes}  # the version that replaced it
