"""Rows the dedup gate and the review queue keep: addenda, merged ids, the dedup log, review
items, and each type's status words."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, cast

from cairn.storage.connection import Connection, placeholders
from cairn.storage.rows import AddendumRow, DecisionRow, ReviewItemRow

# -- addenda and merged ids -------------------------------------------------------------------


def add_addendum(
    conn: Connection, node_id: str, text: str, origin: str, source: str | None, at: str
) -> None:
    conn.execute(
        "INSERT INTO addenda(node_id, text, origin, source, recorded_at) VALUES (?, ?, ?, ?, ?)",
        (node_id, text, origin, source, at),
    )


def addenda_of(conn: Connection, node_ids: Sequence[str]) -> list[AddendumRow]:
    if not node_ids:
        return []
    return [
        cast(AddendumRow, dict(row))
        for row in conn.execute(
            f"SELECT node_id, text, origin, source, recorded_at FROM addenda "
            f"WHERE node_id IN ({placeholders(node_ids)}) ORDER BY seq",
            tuple(node_ids),
        )
    ]


def add_alias(conn: Connection, alias_id: str, node_id: str, at: str) -> None:
    # Ids that were merged into alias_id now lead to node_id as well.
    conn.execute("UPDATE node_aliases SET node_id = ? WHERE node_id = ?", (node_id, alias_id))
    conn.execute(
        "INSERT INTO node_aliases(alias_id, node_id, created_at) VALUES (?, ?, ?)",
        (alias_id, node_id, at),
    )


def resolve_aliases(conn: Connection, ids: Sequence[str]) -> dict[str, str]:
    """For the given ids that were merged away: old id -> the id of the node it became."""
    if not ids:
        return {}
    return dict(
        conn.execute(
            f"SELECT alias_id, node_id FROM node_aliases WHERE alias_id IN ({placeholders(ids)})",
            tuple(ids),
        ).fetchall()
    )


def aliases_of(conn: Connection, node_id: str) -> list[str]:
    return [
        row[0]
        for row in conn.execute(
            "SELECT alias_id FROM node_aliases WHERE node_id = ? ORDER BY alias_id", (node_id,)
        )
    ]


# -- the dedup log ----------------------------------------------------------------------------


def log_decision(
    conn: Connection,
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


def decisions(conn: Connection, node_id: str | None = None, limit: int = 100) -> list[DecisionRow]:
    where = "WHERE node_id = ? OR candidate_id = ?" if node_id else ""
    params: tuple[Any, ...] = (node_id, node_id) if node_id else ()
    return [
        cast(DecisionRow, dict(row) | {"flags": json.loads(row["flags"])})
        for row in conn.execute(
            f"SELECT at, node_id, candidate_id, outcome, score, jaccard, reason, flags "
            f"FROM dedup_log {where} ORDER BY seq DESC LIMIT ?",
            (*params, limit),
        )
    ]


def decided_on(conn: Connection, node_ids: Sequence[str], outcomes: Sequence[str]) -> set[str]:
    """Those of ``node_ids`` that a logged decision with one of ``outcomes`` names as its
    node (a write absorbed into it, a stub it was...)."""
    if not node_ids or not outcomes:
        return set()
    return {
        row[0]
        for row in conn.execute(
            f"SELECT DISTINCT node_id FROM dedup_log WHERE node_id IN ({placeholders(node_ids)}) "
            f"AND outcome IN ({placeholders(outcomes)})",
            (*node_ids, *outcomes),
        )
    }


# -- review items -----------------------------------------------------------------------------

_REVIEW_COLUMNS = (
    "id, kind, node_id, other_id, score, reason, flags, state, decision, created_at, decided_at"
)
_REVIEW_COLUMNS_OF_R = ", ".join(f"r.{column.strip()}" for column in _REVIEW_COLUMNS.split(","))


def add_review_item(
    conn: Connection,
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
    conn: Connection,
    scopes: Sequence[str],
    *,
    kinds: Sequence[str],
    state: str = "open",
    limit: int = 500,
) -> list[ReviewItemRow]:
    """Review items whose two memories are both visible in ``scopes``, oldest first."""
    marks = placeholders(scopes)
    return [
        cast(ReviewItemRow, dict(row))
        for row in conn.execute(
            f"SELECT {_REVIEW_COLUMNS_OF_R} FROM review_items AS r "
            f"JOIN nodes AS a ON a.id = r.node_id "
            f"JOIN nodes AS b ON b.id = r.other_id WHERE r.state = ? "
            f"AND r.kind IN ({placeholders(kinds)}) "
            f"AND a.scope IN ({marks}) AND b.scope IN ({marks}) "
            f"ORDER BY r.created_at, r.id LIMIT ?",
            (state, *kinds, *scopes, *scopes, limit),
        )
    ]


def review_count(conn: Connection, scopes: Sequence[str]) -> int:
    marks = placeholders(scopes)
    row = conn.execute(
        f"SELECT count(*) FROM review_items AS r JOIN nodes AS a ON a.id = r.node_id "
        f"JOIN nodes AS b ON b.id = r.other_id WHERE r.state = 'open' "
        f"AND a.scope IN ({marks}) AND b.scope IN ({marks})",
        (*scopes, *scopes),
    ).fetchone()
    return int(row[0])


def awaiting_review(
    conn: Connection, node_ids: Sequence[str], scopes: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """Of ``node_ids``, those a write kept as a possible duplicate that the person has not yet
    settled: node id -> its oldest open item (id, reason, and the id and title of the memory it
    may repeat, which must be visible in ``scopes``). One read for a whole page of hits."""
    if not node_ids or not scopes:
        return {}
    found: dict[str, dict[str, Any]] = {}
    for row in conn.execute(
        f"SELECT r.id, r.node_id, r.other_id, r.reason, n.title AS other_title "
        f"FROM review_items AS r JOIN nodes AS n ON n.id = r.other_id "
        # The unary + keeps the planner on review_items_by_node, then the node's id: a page
        # of hits is a few lookups, however many items are open or memories a scope holds.
        f"WHERE r.node_id IN ({placeholders(node_ids)}) AND +r.state = 'open' "
        f"AND +r.kind = 'duplicate' AND +n.scope IN ({placeholders(scopes)}) "
        f"ORDER BY r.created_at DESC, r.id DESC",
        (*node_ids, *scopes),
    ):
        found[row["node_id"]] = dict(row)  # newest first, so the oldest item stays
    return found


def awaiting_ids(conn: Connection, scopes: Sequence[str]) -> set[str]:
    """Every memory ``awaiting_review`` would mark: few, whatever the vault's size, so the
    graph view marks its nodes without asking about each of them."""
    if not scopes:
        return set()
    return {
        row[0]
        for row in conn.execute(
            f"SELECT r.node_id FROM review_items AS r JOIN nodes AS n ON n.id = r.other_id "
            f"WHERE r.state = 'open' AND r.kind = 'duplicate' "
            f"AND +n.scope IN ({placeholders(scopes)})",  # by the open items, not the scope
            tuple(scopes),
        )
    }


def repoint_review_items(conn: Connection, old_id: str, new_id: str) -> None:
    """Open duplicate items that compare a memory with ``old_id`` now compare it with
    ``new_id`` (the memory ``old_id`` was merged into); one that would compare ``new_id`` with
    itself, and any other kind, is left for ``close_review_items_of``."""
    conn.execute(
        "UPDATE review_items SET other_id = ? "
        "WHERE state = 'open' AND kind = 'duplicate' AND other_id = ? AND node_id <> ?",
        (new_id, old_id, new_id),
    )


def review_item(conn: Connection, id_: str) -> ReviewItemRow | None:
    row = conn.execute(
        f"SELECT {_REVIEW_COLUMNS} FROM review_items WHERE id = ?", (id_,)
    ).fetchone()
    return None if row is None else cast(ReviewItemRow, dict(row))


def decide_review_item(conn: Connection, id_: str, decision: str, at: str) -> None:
    conn.execute(
        "UPDATE review_items SET state = 'resolved', decision = ?, decided_at = ? WHERE id = ?",
        (decision, at, id_),
    )


def close_review_items_of(conn: Connection, node_id: str, decision: str, at: str) -> None:
    """Settle every open item about ``node_id`` (it was merged, superseded or revived)."""
    conn.execute(
        "UPDATE review_items SET state = 'resolved', decision = ?, decided_at = ? "
        "WHERE state = 'open' AND (node_id = ? OR other_id = ?)",
        (decision, at, node_id, node_id),
    )


# -- status words -----------------------------------------------------------------------------


def set_status_words(conn: Connection, rows: Iterable[tuple[str, str, str]]) -> None:
    """(node_type, word, canonical) rows from a pack; a type's earlier words are replaced."""
    rows = list(rows)
    for node_type in sorted({r[0] for r in rows}):
        conn.execute("DELETE FROM status_words WHERE node_type = ?", (node_type,))
    conn.executemany("INSERT INTO status_words(node_type, word, canonical) VALUES (?, ?, ?)", rows)


def status_words(conn: Connection) -> list[tuple[str, str, str]]:
    return [
        (row[0], row[1], row[2])
        for row in conn.execute(
            "SELECT node_type, word, canonical FROM status_words ORDER BY node_type, word"
        )
    ]
