"""Rows of the graph view: the nodes and edges an overview draws, read in bulk and filtered by
scope in SQL like every read, and the cached positions of a layout.

A cached layout is coordinates keyed by node id, never text, and it lives inside the encrypted
vault. Its rows cascade away with their node (and an ego layout with its root), so forgetting a
memory leaves not even its id behind here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from cairn.storage.connection import Connection, placeholders

# Each distinct filter combination of the overview keeps its own layout; beyond this many the
# least recently laid out are dropped, so trying filters cannot grow the vault without bound.
MAX_SAVED_LAYOUTS = 24


@dataclass(frozen=True)
class ViewFilter:
    """Which nodes and edges a view shows: ``None`` means every type / every layer."""

    scopes: Sequence[str]
    statuses: Sequence[str]
    types: Sequence[str] | None = None
    layers: Sequence[str] | None = None
    linked_only: bool = False  # leave out nodes with no shown edge


def _visible(alias: str, view: ViewFilter) -> tuple[str, list[Any]]:
    """The SQL condition (and its parameters) for a node row ``alias`` shown by ``view``."""
    sql = (
        f"{alias}.scope IN ({placeholders(view.scopes)}) "
        f"AND {alias}.status IN ({placeholders(view.statuses)})"
    )
    params: list[Any] = [*view.scopes, *view.statuses]
    if view.types is not None:
        sql += f" AND {alias}.type IN ({placeholders(view.types)})"
        params += list(view.types)
    return sql, params


def _layer_condition(view: ViewFilter) -> tuple[str, list[Any]]:
    if view.layers is None:
        return "", []
    return f"AND e.layer IN ({placeholders(view.layers)})", list(view.layers)


def _linked(view: ViewFilter) -> tuple[str, list[Any]]:
    """The condition that node ``n`` has a shown edge to another shown node."""
    other, other_params = _visible("o", view)
    layer, layer_params = _layer_condition(view)
    parts, params = [], []
    for near, far in (("src", "dst"), ("dst", "src")):
        parts.append(
            f"EXISTS (SELECT 1 FROM edges AS e JOIN nodes AS o ON o.id = e.{far} "
            f"WHERE e.{near} = n.id {layer} AND {other})"
        )
        params += [*layer_params, *other_params]
    return f"AND ({' OR '.join(parts)})", params


def _node_where(view: ViewFilter) -> tuple[str, list[Any]]:
    sql, params = _visible("n", view)
    if view.linked_only:
        linked, linked_params = _linked(view)
        sql, params = f"{sql} {linked}", params + linked_params
    return sql, params


def counts_by_type(conn: Connection, view: ViewFilter) -> dict[str, int]:
    """How many nodes ``view`` would show, per type: what a too-large overview reports."""
    if not view.scopes or not view.statuses:
        return {}
    where, params = _node_where(view)
    return {
        row[0]: row[1]
        for row in conn.execute(
            f"SELECT n.type, count(*) FROM nodes AS n WHERE {where} GROUP BY n.type "
            f"ORDER BY count(*) DESC, n.type",
            params,
        )
    }


def nodes(conn: Connection, view: ViewFilter) -> tuple[list[str], list[str], list[str]]:
    """The ids, types and titles of every node ``view`` shows, oldest first. Columns, not
    rows: tens of thousands of row tuples kept alive would wake the garbage collector's full
    pass, which stops every thread (the window's too) for a tenth of a second."""
    ids: list[str] = []
    types: list[str] = []
    titles: list[str] = []
    if not view.scopes or not view.statuses:
        return ids, types, titles
    where, params = _node_where(view)
    for row in conn.execute(
        f"SELECT n.id, n.type, n.title FROM nodes AS n WHERE {where} ORDER BY n.seq", params
    ):
        ids.append(row[0])
        types.append(row[1])
        titles.append(row[2])
    return ids, types, titles


def edges(conn: Connection, view: ViewFilter) -> tuple[list[str], list[str], list[str]]:
    """The sources, targets and layers of every edge ``view`` shows (a shown layer, both ends
    shown), as columns like ``nodes``."""
    sources: list[str] = []
    targets: list[str] = []
    layers: list[str] = []
    if not view.scopes or not view.statuses:
        return sources, targets, layers
    source, source_params = _visible("s", view)
    target, target_params = _visible("d", view)
    layer, layer_params = _layer_condition(view)
    for row in conn.execute(
        f"SELECT e.src, e.dst, e.layer FROM edges AS e "
        f"JOIN nodes AS s ON s.id = e.src JOIN nodes AS d ON d.id = e.dst "
        f"WHERE {source} AND {target} {layer} ORDER BY e.seq",
        [*source_params, *target_params, *layer_params],
    ):
        sources.append(row[0])
        targets.append(row[1])
        layers.append(row[2])
    return sources, targets, layers


# -- cached positions ---------------------------------------------------------------------------


def saved_signature(conn: Connection, key: str) -> tuple[str, int] | None:
    """(signature, algorithm version) of the layout saved under ``key``, if any."""
    row = conn.execute(
        "SELECT signature, algorithm FROM graph_layouts WHERE key = ?", (key,)
    ).fetchone()
    return None if row is None else (str(row[0]), int(row[1]))


def positions(
    conn: Connection, key: str
) -> tuple[list[str], npt.NDArray[np.float64], npt.NDArray[np.int64] | None]:
    """The node ids of the layout saved under ``key``, their (x, y) as an (n, 2) array, and
    their community numbers (None unless every node has one)."""
    ids: list[str] = []
    xs: list[float] = []
    ys: list[float] = []
    groups: list[int | None] = []
    for row in conn.execute(
        "SELECT node_id, x, y, community FROM graph_positions WHERE layout_key = ?", (key,)
    ):
        ids.append(row[0])
        xs.append(row[1])
        ys.append(row[2])
        groups.append(row[3])
    xy = np.column_stack((np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)))
    known = bool(groups) and None not in groups
    return ids, xy, np.asarray(groups, dtype=np.int64) if known else None


def save(
    conn: Connection,
    key: str,
    *,
    root_id: str | None,
    signature: str,
    algorithm: int,
    ids: Sequence[str],
    xy: npt.NDArray[np.float64],
    communities: npt.NDArray[np.int64] | None,
    at: str,
) -> None:
    """Replace the layout under ``key`` with node ``ids`` at ``xy`` (n, 2), in
    ``communities`` if given; keep the newest ``MAX_SAVED_LAYOUTS`` layouts."""
    conn.execute("DELETE FROM graph_layouts WHERE key = ?", (key,))  # its positions cascade
    conn.execute(
        "INSERT INTO graph_layouts(key, root_id, signature, algorithm, updated_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (key, root_id, signature, algorithm, at),
    )
    xs, ys = xy[:, 0].tolist(), xy[:, 1].tolist()
    groups = communities.tolist() if communities is not None else [None] * len(ids)
    conn.executemany(
        "INSERT INTO graph_positions(layout_key, node_id, x, y, community) VALUES (?, ?, ?, ?, ?)",
        ((key, ids[i], xs[i], ys[i], groups[i]) for i in range(len(ids))),  # one row at a time
    )
    conn.execute(
        "DELETE FROM graph_layouts WHERE key NOT IN (SELECT key FROM graph_layouts "
        "ORDER BY updated_at DESC, rowid DESC LIMIT ?)",
        (MAX_SAVED_LAYOUTS,),
    )
