"""The review queue: what the write path could not decide alone.

A *duplicate* item is a write between the dedup bands: it is kept active at once (found by
search, linked, counted) and shown as awaiting review while its item is open. A *label
conflict* is a new entity with the name of an entity of another type; a *revive candidate* a
new entity with the name of an archived one. Each is settled by the person:

- ``distinct``: both stay, the duplicate joined to the other by ``relates_to``; a label
  conflict or revive candidate is closed.
- ``merge``: the new memory is folded into the other one. Nothing is lost: its text becomes an
  addendum of the other (searchable), its attributes fill what the other lacks, its edges and
  its uses move over, open items that compare another memory with it compare it with the kept
  one, and its id becomes an alias, so a read by the old id finds the merged memory. An
  archived memory that is merged into is revived. What the merge changed is kept with it, so
  it can be undone (``unmerge``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from cairn.app.clock import now_iso
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest, ReviewItemNotFound
from cairn.app.models import (
    MemoryPreview,
    Node,
    NodeStatus,
    ReviewDecision,
    ReviewItem,
    ReviewKind,
    ReviewState,
    WriteOutcome,
    WriteResult,
)
from cairn.app.packs import Pack
from cairn.app.text.shelves import shelf_of
from cairn.app.text.surface import searchable_text
from cairn.app.upkeep import receipts
from cairn.app.writing import unmerge
from cairn.app.writing.writer import Writer
from cairn.storage import dedup_rows, graph_rows
from cairn.storage.connection import Connection
from cairn.storage.rows import NodeRow, ReviewItemRow
from cairn.storage.vault import Vault

KINDS = ("duplicate", "label_conflict", "revive_candidate")
DECISIONS = ("distinct", "merge")
PREVIEW_CHARS = 400


class Review:
    def __init__(self, vault: Vault, pack: Pack, space: EmbeddingSpace, writer: Writer) -> None:
        self._vault = vault
        self._pack = pack
        self._space = space
        self._store = writer.store

    def pending(self, scopes: list[str], kinds: Sequence[str] | None = None) -> list[ReviewItem]:
        kinds = list(kinds or KINDS)
        unknown = [k for k in kinds if k not in KINDS]
        if unknown:
            raise InvalidRequest(f"Review kinds are {', '.join(KINDS)}; not {unknown[0]!r}.")
        with self._vault.read() as conn:
            rows = dedup_rows.review_items(conn, scopes, kinds=kinds)
            # Both sides of every item in one read: the window loads the whole queue at once.
            ids = list({i for row in rows for i in (row["node_id"], row["other_id"])})
            nodes = {r["id"]: r for r in graph_rows.nodes_by_ids(conn, ids, scopes)}
        return [_item(row, nodes) for row in rows]

    def count(self, scopes: list[str]) -> int:
        with self._vault.read() as conn:
            return dedup_rows.review_count(conn, scopes)

    def dismiss(self, item_id: str, scopes: list[str]) -> ReviewItem:
        with self._vault.write() as conn:
            row = self._open(conn, item_id, scopes)
            if row["kind"] == "duplicate":
                # Fix: dismissing a duplicate closed the item but left its memory pending, out
                # of every default read and out of the queue: lost. It is settled by a decision.
                raise InvalidRequest(
                    f"Review item {item_id} is a possible duplicate: settle it with "
                    "resolve_duplicate (distinct or merge)."
                )
            dedup_rows.decide_review_item(conn, item_id, "dismissed", now_iso())
            receipts.append(conn, "resolve", {"items": 1})
            return _item(
                row | {"state": "resolved", "decision": "dismissed"}, _sides(conn, row, scopes)
            )

    def resolve_duplicate(self, item_id: str, decision: str, scopes: list[str]) -> WriteResult:
        if decision not in DECISIONS:
            raise InvalidRequest(f"A duplicate is resolved as {' or '.join(DECISIONS)}.")
        with self._vault.write() as conn:
            row = self._open(conn, item_id, scopes)
            new = graph_rows.nodes_by_ids(conn, [row["node_id"]], scopes)[0]
            other = graph_rows.nodes_by_ids(conn, [row["other_id"]], scopes)[0]
            at = now_iso()
            if decision == "distinct":
                dedup_rows.decide_review_item(conn, item_id, "distinct", at)
                if row["kind"] == "duplicate":
                    self._activate(conn, new)
                    self._store.add_edge(conn, new["id"], other["id"], "relates_to", "kept apart")
                kept = new
            else:
                dedup_rows.decide_review_item(conn, item_id, "merged", at)
                kept = self._fold(conn, item_id, new, other)
            dedup_rows.log_decision(
                conn,
                at=at,
                node_id=new["id"],
                candidate_id=other["id"],
                outcome=f"resolved: {decision}",
                score=row["score"],
                jaccard=None,
                reason=f"{row['kind']} resolved by the person",
            )
            receipts.append(conn, "resolve", {"items": 1})
            node = Node.from_row(graph_rows.nodes_by_ids(conn, [kept["id"]], scopes)[0])
            degree = graph_rows.degree(conn, node.id)
        if decision == "merge":
            self._store.reembed(node.id)
        outcome: WriteOutcome = "distinct" if decision == "distinct" else "merged"
        return WriteResult(outcome, node, embedded=True, degree=degree)

    def _open(self, conn: Connection, item_id: str, scopes: list[str]) -> ReviewItemRow:
        row = dedup_rows.review_item(conn, item_id)
        visible = (
            graph_rows.nodes_by_ids(conn, [row["node_id"], row["other_id"]], scopes) if row else []
        )
        if row is None or not visible:
            raise ReviewItemNotFound(item_id)
        if row["state"] != "open":  # a merge may have folded one of the two away since
            raise InvalidRequest(f"Review item {item_id} was already settled ({row['decision']}).")
        if len(visible) < 2:
            raise ReviewItemNotFound(item_id)
        return row

    def _activate(self, conn: Connection, row: NodeRow) -> None:
        # A write waiting for review is active already; only an item a vault kept from before
        # schema 10 (whose upgrade activates its memory too) could still find one pending.
        if row["status"] == "pending":
            graph_rows.update_node(conn, row["id"], {"status": "active", "updated_at": now_iso()})
            self._space.status_changed(row["seq"], "active")

    def _fold(self, conn: Connection, item_id: str, new: NodeRow, into: NodeRow) -> NodeRow:
        """Merge ``new`` into ``into`` without losing anything, keeping what it changed for
        its undo; returns the kept row."""
        record = unmerge.before_fold(conn, item_id, new, into)
        addenda = [a["text"] for a in dedup_rows.addenda_of(conn, [new["id"]])]
        text = searchable_text(new["title"], new["body"], json.loads(new["attrs"]), addenda)
        at = now_iso()
        record.addendum_seq = dedup_rows.add_addendum(
            conn, into["id"], text, "merged", new["source"], at
        )
        allowed = self._pack.node_types[into["type"]].attrs
        kept_attrs = json.loads(into["attrs"])
        for key, value in json.loads(new["attrs"]).items():
            if key in allowed and key not in kept_attrs:
                kept_attrs[key] = value
        changes: dict[str, Any] = {
            "attrs": json.dumps(kept_attrs, sort_keys=True),
            "updated_at": at,
            # Active since it was written, it may have been opened: a use of either is a use
            # of the memory that remains, for retention.
            "access_count": into["access_count"] + new["access_count"],
            "last_access": max(
                filter(None, (into["last_access"], new["last_access"])), default=None
            ),
        }
        if into["status"] == "archived":
            changes["status"] = "active"
            self._space.status_changed(into["seq"], "active")
        graph_rows.update_node(conn, into["id"], changes)
        record.moved = self._move_edges(conn, new["id"], into["id"])
        # Searchable while it waited, it may be what a later write was found to repeat: that
        # question now stands about the kept memory.
        dedup_rows.repoint_review_items(conn, new["id"], into["id"])
        dedup_rows.close_review_items_of(conn, new["id"], "merged", at)
        dedup_rows.add_alias(conn, new["id"], into["id"], at)
        graph_rows.delete_node(conn, new["id"])
        self._space.removed(new["seq"])
        kept = graph_rows.nodes_by_ids(conn, [into["id"]], [into["scope"]])[0]
        self._store.reindex_text(conn, kept)
        self._store.index_names(conn, kept)
        unmerge.keep(conn, record, kept, at)
        return kept

    def _move_edges(self, conn: Connection, old: str, new: str) -> list[unmerge.Triple]:
        """Re-point ``old``'s edges at ``new``, where the pack's rules allow it; returns the
        edges this made (as stored: an undirected one with its ends in order)."""
        made: list[unmerge.Triple] = []
        for e in graph_rows.edges_of(conn, old):
            src = new if e["src"] == old else e["src"]
            dst = new if e["dst"] == old else e["dst"]
            if src == dst:
                continue
            src_type = graph_rows.type_of(conn, src) or ""
            dst_type = graph_rows.type_of(conn, dst) or ""
            if self._pack.edge_for(src_type, dst_type, (e["type"],)) is None:
                continue  # the merged type may not hold this edge; the addendum keeps the text
            why = e["rationale"] or "moved by a merge"
            if self._store.add_edge(conn, src, dst, e["type"], why):
                if not self._pack.edge_types[e["type"]].directed:
                    src, dst = min(src, dst), max(src, dst)
                made.append((src, dst, e["type"]))
        return made


def _sides(conn: Connection, row: ReviewItemRow, scopes: list[str]) -> dict[str, NodeRow]:
    pair = [row["node_id"], row["other_id"]]
    return {r["id"]: r for r in graph_rows.nodes_by_ids(conn, pair, scopes)}


def _item(row: ReviewItemRow, nodes: dict[str, NodeRow]) -> ReviewItem:
    return ReviewItem(
        id=row["id"],
        # The schema holds these words to the sets their types name.
        kind=cast(ReviewKind, row["kind"]),
        node=_preview(nodes.get(row["node_id"])),
        other=_preview(nodes.get(row["other_id"])),
        score=row["score"],
        reason=row["reason"],
        flags=json.loads(row["flags"]),
        state=cast(ReviewState, row["state"]),
        decision=cast(ReviewDecision | None, row["decision"]),
        created_at=row["created_at"],
    )


def _preview(row: NodeRow | None) -> MemoryPreview | None:
    if row is None:
        return None
    return MemoryPreview(
        id=row["id"],
        type=row["type"],
        title=row["title"],
        status=cast(NodeStatus, row["status"]),
        text=row["body"][:PREVIEW_CHARS],
        recorded_at=row["recorded_at"],
        source=row["source"],
        shelf=shelf_of(row["type"], json.loads(row["attrs"])),
    )
