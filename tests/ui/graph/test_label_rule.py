"""The rule that chooses which titles the graph writes at a zoom, on its own: the grid finds the
same reveal zooms as comparing every pair, written titles never overlap, zooming in only adds
titles, and importance puts the memory in focus and its near neighbours first."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cairn.app.graphview import layout
from cairn.ui.graph.label_rule import importance, reveal_zooms

HEIGHT = 18.0
ZOOMS = (0.002, 8.0)


def pairwise(
    points: np.ndarray, widths: np.ndarray, order: np.ndarray, lowest: float, highest: float
) -> np.ndarray:
    """The rule as its docstring states it, every earlier title against every later one."""
    reveal = np.full(len(points), np.inf)
    for rank, i in enumerate(order.tolist()):
        need = lowest
        for j in order[:rank].tolist():
            dx = points[j, 0] - points[i, 0]
            dy = abs(points[j, 1] - points[i, 1])
            left = widths[i] if dx >= 0 else widths[j]
            apart = min(left / abs(dx) if dx else math.inf, HEIGHT / dy if dy else math.inf)
            if apart > need and apart > reveal[j]:
                need = apart
        if need <= highest:
            reveal[i] = need
    return reveal


def layout_of(count: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A real layout of a vault-like graph (hubs and their notes), in scene units, with
    titles of varied widths."""
    rng = np.random.default_rng(seed)
    hubs = rng.integers(0, max(count // 20, 1), size=count)
    edges = layout.edge_array([(i, int(h)) for i, h in enumerate(hubs) if i != h])
    points = layout.layout(count, edges) * 40.0
    widths = rng.uniform(30.0, 200.0, size=count)
    return points, widths, edges


def boxes(points: np.ndarray, widths: np.ndarray, nodes: np.ndarray, zoom: float) -> np.ndarray:
    """Each title's room on screen at ``zoom``: it starts at its node and runs right."""
    left = points[nodes, 0] * zoom
    top = points[nodes, 1] * zoom
    return np.column_stack((left, top, left + widths[nodes], top + HEIGHT))


def overlapping(rooms: np.ndarray) -> list[tuple[int, int]]:
    found = []
    for a in range(len(rooms)):
        meets = (
            (rooms[a, 0] < rooms[:, 2])
            & (rooms[:, 0] < rooms[a, 2])
            & (rooms[a, 1] < rooms[:, 3])
            & (rooms[:, 1] < rooms[a, 3])
        )
        meets[: a + 1] = False
        found += [(a, int(b)) for b in np.flatnonzero(meets)]
    return found


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_grid_finds_what_comparing_every_pair_finds(seed: int) -> None:
    points, widths, edges = layout_of(400, seed)
    points[7] = points[3]  # two memories on one spot: one of them is never written
    order = importance(len(points), edges, ["x"] * len(points), focus=0)
    found = reveal_zooms(points, widths, HEIGHT, order, *ZOOMS)
    expected = pairwise(points, widths, order, *ZOOMS)
    assert np.array_equal(np.isinf(found), np.isinf(expected))
    finite = np.isfinite(expected)
    assert np.allclose(found[finite], expected[finite])
    assert np.isinf(found[[3, 7]]).sum() == 1


def test_written_titles_never_overlap_and_zooming_in_only_adds() -> None:
    points, widths, edges = layout_of(3_000, 5)
    order = importance(len(points), edges, ["x"] * len(points))
    reveal = reveal_zooms(points, widths, HEIGHT, order, *ZOOMS)
    span = points.max(axis=0) - points.min(axis=0)
    fitted = min(1200 / span[0], 800 / span[1])
    shown_before: set[int] = set()
    counts = []
    for step in range(8):
        zoom = fitted * 1.6**step
        shown = np.flatnonzero(reveal <= zoom)
        assert not overlapping(boxes(points, widths, shown, zoom)), f"overlap at {zoom}"
        assert shown_before <= set(shown.tolist())
        shown_before = set(shown.tolist())
        counts.append(len(shown))
    assert 10 < counts[0] < counts[-1]  # some at the fitted zoom, many more closer in
    assert int(order[0]) in shown_before and reveal[order[0]] == ZOOMS[0]  # the first: always


def test_importance_puts_the_focus_and_what_is_near_it_first() -> None:
    # 0 - 1 - 2 - 3, and 4 a hub of 5..9 far from 0; 10 opened up
    pairs = [(0, 1), (1, 2), (2, 3), (3, 4)] + [(4, leaf) for leaf in range(5, 10)]
    edges = layout.edge_array(pairs)
    titles = [f"n{i}" for i in range(11)]
    order = importance(11, edges, titles, focus=0, opened_up=[10]).tolist()
    assert order[:4] == [0, 10, 1, 2]  # the focus, opened up, one link, two links
    assert order[4] == 4  # then the most linked of the rest
    # without a focus (the whole vault): the most linked first
    assert importance(11, edges, titles).tolist()[0] == 4
    # the same degree: the shorter title first
    short = importance(3, layout.edge_array([(0, 1), (1, 2)]), ["a long title", "b", "c"])
    assert short.tolist() == [1, 2, 0]
