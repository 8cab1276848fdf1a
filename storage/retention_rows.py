"""Rows of the retention supervisor (migration 8): each memory's keeping state in ``nodes``
(importance, stability, last access, access count, label) and the decisions in ``retention_log``.
The engine's own scope is never read here: its sentinel is not a memory to keep or fade."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from cairn.storage.connection import Connection, placeholders
from cairn.storage.rows import RetentionEntryRow
from cairn.storage.sentinel import ENGINE_SCOPE

KEEPING_COLUMNS = (
    "id, type, title, status, scope, source, recorded_at, importance, stability, last_access, "
    "access_count, retention_label"
)


def log(
    conn: Connection,
    *,
    at: str,
    node_id: str,
    action: str,
    label: str | None,
    actor: str,
    reason: str,
) -> None:
    conn.execute(
        "INSERT INTO retention_log(at, node_id, action, label, actor, reason) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (at, node_id, action, label, actor, reason),
    )


def set_keeping(
    conn: Connection, node_id: str, *, label: str, importance: float, stability: float
) -> None:
    conn.execute(
        "UPDATE nodes SET retention_label = ?, importance = ?, stability = ? WHERE id = ?",
        (label, importance, stability, node_id),
    )


def record_access(
    conn: Connection, node_id: str, *, at: str, stability: float, added_count: int = 1
) -> None:
    conn.execute(
        "UPDATE nodes SET last_access = ?, access_count = access_count + ?, stability = ? "
        "WHERE id = ?",
        (at, added_count, stability, node_id),
    )


def keeping(conn: Connection, ids: Sequence[str], scopes: Sequence[str] | None = None) -> list[Any]:
    """The keeping state of ``ids`` (in ``scopes`` when given)."""
    if not ids:
        return []
    scope_filter = f"AND scope IN ({placeholders(scopes)})" if scopes is not None else ""
    return list(
        conn.execute(
            f"SELECT {KEEPING_COLUMNS} FROM nodes WHERE id IN ({placeholders(ids)}) "
            f"AND scope != ? {scope_filter}",
            (*ids, ENGINE_SCOPE, *(scopes or [])),
        ).fetchall()
    )


def unlabelled(conn: Connection, limit: int) -> list[Any]:
    """Memories stored before the supervisor existed (or by an older program), oldest first."""
    return list(
        conn.execute(
            "SELECT id, type, title, body, attrs, status, scope, source FROM nodes "
            "WHERE retention_label IS NULL AND scope != ? ORDER BY seq LIMIT ?",
            (ENGINE_SCOPE, limit),
        ).fetchall()
    )


def active_with_label(
    conn: Connection, label: str, scopes: Sequence[str] | None = None
) -> list[Any]:
    scope_filter = f"AND scope IN ({placeholders(scopes)})" if scopes is not None else ""
    return list(
        conn.execute(
            f"SELECT {KEEPING_COLUMNS} FROM nodes WHERE retention_label = ? "
            f"AND status = 'active' AND scope != ? {scope_filter} ORDER BY seq",
            (label, ENGINE_SCOPE, *(scopes or [])),
        ).fetchall()
    )


def last_actions(conn: Connection, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Each id's newest logged action with its time: (action, at)."""
    if not ids:
        return {}
    rows = conn.execute(
        "SELECT node_id, action, at FROM retention_log WHERE seq IN ("
        f"SELECT max(seq) FROM retention_log WHERE node_id IN ({placeholders(ids)}) "
        "GROUP BY node_id)",
        tuple(ids),
    ).fetchall()
    return {str(row[0]): (str(row[1]), str(row[2])) for row in rows}


def entries(
    conn: Connection, scopes: Sequence[str], *, node_id: str | None = None, limit: int = 100
) -> list[RetentionEntryRow]:
    """The newest decisions first, about memories in ``scopes`` (one memory's if named)."""
    node_filter = "AND l.node_id = ?" if node_id else ""
    rows = conn.execute(
        "SELECT l.seq, l.at, l.node_id, n.title, n.type, l.action, l.label, l.actor, l.reason "
        "FROM retention_log l JOIN nodes n ON n.id = l.node_id "
        f"WHERE n.scope IN ({placeholders(scopes)}) {node_filter} ORDER BY l.seq DESC LIMIT ?",
        (*scopes, *([node_id] if node_id else []), limit),
    ).fetchall()
    return [cast(RetentionEntryRow, dict(row)) for row in rows]
