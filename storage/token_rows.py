"""Rows of the graph server's bearer tokens (migration 7): what was granted, never the secret."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from cairn.storage.connection import Connection
from cairn.storage.rows import TokenRow

_COLUMNS = "id, name, secret_sha256, created_at, scopes, revoked_at"


def insert(
    conn: Connection, *, token_id: str, name: str, secret_sha256: str, created_at: str, scopes: str
) -> None:
    conn.execute(
        "INSERT INTO api_tokens(id, name, secret_sha256, created_at, scopes) "
        "VALUES (?, ?, ?, ?, ?)",
        (token_id, name, secret_sha256, created_at, scopes),
    )


def all_rows(conn: Connection) -> list[TokenRow]:
    """Every token, revoked ones included, oldest first."""
    rows: Sequence[Any] = conn.execute(
        f"SELECT {_COLUMNS} FROM api_tokens ORDER BY created_at, id"
    ).fetchall()
    return [cast(TokenRow, dict(row)) for row in rows]


def live_rows(conn: Connection) -> list[TokenRow]:
    """The tokens not revoked."""
    rows: Sequence[Any] = conn.execute(
        f"SELECT {_COLUMNS} FROM api_tokens WHERE revoked_at IS NULL ORDER BY created_at, id"
    ).fetchall()
    return [cast(TokenRow, dict(row)) for row in rows]


def revoke(conn: Connection, token_id: str, at: str) -> str | None:
    """Mark a token revoked (once); its revocation time, or None if there is no such token."""
    conn.execute(
        "UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (at, token_id)
    )
    row = conn.execute("SELECT revoked_at FROM api_tokens WHERE id = ?", (token_id,)).fetchone()
    return None if row is None else str(row[0])
