"""The ingest pipeline (DESIGN §6): files and folders in, searchable and linked memory out.

For each file to read (see ``plan``, which orders them text first, pictures and recordings
last): the extraction worker reads it within its budget, ``preparation`` chunks and embeds it
outside the write lock, and ``store`` stores the file as a Document node with Passage nodes
``part_of`` it. Short files are written in batches, each batch one transaction: a crash or a
kill loses at most the batch being written, and a rerun skips what was committed. A batch is
written once it is full, once it has waited ``BATCH_SECONDS``, and whenever the next file is
slow to read (a scan, a recording), so what is read shows in the window while the run goes on.
A long document is embedded and written part by part, each part its own transaction, so other
writers get in between; a rerun finishes it.

A document's life is bounded by the vault's settings: at most ``ingest_max_passages`` passages
are kept, and embedding and writing it may take at most ``ingest_max_write_seconds``; past
either, the rest is left out and the file's outcome says so.

A changed file gets a new Document that supersedes the old one; the old version and its
passages stay as history. A file that moved keeps its memory, which follows it (``moves``). A
file (or folder) that fails is recorded with its reason on its source row (``outcomes``) and
the run goes on. A notes folder's links are made once its notes are stored (before its
pictures and recordings are read, if it has any) and again at the end, for the links to those.

Progress reaches the caller through ``IngestProgress`` events (``run_progress``), and the run
stops when ``CancelToken.cancel()`` is called: the file being read is let go, what was read is
written, a long document stops between its parts, and the vault stays consistent. Until a run
finishes, its paths are kept as unfinished (``unfinished``), so it can be resumed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from cairn.app import memory_settings
from cairn.app.clock import now_iso
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.ingestion import moves, outcomes, unfinished
from cairn.app.ingestion.extraction import ExtractionSettings, ExtractionWorker, Stopped, cost_of
from cairn.app.ingestion.links import link_folders
from cairn.app.ingestion.plan import Plan, PlannedFile, make_plan
from cairn.app.ingestion.preparation import Preparer
from cairn.app.ingestion.report import (
    CancelToken,
    FileOutcome,
    IngestProgress,
    IngestReport,
    ProgressSink,
)
from cairn.app.ingestion.request import IngestRequest
from cairn.app.ingestion.run_progress import RunProgress
from cairn.app.ingestion.slices import write_in_slices
from cairn.app.ingestion.store import DocumentStore, Prepared, Started
from cairn.app.packs import Pack
from cairn.app.process import diagnostic_log
from cairn.app.upkeep import receipts
from cairn.app.writing.history import HistoryKeeper
from cairn.app.writing.writer import Writer
from cairn.ingest.chunking import Passage
from cairn.ingest.document import ExtractedDocument, ExtractionError
from cairn.ingest.file_names import readable
from cairn.ingest.format_declaration import Cost
from cairn.storage import source_rows
from cairn.storage.connection import Connection
from cairn.storage.errors import RowRejected
from cairn.storage.vault import Vault

# A batch closes at this many passages or files, whichever comes first: big enough that the
# commit's cost is shared, small enough that a kill loses little. A longer document is embedded
# in parts of BATCH_PASSAGES and written in parts of its own.
BATCH_PASSAGES = 256
BATCH_FILES = 32
# A batch is written once its first file has waited this long, and the files waiting are
# written whenever the next file takes longer than IDLE_SECONDS to read: a person who adds a
# folder sees its files arrive, not all at the end of a long scan.
BATCH_SECONDS = 2.0
IDLE_SECONDS = 0.5
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

        only = None if request.changed is None else [Path(p) for p in request.changed]
        # How long a run took and what came of its files, in the diagnostic log (counts only).
        with diagnostic_log.timed("ingest") as counts:
            plan = make_plan(self._vault, request.files(), request.scope, hashed, only)
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
            told = RunProgress(plan, report, report_to)
            run = _Run(self, plan, request, told, cancel, settings, limits)
            try:
                run.execute()
            finally:
                run.close()
            counts.update(report.counts())
        return report

    def unfinished(self) -> list[IngestRequest]:
        """The runs stopped (or ended with their process) before they finished."""
        with self._vault.read() as conn:
            return unfinished.read(conn)

    def forget_unfinished(self) -> None:
        with self._vault.write() as conn:
            unfinished.forget(conn)


class _Run:
    """One ingest run's state: the worker, the batch being gathered, what it tells."""

    def __init__(
        self,
        ingestor: Ingestor,
        plan: Plan,
        request: IngestRequest,
        told: RunProgress,
        cancel: CancelToken,
        settings: ExtractionSettings,
        limits: Limits,
    ) -> None:
        self._in = ingestor
        self._plan = plan
        self._request = request
        self._scope = request.scope
        self._report = told.report  # the cancelled flag and the counts; files via settle
        self._told = told
        self._cancel = cancel
        self._limits = limits
        self._worker = ExtractionWorker(settings)
        self._store = DocumentStore(
            ingestor._pack,
            ingestor._space,
            ingestor._writer,
            ingestor._history,
            self._scope,
            self._report,
        )
        self._preparer = Preparer(
            ingestor._vault,
            ingestor._pack,
            ingestor._space,
            self._store,
            self._scope,
            limits.max_passages,
        )
        self._batch: list[Prepared] = []
        self._batch_since = 0.0  # when the batch's first file joined it
        self._abandoned = False  # the run ended (or failed): a read ahead is not wanted

    def close(self) -> None:
        self._worker.close()

    def execute(self) -> None:
        to_read = [planned for planned in self._plan.files if planned.to_read]
        moved = [planned for planned in self._plan.files if planned.action == "moved"]
        kept = unfinished.kept(self._request)
        with self._in._vault.write() as conn:
            if kept and (to_read or moved):
                unfinished.record(conn, self._request)
            source_rows.mark_missing(conn, self._plan.removed, now_iso())
            outcomes.forget_recovered_folders(conn, self._plan)
            settled = [
                outcomes.settle_unread(conn, planned, self._scope)
                for planned in self._plan.files
                if not planned.to_read and planned.action != "moved"
            ]
        self._told.settle(settled)
        self._follow_moves(moved)
        # The next file is read (in the extraction worker, watched from a thread of its own)
        # while this one is embedded and written: reading and embedding overlap instead of
        # taking turns. At most one file is read ahead, so memory holds at most two.
        with ThreadPoolExecutor(1, thread_name_prefix="cairn-read-ahead") as reader:
            ahead: Future[ExtractedDocument] | None = None
            try:
                for index in range(len(to_read)):
                    if _text_ends(to_read, index) and not self._cancel.cancelled:
                        self._flush()
                        self._link()  # the notes link to each other before the scans are read
                    ahead = self._next(reader, to_read, index, ahead)
            finally:
                # An error while embedding or writing (a full disk) must not wait for the
                # file read ahead to finish its budget: it is stopped, then let go.
                self._abandoned = True
                if ahead is not None:
                    _settle(ahead)
        self._flush()
        self._told.time_left.begin(None)
        if not self._report.cancelled:
            self._link()
            if kept:
                with self._in._vault.write() as conn:
                    unfinished.finish(conn, self._request)
        self._told.tell("done")

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
            self._cancelled(planned)
            return None
        reading = ahead or self._read(reader, planned)
        self._told.reading(planned)
        try:
            document = self._wait(reading)
        except Stopped:
            self._cancelled(planned)
            return None
        except ExtractionError as exc:
            self._fail(planned, str(exc))
            return None
        following = None
        if READ_AHEAD and index + 1 < len(to_read) and not self._cancel.cancelled:
            following = self._read(reader, to_read[index + 1])
        self._take(planned, document)
        return following

    def _wait(self, reading: Future[ExtractedDocument]) -> ExtractedDocument:
        """The document read. If it is slow to come (a scan, a recording), the files waiting
        in the batch are written meanwhile, so they are found while it is read."""
        if self._batch:
            try:
                return reading.result(timeout=IDLE_SECONDS)
            except TimeoutError:
                self._flush()
        return reading.result()

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
                self._told.settle(outcomes.planned(p, "cancelled") for p in batch)
                continue
            self._told.tell("embedding", batch[0].source)
            prepared = [moves.prepare(vault, space, planned, self._scope) for planned in batch]
            self._told.tell("writing")
            with vault.write() as conn:
                followed = [moves.follow(conn, store, space, m) for m in prepared]
            self._told.settle(followed)
        if moved:
            self._told.tell("writing")

    def _read(self, reader: ThreadPoolExecutor, planned: PlannedFile) -> Future[ExtractedDocument]:
        told = functools.partial(self._told.advance, planned)
        return reader.submit(
            self._worker.extract, planned.path, self._should_stop_reading, progress=told
        )

    def _should_stop_reading(self) -> bool:
        return self._cancel.cancelled or self._abandoned

    def _take(self, planned: PlannedFile, document: ExtractedDocument) -> None:
        """Embed a document read, and write it with its batch (or alone, in parts)."""
        self._told.tell("embedding", planned.source)
        prepared = self._preparer.prepare(planned, document)
        self._told.read(planned)  # read; it is written below or with its batch
        if prepared.passage_vectors is None:
            self._flush()  # what came before it commits first, in file order
            self._write_in_parts(prepared)
            return
        if not self._batch:
            self._batch_since = time.monotonic()
        self._batch.append(prepared)
        self._told.tell("writing", planned.source)
        if (
            len(self._batch) >= BATCH_FILES
            or sum(len(p.passages) for p in self._batch) >= BATCH_PASSAGES
            or time.monotonic() - self._batch_since >= BATCH_SECONDS
        ):
            self._flush()

    # -- writing ------------------------------------------------------------------------------

    def _flush(self) -> None:
        """Write the batch, a few files to a transaction (see ``WRITE_SLICE_S``); each file is
        whole in one."""
        if not self._batch:
            return

        def receipt(conn: Connection, outcomes: list[FileOutcome]) -> None:
            stored = [o for o in outcomes if o.state != "failed"]
            counts = {"files": len(stored), "passages": sum(o.passages for o in stored)}
            receipts.append(conn, "ingest", counts)

        batch, self._batch = self._batch, []
        self._told.settle(write_in_slices(self._in._vault, batch, self._store_alone, receipt))
        self._told.tell("writing")

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
                    self._stopped_part_way(prepared, started)
                    return
                if time.monotonic() > deadline:
                    break
                self._write_part(prepared, started, part)
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
        self._told.settle([outcome])

    def _write_part(self, prepared: Prepared, started: Started, part: list[Passage]) -> None:
        """Embed and write one part of a long document; the caller hears how far it is."""
        source = prepared.planned.source
        total = len(prepared.passages)
        self._told.tell("embedding", source, len(started.done), total, "passage")
        vectors = self._preparer.embed([prepared.passage_text(p) for p in part])
        write_in_slices(
            self._in._vault,
            list(zip(part, vectors, strict=True)),
            lambda conn, pair: self._store.store_passage(conn, prepared, started, *pair),
            lambda conn, done: receipts.append(conn, "ingest", {"files": 0, "passages": len(done)}),
        )
        self._told.settle([], stored=True)
        self._told.tell("writing", source, len(started.done), total, "passage")

    def _stopped_part_way(self, prepared: Prepared, started: Started) -> None:
        """A Stop between the parts of a long document: what was written is kept, and the
        next run of it goes on from its first missing passage."""
        self._report.cancelled = True
        outcome = outcomes.planned(prepared.planned, "cancelled")
        outcome.document_id = started.document_id
        outcome.passages = len(started.done)
        outcome.warnings.append(
            f"stopped part way: {len(started.done):,} of {len(prepared.passages):,} passages "
            "were saved; resuming goes on from there"
        )
        self._told.settle([outcome])

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

    # -- what else comes of a file ------------------------------------------------------------

    def _link(self) -> None:
        """A notes folder's links as edges (``links``); run again, it adds only what is new."""
        if not self._plan.roots:
            return
        self._told.tell("linking")
        made = link_folders(self._in._vault, self._in._writer, self._plan.roots, self._scope)
        self._report.links += made.links
        self._report.stubs += made.stubs
        self._told.settle([], stored=bool(made.links or made.stubs or made.folded))

    def _fail(self, planned: PlannedFile, message: str) -> None:
        with self._in._vault.write() as conn:
            outcomes.record_failure(conn, planned, self._scope, message)
        self._told.read(planned)
        self._told.settle(
            [
                FileOutcome(
                    planned.source, planned.action, "failed", error=message, size=planned.size
                )
            ]
        )

    def _cancelled(self, planned: PlannedFile) -> None:
        self._report.cancelled = True
        self._told.settle([outcomes.planned(planned, "cancelled")])


def _text_ends(to_read: Sequence[PlannedFile], index: int) -> bool:
    """Whether file ``index`` is the first one past the text (the plan reads text first)."""
    return (
        index > 0
        and cost_of(to_read[index - 1].kind) == Cost.TEXT
        and cost_of(to_read[index].kind) > Cost.TEXT
    )


def _settle(reading: Future[ExtractedDocument]) -> None:
    """Wait for a read no longer wanted (the run was cancelled, which stops it too)."""
    with contextlib.suppress(Stopped, ExtractionError):
        reading.result()
