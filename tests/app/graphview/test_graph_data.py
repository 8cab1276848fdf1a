"""The graph view's data, on a real vault written through the service: ego graphs and their
expansion, the overview with its filters, communities and node cap, and the position cache."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from cairn.app.errors import InvalidRequest, NodeNotFound
from cairn.app.graphview.data import TooManyNodes, ViewGraph
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.app.dedup.test_review_queue import KEY, KEY_REWORDED

ALL = ["personal"]


@dataclass
class People:
    alice: str
    bob: str
    carol: str
    garden: str  # Note involving Alice
    recipe: str  # Note involving Alice, references garden
    budget: str  # Note involving Bob
    lonely: str  # Note with no link


def _id(service: MemoryService, type_name: str, title: str, body: str) -> str:
    result = service.write(type_name, title, body)
    assert result.node is not None, result.outcome
    return result.node.id


def _write_people(service: MemoryService) -> People:
    people = People(
        alice=_id(service, "Person", "Alice Marlow", "Neighbour who keeps bees."),
        bob=_id(service, "Person", "Bob Tennant", "Accountant from the chess club."),
        carol=_id(service, "Person", "Carol Ives", "Cousin living by the coast."),
        garden=_id(service, "Note", "Pond cleaning", "The pond needs cleaning in spring."),
        recipe=_id(service, "Note", "Plum jam", "Four kilos of plums and a lemon."),
        budget=_id(service, "Note", "Tax return", "The tax return is due in January."),
        lonely=_id(service, "Note", "Bicycle tyre", "The rear tyre of the bicycle is flat."),
    )
    service.link(people.garden, people.alice, "involves", scopes=ALL)
    service.link(people.recipe, people.alice, "involves", scopes=ALL)
    service.link(people.recipe, people.garden, "references", scopes=ALL)
    service.link(people.budget, people.bob, "involves", scopes=ALL)
    service.link(people.alice, people.bob, "knows", scopes=ALL)
    service.link(people.bob, people.carol, "knows", scopes=ALL)
    return people


@pytest.fixture
def people(service: MemoryService) -> People:
    return _write_people(service)


def _ids(view: ViewGraph) -> set[str]:
    return set(view.ids)


def _pairs(view: ViewGraph) -> set[frozenset[str]]:
    return {frozenset((view.ids[a], view.ids[b])) for a, b in view.edges.tolist()}


def test_ego_graph_reaches_neighbours_up_to_the_depth(
    service: MemoryService, people: People
) -> None:
    near = service.graph_ego(people.alice, scopes=ALL, depth=1)
    assert near.kind == "ego" and near.root == people.alice and near.ids[0] == people.alice
    assert _ids(near) == {people.alice, people.garden, people.recipe, people.bob}
    assert near.titles[0] == "Alice Marlow" and near.types[0] == "Person"
    assert frozenset((people.recipe, people.garden)) in _pairs(near)
    assert near.positions.shape == (4, 2) and np.isfinite(near.positions).all()
    assert near.communities is None
    far = service.graph_ego(people.alice, scopes=ALL, depth=2)
    assert _ids(far) == _ids(near) | {people.budget, people.carol}
    assert people.lonely not in _ids(far)


def test_expanding_a_node_adds_its_neighbours(service: MemoryService, people: People) -> None:
    near = service.graph_ego(people.alice, scopes=ALL, depth=1)
    grown = service.graph_ego(people.alice, scopes=ALL, depth=1, expanded=[people.bob])
    assert _ids(grown) == _ids(near) | {people.budget, people.carol}
    assert grown.expanded == (people.bob,)
    # the nodes it had keep their places (the cache of this ego view is the starting point)
    width = float(np.ptp(near.positions, axis=0).max())
    for node_id in near.ids:
        moved = grown.positions[grown.ids.index(node_id)] - near.positions[near.ids.index(node_id)]
        assert np.linalg.norm(moved) < 0.35 * width


def test_ego_filters_by_type_and_layer(service: MemoryService, people: People) -> None:
    persons = service.graph_ego(people.alice, scopes=ALL, depth=2, node_types=["Person"])
    assert _ids(persons) == {people.alice, people.bob, people.carol}
    semantic = service.graph_ego(people.recipe, scopes=ALL, depth=2, edge_layers=["semantic"])
    assert _ids(semantic) == {people.recipe, people.garden}
    assert semantic.edge_layers == ["semantic"]
    alone = service.graph_ego(people.alice, scopes=ALL, edge_layers=[])
    assert alone.ids == [people.alice] and len(alone.edges) == 0
    with pytest.raises(InvalidRequest, match="spiritual"):
        service.graph_ego(people.alice, scopes=ALL, edge_layers=["spiritual"])
    with pytest.raises(NodeNotFound):
        service.graph_ego("01NOTANIDATALL0000000000000", scopes=ALL)


def test_ego_graph_shows_what_was_just_written(service: MemoryService, people: People) -> None:
    before = service.graph_ego(people.carol, scopes=ALL, depth=1)
    note = _id(service, "Note", "Sea swim", "Cold water at seven in the morning.")
    service.link(note, people.carol, "involves", scopes=ALL)
    after = service.graph_ego(people.carol, scopes=ALL, depth=1)
    assert _ids(after) == _ids(before) | {note}
    assert not after.from_cache


def test_overview_shows_every_visible_memory_with_communities(
    service: MemoryService, people: People
) -> None:
    service.add_scope("work")
    hidden = _id(service, "Note", "Quarterly plan", "Hire two engineers.")
    service.link(hidden, people.alice, "relates_to", scopes=["personal", "work"])
    work_note = service.write("Note", "Salary review", "The raise is four percent.", scope="work")
    assert work_note.node is not None
    view = service.graph_overview(scopes=ALL)
    assert isinstance(view, ViewGraph)
    assert work_note.node.id not in _ids(view)  # another scope
    assert people.lonely in _ids(view) and hidden in _ids(view)
    assert view.communities is not None and len(view.communities) == len(view.ids)
    assert set(view.communities.tolist()) == set(range(int(view.communities.max()) + 1))
    # the linked people and notes fall in fewer groups than there are of them
    linked = [view.ids.index(i) for i in (people.alice, people.garden, people.recipe)]
    assert len({int(view.communities[i]) for i in linked}) == 1
    both = service.graph_overview(scopes=["personal", "work"])
    assert isinstance(both, ViewGraph) and work_note.node.id in _ids(both)


def test_overview_filters_by_type_layer_and_links(service: MemoryService, people: People) -> None:
    persons = service.graph_overview(scopes=ALL, node_types=["Person"])
    assert isinstance(persons, ViewGraph)
    assert _ids(persons) == {people.alice, people.bob, people.carol}
    assert set(persons.edge_layers) == {"entity"}  # knows
    entity = service.graph_overview(scopes=ALL, edge_layers=["entity"])
    assert isinstance(entity, ViewGraph)
    assert frozenset((people.recipe, people.garden)) not in _pairs(entity)  # references
    assert set(entity.edge_layers) == {"entity"}
    linked = service.graph_overview(scopes=ALL, linked_only=True)
    assert isinstance(linked, ViewGraph)
    assert people.lonely not in _ids(linked) and people.carol in _ids(linked)
    semantic_linked = service.graph_overview(scopes=ALL, edge_layers=["semantic"], linked_only=True)
    assert isinstance(semantic_linked, ViewGraph)
    assert _ids(semantic_linked) == {people.recipe, people.garden}


def test_overview_above_the_cap_says_how_many_and_asks_for_a_filter(
    service: MemoryService, people: People
) -> None:
    result = service.graph_overview(scopes=ALL, cap=5)
    assert isinstance(result, TooManyNodes)
    assert result.count == 7 and result.cap == 5
    assert result.by_type == {"Note": 4, "Person": 3}
    assert "7 memories" in result.message and "at most 5" in result.message
    assert "Note 4" in result.message
    narrowed = service.graph_overview(scopes=ALL, node_types=["Person"], cap=5)
    assert isinstance(narrowed, ViewGraph) and len(narrowed.ids) == 3


def test_positions_are_cached_and_reused(service: MemoryService) -> None:
    hub = _id(service, "Topic", "Beekeeping", "Everything about the hives.")
    for number in range(24):
        note = _id(
            service, "Note", f"Hive inspection {number}", f"Frame count {number * 7} and calm bees."
        )
        service.link(note, hub, "involves", scopes=ALL)
    first = service.graph_overview(scopes=ALL)
    second = service.graph_overview(scopes=ALL)
    assert isinstance(first, ViewGraph) and isinstance(second, ViewGraph)
    assert not first.from_cache and second.from_cache
    assert np.array_equal(first.positions, second.positions)
    # placing the nodes: a layout the first time (and its positions written), a read after
    assert "cache_write_s" in first.timings and "cache_write_s" not in second.timings
    # another filter is another layout; the first stays cached
    topics = service.graph_overview(scopes=ALL, node_types=["Topic"])
    assert isinstance(topics, ViewGraph) and not topics.from_cache
    third = service.graph_overview(scopes=ALL)
    assert isinstance(third, ViewGraph) and third.from_cache


def test_forgetting_a_memory_removes_its_cached_positions(
    service: MemoryService, vault: Vault, people: People
) -> None:
    service.graph_ego(people.bob, scopes=ALL)
    service.graph_overview(scopes=ALL)

    def rows_naming(node_id: str) -> int:
        with vault.read() as conn:
            positions = conn.execute(
                "SELECT count(*) FROM graph_positions WHERE node_id = ?", (node_id,)
            ).fetchone()[0]
            layouts = conn.execute(
                "SELECT count(*) FROM graph_layouts WHERE root_id = ? OR key LIKE ?",
                (node_id, f"%{node_id}%"),
            ).fetchone()[0]
        return int(positions) + int(layouts)

    assert rows_naming(people.bob) > 0
    service.forget(people.bob, scopes=ALL)
    assert rows_naming(people.bob) == 0
    after = service.graph_overview(scopes=ALL)
    assert isinstance(after, ViewGraph) and people.bob not in _ids(after)


def test_a_memory_awaiting_review_is_drawn_and_marked(service: MemoryService) -> None:
    first = service.write("Note", *KEY)
    second = service.write("Note", *KEY_REWORDED)
    assert second.outcome == "pending", second.matched
    ana = _id(service, "Person", "Ana Ruiz", "Our landlady.")
    service.link(second.node.id, ana, "involves", scopes=ALL)
    service.link(first.node.id, ana, "involves", scopes=ALL)
    ego = service.graph_ego(ana, scopes=ALL)
    assert {first.node.id, second.node.id} <= _ids(ego)
    assert ego.awaiting == {second.node.id}
    overview = service.graph_overview(scopes=ALL)
    assert isinstance(overview, ViewGraph)
    assert overview.awaiting == {second.node.id}
    service.resolve_duplicate(second.verdict, "distinct", scopes=ALL)
    assert service.graph_ego(ana, scopes=ALL).awaiting == frozenset()
