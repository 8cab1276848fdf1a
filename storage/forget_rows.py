"""What must go with a forgotten memory beyond its own row (whose edges, vector, names, addenda
and merged ids cascade, and whose full-text entry a trigger removes): the review items and dedup
log lines naming it (they hold no foreign key: they outlive merges), the inbox capture it was
promoted from (the capture holds its text), the source row of a forgotten file, and what a
merge kept for its undo about it or a memory merged into it (``undo_rows``)."""

from __future__ import annotations

from collections.abc import Sequence

from cairn.storage import undo_rows
from cairn.storage.connection import Connection, placeholders


def remove_traces(conn: Connection, ids: Sequence[str]) -> None:
    undo_rows.drop_merges_naming(conn, ids)  # before the merged ids cascade away
    marks = placeholders(ids)
    conn.execute(
        f"DELETE FROM review_items WHERE node_id IN ({marks}) OR other_id IN ({marks})",
        (*ids, *ids),
    )
    conn.execute(
        f"DELETE FROM dedup_log WHERE node_id IN ({marks}) OR candidate_id IN ({marks})",
        (*ids, *ids),
    )
    conn.execute(f"DELETE FROM inbox WHERE node_id IN ({marks})", tuple(ids))
    conn.execute(f"DELETE FROM sources WHERE document_id IN ({marks})", tuple(ids))


def purge_full_text(conn: Connection) -> None:
    """Make full-text deletes remove a row's words from the index itself, not only mark them
    deleted until a later merge (FTS5 'secure-delete', SQLite 3.42+). Kept by the index."""
    conn.execute("INSERT INTO search_index(search_index, rank) VALUES ('secure-delete', 1)")
