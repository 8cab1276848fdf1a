"""What the graph view draws: the ego graph of one memory, or an overview of the whole vault,
each with its positions (from the vault's cache when the graph has not changed) and, for the
overview, its communities.

The overview draws at most ``OVERVIEW_NODE_CAP`` nodes. Above that it returns ``TooManyNodes``,
saying how many match and of which types, so the person can filter; it never draws a sample and
pretends it is the whole. The ego graph is bounded by ``traverse`` (``MAX_REACHED`` per walk).

Runs in a worker: a whole-vault overview reads, lays out and caches for seconds.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from cairn.app.clock import now_iso
from cairn.app.errors import InvalidRequest, NodeNotFound
from cairn.app.graphview import community_detection, layout
from cairn.app.models import VISIBLE_STATUSES
from cairn.app.packs import LAYERS, Pack
from cairn.app.retrieval import graph_reads
from cairn.storage import dedup_rows, graph_rows, layout_rows
from cairn.storage.vault import Vault

# 25,000 nodes lay out, colour and draw within the 10 s the overview may take on a modest
# machine (20,000 took about 4 s here: bench/graph_line.py); beyond it the picture is a blur.
OVERVIEW_NODE_CAP = 25_000
EGO_DEPTH = 2
LAYOUT_SEED = 0


@dataclass(frozen=True)
class GraphFilter:
    """What a view shows: ``None`` means every node type / every edge layer. ``linked_only``
    leaves out the memories with no shown link (the overview only)."""

    node_types: tuple[str, ...] | None = None
    edge_layers: tuple[str, ...] | None = None
    linked_only: bool = False

    @classmethod
    def of(
        cls,
        node_types: Sequence[str] | None,
        edge_layers: Sequence[str] | None,
        *,
        linked_only: bool,
    ) -> GraphFilter:
        return cls(
            tuple(node_types) if node_types is not None else None,
            tuple(edge_layers) if edge_layers is not None else None,
            linked_only,
        )

    def describe(self) -> str:
        """A stable text for the layout key: one cached layout per filter."""
        types = ",".join(sorted(self.node_types)) if self.node_types is not None else "*"
        layers = ",".join(sorted(self.edge_layers)) if self.edge_layers is not None else "*"
        return f"types={types};layers={layers};linked={int(self.linked_only)}"


@dataclass(frozen=True)
class ViewGraph:
    """Nodes by index (ids, types, titles), edges as index pairs with their layers, a position
    per node, and for the overview a community per node (0 the largest)."""

    kind: str  # "ego" or "overview"
    key: str  # the cached layout's name
    ids: list[str]
    types: list[str]
    titles: list[str]
    edges: npt.NDArray[np.int64]
    edge_layers: list[str]
    positions: npt.NDArray[np.float64]
    communities: npt.NDArray[np.int64] | None = None
    root: str | None = None
    expanded: tuple[str, ...] = ()
    truncated: bool = False  # an ego walk stopped at traverse's cap
    from_cache: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    # The nodes kept as possible duplicates that wait for the person's review (drawn marked).
    awaiting: frozenset[str] = frozenset()

    def index_of(self, node_id: str) -> int | None:
        try:
            return self.ids.index(node_id)
        except ValueError:
            return None


@dataclass(frozen=True)
class TooManyNodes:
    """The overview would show more than ``cap`` nodes: how many, and of which types."""

    count: int
    cap: int
    by_type: dict[str, int]

    @property
    def message(self) -> str:
        largest = ", ".join(f"{name} {count:,}" for name, count in list(self.by_type.items())[:3])
        return (
            f"{self.count:,} memories match, and the overview draws at most {self.cap:,} so it "
            f"stays quick. Untick some types (the most numerous: {largest}) or show only linked "
            "memories."
        )


def check(pack: Pack, chosen: GraphFilter) -> None:
    unknown = [name for name in chosen.node_types or () if name not in pack.node_types]
    unknown += [name for name in chosen.edge_layers or () if name not in LAYERS]
    if unknown:
        raise InvalidRequest(f"Unknown node type or edge layer: {', '.join(unknown)}.")


def overview(
    vault: Vault,
    pack: Pack,
    scopes: Sequence[str],
    chosen: GraphFilter,
    *,
    cap: int = OVERVIEW_NODE_CAP,
) -> ViewGraph | TooManyNodes:
    """Every visible node the filter keeps, with the edges between them, laid out and split
    into communities; or ``TooManyNodes`` above ``cap``."""
    check(pack, chosen)
    clock = time.perf_counter()
    view = layout_rows.ViewFilter(
        scopes=list(scopes),
        statuses=VISIBLE_STATUSES,
        types=chosen.node_types,
        layers=chosen.edge_layers,
        linked_only=chosen.linked_only,
    )
    with vault.read() as conn:
        by_type = layout_rows.counts_by_type(conn, view)
        count = sum(by_type.values())
        if count > cap:
            return TooManyNodes(count, cap, by_type)
        ids, types, titles = layout_rows.nodes(conn, view)
        sources, targets, layers = layout_rows.edges(conn, view)
        awaiting = frozenset(dedup_rows.awaiting_ids(conn, scopes).intersection(ids))
    edges = _index_pairs(ids, sources, targets)
    timings = {"read_s": time.perf_counter() - clock}
    key = f"overview:{','.join(sorted(scopes))};{chosen.describe()}"
    placed = _placed(vault, key, None, ids, edges, timings, with_communities=True)
    return ViewGraph(
        kind="overview",
        key=key,
        ids=ids,
        types=types,
        titles=titles,
        edges=edges,
        edge_layers=layers,
        positions=placed.positions,
        communities=placed.communities,
        from_cache=placed.from_cache,
        timings=timings,
        awaiting=awaiting,
    )


def ego(
    vault: Vault,
    pack: Pack,
    root: str,
    scopes: Sequence[str],
    chosen: GraphFilter,
    *,
    depth: int = EGO_DEPTH,
    expanded: Sequence[str] = (),
) -> ViewGraph:
    """``root`` and what it reaches in ``depth`` steps over the chosen layers, plus the direct
    neighbours of each of ``expanded`` (the nodes the person opened up). Nodes of unchosen
    types are left out, with whatever only they joined to the root."""
    check(pack, chosen)
    clock = time.perf_counter()
    scopes = list(scopes)
    with vault.read() as conn:
        root = dedup_rows.resolve_aliases(conn, [root]).get(root, root)
        rows = graph_rows.nodes_by_ids(conn, [root], scopes)
        waiting = dedup_rows.awaiting_ids(conn, scopes)
    if not rows or rows[0]["status"] not in VISIBLE_STATUSES:
        raise NodeNotFound(root)
    edge_types = None
    if chosen.edge_layers is not None:
        edge_types = [t.name for t in pack.edge_types.values() if t.layer in chosen.edge_layers]
    nodes: dict[str, tuple[str, str]] = {}
    links: dict[tuple[str, str, str], str] = {}
    truncated = False
    walks = [(root, depth)] + [(node_id, 1) for node_id in dict.fromkeys(expanded)]
    for start, steps in walks:
        if edge_types == []:  # no layer chosen: the root alone
            break
        if start != root and start not in nodes:
            continue  # an expanded node the filters now hide
        reach = graph_reads.traverse(
            vault,
            pack,
            start,
            scopes,
            depth=steps,
            edge_types=edge_types,
            statuses=VISIBLE_STATUSES,
        )
        truncated = truncated or reach.truncated
        for reached in reach.nodes:
            nodes.setdefault(reached.id, (reached.type, reached.title))
    nodes[root] = (rows[0]["type"], rows[0]["title"])
    if edge_types != []:
        with vault.read() as conn:  # every edge among the shown nodes, not only those walked
            for row in graph_rows.edges_touching(
                conn, list(nodes), scopes, edge_types=edge_types, statuses=VISIBLE_STATUSES
            ):
                if row["other_id"] in nodes:
                    links[(row["src"], row["dst"], row["type"])] = row["layer"]
    nodes = _joined_to_root(root, nodes, links, chosen.node_types)
    ids = [root] + [node_id for node_id in nodes if node_id != root]
    position = {node_id: index for index, node_id in enumerate(ids)}
    kept = [(s, d, layer) for (s, d, _), layer in links.items() if s in position and d in position]
    edges = _index_pairs(ids, [s for s, _, _ in kept], [d for _, d, _ in kept])
    timings = {"read_s": time.perf_counter() - clock}
    key = f"ego:{root}"
    placed = _placed(vault, key, root, ids, edges, timings, with_communities=False)
    return ViewGraph(
        kind="ego",
        key=key,
        ids=ids,
        types=[nodes[node_id][0] for node_id in ids],
        titles=[nodes[node_id][1] for node_id in ids],
        edges=edges,
        edge_layers=[layer for _, _, layer in kept],
        positions=placed.positions,
        root=root,
        expanded=tuple(node_id for node_id in dict.fromkeys(expanded) if node_id in position),
        truncated=truncated,
        from_cache=placed.from_cache,
        timings=timings,
        awaiting=frozenset(waiting.intersection(ids)),
    )


def _index_pairs(
    ids: list[str], sources: Sequence[str], targets: Sequence[str]
) -> npt.NDArray[np.int64]:
    """Edges as (m, 2) node indexes, without a Python tuple per edge (see layout_rows.nodes)."""
    position = {node_id: index for index, node_id in enumerate(ids)}
    pairs = np.empty((len(sources), 2), dtype=np.int64)
    pairs[:, 0] = np.fromiter((position[s] for s in sources), np.int64, len(sources))
    pairs[:, 1] = np.fromiter((position[d] for d in targets), np.int64, len(targets))
    return pairs


def _joined_to_root(
    root: str,
    nodes: dict[str, tuple[str, str]],
    links: dict[tuple[str, str, str], str],
    types: Sequence[str] | None,
) -> dict[str, tuple[str, str]]:
    """The nodes of the chosen types that a path of such nodes still joins to the root."""
    if types is None:
        return nodes
    shown = {node_id for node_id, (kind, _) in nodes.items() if kind in types} | {root}
    neighbours: dict[str, list[str]] = {}
    for src, dst, _ in links:
        if src in shown and dst in shown:
            neighbours.setdefault(src, []).append(dst)
            neighbours.setdefault(dst, []).append(src)
    reached, frontier = {root}, [root]
    while frontier:
        frontier = [n for node in frontier for n in neighbours.get(node, ()) if n not in reached]
        reached.update(frontier)
    return {node_id: value for node_id, value in nodes.items() if node_id in reached}


@dataclass(frozen=True)
class _Placed:
    positions: npt.NDArray[np.float64]
    communities: npt.NDArray[np.int64] | None
    from_cache: bool


def _placed(
    vault: Vault,
    key: str,
    root: str | None,
    ids: list[str],
    edges: npt.NDArray[np.int64],
    timings: dict[str, float],
    *,
    with_communities: bool,
) -> _Placed:
    """Positions (and communities) for the graph: the cached ones when the cache was made for
    this very graph; else a layout started from whatever the cache knows, with the communities
    found meanwhile (in a child process for a large graph), both then cached."""
    clock = time.perf_counter()
    signature = layout.signature(ids, edges)
    with vault.read() as conn:
        saved = layout_rows.saved_signature(conn, key)
        current = saved is not None and saved[1] == layout.LAYOUT_VERSION
        known_ids, known_xy, known_groups = (
            layout_rows.positions(conn, key) if current else ([], None, None)
        )
    start = np.full((len(ids), 2), np.nan)
    if known_ids and known_xy is not None:
        row_of = {node_id: row for row, node_id in enumerate(known_ids)}
        rows = np.fromiter((row_of.get(node_id, -1) for node_id in ids), np.int64, len(ids))
        found = rows >= 0
        start[found] = known_xy[rows[found]]
    unchanged = saved == (signature, layout.LAYOUT_VERSION) and len(known_ids) == len(ids)
    if unchanged and not np.isnan(start).any():
        if not with_communities:
            timings["layout_s"] = time.perf_counter() - clock
            return _Placed(start, None, True)
        if known_groups is not None:
            groups = known_groups[rows]
            timings["layout_s"] = time.perf_counter() - clock
            return _Placed(start, groups, True)
    finding = (
        community_detection.start(len(ids), edges, seed=LAYOUT_SEED) if with_communities else None
    )
    try:
        positions = layout.layout(
            len(ids), edges, seed=LAYOUT_SEED, start=start if known_ids else None
        )
    except BaseException:
        if finding is not None:
            finding.close()
        raise
    timings["layout_s"] = time.perf_counter() - clock
    clock = time.perf_counter()
    communities = finding.result() if finding is not None else None
    if finding is not None:
        timings["communities_s"] = time.perf_counter() - clock  # the wait beyond the layout
    clock = time.perf_counter()
    with vault.write() as conn:
        layout_rows.save(
            conn,
            key,
            root_id=root,
            signature=signature,
            algorithm=layout.LAYOUT_VERSION,
            ids=ids,
            xy=positions,
            communities=communities,
            at=now_iso(),
        )
    timings["cache_write_s"] = time.perf_counter() - clock
    return _Placed(positions, communities, False)
