"""The sentinel: one engine-owned node that every Cairn vault holds and nobody ever sees.

Why: a file that opens with the passphrase and passes SQLite's checks may still not be a vault
restored whole (a partial export, another SQLCipher database keyed alike, a copy of some tables).
Every vault gets this row when it is created (or, for a vault older than it, when it is next
opened), so a restored file that lacks it is not a Cairn vault restored whole.

How it stays out of sight: it lives in a scope of its own, ``ENGINE_SCOPE``, that
``records.scope_names`` never lists. Every read names the scopes it may see and no caller can
name this one, so search (archived included), briefing, listings, graph views, stats and forget
never reach it. It has no full-text entry and no vector, and ``graph_rows.node_count`` and
``vectors.seqs_without_vector`` leave it out, so the index checks and vector search are as if it
were not there. Schema triggers (migration 6) refuse to change or delete it.
"""

from __future__ import annotations

from cairn.storage.connection import Connection

# Fixed, well known: the all-zero ULID (time 0), which no generated id can be. Migration 6 in
# schema.py spells it out too (a shipped migration never changes; a test pins that they agree).
SENTINEL_ID = "00000000000000000000000000"
ENGINE_SCOPE = "cairn-engine"
SENTINEL_STATUS = "archived"
SENTINEL_TITLE = "Cairn vault sentinel"


def present(conn: Connection) -> bool:
    """Whether the sentinel is there as created: archived, in the engine's scope."""
    row = conn.execute(
        "SELECT 1 FROM nodes WHERE id = ? AND status = ? AND scope = ?",
        (SENTINEL_ID, SENTINEL_STATUS, ENGINE_SCOPE),
    ).fetchone()
    return row is not None


def add(conn: Connection, type_name: str, attrs_json: str, at: str) -> None:
    """Insert the sentinel (and its scope) if missing, inside the caller's transaction."""
    conn.execute(
        "INSERT INTO scopes(name, created_at) VALUES (?, ?) ON CONFLICT(name) DO NOTHING",
        (ENGINE_SCOPE, at),
    )
    conn.execute(
        "INSERT INTO nodes(id, type, title, attrs, status, scope, source, recorded_at, "
        "updated_at) VALUES (?, ?, ?, ?, ?, ?, 'cairn', ?, ?) ON CONFLICT(id) DO NOTHING",
        (SENTINEL_ID, type_name, SENTINEL_TITLE, attrs_json, SENTINEL_STATUS, ENGINE_SCOPE, at, at),
    )
