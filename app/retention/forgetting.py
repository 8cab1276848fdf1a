"""Forget: the one act that deletes (invariant I6). The person asks for it explicitly; the
memory, and for a Document its passages (for a mailbox its messages and theirs), go with
the stubs only they named (a name found in a forgotten text is part of that text), with
their edges, vectors, full-text and name entries, addenda, review items and log lines.
SQLite's secure_delete overwrites the freed pages, full-text deletes purge the index (FTS5
secure-delete), and afterwards the file is rebuilt without free pages (VACUUM) and the
write-ahead log folded back and emptied. A content-free receipt (a count) records that
something was forgotten.
"""

from __future__ import annotations

from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import NodeNotFound
from cairn.app.models import Forgotten
from cairn.app.upkeep import receipts
from cairn.storage import forget_rows, graph_rows
from cairn.storage.connection import Connection
from cairn.storage.errors import VaultBusy
from cairn.storage.rows import NodeRow
from cairn.storage.vault import Vault


def _contents(
    conn: Connection, document_id: str, scopes: list[str], *, nested: bool = True
) -> list[NodeRow]:
    """What is ``part_of`` a Document: its passages, or (a mailbox) its messages' Documents
    and their passages."""
    parts = [
        e["src"]
        for e in graph_rows.edges_of(conn, document_id, "part_of")
        if e["dst"] == document_id
    ]
    found = graph_rows.nodes_by_ids(conn, parts, scopes) if parts else []
    if nested:
        for row in list(found):
            if row["type"] == "Document":
                found += _contents(conn, row["id"], scopes, nested=False)
    return found


def forget(vault: Vault, space: EmbeddingSpace, node_id: str, scopes: list[str]) -> Forgotten:
    with vault.write() as conn:
        rows = graph_rows.nodes_by_ids(conn, [node_id], scopes)
        if not rows:
            raise NodeNotFound(node_id)
        doomed = [rows[0]]
        if rows[0]["type"] == "Document":
            doomed += _contents(conn, node_id, scopes)
        erase(conn, space, doomed + _named_only_by(conn, doomed, scopes))
    return Forgotten(len(doomed), rows[0]["title"], compact(vault))


def _named_only_by(conn: Connection, doomed: list[NodeRow], scopes: list[str]) -> list[NodeRow]:
    """The stubs (names no one described) that nothing but ``doomed`` links to."""
    ids = {row["id"] for row in doomed}
    named = {
        e["dst"]
        for node_id in ids
        for e in graph_rows.edges_of(conn, node_id)
        if e["src"] == node_id
    } - ids
    stubs = [
        r for r in graph_rows.nodes_by_ids(conn, sorted(named), scopes) if r["status"] == "stub"
    ]
    return [
        stub
        for stub in stubs
        if all(
            {e["src"], e["dst"]} - {stub["id"]} <= ids
            for e in graph_rows.edges_of(conn, stub["id"])
        )
    ]


def erase(
    conn: Connection, space: EmbeddingSpace, doomed: list[NodeRow], *, receipt: str = "forget"
) -> None:
    """Delete ``doomed`` and every trace of them, in the caller's write transaction, with
    one content-free receipt of kind ``receipt`` (an edit taken back says ``unrevise``);
    ``compact`` the file once it is committed."""
    ids = [row["id"] for row in doomed]
    forget_rows.purge_full_text(conn)
    forget_rows.remove_traces(conn, ids)
    for row in doomed:
        graph_rows.delete_node(conn, row["id"])
        space.removed(row["seq"])
    receipts.append(conn, receipt, {"nodes": len(ids)})


def compact(vault: Vault) -> str | None:
    """Rebuild the file without the freed pages after ``erase``; a sentence when that must
    wait, else None."""
    try:
        vault.vacuum()
    except VaultBusy:
        # Another program holds the vault (an ingest beside the window): the memory is gone
        # from every table already; its freed pages are zeroed, and the rebuild comes later.
        return (
            "The vault was busy with other work, so the file is compacted at the next forget "
            "instead."
        )
    return None
