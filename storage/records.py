"""Small tables: settings, scopes, receipts and the inbox."""

from __future__ import annotations

import json
from typing import Any, cast

from cairn.storage.connection import Connection, placeholders
from cairn.storage.rows import InboxRow, ReceiptRow
from cairn.storage.sentinel import ENGINE_SCOPE

# -- settings ---------------------------------------------------------------------------------


def get_setting(conn: Connection, key: str, default: Any = None) -> Any:
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    return default if row is None else json.loads(row[0])


def settings_with_prefix(conn: Connection, prefix: str) -> dict[str, Any]:
    """Every setting whose key starts with ``prefix``, keyed without it: one query."""
    return {
        row[0][len(prefix) :]: json.loads(row[1])
        for row in conn.execute(
            "SELECT key, value FROM settings WHERE key >= ? AND key < ?",
            (prefix, prefix + "\uffff"),
        )
    }


def set_setting(conn: Connection, key: str, value: Any) -> None:
    conn.execute(
        "INSERT INTO settings(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, json.dumps(value, sort_keys=True)),
    )


def delete_setting(conn: Connection, key: str) -> None:
    conn.execute("DELETE FROM settings WHERE key = ?", (key,))


# -- scopes -----------------------------------------------------------------------------------


def add_scope(conn: Connection, name: str, created_at: str) -> bool:
    """True if the scope is new."""
    cursor = conn.execute(
        "INSERT INTO scopes(name, created_at) VALUES (?, ?) ON CONFLICT(name) DO NOTHING",
        (name, created_at),
    )
    return bool(cursor.rowcount)


def scope_names(conn: Connection) -> list[str]:
    """The scopes a person may name: never the engine's own (see ``sentinel``)."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT name FROM scopes WHERE name <> ? ORDER BY name", (ENGINE_SCOPE,)
        )
    ]


# -- receipts ---------------------------------------------------------------------------------


def last_receipt_hash(conn: Connection) -> str | None:
    row = conn.execute("SELECT hash FROM receipts ORDER BY seq DESC LIMIT 1").fetchone()
    return None if row is None else str(row[0])


def append_receipt(
    conn: Connection, *, at: str, kind: str, counts_json: str, prev_hash: str, hash_: str
) -> None:
    conn.execute(
        "INSERT INTO receipts(at, kind, counts, prev_hash, hash) VALUES (?, ?, ?, ?, ?)",
        (at, kind, counts_json, prev_hash, hash_),
    )


def receipt_count(conn: Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM receipts").fetchone()[0])


def receipts(conn: Connection) -> list[ReceiptRow]:
    return [
        cast(ReceiptRow, dict(row))
        for row in conn.execute(
            "SELECT seq, at, kind, counts, prev_hash, hash FROM receipts ORDER BY seq"
        )
    ]


# -- inbox ------------------------------------------------------------------------------------


def add_inbox_item(conn: Connection, *, id_: str, text: str, scope: str, captured_at: str) -> None:
    conn.execute(
        "INSERT INTO inbox(id, text, scope, captured_at) VALUES (?, ?, ?, ?)",
        (id_, text, scope, captured_at),
    )


def inbox_items(conn: Connection, scopes: list[str], states: tuple[str, ...]) -> list[InboxRow]:
    scope_marks = placeholders(scopes)
    state_marks = placeholders(states)
    return [
        cast(InboxRow, dict(row))
        for row in conn.execute(
            f"SELECT id, text, scope, captured_at, state, node_id, decided_at FROM inbox "
            f"WHERE scope IN ({scope_marks}) AND state IN ({state_marks}) "
            "ORDER BY captured_at, id",
            (*scopes, *states),
        )
    ]


def inbox_item(conn: Connection, id_: str, scopes: list[str]) -> InboxRow | None:
    marks = placeholders(scopes)
    row = conn.execute(
        f"SELECT id, text, scope, captured_at, state, node_id, decided_at FROM inbox "
        f"WHERE id = ? AND scope IN ({marks})",
        (id_, *scopes),
    ).fetchone()
    return None if row is None else cast(InboxRow, dict(row))


def decide_inbox_item(
    conn: Connection, id_: str, *, state: str, node_id: str | None, decided_at: str
) -> None:
    conn.execute(
        "UPDATE inbox SET state = ?, node_id = ?, decided_at = ? WHERE id = ?",
        (state, node_id, decided_at, id_),
    )


def reopen_inbox_item(conn: Connection, id_: str) -> None:
    """The item open again, undecided, as it was when it was captured."""
    conn.execute(
        "UPDATE inbox SET state = 'open', node_id = NULL, decided_at = NULL WHERE id = ?", (id_,)
    )
