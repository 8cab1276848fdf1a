"""The FTS5 full-text index: one row per node (rowid = nodes.seq), ranked with BM25."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

# Snippet markers: control characters that never occur in text, turned into spans by app.
HIGHLIGHT_START = "\x02"
HIGHLIGHT_END = "\x03"
SNIPPET_TOKENS = 24

_WORD = re.compile(r"\w+", re.UNICODE)


def match_expression(query: str, *, prefix_last: bool = True) -> str | None:
    """An FTS5 MATCH expression for free text: any of the words, the last one also as a prefix.

    Words are quoted, so FTS5 operators typed by a user (AND, NEAR, ``*``, quotes) are taken as
    words and can never make the query fail. OR semantics let BM25 rank partial matches.
    """
    words = [word.lower() for word in _WORD.findall(query)]
    if not words:
        return None
    last = words[-1]  # the word being typed: it is the one matched as a prefix
    terms = [f'"{word}"' for word in dict.fromkeys(words) if word != last]
    terms.append(f'"{last}"*' if prefix_last and len(last) >= 2 else f'"{last}"')
    return " OR ".join(terms)


def index(conn: Any, seq: int, text: str) -> None:
    """Put (or replace) the searchable text of node ``seq``."""
    conn.execute("DELETE FROM search_index WHERE rowid = ?", (seq,))
    conn.execute("INSERT INTO search_index(rowid, text) VALUES (?, ?)", (seq, text))


def search(
    conn: Any,
    expression: str,
    scopes: Sequence[str],
    statuses: Sequence[str],
    limit: int,
) -> list[int]:
    """Node seqs best first (BM25, then newer first: a total order)."""
    if not scopes or not statuses:
        return []
    scope_marks = ",".join("?" * len(scopes))
    status_marks = ",".join("?" * len(statuses))
    rows = conn.execute(
        f"SELECT n.seq FROM search_index AS f JOIN nodes AS n ON n.seq = f.rowid "
        f"WHERE search_index MATCH ? AND n.scope IN ({scope_marks}) "
        f"AND n.status IN ({status_marks}) ORDER BY f.rank, n.seq DESC LIMIT ?",
        (expression, *scopes, *statuses, limit),
    )
    return [row[0] for row in rows]


def snippets(conn: Any, expression: str, seqs: Sequence[int]) -> dict[int, str]:
    """Best matching fragment of each node's text, matches wrapped in the highlight markers."""
    if not seqs:
        return {}
    marks = ",".join("?" * len(seqs))
    rows = conn.execute(
        f"SELECT rowid, snippet(search_index, 0, ?, ?, '…', ?) FROM search_index "
        f"WHERE search_index MATCH ? AND rowid IN ({marks})",
        (HIGHLIGHT_START, HIGHLIGHT_END, SNIPPET_TOKENS, expression, *seqs),
    )
    return {row[0]: row[1] for row in rows}


def indexed_text(conn: Any, seq: int) -> str | None:
    row = conn.execute("SELECT text FROM search_index WHERE rowid = ?", (seq,)).fetchone()
    return None if row is None else str(row[0])


def indexed_count(conn: Any) -> int:
    return int(conn.execute("SELECT count(*) FROM search_index").fetchone()[0])
