"""The ingest pipeline (DESIGN §6): files and folders in, searchable and linked memory out.

For each file to read (see ``ingest_plan``): the extraction worker reads it within its budget,
the chunker cuts passages, the embedder embeds them in one batch (outside the write lock), and
the file is stored as a Document node with Passage nodes ``part_of`` it, each passage through
the dedup gate (near-duplicates of other documents' passages are linked, uncertain ones wait in
the review queue, nothing is absorbed: a document stays whole), plus ``mentions`` edges to the
entities its passages name. Files are written in batches, each batch one transaction: a crash
or a kill loses at most the batch being written, and a rerun skips what was committed.

A changed file gets a new Document that supersedes the old one; the old version and its
passages stay as history. A file that fails is recorded with its reason on its source row and
the run goes on. Progress reaches the caller through ``IngestProgress`` events and the run
stops between files when ``CancelToken.cancel()`` is called, leaving the vault consistent.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.app import ingest_records as records
from cairn.app import mentions, receipts
from cairn.app.clock import new_id, now_iso
from cairn.app.embeddings import EmbeddingSpace
from cairn.app.extraction import ExtractionSettings, ExtractionWorker, Stopped
from cairn.app.history import HistoryKeeper
from cairn.app.ingest_links import link_folders
from cairn.app.ingest_plan import Plan, PlannedFile, make_plan
from cairn.app.ingest_report import (
    CancelToken,
    FileOutcome,
    IngestProgress,
    IngestReport,
    ProgressSink,
)
from cairn.app.packs import Pack
from cairn.app.text import searchable_text
from cairn.app.writer import NewMemory, Writer
from cairn.ingest.chunking import Passage, chunk
from cairn.ingest.document import ExtractedDocument, ExtractionError
from cairn.storage import dedup_rows, graph_rows, names, source_rows
from cairn.storage.errors import RowRejected
from cairn.storage.vault import Vault

# A batch closes at this many passages or files, whichever comes first: big enough that the
# commit's cost is shared, small enough that a kill loses little.
BATCH_PASSAGES = 256
BATCH_FILES = 32
# A new document is a near-copy of another when this share of its passages repeat that one.
REPEATED_SHARE = 0.6


@dataclass
class _Prepared:
    """A file read and embedded, waiting for its batch: everything slow is done before the
    write lock is taken."""

    planned: PlannedFile
    document: ExtractedDocument
    title: str
    attrs: dict[str, Any]
    attr_warnings: list[str]
    passages: list[Passage]
    vectors: list[Any]  # the Document's first, then one per passage
    candidates: list[tuple[mentions.Candidate, Any]]  # new names the text introduces


class Ingestor:
    def __init__(
        self,
        vault: Vault,
        pack: Pack,
        space: EmbeddingSpace,
        writer: Writer,
        history: HistoryKeeper,
        settings: ExtractionSettings,
    ) -> None:
        self._vault = vault
        self._pack = pack
        self._space = space
        self._writer = writer
        self._history = history
        self._settings = settings

    def run(
        self,
        paths: Sequence[Path],
        *,
        scope: str,
        dry_run: bool = False,
        progress: ProgressSink | None = None,
        cancel: CancelToken | None = None,
        ocr_languages: tuple[str, ...] | None = None,
        whisper_model_dir: str | None = None,
    ) -> IngestReport:
        settings = self._settings
        if ocr_languages:
            settings = dataclasses.replace(settings, ocr_languages=ocr_languages)
        if whisper_model_dir:
            settings = dataclasses.replace(settings, whisper_model_dir=whisper_model_dir)
        report_to = progress or (lambda _: None)
        cancel = cancel or CancelToken()

        def hashed(path: Path, done: int, total: int) -> None:
            report_to(IngestProgress("scanning", 0, total, 0, 0, str(path)))

        plan = make_plan(self._vault, paths, scope, hashed)
        report = IngestReport(removed=plan.removed, not_found=plan.not_found, dry_run=dry_run)
        if dry_run:
            report.files = [_planned_outcome(f) for f in plan.files]
            report_to(IngestProgress("done", 0, 0, 0, 0))
            return report
        run = _Run(self, plan, scope, report, report_to, cancel, settings)
        try:
            run.execute()
        finally:
            run.close()
        return report


class _Run:
    """One ingest run's state: the worker, the batch being gathered, the report."""

    def __init__(
        self,
        ingestor: Ingestor,
        plan: Plan,
        scope: str,
        report: IngestReport,
        progress: Callable[[IngestProgress], None],
        cancel: CancelToken,
        settings: ExtractionSettings,
    ) -> None:
        self._in = ingestor
        self._plan = plan
        self._scope = scope
        self._report = report
        self._progress = progress
        self._cancel = cancel
        self._worker = ExtractionWorker(settings)
        self._batch: list[_Prepared] = []
        self._files_total = sum(1 for f in plan.files if f.to_read)
        self._files_done = 0
        self._bytes_done = 0
        self._matcher: mentions.MentionMatcher | None = None

    def close(self) -> None:
        self._worker.close()

    def execute(self) -> None:
        with self._in._vault.write() as conn:
            source_rows.mark_missing(conn, self._plan.removed, now_iso())
            for planned in self._plan.files:
                if not planned.to_read:
                    self._report.files.append(self._settle_unread(conn, planned))
        for planned in self._plan.files:
            if not planned.to_read:
                continue
            if self._cancel.cancelled:
                self._report.cancelled = True
                self._report.files.append(_planned_outcome(planned, "cancelled"))
                continue
            self._emit("reading", str(planned.path))
            try:
                document = self._worker.extract(planned.path, lambda: self._cancel.cancelled)
            except Stopped:
                self._report.cancelled = True
                self._report.files.append(_planned_outcome(planned, "cancelled"))
                continue
            except ExtractionError as exc:
                self._fail(planned, str(exc))
                continue
            self._emit("embedding", str(planned.path))
            self._batch.append(self._prepare(planned, document))
            self._files_done += 1  # read; its batch commits below
            self._bytes_done += planned.size
            if (
                len(self._batch) >= BATCH_FILES
                or sum(len(p.passages) for p in self._batch) >= BATCH_PASSAGES
            ):
                self._flush()
        self._flush()
        self._emit("linking", None)
        if self._plan.roots and not self._report.cancelled:
            made = link_folders(self._in._vault, self._in._writer, self._plan.roots, self._scope)
            self._report.links += made.links
            self._report.stubs += made.stubs
        self._emit("done", None)

    # -- stages -------------------------------------------------------------------------------

    def _prepare(self, planned: PlannedFile, document: ExtractedDocument) -> _Prepared:
        """Chunk, and embed in one call the Document, its passages and the names of the new
        entities it introduces."""
        if self._matcher is None:
            with self._in._vault.read() as conn:
                self._matcher = mentions.MentionMatcher(names.mentionable(conn, [self._scope]))
        passages = chunk(document.segments)
        title = records.document_title(document.title, planned.path)
        attrs, attr_warnings = records.document_attrs(document, planned, self._in._pack)
        found = [
            c
            for c in mentions.candidates(document.text, self._matcher)
            if c.type in self._in._pack.node_types
        ]
        # The texts the writer would embed: the Document's searchable text, each passage's.
        texts = [searchable_text(title, "", attrs)]
        texts += [
            searchable_text(records.passage_title(title, p), p.text, records.passage_attrs(p))
            for p in passages
        ]
        texts += [c.name for c in found]
        embedder = self._in._space.embedder
        vectors: list[Any] = [None] * len(texts)
        if embedder is not None:
            vectors = list(embedder.embed(texts))
        named = vectors[len(texts) - len(found) :]
        return _Prepared(
            planned,
            document,
            title,
            attrs,
            attr_warnings,
            passages,
            vectors[: len(texts) - len(found)],
            list(zip(found, named, strict=True)),
        )

    def _flush(self) -> None:
        if not self._batch:
            return
        self._emit("writing", None)
        with self._in._vault.write() as conn:
            outcomes = [self._store_alone(conn, prepared) for prepared in self._batch]
            stored = [o for o in outcomes if o.state != "failed"]
            receipts.append(
                conn,
                "ingest",
                {"files": len(stored), "passages": sum(o.passages for o in stored)},
            )
        self._report.files.extend(outcomes)
        self._batch = []
        self._emit("writing", None)

    def _store_alone(self, conn: Any, prepared: _Prepared) -> FileOutcome:
        """Store one file in its own savepoint: a row the vault refuses fails that file, not
        the batch."""
        try:
            with self._in._vault.write() as inner:
                return self._store(inner, prepared)
        except RowRejected as exc:
            planned = prepared.planned
            message = f"{planned.path.name} could not be stored: {exc.reason}"
            self._record_failure(conn, planned, message)
            return FileOutcome(
                str(planned.path), planned.action, "failed", error=message, size=planned.size
            )

    def _store(self, conn: Any, prepared: _Prepared) -> FileOutcome:
        planned, document = prepared.planned, prepared.document
        # "retry": this version failed before, and the row still names the version it replaces.
        replaces = planned.action in ("changed", "retry") and planned.previous is not None
        old_document = planned.previous["document_id"] if replaces and planned.previous else None
        old_passages = _passages_of(conn, old_document) if old_document else []
        source = str(planned.path)
        in_folder_vault = planned.root is not None and planned.path.suffix.lower() in (
            ".md",
            ".markdown",
        )
        written = self._in._writer.write(
            NewMemory(
                "Document", prepared.title, attrs=prepared.attrs, scope=self._scope, source=source
            ),
            dedup=False,
            vector=prepared.vectors[0],
            # A note in a folder links to the folder's notes: the linking stage resolves those.
            links=() if in_folder_vault else document.links,
        )
        assert written.node is not None
        document_id = written.node.id
        self._report.stubs += len(written.stubs_created)
        self._report.links += len(written.links)
        self._new_entities(prepared.candidates)
        keep_whole = frozenset(old_passages)
        matched: list[str] = []
        for passage, vector in zip(prepared.passages, prepared.vectors[1:], strict=True):
            match = self._store_passage(
                conn, prepared.title, passage, vector, document_id, source, keep_whole
            )
            if match is not None:
                matched.append(match)
        self._ask_if_repeated(conn, document_id, matched, len(prepared.passages))
        if old_document is not None:
            self._retire(conn, old_document, document_id, old_passages)
        warnings = list(document.warnings) + prepared.attr_warnings
        if not prepared.passages:
            warnings.append("no text was found in it")
        source_rows.put(
            conn,
            {
                "path": source,
                "scope": self._scope,
                "state": "ingested",
                "sha256": planned.sha256,
                "size": planned.size,
                "mtime_ns": planned.mtime_ns,
                "media_type": document.media_type,
                "document_id": document_id,
                "passages": len(prepared.passages),
                "warnings": warnings,
                "error": None,
                "first_seen": now_iso(),
                "updated_at": now_iso(),
            },
        )
        return FileOutcome(
            source,
            planned.action,
            "replaced" if old_document else "ingested",
            document_id,
            len(prepared.passages),
            warnings=warnings,
            size=planned.size,
        )

    def _store_passage(
        self,
        conn: Any,
        title: str,
        passage: Passage,
        vector: Any,
        document_id: str,
        source: str,
        keep_whole: frozenset[str],
    ) -> str | None:
        """Store one passage; returns the passage it repeats, if the gate linked it to one."""
        locator = passage.locator.as_dict()
        result = self._in._writer.write(
            NewMemory(
                "Passage",
                records.passage_title(title, passage),
                passage.text,
                attrs=records.passage_attrs(passage),
                scope=self._scope,
                source=source,
                locator=locator or None,
            ),
            vector=vector,
            keep_whole=keep_whole,
            links=(),
            tags=(),
        )
        assert result.node is not None
        store = self._in._writer.store
        store.add_edge(conn, result.node.id, document_id, "part_of", None)
        assert self._matcher is not None
        for entity_id in self._matcher.find(passage.text):
            entity_type = graph_rows.type_of(conn, entity_id)
            if entity_type and self._in._pack.edge_for("Passage", entity_type, ("mentions",)):
                self._report.mentions += store.add_edge(
                    conn, result.node.id, entity_id, "mentions", None
                )
        repeated = result.matched if result.outcome == "merge_linked" else None
        return repeated["id"] if repeated else None

    def _ask_if_repeated(
        self, conn: Any, document_id: str, matched: list[str], passages: int
    ) -> None:
        """A document most of whose passages repeat one other document is a near-copy of it
        (a re-export, another format, a draft): the person is asked to keep both or merge."""
        owners: Counter[str] = Counter()
        for passage_id in matched:
            owners.update({e["dst"] for e in graph_rows.edges_of(conn, passage_id, "part_of")})
        owners.pop(document_id, None)
        if not owners:
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

    def _new_entities(self, found: list[tuple[mentions.Candidate, Any]]) -> None:
        """Stubs for the people, organisations and places the document seems to introduce
        (see ``mentions``), so its passages can mention them and the person can review them.
        A name an earlier file of the batch introduced resolves to that stub."""
        assert self._matcher is not None
        for candidate, vector in found:
            stub = self._in._writer.write(
                NewMemory(candidate.type, candidate.name, scope=self._scope, status="stub"),
                vector=vector,
                links=(),
                tags=(),
            )
            if stub.node is not None:
                self._matcher.add(candidate.name, stub.node.id)
                self._report.stubs += stub.outcome == "inserted"

    def _retire(
        self, conn: Any, old_document: str, new_document: str, old_passages: list[str]
    ) -> None:
        """The old version of a changed file becomes history: superseded, never deleted."""
        scopes = [self._scope]
        if graph_rows.status_of(conn, old_document) not in (None, "superseded"):
            self._in._history.supersede(old_document, new_document, scopes)
        at = now_iso()
        for passage_id in old_passages:
            rows = graph_rows.nodes_by_ids(conn, [passage_id], scopes)
            if rows and rows[0]["status"] != "superseded":
                graph_rows.update_node(
                    conn,
                    passage_id,
                    {
                        "status": "superseded",
                        "valid_to": rows[0]["valid_to"] or at,
                        "updated_at": at,
                    },
                )
                self._in._space.status_changed(rows[0]["seq"], "superseded")

    def _settle_unread(self, conn: Any, planned: PlannedFile) -> FileOutcome:
        path = str(planned.path)
        if planned.action == "duplicate" and planned.same_as is not None:
            source_rows.put(conn, _row(planned, self._scope, "duplicate", planned.same_as))
            return FileOutcome(
                path, "duplicate", "duplicate", planned.same_as["document_id"], size=planned.size
            )
        if planned.action == "other_scope" and planned.previous is not None:
            message = (
                f"{planned.path.name} is already kept in the scope {planned.previous['scope']!r}; "
                "a file is kept in one scope. Copy it under another name to keep it in both."
            )
            return FileOutcome(path, "other_scope", "failed", error=message, size=planned.size)
        if planned.action == "unsupported":
            if planned.root is None:  # named on its own: the person expected it to be read
                message = (
                    f"Cairn does not read {planned.path.suffix or 'extension-less'} files: "
                    "convert it to PDF, text or an image and add that."
                )
                source_rows.put(conn, _row(planned, self._scope, "failed", None, message))
                return FileOutcome(path, "unsupported", "failed", error=message, size=planned.size)
            return FileOutcome(path, "unsupported", "skipped", size=planned.size)
        if planned.previous is not None and planned.previous["state"] == "missing":
            source_rows.put(
                conn, {**planned.previous, "state": "ingested", "updated_at": now_iso()}
            )
        document_id = planned.previous["document_id"] if planned.previous else None
        return FileOutcome(path, planned.action, "unchanged", document_id, size=planned.size)

    def _fail(self, planned: PlannedFile, message: str) -> None:
        with self._in._vault.write() as conn:
            self._record_failure(conn, planned, message)
        self._report.files.append(
            FileOutcome(
                str(planned.path), planned.action, "failed", error=message, size=planned.size
            )
        )
        self._files_done += 1
        self._bytes_done += planned.size

    def _record_failure(self, conn: Any, planned: PlannedFile, message: str) -> None:
        # The old version of a changed file stays what the vault keeps for it.
        previous = planned.previous
        keep = previous["document_id"] if previous and previous["state"] != "duplicate" else None
        row = _row(planned, self._scope, "failed", None, message)
        row["document_id"] = keep
        source_rows.put(conn, row)

    def _emit(self, stage: str, current: str | None) -> None:
        self._progress(
            IngestProgress(
                stage,
                self._files_done,
                self._files_total,
                self._bytes_done,
                self._plan.bytes_to_read,
                current,
            )
        )


def _planned_outcome(planned: PlannedFile, state: str = "planned") -> FileOutcome:
    return FileOutcome(str(planned.path), planned.action, state, size=planned.size)


def _row(
    planned: PlannedFile,
    scope: str,
    state: str,
    same_as: dict[str, Any] | None,
    error: str | None = None,
) -> dict[str, Any]:
    return {
        "path": str(planned.path),
        "scope": scope,
        "state": state,
        "sha256": planned.sha256,
        "size": planned.size,
        "mtime_ns": planned.mtime_ns,
        "media_type": None,
        "document_id": same_as["document_id"] if same_as else None,
        "passages": 0,
        "warnings": [],
        "error": error,
        "first_seen": now_iso(),
        "updated_at": now_iso(),
    }


def _passages_of(conn: Any, document_id: str) -> list[str]:
    return [
        edge["src"]
        for edge in graph_rows.edges_of(conn, document_id, "part_of")
        if edge["dst"] == document_id
    ]
