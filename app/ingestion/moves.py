"""A kept file found under a new name or in another folder (``plan``'s ``moved``): its memory
follows it. The source row moves to the new path, the Document and its Passages name the new
path, and a title that was only the old file name becomes the new one. The nodes keep their
ids, so their links, history and review items stay with them.
"""

from __future__ import annotations

import json
from pathlib import Path

from cairn.app.clock import now_iso
from cairn.app.ingestion import records
from cairn.app.ingestion.plan import PlannedFile
from cairn.app.ingestion.report import FileOutcome
from cairn.app.ingestion.store import source_row
from cairn.app.nodes import NodeStore
from cairn.storage import graph_rows, source_rows
from cairn.storage.connection import Connection

TITLE_JOIN = " — "  # between a Passage's Document title and its place (``records``)


def follow(conn: Connection, store: NodeStore, planned: PlannedFile, scope: str) -> FileOutcome:
    """Move what the vault keeps for ``planned.same_as`` to ``planned``'s path."""
    old = planned.same_as
    assert old is not None and old["document_id"]
    document_id = old["document_id"]
    row = source_row(planned, scope, "ingested")
    for column in ("media_type", "document_id", "passages", "warnings"):
        row[column] = old[column]
    source_rows.rename(conn, old["path"], row)
    old_title = records.document_title("", Path(old["path"]))
    new_title = records.document_title("", Path(planned.source))
    documents = graph_rows.nodes_by_ids(conn, [document_id], [scope])
    if documents:
        document = documents[0]
        retitle = document["title"] == old_title and old_title != new_title
        stored = document["attrs"]
        attrs = dict(json.loads(stored) if isinstance(stored, str) else stored)
        attrs["path"] = planned.source
        changes: dict[str, object] = {
            "source": planned.source,
            "attrs": json.dumps(attrs, sort_keys=True),
            "updated_at": now_iso(),
        }
        if retitle:
            changes["title"] = new_title
        graph_rows.update_node(conn, document_id, changes)
        _reindex(conn, store, document_id, scope)
        # The Document's vector holds its title and path: embedded again. A Passage's vector
        # is mostly its text, which did not change; its words are indexed again.
        store.reembed(document_id)
        for passage_id in _passages_of(conn, document_id):
            _follow_passage(conn, store, passage_id, scope, planned.source, old_title, new_title)
    return FileOutcome(
        planned.source,
        "moved",
        "moved",
        document_id,
        old["passages"],
        size=planned.size,
        moved_from=old["path"],
    )


def _follow_passage(
    conn: Connection,
    store: NodeStore,
    passage_id: str,
    scope: str,
    source: str,
    old_title: str,
    new_title: str,
) -> None:
    rows = graph_rows.nodes_by_ids(conn, [passage_id], [scope])
    if not rows:
        return
    changes: dict[str, object] = {"source": source}
    prefix = old_title + TITLE_JOIN
    if old_title != new_title and rows[0]["title"].startswith(prefix):
        changes["title"] = new_title + TITLE_JOIN + rows[0]["title"][len(prefix) :]
    graph_rows.update_node(conn, passage_id, changes)
    if "title" in changes:
        _reindex(conn, store, passage_id, scope)


def _reindex(conn: Connection, store: NodeStore, node_id: str, scope: str) -> None:
    rows = graph_rows.nodes_by_ids(conn, [node_id], [scope])
    if rows:
        store.reindex_text(conn, rows[0])


def _passages_of(conn: Connection, document_id: str) -> list[str]:
    return [
        edge["src"]
        for edge in graph_rows.edges_of(conn, document_id, "part_of")
        if edge["dst"] == document_id
    ]
