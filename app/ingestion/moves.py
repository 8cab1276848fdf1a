"""A kept file found under a new name or in another folder (``plan``'s ``moved``): its memory
follows it. The source row moves to the new path; the file's Document, the Documents of its
parts (a mailbox's messages, ``parts``) and every Passage of either name the new path; a title
that was only the old file name becomes the new one. The nodes keep their ids, so their links,
history and review items stay with them.

A Document's vector holds its title and path, so it is embedded again; that is done by
``prepare``, before the write lock is taken (a renamed folder of thousands of notes, or a
mailbox of thousands of messages, is thousands of embeddings), and ``follow`` only writes. A
Passage's vector is mostly its text, which did not change; its words are indexed again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.app.clock import now_iso
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.ingestion import shapes
from cairn.app.ingestion.plan import PlannedFile
from cairn.app.ingestion.report import FileOutcome
from cairn.app.ingestion.store import contents_of, source_row
from cairn.app.text.surface import searchable_text
from cairn.app.writing.nodes import NodeStore
from cairn.storage import graph_rows, source_rows
from cairn.storage.connection import Connection
from cairn.storage.rows import NodeRow
from cairn.storage.vault import Vault

TITLE_JOIN = " — "  # between a Passage's Document title and its place (``records``)


@dataclass
class Move:
    """One moved file, with its Documents' new vectors embedded (outside the write lock)."""

    planned: PlannedFile
    scope: str
    vectors: dict[str, tuple[str, Any]] = field(default_factory=dict)  # id: (text, vector)

    @property
    def old_path(self) -> str:
        assert self.planned.same_as is not None
        return self.planned.same_as["path"]

    @property
    def old_title(self) -> str:
        return shapes.document_title("", Path(self.old_path))

    @property
    def new_title(self) -> str:
        return shapes.document_title("", Path(self.planned.source))


def prepare(vault: Vault, space: EmbeddingSpace, planned: PlannedFile, scope: str) -> Move:
    """Read the moved file's Documents and embed what each will say at its new path. Run
    before the write transaction; ``follow`` embeds again only a Document changed since."""
    move = Move(planned, scope)
    old = planned.same_as
    if space.embedder is None or old is None or not old["document_id"]:
        return move
    with vault.read() as conn:
        rows = _documents(conn, old["document_id"], scope)
    texts = {str(row["id"]): _text(row, _changes(row, move)) for row in rows}
    vectors = list(space.embedder.embed(list(texts.values()))) if texts else []
    move.vectors = {
        node_id: (text, vector)
        for (node_id, text), vector in zip(texts.items(), vectors, strict=True)
    }
    return move


def follow(conn: Connection, store: NodeStore, space: EmbeddingSpace, move: Move) -> FileOutcome:
    """Move what the vault keeps for the file's old path to its new one."""
    planned = move.planned
    old = planned.same_as
    assert old is not None and old["document_id"]
    document_id = old["document_id"]
    row = source_row(planned, move.scope, "ingested")
    for column in ("media_type", "document_id", "passages", "warnings"):
        row[column] = old[column]
    source_rows.rename(conn, old["path"], row)
    for document in _documents(conn, document_id, move.scope):
        _follow_document(conn, store, space, document, move)
    for node_id in contents_of(conn, document_id):
        _follow_passage(conn, store, node_id, move)
    return FileOutcome(
        planned.source,
        "moved",
        "moved",
        document_id,
        old["passages"],
        size=planned.size,
        moved_from=old["path"],
    )


def _documents(conn: Connection, document_id: str, scope: str) -> list[NodeRow]:
    """The file's Document and its parts' Documents (a mailbox's messages)."""
    ids = [document_id, *contents_of(conn, document_id)]
    return [r for r in graph_rows.nodes_by_ids(conn, ids, [scope]) if r["type"] == "Document"]


def _changes(document: NodeRow, move: Move) -> dict[str, Any]:
    """A Document's new source and path, and its new title when it was only the file name."""
    stored = document["attrs"]
    attrs = dict(json.loads(stored) if isinstance(stored, str) else stored)
    attrs["path"] = move.planned.source
    changes: dict[str, Any] = {"source": move.planned.source, "attrs": attrs}
    if document["title"] == move.old_title and move.old_title != move.new_title:
        changes["title"] = move.new_title
    return changes


def _text(document: NodeRow, changes: dict[str, Any]) -> str:
    """What the Document's vector is made of once ``changes`` are applied (as ``reembed``)."""
    return searchable_text(
        changes.get("title", document["title"]), document["body"], changes["attrs"]
    )


def _follow_document(
    conn: Connection, store: NodeStore, space: EmbeddingSpace, document: NodeRow, move: Move
) -> None:
    changes = _changes(document, move)
    text = _text(document, changes)
    graph_rows.update_node(
        conn,
        document["id"],
        {**changes, "attrs": json.dumps(changes["attrs"], sort_keys=True), "updated_at": now_iso()},
    )
    _reindex(conn, store, document["id"], move.scope)
    if space.embedder is None:
        return
    prepared_text, vector = move.vectors.get(document["id"], ("", None))
    if prepared_text != text or vector is None:  # changed since ``prepare`` read it
        vector = space.embed(text)
    space.store(conn, document["seq"], vector, document["scope"], document["status"])


def _follow_passage(conn: Connection, store: NodeStore, node_id: str, move: Move) -> None:
    rows = graph_rows.nodes_by_ids(conn, [node_id], [move.scope])
    if not rows or rows[0]["type"] != "Passage":
        return
    changes: dict[str, object] = {"source": move.planned.source}
    prefix = move.old_title + TITLE_JOIN
    if move.old_title != move.new_title and rows[0]["title"].startswith(prefix):
        changes["title"] = move.new_title + TITLE_JOIN + rows[0]["title"][len(prefix) :]
    graph_rows.update_node(conn, node_id, changes)
    if "title" in changes:
        _reindex(conn, store, node_id, move.scope)


def _reindex(conn: Connection, store: NodeStore, node_id: str, scope: str) -> None:
    rows = graph_rows.nodes_by_ids(conn, [node_id], [scope])
    if rows:
        store.reindex_text(conn, rows[0])
