"""Titles of nodes that match a pattern: the names a person may be typing (the note editor's
``[[`` completion). Filtered by scope, status and type in SQL like every read; the app says
which types count, builds the ``LIKE`` pattern and ranks what comes back.

The type filter names the types wanted rather than the one left out, so that the type index
skips the sections of documents, which in a large vault are most of the rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn.storage.connection import Connection, placeholders

LIKE_ESCAPE = "\\"  # the escape character of the patterns callers build


def titles_like(
    conn: Connection,
    pattern: str,
    *,
    scopes: Sequence[str],
    statuses: Sequence[str],
    types: Sequence[str],
    limit: int,
) -> list[str]:
    """Up to ``limit`` distinct titles of nodes of ``types`` in ``statuses`` whose title is
    ``LIKE pattern`` (escaped with ``LIKE_ESCAPE``; SQLite folds the case of ASCII letters
    only), in no particular order."""
    if not scopes or not statuses or not types:
        return []
    rows = conn.execute(
        "SELECT DISTINCT title FROM nodes INDEXED BY nodes_by_type "
        f"WHERE type IN ({placeholders(types)}) AND status IN ({placeholders(statuses)}) "
        f"AND scope IN ({placeholders(scopes)}) AND title LIKE ? ESCAPE ? LIMIT ?",
        (*types, *statuses, *scopes, pattern, LIKE_ESCAPE, limit),
    )
    return [str(row[0]) for row in rows]
