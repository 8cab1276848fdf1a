"""Storing a node and everything that must change with it, inside the caller's transaction:
its row, its full-text entry, its vector, its entry in the entity name index, its edges, the
dedup log. The writer, the review queue and supersede all store through here, so the indexes
can never drift apart (invariant I4).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cairn.app.clock import new_id, now_iso, utc_stamp
from cairn.app.dedup import gate, resolver
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest
from cairn.app.linking import feedback
from cairn.app.packs import Pack
from cairn.app.retention.supervisor import Retention, candidate_of
from cairn.app.text.surface import searchable_text
from cairn.storage import dedup_rows, fulltext, graph_rows, name_index, records
from cairn.storage.connection import Connection
from cairn.storage.rows import NodeRow
from cairn.storage.vault import Vault


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


@dataclass
class Draft:
    """A validated memory with its searchable text and vector, not yet stored."""

    memory: NewMemory
    title: str
    attrs: dict[str, Any]
    text: str
    vector: Any


class NodeStore:
    def __init__(self, vault: Vault, pack: Pack, space: EmbeddingSpace) -> None:
        self._vault = vault
        self._pack = pack
        self._space = space
        self.retention: Retention | None = None  # set by the writer that owns this store

    def insert(self, conn: Connection, draft: Draft, status: str) -> NodeRow:
        memory = draft.memory
        now = now_iso()
        node_id = new_id()
        row: dict[str, Any] = {
            "id": node_id,
            "type": memory.type,
            "title": draft.title,
            "body": memory.body,
            "attrs": attrs_json(draft.attrs),
            "status": status,
            "scope": memory.scope,
            "source": memory.source,
            "locator": None if memory.locator is None else json.dumps(dict(memory.locator)),
            # As UTC text, so valid times compare with recorded_at and as_of as text.
            "valid_from": utc_stamp(memory.valid_from) if memory.valid_from else None,
            "valid_to": utc_stamp(memory.valid_to) if memory.valid_to else None,
            "recorded_at": now,
            "updated_at": now,
        }
        verdict = None
        if self.retention is not None:
            family = self._pack.node_types[memory.type].family
            candidate = candidate_of(row | {"attrs": draft.attrs}, family)
            verdict, importance, stability = self.retention.judge(candidate)
            row |= {
                "retention_label": verdict.label,
                "importance": importance,
                "stability": stability,
            }
        seq = graph_rows.insert_node(conn, row)
        if verdict is not None and self.retention is not None:
            self.retention.record_label(conn, node_id, verdict, now)
        fulltext.index(conn, seq, draft.text)
        self._space.store(conn, seq, draft.vector, memory.scope, status)
        stored = graph_rows.nodes_by_ids(conn, [node_id], [memory.scope])[0]
        self.index_names(conn, stored)
        return stored

    def insert_stub(
        self, conn: Connection, name: str, scope: str, vectors: dict[str, Any]
    ) -> NodeRow:
        stub_type = feedback.STUB_TYPE
        if stub_type not in self._pack.node_types:
            stub_type = self._pack.entity_types()[0]
        vector = vectors.get(name)
        if vector is None:
            vector = self._space.embed(name)  # a name that appeared since the look before
        draft = Draft(
            NewMemory(stub_type, name, scope=scope, status="stub"), name, {}, name, vector
        )
        return self.insert(conn, draft, "stub")

    def stub_vectors(self, links: list[str], scope: str) -> dict[str, Any]:
        """Vectors for the linked names the vault does not know yet, embedded in one batch
        before the write lock is taken."""
        if not links or self._space.embedder is None:
            return {}
        with self._vault.read() as conn:
            unknown = [name for name in links if feedback.resolve_link(conn, name, scope) is None]
        if not unknown:
            return {}
        return dict(zip(unknown, self._space.embedder.embed(unknown), strict=True))

    def index_names(self, conn: Connection, row: NodeRow) -> None:
        if self._pack.node_types[row["type"]].family == "entity":
            index_entity_names(conn, row)

    def reindex_text(self, conn: Connection, row: NodeRow) -> str:
        """Refresh a node's full-text entry (its text or addenda changed); returns the text."""
        addenda = [a["text"] for a in dedup_rows.addenda_of(conn, [row["id"]])]
        text = searchable_text(row["title"], row["body"], json.loads(row["attrs"]), addenda)
        fulltext.index(conn, row["seq"], text)
        return text

    def reembed(self, node_id: str) -> None:
        """Embed a node's current text again (after its description or attributes changed)."""
        if self._space.embedder is None:
            return
        # Read and store under the write lock: called inside a caller's transaction (a bulk
        # load, an inbox promote), a reader would not see the node's uncommitted change yet.
        with self._vault.write() as conn:
            rows = graph_rows.nodes_by_ids(conn, [node_id], records.scope_names(conn))
            if not rows:
                return
            row = rows[0]
            # The memory's own text: addenda are found by their words, but a restatement kept
            # beside a memory must not move its meaning (an exact repeat must still score 1).
            text = searchable_text(row["title"], row["body"], json.loads(row["attrs"]))
            vector = self._space.embed(text)
            self._space.store(conn, row["seq"], vector, row["scope"], row["status"])

    def add_edge(
        self, conn: Connection, src: str, dst: str, edge_type: str, rationale: str | None
    ) -> bool:
        """Store an edge (one row per pair for an undirected type); False if it existed."""
        spec = self._pack.edge_types[edge_type]
        if not spec.directed:
            src, dst = min(src, dst), max(src, dst)
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
        return created

    def fold_stub(self, conn: Connection, stub: NodeRow, into: str) -> None:
        """A stub made for a name becomes the memory the name turned out to mean (a note
        ingested after a link to it): its edges move to ``into`` where the pack allows them,
        open review items follow, and its id becomes an alias of ``into`` (a read by the old
        id finds it). The stub held nothing but the name, which ``into`` answers to."""
        for e in graph_rows.edges_of(conn, stub["id"]):
            src = into if e["src"] == stub["id"] else e["src"]
            dst = into if e["dst"] == stub["id"] else e["dst"]
            src_type = graph_rows.type_of(conn, src) or ""
            dst_type = graph_rows.type_of(conn, dst) or ""
            if src != dst and self._pack.edge_for(src_type, dst_type, (e["type"],)):
                self.add_edge(conn, src, dst, e["type"], e["rationale"])
        at = now_iso()
        dedup_rows.repoint_review_items(conn, stub["id"], into)
        dedup_rows.close_review_items_of(conn, stub["id"], "merged", at)
        dedup_rows.add_alias(conn, stub["id"], into, at)
        graph_rows.delete_node(conn, stub["id"])
        self._space.removed(stub["seq"])

    def log(self, conn: Connection, node_id: str, verdict: gate.Verdict | None) -> None:
        if verdict is None:
            dedup_rows.log_decision(
                conn,
                at=now_iso(),
                node_id=node_id,
                candidate_id=None,
                outcome="inserted",
                score=None,
                jaccard=None,
                reason="stored without the dedup gate",
            )
            return
        dedup_rows.log_decision(
            conn,
            at=now_iso(),
            node_id=node_id,
            candidate_id=verdict.candidate.id if verdict.candidate else None,
            outcome=verdict.outcome,
            score=verdict.candidate.score if verdict.candidate else None,
            jaccard=verdict.jaccard,
            reason=verdict.reason,
            flags=verdict.flags,
        )

    def log_entity(
        self,
        conn: Connection,
        node_id: str,
        candidate_id: str | None,
        outcome: str,
        score: float | None,
        reason: str,
    ) -> None:
        dedup_rows.log_decision(
            conn,
            at=now_iso(),
            node_id=node_id,
            candidate_id=candidate_id,
            outcome=outcome,
            score=score,
            jaccard=None,
            reason=reason,
        )


def merge_attrs(kept: dict[str, Any], new: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Attributes the kept node lacks are added, lists are joined; a differing value is not
    overwritten but returned as left over (the caller keeps it as an addendum)."""
    merged = dict(kept)
    leftover: dict[str, Any] = {}
    for key, value in new.items():
        if key not in merged:
            merged[key] = value
        elif isinstance(value, list) and isinstance(merged[key], list):
            merged[key] = list(dict.fromkeys([*merged[key], *value]))
        elif merged[key] != value:
            leftover[key] = value
    return merged, leftover


def changed_attrs(old: Mapping[str, Any], changes: Mapping[str, Any] | None) -> dict[str, Any]:
    """An edit's attributes: ``old`` with ``changes`` applied, where a name given ``None`` is
    removed (a field the person emptied)."""
    edited = {**old, **(changes or {})}
    return {name: value for name, value in edited.items() if value is not None}


def attrs_json(attrs: dict[str, Any]) -> str:
    try:
        # allow_nan=False: JSON has no NaN or infinity, and the schema would reject the text.
        return json.dumps(attrs, ensure_ascii=False, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidRequest(
            f"Attributes must be plain text, numbers, yes/no or lists: {exc}."
        ) from None


def index_entity_names(conn: Connection, row: Mapping[str, Any]) -> None:
    """An entity's title and aliases into the name index the resolver looks names up in."""
    attrs = json.loads(row["attrs"])
    aliases = [a for a in attrs.get("aliases", []) if isinstance(a, str)]
    entries, grams = resolver.index_entries(row["title"], aliases)
    name_index.replace(conn, row["seq"], row["scope"], entries, grams)
