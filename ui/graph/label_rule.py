"""Which titles the graph writes at a zoom: the most important first, and none over another.

A title is drawn in screen pixels beside its node, while zooming in spreads the nodes apart, so
two titles overlap below one zoom and never above it: titles i and j (i left of j) overlap at
zoom s while s·|dx| < wᵢ and s·|dy| < h, so from ``apart = min(wᵢ/|dx|, h/|dy|)`` on they do
not. Taking titles in order of importance, each gets the zoom from which it is written, its
*reveal zoom*: the largest ``apart`` with an earlier title already written there (one whose
reveal zoom is below that ``apart``). From its reveal zoom on, a title is written at every zoom:

* no two written titles overlap: an earlier j written at s either no longer meets i at s, or
  meets it only below its own reveal zoom;
* zooming in only adds titles (no title jumps away while the picture grows), and which titles
  show depends on the zoom alone, never on where the view is panned.

The earlier titles a node must be checked against are found through a grid per octave of
reveal zoom: the titles written from zoom z on are at most as wide as the widest title at z, so
a grid of cells that size holds each in at most nine cells and finds it from one. That keeps
20,000 titles to well under a second in the worker, where a pairwise matrix would need
gigabytes. The graph server's page (``app/server/web/graph_view.js``) applies the same rule.

Importance: the memory in focus (the one opened, or the centre of a neighbourhood) first, then
the memories opened up around it, then those one link away, then two links away, then the rest;
within each tier the most linked first, then the shorter title, then as laid out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Points = npt.NDArray[np.float64]
Order = npt.NDArray[np.int64]
NEAR_TIERS = 2  # links away from the focus that still count as near
STRIDE = 1 << 32  # cells per grid column, far more than any picture has


def importance(
    count: int,
    edges: npt.NDArray[np.int64],
    titles: Sequence[str],
    focus: int | None = None,
    opened_up: Sequence[int] = (),
) -> Order:
    """Node indexes, the most important first (see the module's docstring)."""
    degree = np.zeros(count, dtype=np.int64)
    if len(edges):
        degree = np.bincount(edges.ravel(), minlength=count)
    tier = np.full(count, NEAR_TIERS + 2, dtype=np.int64)  # the rest
    if focus is not None and 0 <= focus < count:
        near = np.zeros(count, dtype=bool)
        near[focus] = True
        for hops in range(1, NEAR_TIERS + 1):
            reached = _neighbours(near, edges, count) & ~near
            tier[reached] = hops + 1
            near |= reached
    for index in opened_up:
        if 0 <= index < count:
            tier[index] = 1
    if focus is not None and 0 <= focus < count:
        tier[focus] = 0
    lengths = np.array([len(title) for title in titles], dtype=np.int64)
    # lexsort sorts by the last key first
    return np.asarray(np.lexsort((np.arange(count), lengths, -degree, tier)), dtype=np.int64)


def _neighbours(
    chosen: npt.NDArray[np.bool_], edges: npt.NDArray[np.int64], count: int
) -> npt.NDArray[np.bool_]:
    """The nodes one link from any chosen node."""
    out = np.zeros(count, dtype=bool)
    if len(edges):
        out[edges[chosen[edges[:, 0]], 1]] = True
        out[edges[chosen[edges[:, 1]], 0]] = True
    return out


def reveal_zooms(
    points: Points,
    widths: npt.NDArray[np.float64],
    height: float,
    order: Order,
    lowest: float,
    highest: float,
) -> npt.NDArray[np.float64]:
    """Each node's reveal zoom (screen pixels per scene unit); ``inf`` for a title that would
    only fit beyond ``highest``, the closest zoom the view allows. ``widths`` and ``height``
    are each title's room in screen pixels, the gap kept between titles included; ``lowest``
    is the farthest zoom out (every title that fits there is written there)."""
    count = len(points)
    if not count:
        return np.zeros(0)
    reveal = [math.inf] * count
    widest = float(widths.max())
    octaves = max(1, math.ceil(math.log2(highest / lowest)) + 1)
    zooms = lowest * 2.0 ** np.arange(octaves)
    origin = points.min(axis=0)
    # Cells are numbered from the lowest corner, one row of STRIDE cells per column; a node's
    # cell in every octave is worked out at once.
    column = (points[:, 0] - origin[0])[:, None] * zooms[None, :] / widest
    row = (points[:, 1] - origin[1])[:, None] * zooms[None, :] / height
    keys = (np.floor(column).astype(np.int64) + 1) * STRIDE + np.floor(row).astype(np.int64) + 1
    # Octave k's grid (cells W/zₖ by h/zₖ scene units) holds the titles revealed in that octave
    # whose room, at their reveal zoom, reaches into a cell: latest[k] gives a cell's latest
    # entry, and each entry its node and the entry before it in the same cell (-1: none). Flat
    # lists of numbers and dicts of numbers, not a list per cell: the garbage collector does
    # not walk those, and a full pass over tens of thousands of lists stalls every thread.
    latest: list[dict[int, int]] = [{} for _ in range(octaves)]
    entry_node: list[int] = []
    entry_before: list[int] = []
    xs, ys = points[:, 0].tolist(), points[:, 1].tolist()
    origin_x, origin_y = float(origin[0]), float(origin[1])
    room = widths.tolist()
    cell_of = keys.ravel().tolist()  # node i's cell in octave k at i * octaves + k
    for i in order.tolist():
        x, y, own = xs[i], ys[i], room[i]
        need = lowest
        first = i * octaves
        for octave in range(octaves):
            entry = latest[octave].get(cell_of[first + octave], -1)
            while entry >= 0:
                j = entry_node[entry]
                entry = entry_before[entry]
                # apart = min(w_left / |dx|, h / |dy|), written out: the hot loop
                dx, dy = xs[j] - x, ys[j] - y
                if dy < 0:
                    dy = -dy
                apart = height / dy if dy else math.inf
                if dx > 0:
                    across = own / dx
                elif dx < 0:
                    across = room[j] / -dx
                else:
                    across = math.inf
                if across < apart:
                    apart = across
                if apart > need and apart > reveal[j]:
                    need = apart
        if need > highest:
            continue
        reveal[i] = need
        octave = min(int(math.log2(need / lowest)), octaves - 1)
        # The room where a later title would meet this one at its reveal zoom: to the left as
        # far as the widest title, to the right as far as this one, a line up and down.
        scale = float(zooms[octave])
        grid = latest[octave]
        left = math.floor((x - origin_x - widest / need) * scale / widest) + 1
        right = math.floor((x - origin_x + own / need) * scale / widest) + 1
        top = math.floor((y - origin_y - height / need) * scale / height) + 1
        bottom = math.floor((y - origin_y + height / need) * scale / height) + 1
        for cell_x in range(left, right + 1):
            for cell_y in range(top, bottom + 1):
                key = cell_x * STRIDE + cell_y
                entry_node.append(i)
                entry_before.append(grid.get(key, -1))
                grid[key] = len(entry_node) - 1
    return np.array(reveal, dtype=np.float64)
