"""Row access for nodes and edges. Visibility by scope is applied here, in SQL, so a caller can
never see a row outside the scopes it names."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

from cairn.storage.connection import Connection, placeholders
from cairn.storage.rows import (
    DueRow,
    EdgeRow,
    HeadRow,
    NeighbourRow,
    NodeRow,
    StubRow,
    TouchingEdgeRow,
)
from cairn.storage.sentinel import ENGINE_SCOPE

NODE_COLUMNS = (
    "seq, id, type, title, body, attrs, status, scope, source, locator, valid_from, valid_to, "
    "recorded_at, updated_at, importance, stability, last_access, access_count, retention_label"
)
HEAD_COLUMNS = (
    "seq, id, type, title, status, scope, source, valid_from, valid_to, recorded_at, updated_at"
)
EDGE_COLUMNS = "seq, src, dst, type, layer, rationale, created_at, valid_from, valid_to"


def insert_node(conn: Connection, row: dict[str, Any]) -> int:
    """Insert one node (keys are column names); returns its seq."""
    columns = ", ".join(row)
    cursor = conn.execute(
        f"INSERT INTO nodes({columns}) VALUES ({placeholders(list(row))})", tuple(row.values())
    )
    return int(cursor.lastrowid)


def update_node(conn: Connection, node_id: str, changes: dict[str, Any]) -> None:
    assignments = ", ".join(f"{column} = ?" for column in changes)
    conn.execute(f"UPDATE nodes SET {assignments} WHERE id = ?", (*changes.values(), node_id))


def delete_node(conn: Connection, node_id: str) -> None:
    """Remove a node; its edges, vector and names go with it (foreign keys cascade), its
    full-text entry by trigger."""
    conn.execute("DELETE FROM nodes WHERE id = ?", (node_id,))


def delete_edge(conn: Connection, seq: int) -> None:
    """Remove one edge: a link its source no longer states (the ingest's linking stage)."""
    conn.execute("DELETE FROM edges WHERE seq = ?", (seq,))


def copy_edges(conn: Connection, old_id: str, new_id: str, keep_types: Sequence[str]) -> int:
    """Give ``new_id`` every edge ``old_id`` has, both ways, but those of ``keep_types`` and
    those between the two; the old one keeps its own (history walks them as they stood). An
    edge ``new_id`` already has is not made twice. Returns how many were made."""
    kept = placeholders(keep_types) if keep_types else "NULL"
    made = 0
    for near, far in (("src", "dst"), ("dst", "src")):
        cursor = conn.execute(
            f"INSERT OR IGNORE INTO edges ({near}, {far}, type, layer, rationale, created_at, "
            f"valid_from, valid_to) SELECT ?, {far}, type, layer, rationale, created_at, "
            f"valid_from, valid_to FROM edges WHERE {near} = ? AND {far} <> ? "
            f"AND type NOT IN ({kept}) ORDER BY seq",
            (new_id, old_id, new_id, *keep_types),
        )
        made += cursor.rowcount
    return made


def documents_named(conn: Connection, name: str, scope: str, limit: int = 2) -> list[HeadRow]:
    """Active Documents in ``scope`` whose title or one of whose aliases is ``name`` (case
    aside): a note that a ``[[link]]`` in a text written later names."""
    rows = conn.execute(
        f"SELECT {HEAD_COLUMNS} FROM nodes WHERE type = 'Document' AND scope = ? "
        "AND status = 'active' AND (title = ? COLLATE NOCASE OR EXISTS (SELECT 1 FROM "
        "json_each(attrs, '$.aliases') AS a WHERE a.value = ? COLLATE NOCASE)) "
        "ORDER BY seq LIMIT ?",
        (scope, name, name, limit),
    )
    return [cast(HeadRow, dict(row)) for row in rows]


def newest_edge_source(conn: Connection, node_id: str, edge_type: str) -> str | None:
    """The source of the newest ``edge_type`` edge pointing at ``node_id``."""
    row = conn.execute(
        "SELECT src FROM edges WHERE dst = ? AND type = ? ORDER BY seq DESC LIMIT 1",
        (node_id, edge_type),
    ).fetchone()
    return None if row is None else str(row[0])


def type_of(conn: Connection, node_id: str) -> str | None:
    row = conn.execute("SELECT type FROM nodes WHERE id = ?", (node_id,)).fetchone()
    return None if row is None else str(row[0])


def edges_of(conn: Connection, node_id: str, edge_type: str | None = None) -> list[EdgeRow]:
    """Every edge with ``node_id`` at either end (no scope filter: for moves inside a write)."""
    type_filter = "AND type = ?" if edge_type else ""
    params = (node_id, *([edge_type] if edge_type else []))
    rows = conn.execute(
        f"SELECT {EDGE_COLUMNS} FROM edges WHERE src = ? {type_filter} UNION ALL "
        f"SELECT {EDGE_COLUMNS} FROM edges WHERE dst = ? {type_filter} ORDER BY seq",
        params + params,
    )
    return [cast(EdgeRow, dict(row)) for row in rows]


def nodes_by_ids(conn: Connection, ids: Sequence[str], scopes: Sequence[str]) -> list[NodeRow]:
    return cast(list[NodeRow], _nodes_where(conn, "id", ids, scopes))


def nodes_by_seqs(conn: Connection, seqs: Sequence[int], scopes: Sequence[str]) -> list[NodeRow]:
    return cast(list[NodeRow], _nodes_where(conn, "seq", seqs, scopes))


def heads_by_seqs(conn: Connection, seqs: Sequence[int], scopes: Sequence[str]) -> list[HeadRow]:
    """Nodes without their text (body, attributes, locator): what ranking needs of the many
    candidates a search weighs, at a fraction of the reading."""
    return cast(list[HeadRow], _nodes_where(conn, "seq", seqs, scopes, HEAD_COLUMNS))


def bodies(conn: Connection, seqs: Sequence[int]) -> dict[int, str]:
    if not seqs:
        return {}
    return dict(
        conn.execute(
            f"SELECT seq, body FROM nodes WHERE seq IN ({placeholders(seqs)})", tuple(seqs)
        )
    )


def openings(conn: Connection, seqs: Sequence[int], chars: int) -> dict[int, str]:
    """The first ``chars`` characters of each node's body: what a search reads of many
    candidates to learn who said them, without reading their whole text."""
    if not seqs:
        return {}
    return dict(
        conn.execute(
            f"SELECT seq, substr(body, 1, ?) FROM nodes WHERE seq IN ({placeholders(seqs)})",
            (int(chars), *seqs),
        )
    )


def bodies_and_attrs(conn: Connection, seqs: Sequence[int]) -> dict[int, tuple[str, str]]:
    """Each node's body and its attributes as stored JSON text: what a search reads of its
    candidates to learn when they speak of."""
    if not seqs:
        return {}
    rows = conn.execute(
        f"SELECT seq, body, attrs FROM nodes WHERE seq IN ({placeholders(seqs)})", tuple(seqs)
    )
    return {seq: (body, attrs) for seq, body, attrs in rows}


# The rows are read with exactly the columns a NodeRow or HeadRow names: ``cast`` says so.
def _nodes_where(
    conn: Connection,
    column: str,
    keys: Sequence[Any],
    scopes: Sequence[str],
    columns: str = NODE_COLUMNS,
) -> list[dict[str, Any]]:
    if not keys or not scopes:
        return []
    return [
        dict(row)
        for row in conn.execute(
            # +scope: look rows up by key; the scope index would walk a whole scope.
            f"SELECT {columns} FROM nodes WHERE {column} IN ({placeholders(keys)}) "
            f"AND +scope IN ({placeholders(scopes)})",
            (*keys, *scopes),
        )
    ]


def insert_edge(conn: Connection, row: dict[str, Any]) -> tuple[int, bool]:
    """Insert an edge unless the same (src, dst, type) exists; returns (seq, created)."""
    columns = ", ".join(row)
    cursor = conn.execute(
        f"INSERT INTO edges({columns}) VALUES ({placeholders(list(row))}) "
        "ON CONFLICT(src, dst, type) DO NOTHING",
        tuple(row.values()),
    )
    if cursor.rowcount:
        return int(cursor.lastrowid), True
    existing = conn.execute(
        "SELECT seq FROM edges WHERE src = ? AND dst = ? AND type = ?",
        (row["src"], row["dst"], row["type"]),
    ).fetchone()
    return int(existing[0]), False


def edges_touching(
    conn: Connection,
    ids: Sequence[str],
    scopes: Sequence[str],
    *,
    edge_types: Sequence[str] | None = None,
    statuses: Sequence[str] | None = None,
) -> list[TouchingEdgeRow]:
    """Edges with an end in ``ids`` whose other end is visible (scope, and status if given).

    Each row carries ``other_id``, ``other_type``, ``other_title`` and ``direction`` ('out' when
    the node in ``ids`` is the source).
    """
    if not ids or not scopes:
        return []
    type_filter = f"AND e.type IN ({placeholders(edge_types)})" if edge_types else ""
    status_filter = f"AND o.status IN ({placeholders(statuses)})" if statuses else ""
    params: list[Any] = []
    parts = []
    for direction, near, far in (("out", "src", "dst"), ("in", "dst", "src")):
        parts.append(
            f"SELECT e.seq AS seq, e.src, e.dst, e.type, e.layer, e.rationale, e.created_at, "
            f"'{direction}' AS direction, e.{near} AS near_id, o.id AS other_id, "
            f"o.type AS other_type, o.title AS other_title, o.status AS other_status, "
            f"o.valid_from AS other_valid_from, o.valid_to AS other_valid_to, "
            f"o.recorded_at AS other_recorded_at "
            f"FROM edges AS e JOIN nodes AS o ON o.id = e.{far} "
            f"WHERE e.{near} IN ({placeholders(ids)}) AND o.scope IN ({placeholders(scopes)}) "
            f"{type_filter} {status_filter}"
        )
        params += [*ids, *scopes, *(edge_types or ()), *(statuses or ())]
    sql = " UNION ALL ".join(parts) + " ORDER BY near_id, seq"
    return [cast(TouchingEdgeRow, dict(row)) for row in conn.execute(sql, params)]


def status_of(conn: Connection, node_id: str) -> str | None:
    row = conn.execute("SELECT status FROM nodes WHERE id = ?", (node_id,)).fetchone()
    return None if row is None else str(row[0])


def degree(conn: Connection, node_id: str) -> int:
    row = conn.execute(
        "SELECT (SELECT count(*) FROM edges WHERE src = ?) + (SELECT count(*) FROM edges "
        "WHERE dst = ?)",
        (node_id, node_id),
    ).fetchone()
    return int(row[0])


def counts_by(conn: Connection, column: str, scopes: Iterable[str]) -> dict[str, int]:
    """Node counts grouped by ``type``, ``status`` or ``scope``."""
    if column not in {"type", "status", "scope"}:
        raise ValueError(column)
    scopes = list(scopes)
    if not scopes:
        return {}
    return {
        row[0]: row[1]
        for row in conn.execute(
            f"SELECT {column}, count(*) FROM nodes WHERE scope IN ({placeholders(scopes)}) "
            f"GROUP BY {column} ORDER BY {column}",
            scopes,
        )
    }


def edge_count(conn: Connection, scopes: Sequence[str]) -> int:
    if not scopes:
        return 0
    marks = placeholders(scopes)
    row = conn.execute(
        f"SELECT count(*) FROM edges AS e JOIN nodes AS s ON s.id = e.src "
        f"JOIN nodes AS d ON d.id = e.dst WHERE s.scope IN ({marks}) AND d.scope IN ({marks})",
        (*scopes, *scopes),
    ).fetchone()
    return int(row[0])


def node_count(conn: Connection) -> int:
    """Every memory in every scope; not the engine's sentinel, which is not indexed."""
    row = conn.execute("SELECT count(*) FROM nodes WHERE scope <> ?", (ENGINE_SCOPE,)).fetchone()
    return int(row[0])


# -- briefing ---------------------------------------------------------------------------------


def due_before(
    conn: Connection, node_type: str, attr: str, until: str, scopes: Sequence[str], limit: int
) -> list[DueRow]:
    """Active nodes of ``node_type`` whose date attribute ``attr`` is on or before ``until``
    and that are not marked done (a ``done`` flag, or a done/dropped status), soonest first."""
    marks = placeholders(scopes)
    return [
        cast(DueRow, dict(row))
        for row in conn.execute(
            f"SELECT {NODE_COLUMNS}, json_extract(attrs, '$.' || ?) AS due FROM nodes "
            f"WHERE type = ? AND status = 'active' AND scope IN ({marks}) "
            f"AND json_extract(attrs, '$.' || ?) <= ? "
            f"AND coalesce(json_extract(attrs, '$.done'), 0) = 0 "
            f"AND coalesce(json_extract(attrs, '$.status'), '') NOT IN ('done', 'dropped') "
            f"ORDER BY due, seq LIMIT ?",
            (attr, node_type, *scopes, attr, until, limit),
        )
    ]


def recent(
    conn: Connection, types: Sequence[str], scopes: Sequence[str], limit: int
) -> list[NodeRow]:
    """The newest active nodes of ``types``."""
    if not types or not scopes:
        return []
    return [
        cast(NodeRow, dict(row))
        for row in conn.execute(
            f"SELECT {NODE_COLUMNS} FROM nodes WHERE status = 'active' "
            f"AND type IN ({placeholders(types)}) AND scope IN ({placeholders(scopes)}) "
            f"ORDER BY seq DESC LIMIT ?",
            (*types, *scopes, limit),
        )
    ]


def newest(
    conn: Connection,
    scopes: Sequence[str],
    statuses: Sequence[str],
    types: Sequence[str] | None,
    limit: int,
) -> list[NodeRow]:
    """The newest nodes in ``statuses`` (of ``types``, if given), newest first."""
    if not scopes or not statuses:
        return []
    where = f"status IN ({placeholders(statuses)}) AND scope IN ({placeholders(scopes)})"
    params: list[Any] = [*statuses, *scopes]
    if types is not None:
        where += f" AND type IN ({placeholders(types)})"
        params += list(types)
    rows = conn.execute(
        f"SELECT {NODE_COLUMNS} FROM nodes WHERE {where} ORDER BY seq DESC LIMIT ?",
        (*params, limit),
    )
    return [cast(NodeRow, dict(row)) for row in rows]


def stubs_by_degree(
    conn: Connection, scopes: Sequence[str], min_degree: int, limit: int
) -> list[StubRow]:
    """Stubs with at least ``min_degree`` edges, most linked first."""
    return [
        cast(StubRow, dict(row))
        for row in conn.execute(
            f"SELECT * FROM (SELECT n.id, n.type, n.title, "
            f"(SELECT count(*) FROM edges WHERE src = n.id) + "
            f"(SELECT count(*) FROM edges WHERE dst = n.id) AS degree "
            f"FROM nodes AS n WHERE n.status = 'stub' AND n.scope IN ({placeholders(scopes)})) "
            f"WHERE degree >= ? ORDER BY degree DESC, id LIMIT ?",
            (*scopes, min_degree, limit),
        )
    ]


# -- search -----------------------------------------------------------------------------------


def neighbours_by_layer(
    conn: Connection,
    node_ids: Sequence[str],
    layer: str,
    scopes: Sequence[str],
    statuses: Sequence[str],
    limit: int,
) -> dict[str, list[NeighbourRow]]:
    """For each of ``node_ids``, up to ``limit`` visible nodes joined to it by ``layer`` edges
    on each side, newest edges first. The limit holds per node and side, so a hub costs no more
    than any node; all in one statement, one round trip."""
    return _neighbours(conn, node_ids, "e.layer = ?", [layer], scopes, statuses, limit)


def neighbours_by_types(
    conn: Connection,
    node_ids: Sequence[str],
    edge_types: Sequence[str],
    scopes: Sequence[str],
    statuses: Sequence[str],
    limit: int,
) -> dict[str, list[NeighbourRow]]:
    """As ``neighbours_by_layer``, over edges of one of ``edge_types``."""
    condition = f"e.type IN ({placeholders(edge_types)})"
    return _neighbours(conn, node_ids, condition, list(edge_types), scopes, statuses, limit)


def _neighbours(
    conn: Connection,
    node_ids: Sequence[str],
    condition: str,
    values: list[Any],
    scopes: Sequence[str],
    statuses: Sequence[str],
    limit: int,
) -> dict[str, list[NeighbourRow]]:
    if not node_ids or not scopes or not statuses or not values:
        return {}
    parts = []
    params: list[Any] = []
    # The limit is written into the statement: a bound one makes every part sort through
    # SQLite's general sorter instead of a small top-N list (50 µs a part, 10 parts a search).
    limit = int(limit)
    for position, node_id in enumerate(node_ids):
        for near, far in (("src", "dst"), ("dst", "src")):
            parts.append(
                f"SELECT * FROM (SELECT {position} AS position, n.seq, n.id, e.seq AS edge_seq "
                f"FROM edges AS e JOIN nodes AS n ON n.id = e.{far} "
                f"WHERE e.{near} = ? AND {condition} AND n.scope IN ({placeholders(scopes)}) "
                f"AND n.status IN ({placeholders(statuses)}) ORDER BY e.seq DESC LIMIT {limit})"
            )
            params += [node_id, *values, *scopes, *statuses]
    found: dict[str, list[NeighbourRow]] = {node_id: [] for node_id in node_ids}
    for row in conn.execute(" UNION ALL ".join(parts), params):
        found[node_ids[row["position"]]].append(cast(NeighbourRow, dict(row)))
    for rows in found.values():
        rows.sort(key=lambda row: -row["edge_seq"])
        del rows[limit:]
    return found


def pairs_joined(
    conn: Connection, ids: Sequence[str], edge_types: Sequence[str]
) -> set[frozenset[str]]:
    """Pairs among ``ids`` joined by an edge of one of ``edge_types``."""
    if len(ids) < 2:
        return set()
    marks = placeholders(ids)
    return {
        frozenset((row[0], row[1]))
        for row in conn.execute(
            f"SELECT src, dst FROM edges WHERE src IN ({marks}) AND dst IN ({marks}) "
            f"AND type IN ({placeholders(edge_types)})",
            (*ids, *ids, *edge_types),
        )
    }


def part_ordinals(conn: Connection, document_id: str) -> set[int]:
    """The ordinals of the passages already ``part_of`` a document: a long document is written
    in parts, and a run that was stopped between them goes on from the first one missing."""
    return {
        int(ordinal)
        for (ordinal,) in conn.execute(
            "SELECT json_extract(p.attrs, '$.ordinal') FROM edges AS e "
            "JOIN nodes AS p ON p.id = e.src "
            "WHERE e.dst = ? AND e.type = 'part_of' AND p.type = 'Passage'",
            (document_id,),
        )
        if ordinal is not None
    }


def active_documents_from(conn: Connection, source: str) -> list[str]:
    """Ids of the active Documents read from ``source``, oldest first."""
    return [
        node_id
        for (node_id,) in conn.execute(
            "SELECT id FROM nodes WHERE type = 'Document' AND source = ? AND status = 'active' "
            "ORDER BY seq",
            (source,),
        )
    ]


def written_around(
    conn: Connection, seqs: Sequence[int]
) -> dict[int, tuple[int | None, int | None]]:
    """For each of ``seqs``: the seqs of the nodes of its type written just before and just
    after it (any scope or status: the caller decides what counts as its context)."""
    if not seqs:
        return {}
    found: dict[int, tuple[int | None, int | None]] = {}
    for seq, before, after in conn.execute(
        # Each lookup walks the type index one step from the node: a few microseconds.
        "SELECT n.seq, "
        "(SELECT p.seq FROM nodes AS p WHERE p.type = n.type AND p.seq < n.seq "
        "ORDER BY p.seq DESC LIMIT 1), "
        "(SELECT q.seq FROM nodes AS q WHERE q.type = n.type AND q.seq > n.seq "
        "ORDER BY q.seq LIMIT 1) "
        f"FROM nodes AS n WHERE n.seq IN ({placeholders(seqs)})",
        list(seqs),
    ):
        found[seq] = (before, after)
    return found
