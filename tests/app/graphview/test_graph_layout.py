"""The layout engine: deterministic, fast enough, packs what is not linked, keeps known places
when a graph grows, and splits communities."""

from __future__ import annotations

import time

import numpy as np
import pytest

from cairn.app.graphview import community_detection, layout, leiden_process


def clustered(count: int, groups: int, seed: int = 0) -> np.ndarray:
    """``groups`` communities, each a hub with spokes and a few chords, and a few edges
    between the hubs: what a vault of notes about people looks like."""
    rng = np.random.default_rng(seed)
    size = count // groups
    edges = []
    for group in range(groups):
        hub = group * size
        for member in range(hub + 1, hub + size):
            edges.append((hub, member))
            if rng.random() < 0.5:
                edges.append((member, hub + 1 + int(rng.integers(0, size - 1))))
        edges.append((hub, ((group + 1) % groups) * size))
    return layout.simple_edges(layout.edge_array(edges))


def test_the_same_graph_and_seed_give_the_same_positions() -> None:
    edges = clustered(600, 6)
    first = layout.layout(600, edges, seed=7)
    again = layout.layout(600, edges, seed=7)
    other = layout.layout(600, edges, seed=8)
    assert first.shape == (600, 2)
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)
    small = clustered(60, 3)
    assert np.array_equal(layout.layout(60, small), layout.layout(60, small))


def test_two_thousand_nodes_lay_out_within_a_second() -> None:
    edges = clustered(2000, 20)
    layout.layout(200, clustered(200, 4))  # the FFT tables and imports, once
    started = time.perf_counter()
    positions = layout.layout(2000, edges)
    assert time.perf_counter() - started <= 1.0
    assert np.isfinite(positions).all()


def test_linked_nodes_end_up_closer_than_strangers() -> None:
    edges = clustered(1000, 10)
    positions = layout.layout(1000, edges)
    joined = np.linalg.norm(positions[edges[:, 0]] - positions[edges[:, 1]], axis=1)
    rng = np.random.default_rng(1)
    pairs = rng.integers(0, 1000, size=(2000, 2))
    strangers = np.linalg.norm(positions[pairs[:, 0]] - positions[pairs[:, 1]], axis=1)
    assert np.median(joined) < np.median(strangers) / 3


def test_unlinked_nodes_are_packed_beside_the_linked_ones_not_flung_away() -> None:
    edges = clustered(300, 3)
    positions = layout.layout(340, edges)  # nodes 300..339 have no edge
    linked, alone = positions[:300], positions[300:]
    width = np.ptp(positions, axis=0).max()
    assert width < 10 * np.ptp(linked, axis=0).max()
    gaps = np.linalg.norm(alone[:, None] - alone[None, :], axis=2) + np.eye(40) * 1e9
    assert gaps.min() > 0.5  # a tidy block: none on top of another


def test_a_grown_graph_keeps_the_known_nodes_in_place() -> None:
    edges = clustered(120, 4)
    before = layout.layout(120, edges)
    grown = np.vstack([edges, [(5, 120), (5, 121), (120, 122)]])
    start = np.vstack([before, np.full((3, 2), np.nan)])
    after = layout.layout(123, grown, start=start)
    width = np.ptp(before, axis=0).max()
    moved = np.linalg.norm(after[:120] - before, axis=1) / width
    assert np.median(moved) < 0.05
    assert np.linalg.norm(after[120] - after[5]) < width / 3  # near the node it joins
    # a large graph keeps them exactly and puts the new ones next to their neighbours
    big = clustered(1200, 12)
    settled = layout.layout(1200, big)
    start = np.vstack([settled, np.full((1, 2), np.nan)])
    again = layout.layout(1201, np.vstack([big, [(0, 1200)]]), start=start)
    assert np.array_equal(again[:1200], settled)
    assert np.linalg.norm(again[1200] - again[0]) < 2.0


def test_a_mostly_new_graph_is_laid_out_afresh() -> None:
    edges = clustered(200, 4)
    start = np.full((200, 2), np.nan)
    start[:10] = 1000.0
    positions = layout.layout(200, edges, start=start)
    assert np.ptp(positions, axis=0).max() < 500  # the stale places were not kept


def test_communities_follow_the_clusters() -> None:
    edges = clustered(400, 4)
    labels = community_detection.communities(400, edges, seed=1)
    assert labels.shape == (400,)
    for group in range(4):
        members = labels[group * 100 : (group + 1) * 100]
        assert np.mean(members == np.bincount(members).argmax()) > 0.9
    sizes = np.bincount(labels)
    assert list(sizes) == sorted(sizes, reverse=True)  # 0 is the largest
    assert np.array_equal(labels, community_detection.communities(400, edges, seed=1))


def test_large_graphs_use_the_compiled_leiden() -> None:
    edges = clustered(6_000, 30)
    labels = community_detection.communities(6_000, edges)
    assert 25 <= labels.max() + 1 <= 60


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def test_the_largest_graphs_find_their_communities_in_a_child_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    edges = clustered(3_000, 30)
    monkeypatch.setattr(community_detection, "CHILD_FROM", 2_000)
    labels = community_detection.communities(3_000, edges, seed=2)
    assert 25 <= labels.max() + 1 <= 60
    # the same answer as the same Leiden run here, with the same seed
    here = leiden_process.run_leiden(
        3_000, layout.simple_edges(edges), 2, passes=leiden_process.PASSES
    )
    assert _same_partition(labels, np.asarray(here))


def test_signature_ignores_order_but_not_content() -> None:
    ids = ["a", "b", "c"]
    edges = layout.edge_array([(0, 1), (1, 2)])
    same = layout.signature(["c", "b", "a"], layout.edge_array([(1, 0), (2, 1)]))
    assert layout.signature(ids, edges) == same
    assert layout.signature(ids, layout.edge_array([(0, 1)])) != same
    assert layout.signature(["a", "b", "d"], edges) != same


def test_empty_and_single_node_graphs() -> None:
    assert layout.layout(0, layout.edge_array([])).shape == (0, 2)
    assert layout.layout(1, layout.edge_array([])).shape == (1, 2)
    assert community_detection.communities(1, layout.edge_array([])).tolist() == [0]
