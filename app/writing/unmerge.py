"""Undoing a merge: the folded memory comes back as it was, and the kept one as it was.

A merge (``review.Review.resolve_duplicate(..., "merge")``) folds one memory into another: its
text becomes an addendum of the kept memory, its attributes fill what the kept one lacked, its
edges move over, its id becomes an alias and its row goes. To take that back, the merge keeps,
in the same transaction and inside the vault (encrypted like every row, in the ``merges``
table), what it changed: the folded memory's row, addenda, edges, retention log and aliases;
which inbox captures and files named it; the kept memory's attributes, uses and status before;
the addendum it wrote, the edges it made and the review items it re-pointed or settled.

``unmerge`` puts all of it back in one transaction: the folded memory with its own id, title,
text, attributes, addenda and links (those whose other end still exists), indexed again for
words, names and meaning; the kept memory without the merge's addendum, the attributes it
gained, the uses it took over and the revival; the alias gone; and the review item open again,
so the person can decide anew. Anything that happened to the kept memory since (a link, an
addendum, another merge into it) stays: only what the merge did is taken away. Doing the merge
again keeps a new record. A merge made before a vault kept these records, or one whose kept
memory was folded into a third since (undo that one first), says so and changes nothing.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from cairn.app.clock import now_iso
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest, NodeNotFound
from cairn.app.models import Node
from cairn.app.packs import Pack
from cairn.app.text.surface import searchable_text
from cairn.app.upkeep import receipts
from cairn.app.writing.nodes import NodeStore
from cairn.storage import dedup_rows, graph_rows, undo_rows
from cairn.storage.connection import Connection
from cairn.storage.rows import NodeRow
from cairn.storage.vault import Vault

Triple = tuple[str, str, str]  # an edge as (src, dst, type)


@dataclass
class MergeRecord:
    """What one merge changed, kept in the vault until it is undone."""

    item_id: str
    kept_id: str
    folded: dict[str, Any]  # the folded memory's row, but its seq
    addenda: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    aliases: list[str]  # ids merged into the folded memory earlier
    retention: list[dict[str, Any]]
    inbox: list[str]  # captures promoted to it
    sources: list[str]  # files read into it
    kept_before: dict[str, Any]  # attrs, access_count, last_access, status
    kept_after: dict[str, Any] = field(default_factory=dict)  # the same, as the merge left them
    addendum_seq: int | None = None
    moved: list[Triple] = field(default_factory=list)  # edges the merge made on the kept one
    repointed: list[str] = field(default_factory=list)  # items moved to the kept memory
    closed: list[str] = field(default_factory=list)  # items about the folded one it settled


def before_fold(conn: Connection, item_id: str, new: NodeRow, into: NodeRow) -> MergeRecord:
    """What the merge of ``new`` into ``into`` is about to change (read before it does)."""
    folded = {k: v for k, v in dict(new).items() if k != "seq"}
    return MergeRecord(
        item_id=item_id,
        kept_id=into["id"],
        folded=folded,
        addenda=[dict(a) for a in dedup_rows.addenda_of(conn, [new["id"]])],
        edges=[
            {k: v for k, v in dict(e).items() if k != "seq"}
            for e in graph_rows.edges_of(conn, new["id"])
        ],
        aliases=dedup_rows.aliases_of(conn, new["id"]),
        retention=undo_rows.retention_rows(conn, new["id"]),
        inbox=undo_rows.ids_pointing_at(conn, "inbox", "node_id", new["id"]),
        sources=undo_rows.ids_pointing_at(conn, "sources", "document_id", new["id"]),
        kept_before=_keeping(into),
        repointed=undo_rows.repointable_items(conn, new["id"], into["id"]),
        closed=undo_rows.open_items_about(conn, new["id"]),
    )


def keep(conn: Connection, record: MergeRecord, kept: NodeRow, at: str) -> None:
    """Keep ``record`` once the merge is done (``kept`` as the merge left it)."""
    record.kept_after = _keeping(kept)
    undo_rows.keep_merge(conn, record.item_id, record.folded["id"], kept["id"], at, asdict(record))


def _keeping(row: NodeRow) -> dict[str, Any]:
    return {
        "attrs": json.loads(row["attrs"]),
        "access_count": row["access_count"],
        "last_access": row["last_access"],
        "status": row["status"],
    }


class Unmerges:
    def __init__(self, vault: Vault, pack: Pack, space: EmbeddingSpace, store: NodeStore) -> None:
        self._vault = vault
        self._pack = pack
        self._space = space
        self._store = store

    def unmerge(self, item_id: str, scopes: list[str]) -> Node:
        """Undo the merge that settled review item ``item_id``; returns the memory it brings
        back. The item is open again."""
        with self._vault.read() as conn:
            record = self._record(conn, item_id, scopes)
        folded = record.folded
        # Embedded before the write lock, as every write is: its own text, as ``reembed`` does.
        vector = self._space.embed(
            searchable_text(folded["title"], folded["body"], json.loads(folded["attrs"]))
        )
        with self._vault.write() as conn:
            record = self._record(conn, item_id, scopes)
            kept = self._kept(conn, record, scopes)
            restored = self._restore_folded(conn, record, vector, kept["id"])
            self._restore_kept(conn, record, kept)
            self._restore_items(conn, record, kept["id"])
            at = now_iso()
            dedup_rows.log_decision(
                conn,
                at=at,
                node_id=restored["id"],
                candidate_id=kept["id"],
                outcome="unmerged",
                score=None,
                jaccard=None,
                reason="the person undid the merge",
            )
            undo_rows.drop_merge(conn, item_id)
            receipts.append(conn, "unmerge", {"nodes": 1})
            node = Node.from_row(graph_rows.nodes_by_ids(conn, [restored["id"]], scopes)[0])
        self._store.reembed(kept["id"])  # its attributes are as before the merge again
        return node

    def _record(self, conn: Connection, item_id: str, scopes: list[str]) -> MergeRecord:
        found = undo_rows.merge_of(conn, item_id)
        if found is None:
            raise InvalidRequest(
                "This merge cannot be undone: the vault keeps no record of it (it was undone "
                "already, or made before Cairn kept what a merge changes)."
            )
        data = found["snapshot"]
        record = MergeRecord(**data)
        record.moved = [(s, d, t) for s, d, t in data["moved"]]
        if record.folded["scope"] not in scopes:
            raise NodeNotFound(record.folded["id"])
        return record

    def _kept(self, conn: Connection, record: MergeRecord, scopes: list[str]) -> NodeRow:
        rows = graph_rows.nodes_by_ids(conn, [record.kept_id], scopes)
        if not rows:
            if dedup_rows.resolve_aliases(conn, [record.kept_id]):
                raise InvalidRequest(
                    "The memory this one was merged into has been merged into another since: "
                    "undo that merge first."
                )
            raise NodeNotFound(record.kept_id)
        if graph_rows.status_of(conn, record.folded["id"]) is not None:
            raise InvalidRequest(f"{record.folded['title']!r} is in the vault already.")
        return rows[0]

    def _restore_folded(
        self, conn: Connection, record: MergeRecord, vector: Any, kept_id: str
    ) -> NodeRow:
        folded = record.folded
        undo_rows.drop_alias(conn, folded["id"])
        seq = graph_rows.insert_node(conn, dict(folded))
        for addendum in record.addenda:
            undo_rows.insert_addendum_row(conn, addendum)
        undo_rows.point_aliases(conn, record.aliases, kept_id, folded["id"])
        row = graph_rows.nodes_by_ids(conn, [folded["id"]], [folded["scope"]])[0]
        self._store.reindex_text(conn, row)
        self._store.index_names(conn, row)
        self._space.store(conn, seq, vector, folded["scope"], folded["status"])
        undo_rows.insert_retention_rows(conn, record.retention)
        undo_rows.point_at(conn, "inbox", "node_id", record.inbox, folded["id"])
        undo_rows.point_at(conn, "sources", "document_id", record.sources, folded["id"])
        return row

    def _restore_kept(self, conn: Connection, record: MergeRecord, kept: NodeRow) -> None:
        """Take from the kept memory what the merge gave it, and only that."""
        for src, dst, edge_type in record.moved:
            undo_rows.delete_edge_between(conn, src, dst, edge_type)
        for edge in record.edges:  # the folded memory's own links, where both ends remain
            if all(graph_rows.status_of(conn, end) for end in (edge["src"], edge["dst"])):
                graph_rows.insert_edge(conn, dict(edge))
        if record.addendum_seq is not None:
            undo_rows.delete_addendum(conn, record.addendum_seq, kept["id"])
        before, after = record.kept_before, record.kept_after
        attrs = json.loads(kept["attrs"])
        for key, value in after["attrs"].items():
            if key not in before["attrs"] and attrs.get(key) == value:
                del attrs[key]  # filled by the merge and unchanged since
        changes: dict[str, Any] = {
            "attrs": json.dumps(attrs, ensure_ascii=False, sort_keys=True),
            "updated_at": now_iso(),
            "access_count": max(
                0, kept["access_count"] - (after["access_count"] - before["access_count"])
            ),
        }
        if kept["last_access"] == after["last_access"]:
            changes["last_access"] = before["last_access"]
        if before["status"] != after["status"] and kept["status"] == after["status"]:
            changes["status"] = before["status"]  # the merge revived an archived memory
            self._space.status_changed(kept["seq"], before["status"])
        graph_rows.update_node(conn, kept["id"], changes)
        row = graph_rows.nodes_by_ids(conn, [kept["id"]], [kept["scope"]])[0]
        self._store.reindex_text(conn, row)
        self._store.index_names(conn, row)

    def _restore_items(self, conn: Connection, record: MergeRecord, kept_id: str) -> None:
        folded_id = record.folded["id"]
        undo_rows.point_items_back(conn, record.repointed, kept_id, folded_id)
        undo_rows.reopen_items(conn, [*record.closed, record.item_id], "merged")
