"""Rows of the ``sources`` table: each file a person added, its hash, its state and, when it
failed, the reason. Inside the caller's transaction; the ingest pipeline decides what to write.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from cairn.storage.connection import Connection, placeholders
from cairn.storage.rows import SourceRow

COLUMNS = (
    "path",
    "scope",
    "state",
    "sha256",
    "size",
    "mtime_ns",
    "media_type",
    "document_id",
    "passages",
    "warnings",
    "error",
    "first_seen",
    "updated_at",
    "path_bytes",  # the name's bytes when it is not valid UTF-8 (``path`` is then readable text)
)


def _row(values: Sequence[Any]) -> SourceRow:
    row = dict(zip(COLUMNS, values, strict=True))
    row["warnings"] = json.loads(row["warnings"])
    return cast(SourceRow, row)  # COLUMNS are a SourceRow's keys


def get(conn: Connection, path: str) -> SourceRow | None:
    found = conn.execute(
        f"SELECT {', '.join(COLUMNS)} FROM sources WHERE path = ?", (path,)
    ).fetchone()
    return None if found is None else _row(found)


def by_paths(conn: Connection, paths: Sequence[str]) -> dict[str, SourceRow]:
    found: dict[str, SourceRow] = {}
    for start in range(0, len(paths), 500):
        chunk = paths[start : start + 500]
        for values in conn.execute(
            f"SELECT {', '.join(COLUMNS)} FROM sources WHERE path IN ({placeholders(chunk)})",
            chunk,
        ):
            row = _row(values)
            found[row["path"]] = row
    return found


def known(conn: Connection, paths: Iterable[str]) -> set[str]:
    """Which of ``paths`` name a file the vault keeps track of."""
    wanted = sorted(set(paths))
    found: set[str] = set()
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        rows = conn.execute(
            f"SELECT path FROM sources WHERE path IN ({placeholders(chunk)})", chunk
        )
        found.update(row[0] for row in rows)
    return found


def ingested_with_hash(conn: Connection, sha256: str, scope: str) -> SourceRow | None:
    """A file ``scope`` already keeps with these exact bytes (a copy, or a file that moved)."""
    found = conn.execute(
        f"SELECT {', '.join(COLUMNS)} FROM sources "
        "WHERE sha256 = ? AND scope = ? AND state = 'ingested' AND document_id IS NOT NULL "
        "ORDER BY first_seen, path LIMIT 1",
        (sha256, scope),
    ).fetchone()
    return None if found is None else _row(found)


def documents_with_hash(conn: Connection, sha256: str, scope: str) -> list[SourceRow]:
    """Files ``scope`` keeps, or kept until they went missing, with these exact bytes and a
    Document of their own: where a file that moved was before."""
    cursor = conn.execute(
        f"SELECT {', '.join(COLUMNS)} FROM sources "
        "WHERE sha256 = ? AND scope = ? AND state IN ('ingested', 'missing') "
        "AND document_id IS NOT NULL ORDER BY first_seen, path",
        (sha256, scope),
    )
    return [_row(values) for values in cursor]


def rename(conn: Connection, old: str, row: Mapping[str, Any]) -> None:
    """A file kept under ``old`` is now ``row['path']``: its row moves, ``first_seen`` kept."""
    found = get(conn, old)
    conn.execute("DELETE FROM sources WHERE path = ?", (old,))
    put(conn, {**row, "first_seen": found["first_seen"] if found else row["first_seen"]})


def put(conn: Connection, row: Mapping[str, Any]) -> None:
    """Insert or replace a source row; ``first_seen`` of an existing row is kept."""
    values = {**row, "warnings": json.dumps(list(row.get("warnings", [])))}
    columns = [c for c in COLUMNS if c in values]
    conn.execute(
        f"INSERT INTO sources ({', '.join(columns)}) VALUES ({placeholders(columns)}) "
        "ON CONFLICT(path) DO UPDATE SET "
        + ", ".join(f"{c} = excluded.{c}" for c in columns if c not in ("path", "first_seen")),
        [values[c] for c in columns],
    )


def listed(
    conn: Connection,
    states: Iterable[str] | None = None,
    under: str | None = None,
    scope: str | None = None,
    scopes: Iterable[str] | None = None,
) -> list[SourceRow]:
    """Source rows in path order, optionally only those in ``states``, below folder ``under``
    (a path prefix ending in the separator), or of ``scope`` / one of ``scopes``."""
    clauses: list[str] = []
    params: list[Any] = []
    if scope is not None:
        scopes = [scope]
    if scopes is not None:
        chosen = list(scopes)
        clauses.append(f"scope IN ({placeholders(chosen)})")
        params.extend(chosen)
    if states is not None:
        wanted = list(states)
        clauses.append(f"state IN ({placeholders(wanted)})")
        params.extend(wanted)
    if under is not None:
        # A range instead of LIKE: paths may hold % and _, and the range uses the index.
        clauses.append("path >= ? AND path < ?")
        params.extend([under, under + "\U0010ffff"])
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    cursor = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM sources{where} ORDER BY path", params)
    return [_row(values) for values in cursor]


def remove(conn: Connection, paths: Sequence[str]) -> None:
    """Drop rows that no longer say anything (a folder that could not be listed and now can)."""
    for start in range(0, len(paths), 500):
        chunk = list(paths[start : start + 500])
        conn.execute(f"DELETE FROM sources WHERE path IN ({placeholders(chunk)})", chunk)


def mark_missing(conn: Connection, paths: Sequence[str], at: str) -> None:
    for start in range(0, len(paths), 500):
        chunk = list(paths[start : start + 500])
        conn.execute(
            f"UPDATE sources SET state = 'missing', updated_at = ? "
            f"WHERE path IN ({placeholders(chunk)})",
            [at, *chunk],
        )


def counts(conn: Connection) -> dict[str, int]:
    return dict(conn.execute("SELECT state, count(*) FROM sources GROUP BY state").fetchall())
