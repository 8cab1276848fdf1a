"""The write path (DESIGN §4): a memory is validated and embedded first (outside the lock:
embedding takes tens of milliseconds), then one transaction resolves, decides, stores, indexes,
logs and appends a receipt.

What is decided lives elsewhere: the dedup gate in ``gate``, the entity resolver in
``resolver``, links, tags and stubs in ``feedback``. This module applies their decisions to the
vault and reports the structural consequence (``WriteResult``).

Each kind of write is a verb of its own (``add``, ``add_ungated``, ``add_version`` and the
ingest pipeline's ``store_document``, ``store_passage``, ``store_found_entity``) over the same
phases: ``_prepare`` (check, normalise, embed: outside the lock), then ``_commit``, the one
transaction (the scope, the decision, ``_connect``'s links and names, a caller's step) and, after
it, the result.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cairn.app import memory_settings
from cairn.app.clock import new_id, now_iso, utc_stamp
from cairn.app.dedup import gate, resolver
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest, NodeNotFound, UnknownScope, UnknownType
from cairn.app.linking import feedback
from cairn.app.linking.note_mentions import NoteMentions
from cairn.app.linking.recognise import Mention
from cairn.app.models import (
    ALL_STATUSES,
    EntityMatch,
    LinkResult,
    Matched,
    Node,
    WriteOutcome,
    WriteResult,
)
from cairn.app.packs import Pack
from cairn.app.retention.supervisor import Retention
from cairn.app.text.surface import searchable_text
from cairn.app.upkeep import receipts
from cairn.app.writing.nodes import Draft, NewMemory, NodeStore, attrs_json, merge_attrs
from cairn.storage import dedup_rows, graph_rows, records
from cairn.storage.connection import Connection
from cairn.storage.rows import NodeRow
from cairn.storage.vault import Vault

__all__ = ["NewMemory", "Step", "Writer"]

# Statuses a caller may give a new memory; 'superseded' and 'archived' are reached by acts.
# 'pending' is no longer written (issue 16): a write that waits for review is kept active,
# found by search, and marked by its open review item. The status stays legal for old vaults.
NEW_STATUSES = ("active", "stub")
MAX_TITLE = 500
# A memory is a note, not a book: longer text is imported as a document, in passages. The cap
# also bounds the work of a snippet, which grows with the square of a text's matches.
MAX_BODY = 100_000


@dataclass
class _Applied:
    """What the gate or the resolver did, before the structural feedback is added."""

    outcome: WriteOutcome
    row: NodeRow | None
    verdict: str | None = None
    matched: Matched | None = None
    flags: tuple[str, ...] = ()
    suggestion: str | None = None
    possible_duplicate_of: list[EntityMatch] = field(default_factory=list)
    label_conflict: list[EntityMatch] = field(default_factory=list)
    revive_candidate: list[EntityMatch] = field(default_factory=list)
    did_you_mean: list[EntityMatch] = field(default_factory=list)
    reembed: bool = False  # the node's own text changed: embed it again after commit


@dataclass
class _Ready:
    """A memory checked, normalised and embedded, with what it links to: ready to store."""

    draft: Draft
    family: str
    links: list[str]
    tags: list[str]
    by_hand: bool  # also read for the entities it names
    stub_vectors: dict[str, Any]
    # The names its text states that the vault does not know yet, each with its vector.
    new_names: list[tuple[Mention, Any]] = field(default_factory=list)

    @property
    def scope(self) -> str:
        return self.draft.memory.scope


# What a verb decides in the transaction: the memories it was weighed against, and what was
# applied.
_Decide = Callable[
    [Connection, memory_settings.MemorySettings], tuple[list[gate.Candidate], _Applied]
]
# A caller's step in a write's transaction, once the memory is stored (an edit's supersede).
Step = Callable[[Connection, NodeRow], None]


class Writer:
    def __init__(self, vault: Vault, pack: Pack, space: EmbeddingSpace) -> None:
        self._vault = vault
        self._pack = pack
        self._space = space
        self.store = NodeStore(vault, pack, space)
        self.mentions = NoteMentions(pack)
        self.retention = Retention(
            vault, lambda type_name: pack.node_types[type_name].family, self.set_status
        )
        self.store.retention = self.retention

    # -- memories: a verb per kind of write, each one transaction -----------------------------

    def add(self, memory: NewMemory, *, force_new: bool = False) -> WriteResult:
        """A memory written by hand (or promoted from the inbox), through the dedup gate, or
        the entity resolver for an entity; ``force_new`` stores an entity the resolver's block
        mode would hold back. Its text is read for links, tags and the entities it names."""
        ready = self._prepare(memory)
        return self._commit(ready, lambda conn, s: self._gated(conn, ready, s, force_new=force_new))

    def add_ungated(self, memory: NewMemory) -> WriteResult:
        """A memory stored as given, without the gate: for importers that recognise repeats
        by other means (a file's hash). Its text is read as ``add`` reads it."""
        ready = self._prepare(memory)
        return self._commit(ready, self._ungated(ready))

    def add_version(self, memory: NewMemory, then: Step) -> WriteResult:
        """The new version of an edit, without the gate (it says much the same as the old one
        on purpose). ``then`` runs in the same transaction once it is stored, with the
        connection and its row (the old version is superseded there); if it raises, nothing
        of the write is kept."""
        ready = self._prepare(memory)
        return self._commit(ready, self._ungated(ready), then)

    def store_document(
        self, memory: NewMemory, *, vector: Any, links: Sequence[str]
    ) -> WriteResult:
        """An ingested file's Document (or one of a file's documents), without the gate: the
        file's hash says whether it is new. ``vector`` was embedded with its batch; ``links``
        are the file's, in place of those its body states."""
        ready = self._prepare(memory, vector, links=links)
        return self._commit(ready, self._ungated(ready))

    def store_passage(
        self, memory: NewMemory, *, vector: Any, keep_whole: frozenset[str]
    ) -> WriteResult:
        """A passage of an ingested document, through the gate as a part of it: never absorbed
        into another memory, only linked to it, so a document keeps all its parts. The
        passages of ``keep_whole`` (those the same document holds already, which a changed
        file is replacing) are not compared. No links or tags: its Document carries them."""
        ready = self._prepare(memory, vector, links=(), tags=())
        return self._commit(
            ready, lambda conn, s: self._gated(conn, ready, s, keep_whole=keep_whole)
        )

    def store_found_entity(self, memory: NewMemory, *, vector: Any) -> WriteResult:
        """An entity an ingested document seems to introduce (a stub), through the resolver,
        with no links or tags of its own."""
        ready = self._prepare(memory, vector, links=(), tags=())
        return self._commit(ready, lambda conn, s: self._gated(conn, ready, s))

    # -- the phases of a write ----------------------------------------------------------------

    def _prepare(
        self,
        memory: NewMemory,
        vector: Any = None,
        *,
        links: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
    ) -> _Ready:
        """Check and normalise ``memory`` and embed it, all before the write lock (embedding
        takes tens of milliseconds). Links and tags not given are read from its text."""
        self._check_new(memory)
        node_type = self._pack.node_types[memory.type]
        attrs = feedback.normalize_status(node_type, dict(memory.attrs or {}))
        title = memory.title.strip()
        text = searchable_text(title, memory.body, attrs)
        chosen = feedback.inline_links(memory.body) if links is None else list(links)
        tagged = feedback.tags_of(attrs, memory.body) if tags is None else list(tags)
        names = self._new_names(memory, title) if links is None else []
        if vector is None:
            vector, vectors = self._embed_with(text, [m.name for m in names])
        else:
            vectors = self._embed_with(None, [m.name for m in names])[1]
        return _Ready(
            Draft(memory, title, attrs, text, vector),
            node_type.family,
            chosen,
            tagged,
            # The caller gave no links (a note written by hand, not a document's passage): its
            # text is also read for the entities it names.
            by_hand=links is None,
            stub_vectors=self.store.stub_vectors(chosen, memory.scope),
            new_names=list(zip(names, vectors, strict=True)),
        )

    def _new_names(self, memory: NewMemory, title: str) -> list[Mention]:
        """The names a memory written by hand states that its scope does not know yet."""
        if self._pack.node_types[memory.type].family == "entity":
            return []
        with self._vault.read() as conn:
            return self.mentions.new_names(conn, memory.scope, f"{title}\n{memory.body}")

    def _embed_with(self, text: str | None, names: list[str]) -> tuple[Any, list[Any]]:
        """One embedding call for a memory's text (when given) and the new names it states."""
        texts = ([text] if text is not None else []) + names
        if not texts or self._space.embedder is None:
            return None, [None] * len(names)
        vectors = list(self._space.embedder.embed(texts))
        return (vectors[0], vectors[1:]) if text is not None else (None, vectors)

    def _commit(self, ready: _Ready, decide: _Decide, then: Step | None = None) -> WriteResult:
        """The one transaction of a write: the scope, the decision, the links and names, the
        caller's step; then, after the commit, what it came to."""
        with self._vault.write() as conn:
            self._require_scope(conn, ready.scope)
            settings = memory_settings.read(conn)
            near, applied = decide(conn, settings)
            if applied.row is None:
                return _held_back(applied)
            found = self._connect(conn, ready, applied.row, applied.outcome, settings)
            if then is not None:
                then(conn, applied.row)
            rows = graph_rows.nodes_by_ids(conn, [applied.row["id"]], [ready.scope])
            node = Node.from_row(rows[0])
            degree = graph_rows.degree(conn, node.id)
        if applied.reembed:
            self.store.reembed(node.id)
        return _result(ready, applied, near, found, node, degree, settings.resonance_floor)

    def _ungated(self, ready: _Ready) -> _Decide:
        return lambda conn, settings: ([], self._insert_ungated(conn, ready.draft))

    def _gated(
        self,
        conn: Connection,
        ready: _Ready,
        settings: memory_settings.MemorySettings,
        *,
        force_new: bool = False,
        keep_whole: frozenset[str] | None = None,
    ) -> tuple[list[gate.Candidate], _Applied]:
        """Weigh the memory against the nearest of its scope: the entity resolver for an
        entity, the dedup gate for the rest (as a document's part when ``keep_whole`` is
        given)."""
        draft = ready.draft
        near = gate.nearest(conn, self._space, self._pack, draft.vector, ready.scope)
        if keep_whole is not None:
            near = [c for c in near if c.id not in keep_whole]
        if ready.family == "entity":
            return near, self._write_entity(conn, draft, near, settings, force_new)
        return near, self._write_memory(conn, draft, near, settings, absorb=keep_whole is None)

    def _connect(
        self,
        conn: Connection,
        ready: _Ready,
        row: NodeRow,
        outcome: WriteOutcome,
        settings: memory_settings.MemorySettings,
    ) -> feedback.Feedback:
        """The stored memory's links and tags as edges (and stubs); a new entity joins the
        names notes are read for; a note written by hand links to the entities it names."""
        scope, title, body = ready.scope, ready.draft.title, ready.draft.memory.body
        found = feedback.connect(
            conn,
            self._pack,
            row,
            ready.links,
            ready.tags,
            settings.tag_anchoring,
            lambda name: self.store.insert_stub(conn, name, scope, ready.stub_vectors),
            lambda src, dst, kind, why: self.store.add_edge(conn, src, dst, kind, why),
        )
        if ready.family == "entity" and outcome == "inserted":
            self.mentions.entity_written(scope, title, row["id"])
        elif ready.by_hand and ready.family != "entity" and outcome != "absorbed":
            self._stub_new_names(conn, ready, settings)
            self.mentions.link(
                conn,
                row,
                f"{title}\n{body}",
                lambda src, dst, kind: self.store.add_edge(conn, src, dst, kind, None),
                already={link.id for link in found.links},
            )
        return found

    def _stub_new_names(
        self, conn: Connection, ready: _Ready, settings: memory_settings.MemorySettings
    ) -> None:
        """The new names the memory states, each through the entity resolver as a stub (a
        name written meanwhile resolves to its entity), so the memory can mention them. A name
        the person archived (not a name, to them) is not brought back."""
        for mention, vector in ready.new_names:
            found = resolver.lookup(conn, [mention.name], [ready.scope])
            if any(m.exact for m in found):
                continue  # known by now, or archived: the matcher finds the live ones
            stub = NewMemory(mention.type, mention.name, scope=ready.scope, status="stub")
            draft = Draft(stub, mention.name, {}, mention.name, vector)
            near = gate.nearest(conn, self._space, self._pack, vector, ready.scope)
            applied = self._write_entity(conn, draft, near, settings, False)
            if applied.row is not None and applied.outcome == "inserted":
                self.mentions.entity_written(ready.scope, mention.name, applied.row["id"])

    def _insert_ungated(self, conn: Connection, draft: Draft) -> _Applied:
        row = self.store.insert(conn, draft, draft.memory.status)
        self.store.log(conn, row["id"], None)
        receipts.append(conn, "write", {"nodes": 1})
        return _Applied("inserted", row)

    def _write_memory(
        self,
        conn: Connection,
        draft: Draft,
        near: list[gate.Candidate],
        settings: memory_settings.MemorySettings,
        *,
        absorb: bool = True,
    ) -> _Applied:
        family = self._pack.node_types[draft.memory.type].family
        same_family = [c for c in near if c.family == family and c.status == "active"]
        best = same_family[0] if same_family else None
        cluster = (
            gate.cluster_statements(conn, best, [draft.memory.scope])
            if best is not None and best.score >= gate.lowest_band(settings)
            else []
        )
        verdict = gate.decide(draft.text, best, cluster, settings)
        # A passage is part of a document and stays in it: a near-copy is linked, and mere
        # likeness (the pending band) is normal within a body of documents. Whether a whole
        # document repeats another is for the ingest pipeline to ask.
        if not absorb:
            verdict = gate.as_document_part(verdict)
        if verdict.outcome == "inserted":
            return self._insert_distinct(conn, draft, verdict)
        assert verdict.candidate is not None
        matched = verdict.candidate.as_match(verdict.jaccard, verdict.reason)
        if verdict.outcome == "absorbed":
            return self._absorb_memory(conn, draft, verdict, matched)
        return self._keep_alike(conn, draft, verdict, matched)

    def _insert_distinct(self, conn: Connection, draft: Draft, verdict: gate.Verdict) -> _Applied:
        row = self.store.insert(conn, draft, draft.memory.status)
        if verdict.related and verdict.candidate is not None:
            # A distinct event very like a kept one: both stay, joined as related.
            self.store.add_edge(conn, row["id"], verdict.candidate.id, "relates_to", verdict.reason)
        self.store.log(conn, row["id"], verdict)
        receipts.append(conn, "write", {"nodes": 1})
        return _Applied("inserted", row)

    def _absorb_memory(
        self, conn: Connection, draft: Draft, verdict: gate.Verdict, matched: Matched
    ) -> _Applied:
        """The same statement again: the kept memory stands, and gains what the new one adds
        as an addendum."""
        assert verdict.candidate is not None
        target = graph_rows.nodes_by_ids(conn, [verdict.candidate.id], [draft.memory.scope])[0]
        if not verdict.identical:
            dedup_rows.add_addendum(
                conn, target["id"], draft.text, "absorbed", draft.memory.source, now_iso()
            )
            self.store.reindex_text(conn, target)
        self.store.log(conn, target["id"], verdict)
        receipts.append(conn, "absorb", {"nodes": 1})
        return _Applied("absorbed", target, matched=matched)

    def _keep_alike(
        self, conn: Connection, draft: Draft, verdict: gate.Verdict, matched: Matched
    ) -> _Applied:
        """A possible duplicate is kept like any memory (searchable, linked, counted) at once;
        its open review item marks it "awaiting review" until the person keeps both or merges.
        A novel statement of the same topic is merge-linked instead."""
        candidate = verdict.candidate
        assert candidate is not None
        row = self.store.insert(conn, draft, draft.memory.status)
        suggestion = None
        if verdict.contradiction:
            suggestion = (
                f"It may contradict {candidate.title!r} ({verdict.contradiction}). "
                f"If it replaces it, supersede the old one: cairn supersede "
                f"{candidate.id} {row['id']}"
            )
        review_id = None
        if verdict.outcome == "merge_linked":
            self.store.add_edge(conn, row["id"], candidate.id, "same_topic", verdict.reason)
        else:
            review_id = new_id()
            dedup_rows.add_review_item(
                conn,
                id_=review_id,
                kind="duplicate",
                node_id=row["id"],
                other_id=candidate.id,
                score=candidate.score,
                reason=verdict.reason,
                flags=verdict.flags,
                at=now_iso(),
            )
        self.store.log(conn, row["id"], verdict)
        receipts.append(conn, "write", {"nodes": 1})
        return _Applied(
            verdict.outcome,
            row,
            verdict=review_id,
            matched=matched,
            flags=verdict.flags,
            suggestion=suggestion,
        )

    def _write_entity(
        self,
        conn: Connection,
        draft: Draft,
        near: list[gate.Candidate],
        settings: memory_settings.MemorySettings,
        force_new: bool,
    ) -> _Applied:
        memory = draft.memory
        aliases = [a for a in draft.attrs.get("aliases", []) if isinstance(a, str)]
        matches = resolver.lookup(conn, [draft.title, *aliases], [memory.scope])
        exact = [m for m in matches if m.exact]
        stub = next((m for m in exact if m.status == "stub"), None)
        same = next((m for m in exact if m.status == "active" and m.type == memory.type), None)
        if stub is not None and same is None:
            return self._enrich_stub(conn, draft, stub)
        if same is not None:
            return self._absorb_entity(conn, draft, same)
        conflicts = [m.as_entity() for m in exact if m.status == "active"]
        revive = [m.as_entity() for m in exact if m.status == "archived"]
        listed = {m.id for m in exact}
        possible = [m.as_entity() for m in matches if not m.exact]
        listed |= {m.id for m in matches}
        for c in near:
            if c.family == "entity" and c.score >= settings.dedup_low and c.id not in listed:
                possible.append(c.as_entity())
        possible = possible[: resolver.MAX_FINDINGS]
        if settings.entity_mode == "block" and not force_new and (possible or conflicts or revive):
            return _Applied(
                "blocked",
                None,
                possible_duplicate_of=possible,
                label_conflict=conflicts,
                revive_candidate=revive,
                did_you_mean=[*conflicts, *revive, *possible],
            )
        return self._insert_entity(conn, draft, conflicts, revive, possible)

    def _insert_entity(
        self,
        conn: Connection,
        draft: Draft,
        conflicts: list[EntityMatch],
        revive: list[EntityMatch],
        possible: list[EntityMatch],
    ) -> _Applied:
        """A new entity; an active one of the same name under another type, or an archived
        one, is left to the person as a review item."""
        row = self.store.insert(conn, draft, draft.memory.status)
        at = now_iso()
        for kind, found in (("label_conflict", conflicts), ("revive_candidate", revive)):
            for other in found:
                dedup_rows.add_review_item(
                    conn,
                    id_=new_id(),
                    kind=kind,
                    node_id=row["id"],
                    other_id=other.id,
                    score=1.0,
                    reason=f"the same name as the {other.status} {other.type} {other.title!r}",
                    flags=(),
                    at=at,
                )
        reason = "a new entity" if not possible else "a new entity, possibly a duplicate"
        self.store.log_entity(conn, row["id"], None, "inserted", None, reason)
        receipts.append(conn, "write", {"nodes": 1})
        return _Applied(
            "inserted",
            row,
            possible_duplicate_of=possible,
            label_conflict=conflicts,
            revive_candidate=revive,
        )

    def _absorb_entity(self, conn: Connection, draft: Draft, same: resolver.NameMatch) -> _Applied:
        """The same entity again: the existing node stands; what the write adds is kept."""
        scope = draft.memory.scope
        target = graph_rows.nodes_by_ids(conn, [same.id], [scope])[0]
        kept = json.loads(target["attrs"])
        merged, leftover = merge_attrs(kept, draft.attrs)
        extra = searchable_text("", draft.memory.body, leftover).strip()
        attrs_changed = merged != kept
        if attrs_changed:
            graph_rows.update_node(
                conn, target["id"], {"attrs": attrs_json(merged), "updated_at": now_iso()}
            )
            target = graph_rows.nodes_by_ids(conn, [same.id], [scope])[0]
        added = bool(extra) and extra not in searchable_text(target["title"], target["body"], kept)
        if added:
            dedup_rows.add_addendum(
                conn, target["id"], extra, "absorbed", draft.memory.source, now_iso()
            )
        if attrs_changed or added:
            self.store.index_names(conn, target)
            self.store.reindex_text(conn, target)
        self.store.log_entity(conn, target["id"], same.id, "absorbed", same.score, same.reason)
        receipts.append(conn, "absorb", {"nodes": 1})
        return _Applied("absorbed", target, matched=same.as_entity(), reembed=attrs_changed)

    def _enrich_stub(self, conn: Connection, draft: Draft, stub: resolver.NameMatch) -> _Applied:
        """A name linked before it was described: the stub becomes the entity, keeping its id
        and its edges."""
        scope = draft.memory.scope
        target = graph_rows.nodes_by_ids(conn, [stub.id], [scope])[0]
        merged, _ = merge_attrs(json.loads(target["attrs"]), draft.attrs)
        changes: dict[str, Any] = {
            "type": draft.memory.type,
            "attrs": attrs_json(draft.attrs | merged),
            "updated_at": now_iso(),
        }
        if draft.memory.body.strip():
            changes |= {"body": draft.memory.body, "status": "active"}
        graph_rows.update_node(conn, target["id"], changes)
        target = graph_rows.nodes_by_ids(conn, [stub.id], [scope])[0]
        self.store.index_names(conn, target)
        self.store.reindex_text(conn, target)
        if target["status"] == "active":
            self._space.status_changed(target["seq"], "active")
        self.store.log_entity(conn, target["id"], stub.id, "enriched", 1.0, "described a stub")
        receipts.append(conn, "write", {"nodes": 1})
        return _Applied("enriched", target, matched=stub.as_entity(), reembed=True)

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
            if stamp is not None and utc_stamp(stamp) is None:
                raise InvalidRequest(f"{name} is a date (YYYY-MM-DD) or ISO time, got {stamp!r}.")

    def _require_scope(self, conn: Connection, scope: str) -> None:
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
            created = self.store.add_edge(conn, src, dst, edge_type, rationale)
            if created:
                receipts.append(conn, "link", {"edges": 1})
            self.retention.reinforce(conn, [src, dst], now_iso())  # linking is a use of both
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
            if kind == "unarchive" and graph_rows.newest_edge_source(conn, node_id, "supersedes"):
                status = "superseded"  # a newer version exists: it comes back as history
            if rows[0]["status"] != status:
                graph_rows.update_node(conn, node_id, {"status": status, "updated_at": now_iso()})
                self._space.status_changed(rows[0]["seq"], status)
                receipts.append(conn, kind, {"nodes": 1})
            return Node.from_row(graph_rows.nodes_by_ids(conn, [node_id], scopes)[0])


def _held_back(applied: _Applied) -> WriteResult:
    """Nothing stored: the resolver's block mode held a likely duplicate back."""
    return WriteResult(
        applied.outcome,
        None,
        embedded=False,
        degree=0,
        did_you_mean=applied.did_you_mean,
        possible_duplicate_of=applied.possible_duplicate_of,
        label_conflict=applied.label_conflict,
        revive_candidate=applied.revive_candidate,
    )


def _result(
    ready: _Ready,
    applied: _Applied,
    near: list[gate.Candidate],
    found: feedback.Feedback,
    node: Node,
    degree: int,
    resonance_floor: float,
) -> WriteResult:
    """The structural consequence of a stored write: its node, degree, resonance, and an
    orphan's suggested relations."""
    seen = {node.id, *(m.id for m in [applied.matched] if m)}
    resonance = gate.resonance(near, resonance_floor, seen)
    orphan = degree == 0 and applied.outcome != "absorbed"
    suggestions = found.suggested_relations
    if orphan:
        suggestions = feedback.orphan_suggestions(
            suggestions, applied.possible_duplicate_of, resonance
        )
    return WriteResult(
        applied.outcome,
        node,
        embedded=ready.draft.vector is not None,
        degree=degree,
        verdict=applied.verdict,
        matched=applied.matched,
        flags=applied.flags,
        suggestion=applied.suggestion,
        resonance=resonance,
        possible_duplicate_of=applied.possible_duplicate_of,
        label_conflict=applied.label_conflict,
        revive_candidate=applied.revive_candidate,
        orphan_warning=orphan,
        suggested_relations=suggestions,
        relations_from_tags=found.relations_from_tags,
        links=found.links,
        stubs_created=found.stubs_created,
        enrich_hints=found.enrich_hints,
    )
