"""The ingest pipeline (DESIGN §6): files and folders in, searchable and linked memory out.

For each file to read (see ``plan``): the extraction worker reads it within its budget,
the chunker cuts passages, the embedder embeds them outside the write lock, and ``store``
stores the file as a Document node with Passage nodes ``part_of`` it. Short files are written in
batches, each batch one transaction: a crash or a kill loses at most the batch being written,
and a rerun skips what was committed. A long document is embedded and written part by part, each
part its own transaction, so other writers get in between; a rerun finishes it.

A document's life is bounded by the vault's settings: at most ``ingest_max_passages`` passages
are kept, and embedding and writing it may take at most ``ingest_max_write_seconds``; past
either, the rest is left out and the file's outcome says so.

A changed file gets a new Document that supersedes the old one; the old version and its
passages stay as history. A file that moved keeps its memory, which follows it (``moves``). A
file (or folder) that fails is recorded with its reason on its source row (``outcomes``) and
the run goes on. Progress reaches the caller through
``IngestProgress`` events and the run stops between files (or between a long document's parts)
when ``CancelToken.cancel()`` is called, leaving the vault consistent.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from cairn.app import memory_settings
from cairn.app.clock import now_iso
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.ingestion import moves, outcomes, parts, shapes
from cairn.app.ingestion.extraction import ExtractionSettings, ExtractionWorker, Stopped
from cairn.app.ingestion.links import link_folders
from cairn.app.ingestion.plan import Plan, PlannedFile, make_plan
from cairn.app.ingestion.report import (
    CancelToken,
    FileOutcome,
    IngestProgress,
    IngestReport,
    ProgressSink,
)
from cairn.app.ingestion.request import IngestRequest
from cairn.app.ingestion.slices import write_in_slices
from cairn.app.ingestion.store import DocumentStore, Prepared, Started
from cairn.app.linking import mentions
from cairn.app.packs import Pack
from cairn.app.process import diagnostic_log
from cairn.app.text.surface import searchable_text
from cairn.app.upkeep import receipts
from cairn.app.writing.history import HistoryKeeper
from cairn.app.writing.writer import Writer
from cairn.ingest import notes_folder
from cairn.ingest.document import ExtractedDocument, ExtractionError
from cairn.ingest.file_names import readable
from cairn.storage import name_index, source_rows
from cairn.storage.connection import Connection
from cairn.storage.errors import RowRejected
from cairn.storage.vault import Vault

# A batch closes at this many passages or files, whichever comes first: big enough that the
# commit's cost is shared, small enough that a kill loses little. A longer document is embedded
# in parts of BATCH_PASSAGES and written in parts of its own.
BATCH_PASSAGES = 256
BATCH_FILES = 32
# A document of more passages than this is written in parts (``store`` resumes one a kill
# stopped), never whole in one transaction (see ``slices``): the dedup gate weighs each
# passage inside the write lock, a few milliseconds each on a quiet machine and ten times that
# on a loaded one.
WHOLE_PASSAGES = 64
# Whether the next file is read while the last is embedded (see ``_Run.execute``); off only in
# the benchmark's "before" run.
READ_AHEAD = True


@dataclasses.dataclass(frozen=True)
class Limits:
    """How much of one document an ingest keeps, and how long it may take to write."""

    max_passages: int
    max_write_seconds: float


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
        request: IngestRequest,
        *,
        progress: ProgressSink | None = None,
        cancel: CancelToken | None = None,
    ) -> IngestReport:
        settings = self._settings
        if request.ocr_languages:
            settings = dataclasses.replace(settings, ocr_languages=request.ocr_languages)
        if request.whisper_model_dir:
            settings = dataclasses.replace(settings, whisper_model_dir=request.whisper_model_dir)
        report_to = progress or (lambda _: None)
        cancel = cancel or CancelToken()

        def hashed(path: Path, done: int, total: int) -> None:
            report_to(IngestProgress("scanning", 0, total, 0, 0, readable(path)))

        scope = request.scope
        only = None if request.changed is None else [Path(p) for p in request.changed]
        # How long a run took and what came of its files, in the diagnostic log (counts only).
        with diagnostic_log.timed("ingest") as counts:
            plan = make_plan(self._vault, request.files(), scope, hashed, only)
            report = IngestReport(
                removed=plan.removed, not_found=plan.not_found, dry_run=request.dry_run
            )
            counts["files"] = len(plan.files)
            if request.dry_run:
                report.files = [outcomes.planned(f) for f in plan.files]
                report_to(IngestProgress("done", 0, 0, 0, 0))
                counts["dry_run"] = 1
                return report
            with self._vault.read() as conn:
                chosen = memory_settings.read(conn)
            limits = Limits(chosen.ingest_max_passages, chosen.ingest_max_write_seconds)
            run = _Run(self, plan, scope, report, report_to, cancel, settings, limits)
            try:
                run.execute()
            finally:
                run.close()
            counts.update(report.counts())
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
        limits: Limits,
    ) -> None:
        self._in = ingestor
        self._plan = plan
        self._scope = scope
        self._report = report
        self._progress = progress
        self._cancel = cancel
        self._limits = limits
        self._worker = ExtractionWorker(settings)
        self._store = DocumentStore(
            ingestor._pack, ingestor._space, ingestor._writer, ingestor._history, scope, report
        )
        self._batch: list[Prepared] = []
        self._abandoned = False  # the run ended (or failed): a read ahead is not wanted
        self._namings: dict[Path, notes_folder.Naming | None] = {}  # per folder given
        self._files_total = sum(1 for f in plan.files if f.to_read)
        self._files_done = 0
        self._bytes_done = 0

    def close(self) -> None:
        self._worker.close()

    def execute(self) -> None:
        with self._in._vault.write() as conn:
            source_rows.mark_missing(conn, self._plan.removed, now_iso())
            outcomes.forget_recovered_folders(conn, self._plan)
            for planned in self._plan.files:
                if not planned.to_read and planned.action != "moved":
                    self._report.files.append(outcomes.settle_unread(conn, planned, self._scope))
        self._follow_moves([planned for planned in self._plan.files if planned.action == "moved"])
        to_read = [planned for planned in self._plan.files if planned.to_read]
        # The next file is read (in the extraction worker, watched from a thread of its own)
        # while this one is embedded and written: reading and embedding overlap instead of
        # taking turns. At most one file is read ahead, so memory holds at most two.
        with ThreadPoolExecutor(1, thread_name_prefix="cairn-read-ahead") as reader:
            ahead: Future[ExtractedDocument] | None = None
            try:
                for index in range(len(to_read)):
                    ahead = self._next(reader, to_read, index, ahead)
            finally:
                # An error while embedding or writing (a full disk) must not wait for the
                # file read ahead to finish its budget: it is stopped, then let go.
                self._abandoned = True
                if ahead is not None:
                    _settle(ahead)
        self._flush()
        self._emit("linking", None)
        if self._plan.roots and not self._report.cancelled:
            made = link_folders(self._in._vault, self._in._writer, self._plan.roots, self._scope)
            self._report.links += made.links
            self._report.stubs += made.stubs
        self._emit("done", None)

    def _next(
        self,
        reader: ThreadPoolExecutor,
        to_read: list[PlannedFile],
        index: int,
        ahead: Future[ExtractedDocument] | None,
    ) -> Future[ExtractedDocument] | None:
        """Take file ``index`` (read ahead, or read now) and start reading the one after it;
        returns that read, or None."""
        planned = to_read[index]
        if self._cancel.cancelled:
            if ahead is not None:
                _settle(ahead)
            self._report.cancelled = True
            self._report.files.append(outcomes.planned(planned, "cancelled"))
            return None
        reading = ahead or self._read(reader, planned)
        self._emit("reading", planned.source)
        try:
            document = reading.result()
        except Stopped:
            self._report.cancelled = True
            self._report.files.append(outcomes.planned(planned, "cancelled"))
            return None
        except ExtractionError as exc:
            self._fail(planned, str(exc))
            return None
        following = None
        if READ_AHEAD and index + 1 < len(to_read) and not self._cancel.cancelled:
            following = self._read(reader, to_read[index + 1])
        self._take(planned, document)
        return following

    def _follow_moves(self, moved: Sequence[PlannedFile]) -> None:
        """Files found moved keep their memory (``moves``): a renamed folder or a ``git pull``
        can move thousands. Their Documents are embedded again before the write lock is taken,
        and written a batch at a time, so other writers get in between and a Stop (or a kill)
        loses at most the batch being written; a rerun finds the rest moved still."""
        vault, space, store = self._in._vault, self._in._space, self._in._writer.store
        for start in range(0, len(moved), BATCH_FILES):
            batch = moved[start : start + BATCH_FILES]
            if self._cancel.cancelled:
                self._report.cancelled = True
                self._report.files += [outcomes.planned(p, "cancelled") for p in batch]
                continue
            self._emit("embedding", batch[0].source)
            prepared = [moves.prepare(vault, space, planned, self._scope) for planned in batch]
            self._emit("writing", None)
            with vault.write() as conn:
                self._report.files += [moves.follow(conn, store, space, m) for m in prepared]

    def _read(self, reader: ThreadPoolExecutor, planned: PlannedFile) -> Future[ExtractedDocument]:
        return reader.submit(self._worker.extract, planned.path, self._should_stop_reading)

    def _should_stop_reading(self) -> bool:
        return self._cancel.cancelled or self._abandoned

    def _take(self, planned: PlannedFile, document: ExtractedDocument) -> None:
        """Embed a document read, and write it with its batch (or alone, in parts)."""
        self._emit("embedding", planned.source)
        prepared = self._prepare(planned, document)
        self._files_done += 1  # read; its batch commits below
        self._bytes_done += planned.size
        if prepared.passage_vectors is None:
            self._flush()  # what came before it commits first, in file order
            self._write_in_parts(prepared)
            return
        self._batch.append(prepared)
        if (
            len(self._batch) >= BATCH_FILES
            or sum(len(p.passages) for p in self._batch) >= BATCH_PASSAGES
        ):
            self._flush()

    # -- stages -------------------------------------------------------------------------------

    def _prepare(self, planned: PlannedFile, document: ExtractedDocument) -> Prepared:
        """Chunk, keep at most the passage limit, and embed in one call the Document, the
        names of the new entities it introduces and (for a short document) its passages."""
        if self._store.matcher is None:
            with self._in._vault.read() as conn:
                self._store.matcher = mentions.MentionMatcher(
                    name_index.mentionable(conn, [self._scope])
                )
        passages, owners = parts.split(document)
        title = shapes.document_title(
            self._note_title(planned, document) or document.title, Path(planned.source)
        )
        attrs, attr_warnings = shapes.document_attrs(document, planned, self._in._pack)
        warnings = [*document.warnings, *attr_warnings]
        total = len(passages)
        if total > self._limits.max_passages:
            passages = passages[: self._limits.max_passages]
            warnings.append(
                f"only its first {len(passages):,} of {total:,} passages were kept (the limit "
                "ingest_max_passages). To keep all of it, split it into smaller files, or raise "
                "the limit (cairn settings ingest_max_passages N) and add it under a new name."
            )
        text = "\n\n".join(d.text for d in (document, *document.parts))
        found = mentions.candidates(text, self._store.matcher)
        # The people it names as taking part (a chat's speakers) become entities, or are found
        # among those already known by the same name.
        named = {c.name.casefold() for c in found}
        found += [
            mentions.Candidate(name, "Person", 1)
            for name in parts.people(document)
            if name.casefold() not in named
        ]
        found = [c for c in found if c.type in self._in._pack.node_types]
        prepared = Prepared(
            planned, document, title, attrs, warnings, passages, None, None, [], total
        )
        prepared.owners = owners[: len(passages)]
        # Past the passage limit, the parts whose text is left out are left out whole.
        cut = total > len(passages) and prepared.owners
        kept_parts = prepared.owners[-1] + 1 if cut else None
        prepared.parts = parts.prepare(document, planned, self._in._pack)[:kept_parts]
        short = len(passages) <= WHOLE_PASSAGES
        # The texts the writer would embed: the Document's searchable text, the new names', and
        # for a short document each passage's.
        prepared.body = shapes.document_body(document)
        texts = [searchable_text(title, prepared.body, attrs), *(c.name for c in found)]
        texts += [part.searchable for part in prepared.parts]
        if short:
            texts += [prepared.passage_text(p) for p in passages]
        vectors = self._embed(texts)
        prepared.document_vector = vectors[0]
        prepared.candidates = list(zip(found, vectors[1 : 1 + len(found)], strict=True))
        after = 1 + len(found)
        for part, vector in zip(prepared.parts, vectors[after:], strict=False):
            part.vector = vector
        if short:
            prepared.passage_vectors = vectors[after + len(prepared.parts) :]
        return prepared

    def _note_title(self, planned: PlannedFile, document: ExtractedDocument) -> str | None:
        """A note of a notes folder is titled as its tool titles it (its file name, or the
        title it declares), not by a heading inside it; None for any other file."""
        root = planned.root
        if root is None:
            return None
        if root not in self._namings:
            kind = notes_folder.detect(root)
            self._namings[root] = notes_folder.Naming.of(root, kind) if kind else None
        naming = self._namings[root]
        if naming is None or not naming.is_note(planned.path):
            return None
        return naming.title_of(Path(readable(planned.path.relative_to(root))), document)

    def _embed(self, texts: Sequence[str]) -> list[Any]:
        embedder = self._in._space.embedder
        return [None] * len(texts) if embedder is None else list(embedder.embed(texts))

    def _flush(self) -> None:
        """Write the batch, a few files to a transaction (see ``WRITE_SLICE_S``); each file is
        whole in one."""
        if not self._batch:
            return
        self._emit("writing", None)

        def receipt(conn: Connection, outcomes: list[FileOutcome]) -> None:
            stored = [o for o in outcomes if o.state != "failed"]
            counts = {"files": len(stored), "passages": sum(o.passages for o in stored)}
            receipts.append(conn, "ingest", counts)

        self._report.files += write_in_slices(
            self._in._vault, self._batch, self._store_alone, receipt
        )
        self._batch = []
        self._emit("writing", None)

    def _store_alone(self, conn: Connection, prepared: Prepared) -> FileOutcome:
        """Store one file in its own savepoint: a row the vault refuses fails that file, not
        the rest of its transaction."""
        try:
            with self._in._vault.write() as inner:
                return self._store.store_whole(inner, prepared)
        except RowRejected as exc:
            return outcomes.rejected(conn, prepared.planned, self._scope, exc)

    def _write_in_parts(self, prepared: Prepared) -> None:
        """A long document: embed a part, write it in its own transaction, and so on, within
        the time limit and until a Stop."""
        planned = prepared.planned
        deadline = time.monotonic() + self._limits.max_write_seconds
        vault = self._in._vault
        try:
            with vault.write() as conn:
                started = self._store.begin(conn, prepared, in_parts=True)
            for start in range(0, len(prepared.passages), BATCH_PASSAGES):
                part = [
                    p
                    for p in prepared.passages[start : start + BATCH_PASSAGES]
                    if p.ordinal not in started.done
                ]
                if not part:
                    continue
                if self._cancel.cancelled:
                    self._report.cancelled = True
                    self._report.files.append(outcomes.planned(planned, "cancelled"))
                    return
                if time.monotonic() > deadline:
                    break
                self._emit("embedding", planned.source)
                vectors = self._embed([prepared.passage_text(p) for p in part])
                self._emit("writing", planned.source)
                write_in_slices(
                    vault,
                    list(zip(part, vectors, strict=True)),
                    lambda conn, pair: self._store.store_passage(conn, prepared, started, *pair),
                    lambda conn, done: receipts.append(
                        conn, "ingest", {"files": 0, "passages": len(done)}
                    ),
                )
            if started.replaced:  # a changed file: its old passages become history first
                with vault.read() as conn:
                    old = self._store.passages_to_retire(conn, started)
                write_in_slices(vault, old, self._store.retire_passage)
            with vault.write() as conn:
                outcome = self._store.finish(
                    conn, prepared, started, self._overtime(prepared, started)
                )
                receipts.append(conn, "ingest", {"files": 1, "passages": 0})
        except RowRejected as exc:
            with vault.write() as conn:
                outcome = outcomes.rejected(conn, planned, self._scope, exc)
        self._report.files.append(outcome)

    def _overtime(self, prepared: Prepared, started: Started) -> list[str]:
        kept, total = len(started.done), len(prepared.passages)
        if kept >= total:
            return []
        return [
            f"embedding and writing it took longer than {self._limits.max_write_seconds:g} s "
            f"(the limit ingest_max_write_seconds): only its first {kept:,} of {total:,} "
            "passages were kept. Split it into smaller files, or raise the limit and add it "
            "under a new name."
        ]

    def _fail(self, planned: PlannedFile, message: str) -> None:
        with self._in._vault.write() as conn:
            outcomes.record_failure(conn, planned, self._scope, message)
        self._report.files.append(
            FileOutcome(planned.source, planned.action, "failed", error=message, size=planned.size)
        )
        self._files_done += 1
        self._bytes_done += planned.size

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


def _settle(reading: Future[ExtractedDocument]) -> None:
    """Wait for a read no longer wanted (the run was cancelled, which stops it too)."""
    with contextlib.suppress(Stopped, ExtractionError):
        reading.result()
