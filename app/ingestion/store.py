"""Storing one read file as memories: a Document node, its Passages ``part_of`` it (each through
the dedup gate: near-duplicates of other documents' passages are linked, nothing is absorbed, so
a document stays whole), ``mentions`` edges to the entities its passages name, stubs for the new
names it introduces, and its row in ``sources``.

A short document is stored whole inside its batch's transaction (``store_whole``). A long one is
stored in parts, each in transactions of its own, so another writer (a ``cairn add``, the
window) gets in between them: ``begin`` writes the Document, ``store_passage`` each passage
(as many to a transaction as ``slices`` lets in), ``finish`` the rest.
Until ``finish`` commits, the file's source row says it is unfinished (state ``failed``, naming
the Document being written): a rerun reading the same bytes goes on from the first passage that
is missing, so a kill or a Stop loses no passage and writes none twice.

A file of several documents (a mailbox) has a Document per part besides the file's (see
``parts``); each passage is ``part_of`` its part's Document.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cairn.app.clock import new_id, now_iso
from cairn.app.dedup import resolver
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.ingestion import links, shapes
from cairn.app.ingestion import parts as file_parts
from cairn.app.ingestion.plan import PlannedFile
from cairn.app.ingestion.report import FileOutcome, IngestReport
from cairn.app.linking import mentions, recognise, stubs
from cairn.app.packs import Pack
from cairn.app.text.surface import searchable_text
from cairn.app.writing.history import HistoryKeeper
from cairn.app.writing.writer import NewMemory, Writer
from cairn.ingest.chunking import Passage
from cairn.ingest.document import ExtractedDocument
from cairn.ingest.file_names import raw_bytes
from cairn.storage import dedup_rows, graph_rows, source_rows
from cairn.storage.connection import Connection
from cairn.storage.rows import SourceRow

# A new document is a near-copy of another when this share of its passages repeat that one.
REPEATED_SHARE = 0.6
UNFINISHED = (
    "it was stopped while being written; add it again to finish it (what was written is kept)"
)


@dataclass
class Prepared:
    """A file read, chunked and (when short) embedded: everything slow is done before the write
    lock is taken. A long document's passages are embedded part by part as they are written."""

    planned: PlannedFile
    document: ExtractedDocument
    title: str
    attrs: dict[str, Any]
    warnings: list[str]  # the extractor's, the attributes left out, a passage limit reached
    passages: list[Passage]
    document_vector: Any
    passage_vectors: list[Any] | None  # None: embedded per part (a long document)
    candidates: list[tuple[mentions.Candidate, Any]]  # new names the text introduces
    total_passages: int = 0  # before the passage limit
    parts: list[file_parts.PreparedPart] = field(default_factory=list)  # a mailbox's messages...
    owners: list[int] = field(default_factory=list)  # with parts: each passage's part
    body: str = ""  # the Document's body: a note's text as written (``shapes.document_body``)

    def passage_text(self, passage: Passage) -> str:
        """What the writer embeds for ``passage``: its searchable text."""
        title = shapes.passage_title(self.document_title(passage), passage)
        return searchable_text(title, passage.text, shapes.passage_attrs(passage))

    def document_title(self, passage: Passage) -> str:
        """The title of the Document ``passage`` belongs to: the file's, or its part's."""
        return self.parts[self.owners[passage.ordinal]].title if self.parts else self.title


@dataclass
class Started:
    """A document being written: its id, the version it replaces, what is stored already."""

    document_id: str
    replaced: list[str]  # the older versions' Document ids, retired at the finish
    keep_whole: frozenset[str]  # their passages: the new ones are not compared with them
    done: set[int] = field(default_factory=set)  # ordinals of the passages stored
    matched: list[str] = field(default_factory=list)  # passages the gate linked to others
    part_ids: list[str] = field(default_factory=list)  # a file of parts: each part's Document


class DocumentStore:
    def __init__(
        self,
        pack: Pack,
        space: EmbeddingSpace,
        writer: Writer,
        history: HistoryKeeper,
        scope: str,
        report: IngestReport,
    ) -> None:
        self._pack = pack
        self._space = space
        self._writer = writer
        self._history = history
        self._scope = scope
        self._report = report
        self.matcher: mentions.MentionMatcher | None = None
        self.evidence: recognise.CaseEvidence | None = None
        self.note_mentions = writer.mentions
        self._people: dict[str, str] = {}  # a person's name, casefolded: their entity's id

    def store_whole(self, conn: Connection, prepared: Prepared) -> FileOutcome:
        started = self.begin(conn, prepared)
        assert prepared.passage_vectors is not None
        for passage, vector in zip(prepared.passages, prepared.passage_vectors, strict=True):
            self.store_passage(conn, prepared, started, passage, vector)
        return self.finish(conn, prepared, started)

    def begin(self, conn: Connection, prepared: Prepared, *, in_parts: bool = False) -> Started:
        """Write the Document (or find the one a stopped run began for these bytes). In parts,
        the source row is marked unfinished in the same transaction."""
        planned = prepared.planned
        resumed = self._unfinished(conn, planned)
        if resumed is not None:
            replaced = [
                d
                for d in graph_rows.active_documents_from(conn, planned.source)
                if d != resumed and not file_parts.is_part(conn, d)
            ]
            started = Started(resumed, replaced, self._passages_of(conn, replaced))
            started.part_ids = file_parts.written(conn, resumed, self._scope)
            for document_id in [resumed, *started.part_ids]:
                started.done |= graph_rows.part_ordinals(conn, document_id)
            return started
        # "retry": this version failed before, and the row still names the version it replaces.
        previous = planned.previous
        replaces = planned.action in ("changed", "retry") and previous is not None
        replaced = (
            [previous["document_id"]] if replaces and previous and previous["document_id"] else []
        )
        in_folder_vault = planned.root is not None and planned.path.suffix.lower() in (
            ".md",
            ".markdown",
        )
        written = self._writer.store_document(
            NewMemory(
                "Document",
                prepared.title,
                prepared.body,
                attrs=prepared.attrs,
                scope=self._scope,
                source=planned.source,
            ),
            vector=prepared.document_vector,
            # A note in a folder links to the folder's notes: the linking stage resolves those.
            links=() if in_folder_vault else prepared.document.links,
        )
        assert written.node is not None
        self._report.stubs += len(written.stubs_created)
        self._report.links += len(written.links)
        self._new_entities(conn, prepared.candidates)
        self._link_people(conn, written.node.id, prepared.document.people)
        started = Started(written.node.id, replaced, self._passages_of(conn, replaced))
        if in_parts:
            row = source_row(planned, self._scope, "failed", error=UNFINISHED)
            row["document_id"] = started.document_id
            source_rows.put(conn, row)
        return started

    def store_passage(
        self, conn: Connection, prepared: Prepared, started: Started, passage: Passage, vector: Any
    ) -> None:
        """One passage of the document ``started`` (none if it is stored already)."""
        if passage.ordinal in started.done:
            return
        match = self._store_passage(conn, prepared, passage, vector, started)
        started.done.add(passage.ordinal)
        if match is not None:
            started.matched.append(match)

    def finish(
        self, conn: Connection, prepared: Prepared, started: Started, extra: Sequence[str] = ()
    ) -> FileOutcome:
        planned = prepared.planned
        kept = len(started.done)
        if kept == len(prepared.passages) and prepared.parts:  # the parts after the last text
            self._part_id(conn, prepared, started, len(prepared.parts) - 1)
        own = {started.document_id, *started.part_ids}
        self._ask_if_repeated(conn, started.document_id, own, started.matched, kept)
        for old_document in started.replaced:
            self._retire(conn, old_document, started.document_id)
        warnings = [*prepared.warnings, *extra]
        if not prepared.passages:
            warnings.append("no text was found in it")
        row = source_row(planned, self._scope, "ingested")
        row["media_type"] = prepared.document.media_type
        row["document_id"] = started.document_id
        row["passages"] = kept
        row["warnings"] = warnings
        source_rows.put(conn, row)
        return FileOutcome(
            planned.source,
            planned.action,
            "replaced" if started.replaced else "ingested",
            started.document_id,
            kept,
            warnings=warnings,
            size=planned.size,
        )

    # -- parts of a document ------------------------------------------------------------------

    def _unfinished(self, conn: Connection, planned: PlannedFile) -> str | None:
        """The Document a stopped run began writing for exactly these bytes, if any."""
        previous = planned.previous
        if previous is None or previous["state"] != "failed" or not previous["document_id"]:
            return None
        rows = graph_rows.nodes_by_ids(conn, [previous["document_id"]], [self._scope])
        if not rows or rows[0]["status"] != "active" or rows[0]["type"] != "Document":
            return None
        attrs = rows[0]["attrs"]
        attrs = json.loads(attrs) if isinstance(attrs, str) else attrs
        return str(rows[0]["id"]) if attrs.get("sha256") == planned.sha256 else None

    def _store_passage(
        self, conn: Connection, prepared: Prepared, passage: Passage, vector: Any, started: Started
    ) -> str | None:
        """Store one passage; returns the passage it repeats, if the gate linked it to one."""
        locator = passage.locator.as_dict()
        document_id = (
            self._part_id(conn, prepared, started, prepared.owners[passage.ordinal])
            if prepared.parts
            else started.document_id
        )
        result = self._writer.store_passage(
            NewMemory(
                "Passage",
                shapes.passage_title(prepared.document_title(passage), passage),
                passage.text,
                attrs=shapes.passage_attrs(passage),
                scope=self._scope,
                source=prepared.planned.source,
                locator=locator or None,
            ),
            vector=vector,
            # Its own document holds its text (a note's Document keeps it whole): alike on
            # purpose, never a duplicate to link.
            keep_whole=started.keep_whole | {document_id, started.document_id},
        )
        assert result.node is not None
        store = self._writer.store
        store.add_edge(conn, result.node.id, document_id, "part_of", None)
        assert self.matcher is not None
        for entity_id in self.matcher.find(passage.text):
            entity_type = graph_rows.type_of(conn, entity_id)
            if not entity_type or not self._pack.edge_for("Passage", entity_type, ("mentions",)):
                continue
            if stubs.can_join(conn, entity_id):
                self._report.mentions += store.add_edge(
                    conn, result.node.id, entity_id, "mentions", None
                )
        repeated = result.matched if result.outcome == "merge_linked" else None
        return repeated.id if repeated else None

    def _ask_if_repeated(
        self,
        conn: Connection,
        document_id: str,
        own: set[str],
        matched: list[str],
        passages: int,
    ) -> None:
        """A document most of whose passages repeat one other document is a near-copy of it
        (a re-export, another format, a draft): the person is asked to keep both or merge."""
        owners: Counter[str] = Counter()
        for passage_id in matched:
            owners.update({e["dst"] for e in graph_rows.edges_of(conn, passage_id, "part_of")})
        for mine in own:  # a message quoting another of its mailbox repeats no other file
            owners.pop(mine, None)
        if not owners or not passages:
            return
        other, count = min(owners.items(), key=lambda item: (-item[1], item[0]))
        if count < max(1, REPEATED_SHARE * passages):
            return
        dedup_rows.add_review_item(
            conn,
            id_=new_id(),
            kind="duplicate",
            node_id=document_id,
            other_id=other,
            score=round(count / passages, 4),
            reason=f"{count} of its {passages} passages repeat it",
            flags=(),
            at=now_iso(),
        )
        self._report.pending_review += 1

    def _new_entities(self, conn: Connection, found: list[tuple[mentions.Candidate, Any]]) -> None:
        """Stubs for the people, organisations and places the document seems to introduce
        (see ``mentions``), so its passages can mention them and the person can review them.
        A name an earlier file of the batch introduced (or one archived: not a name, to the
        person) is left as it is: a found name never retypes or revives an entity."""
        assert self.matcher is not None
        for candidate, vector in found:
            exact = [m for m in resolver.lookup(conn, [candidate.name], [self._scope]) if m.exact]
            live = sorted(
                (m for m in exact if m.status in ("active", "stub")),
                key=lambda m: m.type != candidate.type,  # the same kind first
            )
            if live and candidate.type == "Person":
                self._people[candidate.name.casefold()] = live[0].id  # a chat's speaker
            if exact:
                continue
            stub = self._writer.store_found_entity(
                NewMemory(candidate.type, candidate.name, scope=self._scope, status="stub"),
                vector=vector,
            )
            if stub.node is not None:
                self.matcher.add(candidate.name, stub.node.id)
                self._report.stubs += stub.outcome == "inserted"
                if candidate.type == "Person":
                    self._people[candidate.name.casefold()] = stub.node.id

    def _part_id(self, conn: Connection, prepared: Prepared, started: Started, index: int) -> str:
        """The Document of part ``index``, written (with every part before it not yet written)
        in the transaction of its first passage: a mailbox's messages are written with their
        text, part by part, never all in one long transaction."""
        while len(started.part_ids) <= index:
            part = prepared.parts[len(started.part_ids)]
            started.part_ids.append(self._write_part(conn, prepared, part, started.document_id))
        return started.part_ids[index]

    def _write_part(
        self, conn: Connection, prepared: Prepared, part: file_parts.PreparedPart, file_id: str
    ) -> str:
        """One document inside the file (a message of a mailbox): its Document, ``part_of``
        the file's, and ``mentions`` edges to the people it names as taking part."""
        written = self._writer.store_document(
            NewMemory(
                "Document",
                part.title,
                attrs=part.attrs,
                scope=self._scope,
                source=prepared.planned.source,
            ),
            vector=part.vector,
            links=part.document.links,
        )
        assert written.node is not None
        self._report.stubs += len(written.stubs_created)
        self._report.links += len(written.links)
        self._writer.store.add_edge(conn, written.node.id, file_id, "part_of", None)
        self._link_people(conn, written.node.id, part.document.people)
        return written.node.id

    def _link_people(self, conn: Connection, document_id: str, names: Sequence[str]) -> None:
        """The people a document names as taking part (a chat's speakers), each made an entity
        by ``_new_entities``: the document ``mentions`` them."""
        if not self._pack.edge_for("Document", "Person", ("mentions",)):
            return
        for name in names:
            person = self._people.get(name.casefold())
            if person is not None:
                self._report.mentions += self._writer.store.add_edge(
                    conn, document_id, person, "mentions", None
                )

    def _retire(self, conn: Connection, old_document: str, new_document: str) -> None:
        """The old version of a changed file becomes history: superseded, never deleted. The
        links a notes folder's linking stage made from it go: the new version's text states
        the note's links now (a link removed from the note is removed from the graph)."""
        scopes = [self._scope]
        if graph_rows.status_of(conn, old_document) not in (None, "superseded"):
            self._history.supersede(old_document, new_document, scopes, carry_links=False)
        for edge in graph_rows.edges_of(conn, old_document, links.EDGE):
            if edge["src"] == old_document and edge["rationale"] in links.LINK_RATIONALES:
                graph_rows.delete_edge(conn, edge["seq"])
        for passage_id in contents_of(conn, old_document):
            self.retire_passage(conn, passage_id)

    def passages_to_retire(self, conn: Connection, started: Started) -> list[str]:
        """What the versions a long document replaces hold (their passages, their parts):
        the pipeline makes it history in short transactions before ``finish``, which then has
        only the Documents left to supersede."""
        return [p for d in started.replaced for p in contents_of(conn, d)]

    def retire_passage(self, conn: Connection, passage_id: str) -> None:
        """One passage of an old version becomes history (once: again, it is left as is)."""
        rows = graph_rows.nodes_by_ids(conn, [passage_id], [self._scope])
        if rows and rows[0]["status"] != "superseded":
            at = now_iso()
            changes = {"status": "superseded", "valid_to": rows[0]["valid_to"] or at}
            graph_rows.update_node(conn, passage_id, {**changes, "updated_at": at})
            self._space.status_changed(rows[0]["seq"], "superseded")

    @staticmethod
    def _passages_of(conn: Connection, documents: Sequence[str]) -> frozenset[str]:
        return frozenset(p for d in documents for p in contents_of(conn, d))


def source_row(
    planned: PlannedFile,
    scope: str,
    state: str,
    same_as: SourceRow | None = None,
    error: str | None = None,
) -> SourceRow:
    """The file's row in ``sources``: its readable path as the key, its bytes when the name is
    not UTF-8."""
    return {
        "path": planned.source,
        "path_bytes": raw_bytes(planned.path),
        "scope": scope,
        "state": state,
        "sha256": planned.sha256,
        "size": planned.size,
        "mtime_ns": planned.mtime_ns,
        "media_type": "folder" if planned.kind == "folder" else None,
        "document_id": same_as["document_id"] if same_as else None,
        "passages": 0,
        "warnings": [],
        "error": error,
        "first_seen": now_iso(),
        "updated_at": now_iso(),
    }


def contents_of(conn: Connection, document_id: str, *, nested: bool = True) -> list[str]:
    """What is ``part_of`` a Document: its passages, or (a file of parts) its part Documents
    and their passages. The one place that knows the nesting: what retires, resumes or moves
    a file's memory finds it here."""
    found = []
    for edge in graph_rows.edges_of(conn, document_id, "part_of"):
        if edge["dst"] != document_id:
            continue
        found.append(edge["src"])
        if nested and graph_rows.type_of(conn, edge["src"]) == "Document":
            found += contents_of(conn, edge["src"], nested=False)
    return found
