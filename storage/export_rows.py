"""The rows an export reads and an import writes back: every table a person's memory lives in,
filtered by scope in SQL, read page by page so a vault of any size streams through in bounded
memory.

Scope isolation is strict: a row that names a memory of a scope not chosen (an edge whose other
end is elsewhere, a review item about a pair across scopes, a dedup decision against a memory
of another compartment) is left out, never trimmed. ``whole`` says every scope a person may name
was chosen: then rows whose memories are gone (a settled review item outlives the memory a merge
folded away) come along too, since they can belong to no other compartment.

Derived data is not here: vectors, the full-text and name indexes and the graph layouts are
rebuilt from these rows; the engine's sentinel and its scope are never read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from cairn.storage.connection import Connection, placeholders
from cairn.storage.sentinel import ENGINE_SCOPE

PAGE = 200


@dataclass(frozen=True)
class Table:
    """One kind of exported row: its table, its columns (in file order) and how it is read."""

    kind: str
    table: str
    columns: tuple[str, ...]
    json_columns: tuple[str, ...] = ()  # JSON text in the vault, plain data in the file


NODE_FIELDS = (
    "id", "type", "title", "body", "attrs", "status", "scope", "source", "locator",
    "valid_from", "valid_to", "recorded_at", "updated_at", "importance", "stability",
    "last_access", "access_count", "retention_label",
)  # fmt: skip
REVIEW_FIELDS = (
    "id", "kind", "node_id", "other_id", "score", "reason", "flags", "state", "decision",
    "created_at", "decided_at",
)  # fmt: skip
SOURCE_FIELDS = (
    "path", "scope", "state", "sha256", "size", "mtime_ns", "media_type", "document_id",
    "passages", "warnings", "error", "first_seen", "updated_at", "path_bytes",
)  # fmt: skip

TABLES: dict[str, Table] = {
    t.kind: t
    for t in (
        Table("scope", "scopes", ("name", "created_at")),
        Table("node", "nodes", NODE_FIELDS, ("attrs", "locator")),
        Table(
            "edge",
            "edges",
            ("src", "dst", "type", "layer", "rationale", "created_at", "valid_from", "valid_to"),
        ),
        Table("merged_id", "node_aliases", ("alias_id", "node_id", "created_at")),
        Table("addendum", "addenda", ("node_id", "text", "origin", "source", "recorded_at")),
        Table(
            "inbox",
            "inbox",
            ("id", "text", "scope", "captured_at", "state", "node_id", "decided_at"),
        ),
        Table(
            "review_item",
            "review_items",
            REVIEW_FIELDS,
            ("flags",),
        ),
        Table(
            "retention_log",
            "retention_log",
            ("at", "node_id", "action", "label", "actor", "reason"),
        ),
        Table(
            "dedup_log",
            "dedup_log",
            ("at", "node_id", "candidate_id", "outcome", "score", "jaccard", "reason", "flags"),
            ("flags",),
        ),
        Table(
            "source",
            "sources",
            SOURCE_FIELDS,
            ("warnings",),
        ),
    )
}

# Which rows of each table belong to the chosen scopes (the CTE ``chosen`` lists them). A node
# id column is in scope when its node is; "gone" (no such node) is allowed only in a whole export.
_IN = "(SELECT id FROM nodes WHERE scope IN chosen)"
_ELSEWHERE = "(SELECT id FROM nodes WHERE scope NOT IN chosen)"


def _where(kind: str, whole: bool) -> str:
    """The FROM ... WHERE ... ORDER BY that reads the rows of ``kind`` in the chosen scopes."""
    table = TABLES[kind].table
    if kind == "scope":
        return "FROM scopes WHERE name IN chosen ORDER BY name"
    if kind == "node":
        return "FROM nodes WHERE scope IN chosen ORDER BY seq"
    if kind == "edge":
        return f"FROM edges WHERE src IN {_IN} AND dst IN {_IN} ORDER BY seq"
    if kind in ("merged_id", "addendum", "retention_log"):
        order = "alias_id" if kind == "merged_id" else "seq"
        return f"FROM {table} WHERE node_id IN {_IN} ORDER BY {order}"
    if kind == "inbox":
        return (
            f"FROM inbox WHERE scope IN chosen AND (node_id IS NULL OR node_id IN {_IN}) "
            "ORDER BY captured_at, id"
        )
    if kind == "source":
        return (
            "FROM sources WHERE scope IN chosen "
            f"AND (document_id IS NULL OR document_id IN {_IN}) ORDER BY path"
        )
    other = {"review_item": "other_id", "dedup_log": "candidate_id"}[kind]
    order = "created_at, id" if kind == "review_item" else "seq"
    if whole:
        return (
            f"FROM {table} WHERE coalesce(node_id, '') NOT IN {_ELSEWHERE} "
            f"AND coalesce({other}, '') NOT IN {_ELSEWHERE} ORDER BY {order}"
        )
    return (
        f"FROM {table} WHERE node_id IN {_IN} AND ({other} IS NULL OR {other} IN {_IN}) "
        f"ORDER BY {order}"
    )


def rows(
    conn: Connection, kind: str, scopes: Sequence[str], *, whole: bool
) -> Iterator[dict[str, Any]]:
    """Every row of ``kind`` in ``scopes``, in a stable order, a page at a time. ``whole``:
    ``scopes`` are every scope a person may name."""
    scopes = [s for s in scopes if s != ENGINE_SCOPE]
    if not scopes:
        return
    chosen = ", ".join("(?)" for _ in scopes)
    sql = (
        f"WITH chosen(name) AS (VALUES {chosen}) "
        f"SELECT {', '.join(TABLES[kind].columns)} {_where(kind, whole)}"
    )
    cursor = conn.execute(sql, scopes)
    while page := cursor.fetchmany(PAGE):
        yield from (dict(row) for row in page)


def settings(conn: Connection) -> dict[str, str]:
    """Every setting as stored (JSON text), by key."""
    return dict(conn.execute("SELECT key, value FROM settings ORDER BY key").fetchall())


def receipt_head(conn: Connection) -> tuple[int, str | None]:
    """How many receipts the chain holds and the newest one's hash."""
    row = conn.execute("SELECT count(*), (SELECT hash FROM receipts ORDER BY seq DESC LIMIT 1) "
                       "FROM receipts").fetchone()  # fmt: skip
    return int(row[0]), row[1]


@contextmanager
def snapshot(conn: Connection) -> Iterator[Connection]:
    """One read transaction on a reader: every query sees the vault as it was at the first,
    so an export is consistent while the window keeps writing."""
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


# -- what the Markdown export reads ------------------------------------------------------------


def heads(conn: Connection, scopes: Sequence[str]) -> Iterator[tuple[str, str, str, str]]:
    """(id, type, title, status) of every node in ``scopes``, oldest first."""
    cursor = conn.execute(
        f"SELECT id, type, title, status FROM nodes WHERE scope IN ({placeholders(scopes)}) "
        "ORDER BY seq",
        list(scopes),
    )
    while page := cursor.fetchmany(PAGE):
        yield from ((r[0], r[1], r[2], r[3]) for r in page)


def pairs(
    conn: Connection, scopes: Sequence[str], edge_type: str, src_type: str | None = None
) -> Iterator[tuple[str, str]]:
    """(src, dst) of the ``edge_type`` edges within ``scopes`` (from ``src_type`` nodes)."""
    type_filter = "AND s.type = ?" if src_type else ""
    marks = placeholders(scopes)
    cursor = conn.execute(
        "SELECT e.src, e.dst FROM edges AS e JOIN nodes AS s ON s.id = e.src "
        f"JOIN nodes AS d ON d.id = e.dst WHERE e.type = ? {type_filter} "
        f"AND s.scope IN ({marks}) AND d.scope IN ({marks}) ORDER BY e.seq",
        [edge_type, *([src_type] if src_type else []), *scopes, *scopes],
    )
    while page := cursor.fetchmany(PAGE):
        yield from ((r[0], r[1]) for r in page)


def links_leaving(conn: Connection, scopes: Sequence[str]) -> int:
    """How many edges join a memory of ``scopes`` to one outside them (left out of a scoped
    export: counted, never named)."""
    marks = placeholders(scopes)
    row = conn.execute(
        "SELECT count(*) FROM edges AS e JOIN nodes AS s ON s.id = e.src "
        f"JOIN nodes AS d ON d.id = e.dst WHERE (s.scope IN ({marks})) <> (d.scope IN ({marks}))"
        " AND s.scope <> ? AND d.scope <> ?",
        [*scopes, *scopes, ENGINE_SCOPE, ENGINE_SCOPE],
    ).fetchone()
    return int(row[0])


def edges_within(
    conn: Connection, ids: Sequence[str], scopes: Sequence[str]
) -> list[dict[str, Any]]:
    """The edges with an end in ``ids`` whose both ends are in ``scopes``."""
    if not ids:
        return []
    marks, id_marks = placeholders(scopes), placeholders(ids)
    return [
        dict(row)
        for row in conn.execute(
            "SELECT e.src, e.dst, e.type, e.rationale FROM edges AS e "
            "JOIN nodes AS s ON s.id = e.src JOIN nodes AS d ON d.id = e.dst "
            f"WHERE (e.src IN ({id_marks}) OR e.dst IN ({id_marks})) "
            f"AND s.scope IN ({marks}) AND d.scope IN ({marks}) ORDER BY e.seq",
            [*ids, *ids, *scopes, *scopes],
        )
    ]


def merged_ids(conn: Connection, ids: Sequence[str]) -> dict[str, list[str]]:
    """The ids merged into each of ``ids``."""
    found: dict[str, list[str]] = {}
    if ids:
        for alias_id, node_id in conn.execute(
            f"SELECT alias_id, node_id FROM node_aliases WHERE node_id IN ({placeholders(ids)}) "
            "ORDER BY alias_id",
            list(ids),
        ):
            found.setdefault(node_id, []).append(alias_id)
    return found


def nodes_by_ids(conn: Connection, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Whole nodes by id (the caller has already chosen ids of its scopes only)."""
    if not ids:
        return {}
    columns = ", ".join(NODE_FIELDS)
    return {
        row["id"]: dict(row)
        for row in conn.execute(
            f"SELECT {columns} FROM nodes WHERE id IN ({placeholders(ids)})", list(ids)
        )
    }


def parts_of(conn: Connection, document_id: str) -> Iterator[dict[str, Any]]:
    """The Passages ``part_of`` a Document, in their order in the file."""
    columns = ", ".join(f"p.{c}" for c in NODE_FIELDS)
    cursor = conn.execute(
        f"SELECT {columns} FROM edges AS e JOIN nodes AS p ON p.id = e.src "
        "WHERE e.dst = ? AND e.type = 'part_of' AND p.type = 'Passage' "
        "ORDER BY coalesce(json_extract(p.attrs, '$.ordinal'), 0), p.seq",
        (document_id,),
    )
    while page := cursor.fetchmany(PAGE):
        yield from (dict(row) for row in page)


# -- what an import writes -------------------------------------------------------------------


def insert(conn: Connection, kind: str, row: Mapping[str, Any]) -> int:
    """Insert one row of ``kind`` exactly as given (keys are its columns); returns its rowid."""
    table = TABLES[kind]
    columns = list(table.columns)
    # A new vault already has the default scope: it takes the exported one's creation time.
    upsert = " ON CONFLICT(name) DO UPDATE SET created_at = excluded.created_at"
    cursor = conn.execute(
        f"INSERT INTO {table.table}({', '.join(columns)}) VALUES ({placeholders(columns)})"
        + (upsert if kind == "scope" else ""),
        [row[c] for c in columns],
    )
    return int(cursor.lastrowid)


def memories_other_than(conn: Connection, node_id: str) -> int:
    """How many nodes the vault holds besides the sentinel ``node_id``."""
    return int(conn.execute("SELECT count(*) FROM nodes WHERE id <> ?", (node_id,)).fetchone()[0])


def holds_node(conn: Connection, node_id: str) -> bool:
    """Whether a node of id ``node_id`` is there (an import checks what a line names)."""
    return conn.execute("SELECT 1 FROM nodes WHERE id = ?", (node_id,)).fetchone() is not None


def node_pages(conn: Connection) -> Iterator[list[dict[str, Any]]]:
    """Every node's seq, id, type, title, body, attrs and scope, a page at a time (an import
    indexes what it wrote, inside its own transaction)."""
    last = 0
    while True:
        page = [
            dict(row)
            for row in conn.execute(
                "SELECT seq, id, type, title, body, attrs, scope FROM nodes WHERE seq > ? "
                "ORDER BY seq LIMIT ?",
                (last, PAGE),
            )
        ]
        if not page:
            return
        yield page
        last = page[-1]["seq"]
