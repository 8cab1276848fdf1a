"""Where the graph view puts each node.

networkx's layouts are far too slow for a whole vault (``spring_layout`` took 29 s for 2,000
nodes on this 2-core machine). igraph's compiled Fruchterman-Reingold is fast, but only its exact
variant draws well, and that one costs O(n²) per iteration; its grid variant (1 s for 20,000
nodes) drew every community on top of the others in one tangle, and from a settled picture it
took a minute for 120 iterations (it never re-sorts nodes into its grid). So:

* each connected component is laid out on its own and the pictures are packed in rows, the
  memories with no link at all in a tidy block of their own (a force layout flings them out to
  a far ring);
* a component below ``EXACT_BELOW`` nodes (every ego view) gets igraph's exact variant;
* a larger one gets ForceAtlas2's forces computed here, vectorised with numpy: edge pulls summed
  with ``bincount``, and the pushes of all nodes on all nodes through a density grid convolved
  by FFT (the particle-mesh method), O(n + G² log G) per iteration. ``bench/graph_line.py``
  measures it on every ``make bench``: 2,000 nodes in about 0.25 s, 20,000 in about 2 s.

Positions are deterministic: starting points come from a numpy generator seeded by ``seed``, and
igraph's own random numbers from a seeded generator installed under a lock. Given earlier
positions (the vault's cache), a small graph keeps its known nodes where they were while the new
ones find room among them, then everything settles a little; a large one keeps its known nodes
and puts each new one next to its neighbours.

Communities are ``graph_communities``'s business. Arrays in, arrays out: no Qt, no storage.
"""

from __future__ import annotations

import hashlib
import math
import random
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache

import igraph
import numpy as np
import numpy.typing as npt

# Bump when the layout or its parameters change: cached positions of an older version are then
# laid out afresh instead of being reused.
LAYOUT_VERSION = 1
EXACT_BELOW = 400  # nodes in a component; the exact variant is O(n²) per iteration
EXACT_ITERATIONS = 500  # igraph's default
EXACT_WORK_PER_CALL = 4_000_000  # node pairs x iterations per igraph call: about 15 ms
MESH_ITERATIONS = 150
MESH_CELLS = 128  # grid points per side at most: 20,000 nodes land about one per point
MESH_GRAVITY = 1.0  # ForceAtlas2's default
# A re-layout that knows at least this share of its nodes' places keeps them; below it the
# graph changed too much to be recognisable anyway, and it is laid out afresh.
REFINE_KNOWN_SHARE = 0.5
GAP = 3.0  # between packed components, in ideal edge lengths

Positions = npt.NDArray[np.float64]  # (n, 2)
EdgeArray = npt.NDArray[np.int64]  # (m, 2) node indexes

# igraph keeps one random generator for the whole process: a layout swaps in a seeded one and
# puts Python's back afterwards, one layout at a time.
_igraph_random = threading.Lock()


@contextmanager
def seeded_igraph(seed: int) -> Iterator[None]:
    with _igraph_random:
        # Layout, not secrecy: a seeded generator is what makes the picture repeatable.
        igraph.set_random_number_generator(random.Random(seed))  # noqa: S311
        try:
            yield
        finally:
            igraph.set_random_number_generator(random)


def edge_array(pairs: Sequence[tuple[int, int]]) -> EdgeArray:
    return np.asarray(pairs, dtype=np.int64).reshape(-1, 2)


def simple_edges(edges: EdgeArray) -> EdgeArray:
    """Each joined pair once, smaller index first, without self-loops: two memories linked by
    two edge types pull together no harder than by one."""
    if len(edges) == 0:
        return edge_array([])
    low, high = edges.min(axis=1), edges.max(axis=1)
    kept = low != high
    width = int(high.max()) + 1
    # One int64 key per pair: numpy's row-wise unique is slow and holds the GIL for tens of ms.
    keys = np.unique(low[kept] * width + high[kept])
    return np.column_stack((keys // width, keys % width)).astype(np.int64)


def signature(ids: Sequence[str], edges: EdgeArray) -> str:
    """A hash of the node set and the joined pairs, whatever their order: a cached layout is
    reused as it is only while this stays the same."""
    order = np.argsort(np.asarray(ids, dtype=object)) if ids else np.zeros(0, dtype=np.int64)
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order] = np.arange(len(ids))
    pairs = simple_edges(rank[edges]) if len(edges) else edge_array([])
    digest = hashlib.sha256(f"layout {LAYOUT_VERSION}\n".encode())
    digest.update("\n".join(sorted(ids)).encode())
    digest.update(pairs.astype("<i8").tobytes())
    return digest.hexdigest()


def layout(
    count: int, edges: EdgeArray, *, seed: int = 0, start: Positions | None = None
) -> Positions:
    """Positions for ``count`` nodes joined by ``edges``, about one unit per edge. ``start``
    holds earlier positions, NaN where a node has none."""
    pairs = simple_edges(edges)
    rng = np.random.default_rng(seed)
    if start is not None and count and np.mean(~np.isnan(start[:, 0])) >= REFINE_KNOWN_SHARE:
        if count < EXACT_BELOW:
            return _settled_around(start, pairs, seed, rng)
        return _completed(start, pairs, rng)
    return _fresh(count, pairs, seed, rng)


# -- a fresh layout -------------------------------------------------------------------------------


def _fresh(count: int, pairs: EdgeArray, seed: int, rng: np.random.Generator) -> Positions:
    """Each component laid out on its own, largest first, then packed in rows; the unlinked
    nodes last, in a block."""
    if count == 0:
        return np.zeros((0, 2))
    labels = components(count, pairs)
    order = np.argsort(labels, kind="stable")
    starts = np.flatnonzero(np.r_[True, labels[order][1:] != labels[order][:-1]])
    groups = np.split(order, starts[1:])  # members ascending; the label is the smallest
    groups.sort(key=lambda members: (-len(members), int(members[0])))
    edge_label = labels[pairs[:, 0]] if len(pairs) else np.zeros(0, dtype=np.int64)
    edge_order = np.argsort(edge_label, kind="stable")
    sorted_labels = edge_label[edge_order]
    local = np.empty(count, dtype=np.int64)
    pictures: list[tuple[npt.NDArray[np.int64], Positions]] = []
    for members in groups:
        if len(members) == 1:
            break  # the rest are unlinked too (largest first)
        label = int(members[0])
        low, high = np.searchsorted(sorted_labels, [label, label + 1])
        local[members] = np.arange(len(members))
        inner = local[pairs[edge_order[low:high]]]
        if len(members) < EXACT_BELOW:
            placed = _exact(len(members), inner, seed, _scattered(len(members), rng))
        else:
            placed = _unit_spacing(_mesh(len(members), inner, _scattered(len(members), rng)))
        pictures.append((members, placed))
    alone = np.array([int(m[0]) for m in groups if len(m) == 1], dtype=np.int64)
    if len(alone):
        pictures.append((alone, _block(len(alone))))
    return _packed(count, pictures)


def components(count: int, pairs: EdgeArray) -> npt.NDArray[np.int64]:
    """Each node's connected component, named by its smallest node: labels spread along the
    edges, with pointer jumping, in vectorised rounds (no long call holds the interpreter)."""
    labels = np.arange(count, dtype=np.int64)
    if not len(pairs):
        return labels
    a, b = pairs[:, 0], pairs[:, 1]
    while True:
        smaller = np.minimum(labels[a], labels[b])
        spread = labels.copy()
        np.minimum.at(spread, a, smaller)
        np.minimum.at(spread, b, smaller)
        spread = spread[spread]
        if np.array_equal(spread, labels):
            return labels
        labels = spread


def _unit_spacing(placed: Positions) -> Positions:
    """``placed`` scaled to one unit of area per node, the spacing of the exact layout and of
    the block of unlinked nodes: packed side by side, the pictures should look alike."""
    width, height = np.ptp(placed, axis=0)
    spacing = math.sqrt(max(float(width * height), 1e-12) / len(placed))
    return placed / spacing if spacing > 1e-6 else placed


def _scattered(count: int, rng: np.random.Generator) -> Positions:
    """Random starting points over a square about as wide as the settled picture."""
    half = max(math.sqrt(count) / 2, 1.0)
    return rng.uniform(-half, half, size=(count, 2))


def _block(count: int) -> Positions:
    """Unlinked nodes in rows, one unit apart, in the order given."""
    width = max(math.ceil(math.sqrt(count)), 1)
    index = np.arange(count)
    return np.column_stack((index % width, index // width)).astype(np.float64)


def _packed(count: int, pictures: list[tuple[npt.NDArray[np.int64], Positions]]) -> Positions:
    """The pictures side by side in rows (largest first), rows about as wide as the whole is
    tall, ``GAP`` apart."""
    sizes = [np.ptp(placed, axis=0) if len(placed) > 1 else np.zeros(2) for _, placed in pictures]
    area = sum(float((w + GAP) * (h + GAP)) for w, h in sizes)
    row_width = max(math.sqrt(area) * 1.2, max(float(w) for w, _ in sizes))
    positions = np.zeros((count, 2))
    x = y = row_height = 0.0
    for (members, placed), (width, height) in zip(pictures, sizes, strict=True):
        if x > 0 and x + width > row_width:
            x, y, row_height = 0.0, y + row_height + GAP, 0.0
        positions[members] = placed - placed.min(axis=0) + (x, y)
        x += float(width) + GAP
        row_height = max(row_height, float(height))
    return positions


# -- the two force layouts -------------------------------------------------------------------------


def _exact(
    count: int,
    pairs: EdgeArray,
    seed: int,
    start: Positions,
    *,
    iterations: int = EXACT_ITERATIONS,
    temperature: float | None = None,
    pinned: npt.NDArray[np.bool_] | None = None,
) -> Positions:
    """igraph's exact Fruchterman-Reingold from ``start``; ``pinned`` nodes do not move.

    Run a few iterations per call, the temperature carried on from call to call: igraph holds
    the interpreter lock for a whole call, and one call of 500 iterations on 300 nodes froze
    the window for 130 ms here."""
    bounds: dict[str, list[float] | None] = {"minx": None, "maxx": None, "miny": None, "maxy": None}
    if pinned is not None and pinned.any():
        low, high = np.full(count, -np.inf), np.full(count, np.inf)
        for axis, (lower, upper) in enumerate((("minx", "maxx"), ("miny", "maxy"))):
            bounds[lower] = np.where(pinned, start[:, axis], low).tolist()
            bounds[upper] = np.where(pinned, start[:, axis], high).tolist()
    hottest = temperature if temperature is not None else math.sqrt(count) / 10
    per_call = max(5, min(iterations, EXACT_WORK_PER_CALL // max(count * count, 1)))
    graph = _igraph_graph(count, pairs)
    positions = start
    with seeded_igraph(seed):
        for done in range(0, iterations, per_call):
            placed = graph.layout_fruchterman_reingold(
                seed=positions.tolist(),
                niter=min(per_call, iterations - done),
                start_temp=max(hottest * (1 - done / iterations), 1e-6),
                grid=False,
                **bounds,
            )
            positions = np.asarray(placed.coords, dtype=np.float64).reshape(count, 2)
    return positions


@cache
def _push_spectra(cells: int) -> tuple[npt.NDArray[np.complex64], npt.NDArray[np.complex64]]:
    """The FFT of the push one node in the centre cell gives each other cell (r / |r|², in
    cells), on a grid twice as wide so the convolution does not wrap around."""
    size = 2 * cells
    offsets = np.fft.fftfreq(size, 1.0 / size)
    ux, uy = np.meshgrid(offsets, offsets, indexing="ij")
    squared = ux**2 + uy**2
    squared[0, 0] = 1.0
    push_x, push_y = ux / squared, uy / squared
    push_x[0, 0] = push_y[0, 0] = 0.0
    return (
        np.fft.rfft2(push_x.astype(np.float32)).astype(np.complex64),
        np.fft.rfft2(push_y.astype(np.float32)).astype(np.complex64),
    )


def _mesh(count: int, pairs: EdgeArray, start: Positions) -> Positions:
    """ForceAtlas2's forces for a large component: an edge pulls in proportion to its length,
    any two nodes push apart by (degree + 1)² / distance, and a gravity of (degree + 1) keeps
    stragglers near. Communities come out as separate islands, where Fruchterman-Reingold's
    pull (length²) spreads every node evenly. The pushes of all nodes on all nodes are summed on
    a density grid: each node's mass is shared among its four nearest grid points, convolved
    with the push of one point by FFT, and read back the same way (the particle-mesh method;
    sharing, rather than rounding to one point, keeps nodes from piling up on the grid)."""
    cells = int(min(MESH_CELLS, max(32, 2 ** math.ceil(math.log2(math.sqrt(count))))))
    size = 2 * cells
    spectrum_x, spectrum_y = _push_spectra(cells)
    src, dst = pairs[:, 0], pairs[:, 1]
    mass = 1.0 + np.bincount(src, minlength=count) + np.bincount(dst, minlength=count)
    corners = (0, size, 1, size + 1)  # a grid point and its neighbours right, below, diagonal
    positions = start * 3  # about the settled size, so the first steps need not spread it
    hottest = math.sqrt(count)
    for step in range(MESH_ITERATIONS):
        temperature = hottest * (1 - step / MESH_ITERATIONS) + 1e-3
        cell = max(float(np.ptp(positions, axis=0).max()), 1e-9) / (cells - 2)
        on_grid = (positions - positions.min(axis=0)) / cell
        corner = np.floor(on_grid).astype(np.int64)
        index = corner[:, 0] * size + corner[:, 1]
        fx, fy = (on_grid - corner).T
        shares = ((1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy)
        density = np.zeros(size * size)
        for offset, share in zip(corners, shares, strict=True):
            density += np.bincount(index + offset, share * mass, size * size)
        density_hat = np.fft.rfft2(density.reshape(size, size).astype(np.float32))
        moves = np.empty_like(positions)
        for axis, spectrum in enumerate((spectrum_x, spectrum_y)):
            field = np.fft.irfft2(density_hat * spectrum, s=(size, size)).ravel()
            felt = sum(
                share * field[index + offset] for offset, share in zip(corners, shares, strict=True)
            )
            moves[:, axis] = felt * mass / cell
        delta = positions[dst] - positions[src]
        for axis in (0, 1):
            moves[:, axis] += np.bincount(src, delta[:, axis], count)
            moves[:, axis] -= np.bincount(dst, delta[:, axis], count)
        outward = positions - positions.mean(axis=0)
        distance = np.sqrt(np.einsum("ij,ij->i", outward, outward)) + 1e-9
        moves -= outward * (MESH_GRAVITY * mass / distance)[:, None]
        length = np.sqrt(np.einsum("ij,ij->i", moves, moves)) + 1e-12
        positions += moves * (np.minimum(length, temperature) / length)[:, None]
    return positions


# -- starting from known positions -----------------------------------------------------------------


def _settled_around(
    start: Positions, pairs: EdgeArray, seed: int, rng: np.random.Generator
) -> Positions:
    """A small graph (an ego view after an expansion): the known nodes stay put while the new
    ones find room among them, then everything settles a little."""
    known = ~np.isnan(start[:, 0])
    placed = _completed(start, pairs, rng)
    count = len(placed)
    if count < 2:
        return placed
    placed = _exact(count, pairs, seed, placed, iterations=200, pinned=known)
    if components(count, pairs).max() > 0:
        # igraph joins the parts of a disconnected graph by a weak pull, which would undo the
        # packing if everything were let loose.
        return placed
    cool = math.sqrt(count) / 100
    settled = _exact(count, pairs, seed, placed, iterations=60, temperature=cool)
    return _aligned(settled, placed)


def _aligned(moved: Positions, reference: Positions) -> Positions:
    """``moved`` turned, mirrored if need be, and shifted to lie best over ``reference``
    (Kabsch): igraph centres and turns an unconstrained layout to its principal axes, which
    would spin the picture on screen after every small change."""
    moved_centre, reference_centre = moved.mean(axis=0), reference.mean(axis=0)
    covariance = (moved - moved_centre).T @ (reference - reference_centre)
    left, _, right = np.linalg.svd(covariance)
    turned: npt.NDArray[np.float64] = (moved - moved_centre) @ (left @ right) + reference_centre
    return turned


def _completed(start: Positions, pairs: EdgeArray, rng: np.random.Generator) -> Positions:
    """``start`` with each unplaced node put at the mean of its placed neighbours (two rounds,
    so a neighbour's neighbour is placed too), a little apart; the rest in a row below."""
    placed = start.copy()
    for _ in range(2):
        missing = np.isnan(placed[:, 0])
        if not missing.any() or len(pairs) == 0:
            break
        sums = np.zeros_like(placed)
        counts = np.zeros(len(placed))
        for near, far in ((0, 1), (1, 0)):
            usable = missing[pairs[:, near]] & ~missing[pairs[:, far]]
            np.add.at(sums, pairs[usable, near], placed[pairs[usable, far]])
            np.add.at(counts, pairs[usable, near], 1)
        reached = counts > 0
        jitter = rng.uniform(-0.5, 0.5, size=(int(reached.sum()), 2))
        placed[reached] = sums[reached] / counts[reached, None] + jitter
    missing = np.isnan(placed[:, 0])
    if missing.any():
        if missing.all():
            return _fresh(len(placed), pairs, 0, rng)
        low, high = np.nanmin(placed, axis=0), np.nanmax(placed, axis=0)
        row = np.arange(int(missing.sum()), dtype=np.float64)
        placed[missing] = np.column_stack((low[0] + row, np.full(len(row), high[1] + GAP)))
    return placed


def _igraph_graph(count: int, pairs: EdgeArray) -> igraph.Graph:
    """An igraph graph, its edges added a slice at a time: one call taking all of 50,000 edges
    holds the interpreter lock (and so the window) for about 90 ms."""
    graph = igraph.Graph(n=count)
    for start in range(0, len(pairs), 8_192):
        graph.add_edges(pairs[start : start + 8_192])
    return graph
