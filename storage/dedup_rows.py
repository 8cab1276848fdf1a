"""Rows the dedup gate and the review queue keep: addenda, merged ids, the dedup log, review
items, and each type's status words."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from cairn.storage.connection import placeholders

# -- addenda and merged ids -------------------------------------------------------------------


def add_addendum(
    conn: Any, node_id: str, text: str, origin: str, source: str | None, at: str
) -> None:
    conn.execute(
        "INSERT INTO addenda(node_id, text, origin, source, recorded_at) VALUES (?, ?, ?, ?, ?)",
        (node_id, text, origin, source, at),
    )


def addenda_of(conn: Any, node_ids: Sequence[str]) -> list[dict[str, Any]]:
    if not node_ids:
        return []
    return [
        dict(row)
        for row in conn.execute(
            f"SELECT node_id, text, origin, source, recorded_at FROM addenda "
            f"WHERE node_id IN ({placeholders(node_ids)}) ORDER BY seq",
            tuple(node_ids),
        )
    ]


def add_alias(conn: Any, alias_id: str, node_id: str, at: str) -> None:
    # Ids that were merged into alias_id now lead to node_id as well.
    conn.execute("UPDATE node_aliases SET node_id = ? WHERE node_id = ?", (node_id, alias_id))
    conn.execute(
        "INSERT INTO node_aliases(alias_id, node_id, created_at) VALUES (?, ?, ?)",
        (alias_id, node_id, at),
    )


def resolve_aliases(conn: Any, ids: Sequence[str]) -> dict[str, str]:
    """For the given ids that were merged away: old id -> the id of the node it became."""
    if not ids:
        return {}
    return dict(
        conn.execute(
            f"SELECT alias_id, node_id FROM node_aliases WHERE alias_id IN ({placeholders(ids)})",
            tuple(ids),
        ).fetchall()
    )


def aliases_of(conn: Any, node_id: str) -> list[str]:
    return [
        row[0]
        for row in conn.execute(
            "SELECT alias_id FROM node_aliases WHERE node_id = ? ORDER BY alias_id", (node_id,)
        )
    ]


# -- the dedup log ----------------------------------------------------------------------------


def log_decision(
    conn: Any,
    *,
    at: str,
    node_id: str | None,
    candidate_id: str | None,
    outcome: str,
    score: float | None,
    jaccard: float | None,
    reason: str,
    flags: Iterable[str] = (),
) -> None:
    conn.execute(
        "INSERT INTO dedup_log(at, node_id, candidate_id, outcome, score, jaccard, reason, flags) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (at, node_id, candidate_id, outcome, score, jaccard, reason, json.dumps(list(flags))),
    )


def decisions(conn: Any, node_id: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    where = "WHERE node_id = ? OR candidate_id = ?" if node_id else ""
    params: tuple[Any, ...] = (node_id, node_id) if node_id else ()
    return [
        dict(row) | {"flags": json.loads(row["flags"])}
        for row in conn.execute(
            f"SELECT at, node_id, candidate_id, outcome, score, jaccard, reason, flags "
            f"FROM dedup_log {where} ORDER BY seq DESC LIMIT ?",
            (*params, limit),
        )
    ]


# -- review items -----------------------------------------------------------------------------

_REVIEW_COLUMNS = (
    "id, kind, node_id, other_id, score, reason, flags, state, decision, created_at, decided_at"
)


def add_review_item(
    conn: Any,
    *,
    id_: str,
    kind: str,
    node_id: str,
    other_id: str,
    score: float | None,
    reason: str,
    flags: Iterable[str],
    at: str,
) -> None:
    conn.execute(
        "INSERT INTO review_items(id, kind, node_id, other_id, score, reason, flags, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (id_, kind, node_id, other_id, score, reason, json.dumps(list(flags)), at),
    )


def review_items(
    conn: Any, scopes: Sequence[str], *, kinds: Sequence[str], state: str = "open", limit: int = 500
) -> list[dict[str, Any]]:
    """Review items whose two memories are both visible in ``scopes``, oldest first."""
    marks = placeholders(scopes)
    return [
        dict(row)
        for row in conn.execute(
            f"SELECT r.* FROM review_items AS r JOIN nodes AS a ON a.id = r.node_id "
            f"JOIN nodes AS b ON b.id = r.other_id WHERE r.state = ? "
            f"AND r.kind IN ({placeholders(kinds)}) "
            f"AND a.scope IN ({marks}) AND b.scope IN ({marks}) "
            f"ORDER BY r.created_at, r.id LIMIT ?",
            (state, *kinds, *scopes, *scopes, limit),
        )
    ]


def review_count(conn: Any, scopes: Sequence[str]) -> int:
    marks = placeholders(scopes)
    row = conn.execute(
        f"SELECT count(*) FROM review_items AS r JOIN nodes AS a ON a.id = r.node_id "
        f"JOIN nodes AS b ON b.id = r.other_id WHERE r.state = 'open' "
        f"AND a.scope IN ({marks}) AND b.scope IN ({marks})",
        (*scopes, *scopes),
    ).fetchone()
    return int(row[0])


def review_item(conn: Any, id_: str) -> dict[str, Any] | None:
    row = conn.execute(
        f"SELECT {_REVIEW_COLUMNS} FROM review_items WHERE id = ?", (id_,)
    ).fetchone()
    return None if row is None else dict(row)


def decide_review_item(conn: Any, id_: str, decision: str, at: str) -> None:
    conn.execute(
        "UPDATE review_items SET state = 'resolved', decision = ?, decided_at = ? WHERE id = ?",
        (decision, at, id_),
    )


def close_review_items_of(conn: Any, node_id: str, decision: str, at: str) -> None:
    """Settle every open item about ``node_id`` (it was merged, superseded or revived)."""
    conn.execute(
        "UPDATE review_items SET state = 'resolved', decision = ?, decided_at = ? "
        "WHERE state = 'open' AND (node_id = ? OR other_id = ?)",
        (decision, at, node_id, node_id),
    )


# -- status words -----------------------------------------------------------------------------


def set_status_words(conn: Any, rows: Iterable[tuple[str, str, str]]) -> None:
    """(node_type, word, canonical) rows from a pack; a type's earlier words are replaced."""
    rows = list(rows)
    for node_type in sorted({r[0] for r in rows}):
        conn.execute("DELETE FROM status_words WHERE node_type = ?", (node_type,))
    conn.executemany("INSERT INTO status_words(node_type, word, canonical) VALUES (?, ?, ?)", rows)


def status_words(conn: Any) -> list[tuple[str, str, str]]:
    return [
        (row[0], row[1], row[2])
        for row in conn.execute(
            "SELECT node_type, word, canonical FROM status_words ORDER BY node_type, word"
        )
    ]
