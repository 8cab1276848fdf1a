"""Embedding vectors: their rows in the vault, one space per embedder.

Vectors are kept as int8 codes with a scale each (see ``vector_codes``), keyed by (space, node
seq); a space is one embedder identity and its vectors are never compared with another's. The
index searched at runtime is built from these rows at open (``vector_index``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from cairn.storage import vector_codes
from cairn.storage.connection import Connection, placeholders
from cairn.storage.rows import EmbedRow, SpaceRow
from cairn.storage.sentinel import ENGINE_SCOPE
from cairn.storage.vector_codes import Coded, FloatMatrix

# Rows a float32 space converts to int8 codes per transaction (see ``compact_rows``).
COMPACT_BATCH = 20_000


# -- rows -------------------------------------------------------------------------------------


def ensure_space(conn: Connection, name: str, dim: int, state: str, created_at: str) -> str:
    """Create the space if needed (a new one keeps int8 codes); returns its state."""
    conn.execute(
        "INSERT INTO embedding_spaces(name, dim, state, created_at, encoding) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT(name) DO NOTHING",
        (name, dim, state, created_at, vector_codes.INT8),
    )
    return str(
        conn.execute("SELECT state FROM embedding_spaces WHERE name = ?", (name,)).fetchone()[0]
    )


def space_state(conn: Connection, name: str) -> str | None:
    row = conn.execute("SELECT state FROM embedding_spaces WHERE name = ?", (name,)).fetchone()
    return None if row is None else str(row[0])


def set_space_state(conn: Connection, name: str, state: str) -> None:
    conn.execute("UPDATE embedding_spaces SET state = ? WHERE name = ?", (state, name))


def drop_other_spaces(conn: Connection, keep: str) -> None:
    """Vectors of other embedders are derived data; once a rebuild is done they go."""
    conn.execute("DELETE FROM embedding_spaces WHERE name <> ?", (keep,))


def spaces(conn: Connection) -> list[SpaceRow]:
    return [
        cast(SpaceRow, dict(row))
        for row in conn.execute(
            "SELECT s.name, s.dim, s.state, (SELECT count(*) FROM vectors AS v "
            "WHERE v.space = s.name) AS vectors FROM embedding_spaces AS s ORDER BY s.name"
        )
    ]


def store(conn: Connection, space: str, seq: int, coded: Coded) -> int:
    """Insert or replace one vector, given as ``vector_codes.quantize`` coded it; returns its
    row id."""
    blob = vector_codes.row_bytes(*coded)
    row = conn.execute(
        "INSERT INTO vectors(node_seq, space, vector) VALUES (?, ?, ?) "
        "ON CONFLICT(space, node_seq) DO UPDATE SET vector = excluded.vector RETURNING rowid",
        (seq, space, blob),
    ).fetchone()
    return int(row[0])


def seqs_without_vector(conn: Connection, space: str, limit: int = -1) -> list[int]:
    # The engine's sentinel is never searched, so it needs no vector (see ``sentinel``).
    return [
        row[0]
        for row in conn.execute(
            "SELECT n.seq FROM nodes AS n WHERE n.scope <> ? AND NOT EXISTS (SELECT 1 "
            "FROM vectors AS v WHERE v.space = ? AND v.node_seq = n.seq) ORDER BY n.seq LIMIT ?",
            (ENGINE_SCOPE, space, limit),
        )
    ]


def mark_other_spaces_incomplete(conn: Connection, keep: str) -> None:
    conn.execute(
        "UPDATE embedding_spaces SET state = 'building' WHERE name <> ? AND state <> 'building'",
        (keep,),
    )


def mark_all_spaces_incomplete(conn: Connection) -> None:
    """A memory was stored without a vector: no space covers every memory any more."""
    conn.execute("UPDATE embedding_spaces SET state = 'building' WHERE state <> 'building'")


def nodes_to_embed(conn: Connection, seqs: Sequence[int]) -> list[EmbedRow]:
    marks = placeholders(seqs)
    return [
        cast(EmbedRow, dict(row))
        for row in conn.execute(
            f"SELECT seq, id, title, body, attrs, scope, status FROM nodes WHERE seq IN ({marks}) "
            "ORDER BY seq",
            list(seqs),
        )
    ]


def vector_of(conn: Connection, space: str, seq: int) -> FloatMatrix | None:
    row = conn.execute(
        "SELECT v.vector, s.dim FROM vectors AS v JOIN embedding_spaces AS s ON s.name = v.space "
        "WHERE v.space = ? AND v.node_seq = ?",
        (space, seq),
    ).fetchone()
    return None if row is None else vector_codes.decode(row[0], row[1])


def space_encoding(conn: Connection, name: str) -> str | None:
    row = conn.execute("SELECT encoding FROM embedding_spaces WHERE name = ?", (name,)).fetchone()
    return None if row is None else str(row[0])


def compact_rows(conn: Connection, space: str, dim: int, after_rowid: int, last_rowid: int) -> int:
    """Turn up to ``COMPACT_BATCH`` float32 rows of ``space`` with rowids in (``after_rowid``,
    ``last_rowid``] into int8 codes; returns the last rowid looked at (``last_rowid`` when the
    range is done).

    A vault made before compact vectors kept float32 rows; it is converted once, in batches
    each committed by the caller, so an interrupted conversion resumes: a row's length tells
    which encoding wrote it. Rows are deleted and inserted again, not updated: an updated row
    stays on its old page, and pages a quarter full would cost as much to read at open as
    before. The new rows take rowids past ``last_rowid``.
    """
    rows = conn.execute(
        "SELECT rowid, node_seq, vector FROM vectors WHERE rowid > ? AND rowid <= ? AND space = ? "
        "ORDER BY rowid LIMIT ?",
        (after_rowid, last_rowid, space, COMPACT_BATCH),
    ).fetchall()
    if not rows:
        return last_rowid
    wide = [(rowid, seq, blob) for rowid, seq, blob in rows if len(blob) == dim * 4]
    if wide:
        floats = np.frombuffer(b"".join(blob for *_, blob in wide), dtype="<f4").reshape(-1, dim)
        codes, scales = vector_codes.quantize(floats)
        conn.executemany("DELETE FROM vectors WHERE rowid = ?", [(rowid,) for rowid, *_ in wide])
        conn.executemany(
            "INSERT INTO vectors(node_seq, space, vector) VALUES (?, ?, ?)",
            [
                (seq, space, vector_codes.row_bytes(code, scale))
                for (_, seq, _), code, scale in zip(wide, codes, scales, strict=True)
            ],
        )
    return int(rows[-1][0])


def mark_compact(conn: Connection, space: str) -> None:
    conn.execute(
        "UPDATE embedding_spaces SET encoding = ? WHERE name = ?", (vector_codes.INT8, space)
    )


def last_vector_rowid(conn: Connection) -> int:
    return int(conn.execute("SELECT coalesce(max(rowid), 0) FROM vectors").fetchone()[0])
