"""The write path: a memory is validated and embedded first (outside the lock: embedding takes
tens of milliseconds), then one transaction decides, stores, indexes and appends a receipt.

The dedup gate (DESIGN §4) sits between validation and storing, inside the transaction; in
this version every new memory is inserted. ``WriteResult.outcome`` already names what happened,
so the gate's other outcomes (absorbed, merge-linked, pending) reach callers unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cairn.app import receipts
from cairn.app.clock import new_id, now_iso
from cairn.app.embeddings import EmbeddingSpace
from cairn.app.errors import InvalidRequest, NodeNotFound, UnknownScope, UnknownType
from cairn.app.models import ALL_STATUSES, LinkResult, Node, WriteResult
from cairn.app.packs import Pack
from cairn.app.text import searchable_text
from cairn.storage import fulltext, graph_rows, records
from cairn.storage.vault import Vault

# Statuses a caller may give a new memory; 'superseded' and 'archived' are reached by acts.
NEW_STATUSES = ("active", "pending", "stub")
MAX_TITLE = 500
# A memory is a note, not a book: longer text is imported as a document, in passages. The cap
# also bounds the work of a snippet, which grows with the square of a text's matches.
MAX_BODY = 100_000


@dataclass(frozen=True)
class NewMemory:
    type: str
    title: str
    body: str = ""
    attrs: Mapping[str, Any] | None = None
    scope: str = "personal"
    source: str | None = None
    locator: Mapping[str, Any] | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    status: str = "active"


class Writer:
    def __init__(self, vault: Vault, pack: Pack, space: EmbeddingSpace) -> None:
        self._vault = vault
        self._pack = pack
        self._space = space

    # -- memories -----------------------------------------------------------------------------

    def write(self, memory: NewMemory) -> WriteResult:
        self._check_new(memory)
        attrs = dict(memory.attrs or {})
        title = memory.title.strip()
        text = searchable_text(title, memory.body, attrs)
        # Embedding takes tens of milliseconds: do it before taking the write lock.
        vector = self._space.embed(text)
        now = now_iso()
        node_id = new_id()
        row = {
            "id": node_id,
            "type": memory.type,
            "title": title,
            "body": memory.body,
            "attrs": _attrs_json(attrs),
            "status": memory.status,
            "scope": memory.scope,
            "source": memory.source,
            "locator": None if memory.locator is None else json.dumps(dict(memory.locator)),
            "valid_from": memory.valid_from,
            "valid_to": memory.valid_to,
            "recorded_at": now,
            "updated_at": now,
        }
        with self._vault.write() as conn:
            self._require_scope(conn, memory.scope)
            # The dedup gate decides here (insert, absorb, merge-link or pending verdict);
            # until it exists every memory is inserted.
            outcome = "inserted"
            seq = graph_rows.insert_node(conn, row)
            fulltext.index(conn, seq, text)
            self._space.store(conn, seq, vector, memory.scope, memory.status)
            receipts.append(conn, "write", {"nodes": 1})
            node = Node.from_row(graph_rows.nodes_by_ids(conn, [node_id], [memory.scope])[0])
            degree = graph_rows.degree(conn, node.id)
        return WriteResult(outcome, node, embedded=vector is not None, degree=degree)

    def _check_new(self, memory: NewMemory) -> None:
        if memory.type not in self._pack.node_types:
            raise UnknownType(memory.type, sorted(self._pack.node_types))
        if not memory.title.strip():
            raise InvalidRequest("A memory needs a title.")
        if len(memory.title) > MAX_TITLE:
            raise InvalidRequest(f"A title may be at most {MAX_TITLE} characters.")
        if len(memory.body) > MAX_BODY:
            raise InvalidRequest(
                f"A memory's text may be at most {MAX_BODY:,} characters (this one has "
                f"{len(memory.body):,}); keep long texts as documents instead."
            )
        if memory.status not in NEW_STATUSES:
            raise InvalidRequest(f"A new memory's status is one of {', '.join(NEW_STATUSES)}.")
        for name, stamp in (("valid_from", memory.valid_from), ("valid_to", memory.valid_to)):
            if stamp is not None and not _is_iso_time(stamp):
                raise InvalidRequest(f"{name} is a date (YYYY-MM-DD) or ISO time, got {stamp!r}.")

    def _require_scope(self, conn: Any, scope: str) -> None:
        known = records.scope_names(conn)
        if scope not in known:
            raise UnknownScope(scope, known)

    # -- edges --------------------------------------------------------------------------------

    def link(
        self,
        src: str,
        dst: str,
        edge_type: str,
        scopes: list[str],
        rationale: str | None = None,
    ) -> LinkResult:
        spec = self._pack.edge_types.get(edge_type)
        if spec is None:
            raise InvalidRequest(
                f"There is no edge type {edge_type!r}; the pack has "
                f"{', '.join(sorted(self._pack.edge_types))}."
            )
        if src == dst:
            raise InvalidRequest("A memory cannot be linked to itself.")
        if not spec.directed:
            src, dst = min(src, dst), max(src, dst)  # one row per pair, either way round
        with self._vault.write() as conn:
            found = {n["id"] for n in graph_rows.nodes_by_ids(conn, [src, dst], scopes)}
            for node_id in (src, dst):
                if node_id not in found:
                    raise NodeNotFound(node_id)
            _, created = graph_rows.insert_edge(
                conn,
                {
                    "src": src,
                    "dst": dst,
                    "type": edge_type,
                    "layer": spec.layer,
                    "rationale": rationale,
                    "created_at": now_iso(),
                },
            )
            if created:
                receipts.append(conn, "link", {"edges": 1})
        return LinkResult(src, dst, edge_type, spec.layer, created)

    # -- status -------------------------------------------------------------------------------

    def set_status(
        self,
        node_id: str,
        status: str,
        scopes: list[str],
        kind: str,
        *,
        only_from: str | None = None,
    ) -> Node:
        """Move a memory to ``status`` (archive and unarchive); nothing is deleted.
        ``only_from`` refuses the move unless the memory is in that status now."""
        if status not in ALL_STATUSES:
            raise InvalidRequest(f"Unknown status {status!r}.")
        with self._vault.write() as conn:
            rows = graph_rows.nodes_by_ids(conn, [node_id], scopes)
            if not rows:
                raise NodeNotFound(node_id)
            if only_from is not None and rows[0]["status"] not in (only_from, status):
                raise InvalidRequest(
                    f"{rows[0]['title']!r} is {rows[0]['status']}, not {only_from}."
                )
            if rows[0]["status"] != status:
                graph_rows.update_node(conn, node_id, {"status": status, "updated_at": now_iso()})
                self._space.status_changed(rows[0]["seq"], status)
                receipts.append(conn, kind, {"nodes": 1})
            return Node.from_row(graph_rows.nodes_by_ids(conn, [node_id], scopes)[0])


def _attrs_json(attrs: dict[str, Any]) -> str:
    try:
        # allow_nan=False: JSON has no NaN or infinity, and the schema would reject the text.
        return json.dumps(attrs, ensure_ascii=False, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidRequest(
            f"Attributes must be plain text, numbers, yes/no or lists: {exc}."
        ) from None


def _is_iso_time(text: str) -> bool:
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True
