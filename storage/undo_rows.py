"""Rows for undoing what a merge, an edit or a link did: what a merge kept for its undo (the
``merges`` table), and the few row changes an undo makes that no other write path needs
(an edge removed by its ends, a node put back with its own id, review items reopened)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from cairn.storage.connection import Connection, placeholders

# -- what a merge keeps -----------------------------------------------------------------------


def keep_merge(
    conn: Connection, item_id: str, folded_id: str, kept_id: str, at: str, snapshot: Any
) -> None:
    """Keep what undoing the merge that settled ``item_id`` needs (one per item: a merge
    undone and done again keeps what the second one changed)."""
    conn.execute(
        "INSERT OR REPLACE INTO merges(item_id, folded_id, kept_id, at, snapshot) "
        "VALUES (?, ?, ?, ?, ?)",
        (item_id, folded_id, kept_id, at, json.dumps(snapshot, ensure_ascii=False)),
    )


def merge_of(conn: Connection, item_id: str) -> dict[str, Any] | None:
    row = conn.execute(
        "SELECT item_id, folded_id, kept_id, at, snapshot FROM merges WHERE item_id = ?",
        (item_id,),
    ).fetchone()
    if row is None:
        return None
    return dict(row) | {"snapshot": json.loads(row["snapshot"])}


def merges_into(conn: Connection, node_id: str) -> list[str]:
    """The review items of the merges still standing that folded a memory into ``node_id``."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT item_id FROM merges WHERE kept_id = ? ORDER BY at", (node_id,)
        )
    ]


def drop_merge(conn: Connection, item_id: str) -> None:
    conn.execute("DELETE FROM merges WHERE item_id = ?", (item_id,))


def drop_merges_naming(conn: Connection, ids: Sequence[str]) -> None:
    """Forget what merges kept about ``ids`` and the ids merged into them: their text goes
    with them (a forget)."""
    if not ids:
        return
    marks = placeholders(ids)
    merged = [
        row[0]
        for row in conn.execute(
            f"SELECT alias_id FROM node_aliases WHERE node_id IN ({marks})", tuple(ids)
        )
    ]
    named = [*ids, *merged]
    marks = placeholders(named)
    conn.execute(
        f"DELETE FROM merges WHERE kept_id IN ({marks}) OR folded_id IN ({marks})",
        (*named, *named),
    )


# -- the rows an undo puts back or takes away -------------------------------------------------


def delete_edge_between(conn: Connection, src: str, dst: str, edge_type: str) -> bool:
    """Remove the edge ``src -type-> dst``; False if there was none."""
    cursor = conn.execute(
        "DELETE FROM edges WHERE src = ? AND dst = ? AND type = ?", (src, dst, edge_type)
    )
    return bool(cursor.rowcount)


def delete_addendum(conn: Connection, seq: int, node_id: str) -> None:
    conn.execute("DELETE FROM addenda WHERE seq = ? AND node_id = ?", (seq, node_id))


def move_addenda(conn: Connection, from_id: str, to_id: str) -> int:
    cursor = conn.execute("UPDATE addenda SET node_id = ? WHERE node_id = ?", (to_id, from_id))
    return int(cursor.rowcount)


def insert_addendum_row(conn: Connection, row: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO addenda(node_id, text, origin, source, recorded_at) VALUES (?, ?, ?, ?, ?)",
        (row["node_id"], row["text"], row["origin"], row["source"], row["recorded_at"]),
    )


def point_aliases(conn: Connection, alias_ids: Sequence[str], from_id: str, to_id: str) -> None:
    """Ids that were merged into ``to_id``'s memory before it was folded into ``from_id``
    lead to it again."""
    if alias_ids:
        conn.execute(
            f"UPDATE node_aliases SET node_id = ? WHERE node_id = ? "
            f"AND alias_id IN ({placeholders(alias_ids)})",
            (to_id, from_id, *alias_ids),
        )


def drop_alias(conn: Connection, alias_id: str) -> None:
    conn.execute("DELETE FROM node_aliases WHERE alias_id = ?", (alias_id,))


def retention_rows(conn: Connection, node_id: str) -> list[dict[str, Any]]:
    return [
        dict(row)
        for row in conn.execute(
            "SELECT at, node_id, action, label, actor, reason FROM retention_log "
            "WHERE node_id = ? ORDER BY seq",
            (node_id,),
        )
    ]


def insert_retention_rows(conn: Connection, rows: Sequence[dict[str, Any]]) -> None:
    conn.executemany(
        "INSERT INTO retention_log(at, node_id, action, label, actor, reason) "
        "VALUES (:at, :node_id, :action, :label, :actor, :reason)",
        rows,
    )


def ids_pointing_at(conn: Connection, table: str, column: str, node_id: str) -> list[str]:
    """Keys of the inbox captures (``inbox``, ``node_id``) or files (``sources``,
    ``document_id``) that name ``node_id``: a deleted node leaves them naming nothing."""
    key = {"inbox": "id", "sources": "path"}[table]
    if column not in {"node_id", "document_id"}:
        raise ValueError(column)
    return [
        row[0] for row in conn.execute(f"SELECT {key} FROM {table} WHERE {column} = ?", (node_id,))
    ]


def point_at(conn: Connection, table: str, column: str, keys: Sequence[str], node_id: str) -> None:
    """The inbox captures or files ``keys`` name ``node_id`` again (where they name none)."""
    key = {"inbox": "id", "sources": "path"}[table]
    if column not in {"node_id", "document_id"} or not keys:
        return
    conn.execute(
        f"UPDATE {table} SET {column} = ? WHERE {column} IS NULL "
        f"AND {key} IN ({placeholders(keys)})",
        (node_id, *keys),
    )


def move_document(conn: Connection, from_id: str, to_id: str) -> None:
    """The files whose record names ``from_id`` name ``to_id`` instead."""
    conn.execute("UPDATE sources SET document_id = ? WHERE document_id = ?", (to_id, from_id))


def open_items_about(conn: Connection, node_id: str) -> list[str]:
    """Open review items about ``node_id`` (what ``close_review_items_of`` would settle)."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT id FROM review_items WHERE state = 'open' AND (node_id = ? OR other_id = ?)",
            (node_id, node_id),
        )
    ]


def repointable_items(conn: Connection, old_id: str, new_id: str) -> list[str]:
    """Open items ``repoint_review_items(old_id, new_id)`` would change."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT id FROM review_items WHERE state = 'open' AND kind = 'duplicate' "
            "AND other_id = ? AND node_id <> ?",
            (old_id, new_id),
        )
    ]


def point_items_back(conn: Connection, ids: Sequence[str], from_id: str, to_id: str) -> None:
    if ids:
        conn.execute(
            f"UPDATE review_items SET other_id = ? WHERE other_id = ? AND state = 'open' "
            f"AND id IN ({placeholders(ids)})",
            (to_id, from_id, *ids),
        )


def reopen_items(conn: Connection, ids: Sequence[str], decision: str) -> None:
    """Open again the items ``ids`` that were settled as ``decision``."""
    if ids:
        conn.execute(
            f"UPDATE review_items SET state = 'open', decision = NULL, decided_at = NULL "
            f"WHERE state = 'resolved' AND decision = ? AND id IN ({placeholders(ids)})",
            (decision, *ids),
        )


def reopen_items_settled_at(conn: Connection, node_id: str, decision: str, at: str) -> None:
    """Open again the items about ``node_id`` that one act settled as ``decision`` at ``at``."""
    conn.execute(
        "UPDATE review_items SET state = 'open', decision = NULL, decided_at = NULL "
        "WHERE state = 'resolved' AND decision = ? AND decided_at = ? "
        "AND (node_id = ? OR other_id = ?)",
        (decision, at, node_id, node_id),
    )


def repoint_open_items(conn: Connection, from_id: str, to_id: str) -> None:
    """Open items about ``from_id`` are about ``to_id`` from now on (a version taken back)."""
    conn.execute(
        "UPDATE review_items SET other_id = ? WHERE state = 'open' AND other_id = ? "
        "AND node_id <> ?",
        (to_id, from_id, to_id),
    )
    conn.execute(
        "UPDATE review_items SET node_id = ? WHERE state = 'open' AND node_id = ? "
        "AND other_id <> ?",
        (to_id, from_id, to_id),
    )
