"""The ingest panel: files and folders go in, and the person sees what happens to each one.

An ingest run can take minutes (a folder of PDFs, a recording to transcribe), so it runs in a
worker and the panel shows, as it goes: the file list (waiting, reading, added, failed) with the
file being read in bold, an overall bar by bytes with the files and bytes counted, the stage in
words, and a Stop button. Stopping takes effect between files: what was read before is kept,
and the summary says so. Failures are listed with their reason; failures of earlier runs are a
click away ("Show earlier failures").

Paths given while a run is going are queued, not refused: a person who drops a second folder
expects it to be added. They are read together in one run once the current run ends (and let
go, with a word, if the person stops the run or locks the vault).

After an unlock the panel shows the last run again, its files and summary (``view`` before the
lock, ``restore`` after); a run the lock stopped says so.

Watched folders (``watched_folders``) are listed below the runs; each batch of their changes
is a run of its own here, and batches that come while a run goes are merged into one.

The run's progress callback is called on the worker thread; its events arrive here as a Qt
signal, so widgets are only touched on the UI thread (STYLE 13, 14).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import (
    CancelToken,
    IngestProgress,
    IngestReport,
    IngestRequest,
    MemoryService,
    TrackedFile,
    WatchBatch,
)
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.preferences import Preferences
from cairn.ui.base.session import Session
from cairn.ui.ingest.rows import EarlierFailures, FileList, human_size, summarize
from cairn.ui.ingest.watched_folders import FolderWatching, WatchedFoldersBox

STAGE_WORDS = {
    "scanning": "Looking through the files",
    "reading": "Reading",
    "embedding": "Preparing for search:",
    "writing": "Saving to the vault",
    "linking": "Linking notes to each other",
    "done": "Finishing",
}
IDLE_TEXT = "Drop files or folders anywhere on the window, or use File › Add, to add them."
BAR_STEPS = 1000  # the bar counts thousandths: a byte count overflows a QProgressBar's int
STOPPED_BY_LOCK = (
    "The vault was locked while files were being added: what was saved before is kept. Add "
    "the same files again to finish; those already saved are skipped."
)


@dataclass(frozen=True)
class IngestView:
    """What the panel showed of the last run, to show again after an unlock: its summary and
    counts, the finished run's files and report, and whether a run was going when the vault
    locked."""

    summary: str
    counts: str
    run: tuple[list[Path], IngestReport] | None
    interrupted: bool


class IngestPanel(QWidget):
    open_requested = Signal(str)  # the Document id of a file the person double-clicked
    finished = Signal(object)  # the IngestReport of a run that ended
    busy_changed = Signal(object)  # str for the status bar while a run goes, None when idle
    progressed = Signal(object)  # each IngestProgress, on the UI thread

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._token: CancelToken | None = None
        self._run = 0  # which run the worker's signals belong to; a lock starts a new count
        self._running = False
        self._watched_run = False  # the run is a watched folder's batch, not a drop
        self._queue: list[str] = []
        self._batches: dict[str, WatchBatch] = {}  # by scope: watched changes waiting
        self.watching = FolderWatching(session, self.start_watched, self)
        self._scanned = 0
        self._busy_text: str | None = None
        self._roots: list[Path] = []  # the files and folders of the current run
        self._last_run: tuple[list[Path], IngestReport] | None = None  # the last one finished
        self._build()
        session.unlocked.connect(self._forget)
        session.about_to_lock.connect(self._stop_for_lock)
        session.locked.connect(self._on_locked)

    def _build(self) -> None:
        self._stage = QLabel(IDLE_TEXT)
        self._stage.setWordWrap(True)
        self._bar = QProgressBar()
        self._bar.setRange(0, BAR_STEPS)
        self._bar.setTextVisible(False)
        self._counts = QLabel("")
        self._cancel = QPushButton("Stop after this file")
        self._cancel.setToolTip("Keeps what was read so far; the rest can be added again later.")
        self._cancel.setEnabled(False)
        self._cancel.clicked.connect(self.cancel)
        self._waiting = QLabel("")
        self._files = FileList()
        self._files.open_requested.connect(self.open_requested)
        self._summary = QLabel("")
        self._summary.setWordWrap(True)
        self._summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._earlier_button = QPushButton("Show earlier failures")
        self._earlier_button.setCheckable(True)
        self._earlier_button.toggled.connect(self._toggle_earlier)
        self._earlier = EarlierFailures()
        self._earlier.open_requested.connect(self.open_requested)
        self._earlier.hide()

        top = QHBoxLayout()
        top.addWidget(self._bar, 1)
        top.addWidget(self._cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self._stage)
        layout.addLayout(top)
        layout.addWidget(self._counts)
        layout.addWidget(self._waiting)
        layout.addWidget(self._files, 2)
        layout.addWidget(self._summary)
        layout.addWidget(self._earlier_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self._earlier, 1)
        self.watched_box = WatchedFoldersBox(self.watching)
        layout.addWidget(QLabel("<b>Watched folders</b>"))
        layout.addWidget(self.watched_box)

    # -- what others call ---------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self._running

    @property
    def watched_run(self) -> bool:
        """Whether the current or last run was a watched folder's changes."""
        return self._watched_run

    def start(self, paths: list[str]) -> None:
        """Add files and folders; while a run goes, they wait for the next one."""
        paths = [str(p) for p in paths if str(p)]
        if not paths:
            return
        if self._session.service is None:
            self._summary.setText("Open your vault first, then add the files again.")
            return
        if self._running:
            self._queue.extend(p for p in paths if p not in self._queue)
            self._show_waiting()
            return
        self._begin(paths, self._session.service)

    def start_watched(self, batch: WatchBatch) -> None:
        """A watched folder's changes; while a run goes, merged with others waiting."""
        service = self._session.service
        if service is None:
            return
        if self._running:
            self._batches[batch.scope] = _merged(self._batches.get(batch.scope), batch)
            self._show_waiting()
            return
        self._begin(list(batch.folders), service, batch)

    def cancel(self) -> None:
        """Stop after the current file; what was read is kept. Files dropped meanwhile are let
        go. A watched folder's changes waiting still run after a drop is stopped: the person
        stopped the files they dropped, and the watcher will not hand those changes over
        again before the next unlock. Stopping a watched run lets them go too."""
        if not self._running or self._token is None:
            return
        self._token.cancel()
        self._cancel.setEnabled(False)
        dropped = len(self._queue) + (len(self._batches) if self._watched_run else 0)
        self._queue.clear()
        if self._watched_run:
            self._batches.clear()
        self._show_waiting()
        note = f" The {dropped} waiting to be added next were let go." if dropped else ""
        self._stage.setText(f"Stopping after the current file…{note}")

    def file_rows(self) -> dict[str, tuple[str, str]]:
        """Each file of the run shown: path → (state code, details); codes as in
        ``ingest_rows.ROW_WORDS`` (queued, reading, done, failed, cancelled...)."""
        return self._files.rows()

    def earlier_failures(self) -> list[tuple[str, str]]:
        """(path, reason) of the earlier failures shown."""
        return self._earlier.failures()

    @property
    def summary_text(self) -> str:
        return self._summary.text()

    @property
    def stage_text(self) -> str:
        return self._stage.text()

    @property
    def counts_text(self) -> str:
        """The files and bytes done, as shown under the bar."""
        return self._counts.text()

    def view(self) -> IngestView:
        """The last run as shown, for ``restore`` after an unlock."""
        counts = "" if self._running else self._counts.text()
        return IngestView(self._summary.text(), counts, self._last_run, self._running)

    def restore(self, view: IngestView) -> None:
        """Show the last run again, unless a run already started (a watched folder's)."""
        if self._running:
            return
        if view.run is not None:
            roots, report = view.run
            self._last_run = view.run
            self._files.begin_run(roots)
            self._files.apply(report)
            self._bar.setValue(BAR_STEPS)
            self._stage.setText("Stopped." if report.cancelled else "Done.")
            self._counts.setText(view.counts)
        summary = f"{STOPPED_BY_LOCK} {view.summary}" if view.interrupted else view.summary
        self._summary.setText(summary.strip())

    @property
    def waiting_text(self) -> str:
        """What waits for the current run to end, as shown ("" when nothing does)."""
        return self._waiting.text()

    # -- a run --------------------------------------------------------------------------------

    def _begin(
        self, paths: list[str], service: MemoryService, batch: WatchBatch | None = None
    ) -> None:
        self._forget()
        self._roots = [Path(p).expanduser().resolve() for p in paths]
        self._files.begin_run(self._roots)
        self._run += 1
        run = self._run
        self._running = True
        self._watched_run = batch is not None
        self._token = CancelToken()
        self._cancel.setEnabled(True)
        self._bar.setRange(0, 0)  # busy until the files are counted
        self._stage.setText(STAGE_WORDS["scanning"] + "…")
        if batch is None:
            self._set_busy(f"Adding {len(paths)} {'item' if len(paths) == 1 else 'items'}…")
        else:
            self._set_busy("Adding changes in watched folders…")
        languages, whisper = extraction_preferences()
        request = IngestRequest.of(
            paths,
            scope=batch.scope if batch else "personal",
            ocr_languages=languages,
            whisper_model_dir=whisper,
            changed=batch.changed if batch else None,
        )
        call_in_worker(
            self,
            service.ingest,
            request,
            on_progress=lambda event: self._on_progress(run, event),
            on_done=lambda report: self._on_done(run, report),
            on_failed=lambda message: self._on_failed(run, message),
            cancel=self._token,
            separate_process=True,  # off the window's interpreter lock: see ingest_process
        )

    def _on_progress(self, run: int, event: IngestProgress) -> None:
        if not shiboken6.isValid(self) or run != self._run:
            return  # the panel is gone, or the person locked the run away
        self.progressed.emit(event)
        stage = event.stage
        if stage == "scanning":
            self._scanned += 1
            if event.current:
                self._files.found(event.current)
            if not self._stopping:
                total = event.files_total
                self._stage.setText(f"{STAGE_WORDS['scanning']}: {self._scanned} of {total}")
            return
        if stage == "reading" and event.current:
            self._files.reading(event.current)
        elif stage == "embedding":
            self._files.embedding()
        elif stage in ("writing", "linking", "done"):
            self._files.settle_current()
        if not self._stopping:  # else keep saying that it is stopping
            name = Path(event.current).name if event.current else ""
            self._stage.setText(f"{STAGE_WORDS.get(stage, stage)} {name}".strip())
        self._show_counts(event)

    @property
    def _stopping(self) -> bool:
        return self._token is not None and self._token.cancelled

    def _on_done(self, run: int, report: IngestReport) -> None:
        if run != self._run:
            return
        self._files.apply(report)
        self._last_run = (self._roots, report)
        self._bar.setRange(0, BAR_STEPS)
        self._bar.setValue(BAR_STEPS)
        self._stage.setText("Stopped." if report.cancelled else "Done.")
        self._summary.setText(summarize(report))
        self._end_run()
        self.finished.emit(report)
        self._start_queued()

    def _on_failed(self, run: int, message: str) -> None:
        if run != self._run:
            return
        self._files.settle_current()
        self._bar.setRange(0, BAR_STEPS)
        self._stage.setText("The run stopped.")
        self._summary.setText(
            f"{message} The files saved before it stopped are kept; add the rest again."
        )
        self._end_run()
        self._start_queued()

    def _end_run(self) -> None:
        self._running = False
        self._token = None
        self._cancel.setEnabled(False)
        self._set_busy(None)
        self._session.changed.emit()  # even a stopped or failed run may have added files
        if self._earlier_button.isChecked():
            self._load_earlier()

    def _start_queued(self) -> None:
        service = self._session.service
        if service is None or self._running or not (self._queue or self._batches):
            return
        summary = self._summary.text()
        if self._queue:
            queued, self._queue = self._queue, []
            self._show_waiting()
            self._begin(queued, service)
        else:
            scope = min(self._batches)
            batch = self._batches.pop(scope)
            self._show_waiting()
            self._begin(list(batch.folders), service, batch)
        self._summary.setText(f"Last run: {summary}")

    # -- labels -------------------------------------------------------------------------------

    def _show_counts(self, event: IngestProgress) -> None:
        if event.bytes_total > 0:
            self._bar.setRange(0, BAR_STEPS)
            self._bar.setValue(min(BAR_STEPS, event.bytes_done * BAR_STEPS // event.bytes_total))
        elif event.files_total > 0:
            self._bar.setRange(0, BAR_STEPS)
            self._bar.setValue(event.files_done * BAR_STEPS // event.files_total)
        self._counts.setText(
            f"{event.files_done} of {event.files_total} files done · "
            f"{human_size(event.bytes_done)} of {human_size(event.bytes_total)}"
        )
        self._set_busy(f"Adding files: {event.files_done} of {event.files_total} done")

    def _show_waiting(self) -> None:
        waiting = len(self._queue) + len(self._batches)
        self._waiting.setText(
            f"{waiting} more {'item' if waiting == 1 else 'items'} will be added when this "
            "run ends."
            if waiting
            else ""
        )

    def _set_busy(self, text: str | None) -> None:
        if text != self._busy_text:
            self._busy_text = text
            self.busy_changed.emit(text)

    # -- earlier failures ---------------------------------------------------------------------

    def _toggle_earlier(self, shown: bool) -> None:
        self._earlier.setVisible(shown)
        self._earlier_button.setText("Hide earlier failures" if shown else "Show earlier failures")
        if shown:
            self._load_earlier()

    def _load_earlier(self) -> None:
        service = self._session.service
        if service is None:
            return
        call_in_worker(
            self,
            failed_sources,
            service,
            on_done=self._show_earlier,
            on_failed=self._show_earlier_error,
        )

    def _show_earlier(self, rows: list[TrackedFile]) -> None:
        if self._session.service is not None and self._earlier_button.isChecked():
            self._earlier.show_rows(rows)

    def _show_earlier_error(self, message: str) -> None:
        if self._session.service is not None and self._earlier_button.isChecked():
            self._earlier.show_error(message)

    # -- the session --------------------------------------------------------------------------

    def _forget(self, *_: object) -> None:
        """Clear what the last run showed (file names are the person's, like memories)."""
        self._files.begin_run([])
        self._last_run = None
        self._scanned = 0
        self._counts.setText("")
        self._summary.setText("")
        self._bar.setRange(0, BAR_STEPS)
        self._bar.setValue(0)
        self._stage.setText(IDLE_TEXT)

    def _stop_for_lock(self) -> None:
        # Stop before the vault closes: the run ends after its current file, and what it
        # committed is kept; the batch being written finishes (the vault waits for it).
        if self._token is not None:
            self._token.cancel()

    def _on_locked(self) -> None:
        if self._token is not None:
            self._token.cancel()
        self._run += 1  # what the locked run still sends is not shown
        self._running = False
        self._token = None
        self._queue.clear()
        self._batches.clear()
        self._show_waiting()
        self._cancel.setEnabled(False)
        self._forget()
        self._earlier.clear()
        self._earlier_button.setChecked(False)
        self._set_busy(None)


def _merged(waiting: WatchBatch | None, batch: WatchBatch) -> WatchBatch:
    """Two batches of one scope as one run: a folder caught up whole covers its changes."""
    if waiting is None:
        return batch
    folders = tuple(sorted({*waiting.folders, *batch.folders}))
    if waiting.changed is None or batch.changed is None:
        return WatchBatch(batch.scope, folders, None)
    return WatchBatch(batch.scope, folders, tuple(sorted({*waiting.changed, *batch.changed})))


def failed_sources(service: MemoryService) -> list[TrackedFile]:
    """Files that failed in any run, in every scope the vault has (worker side)."""
    return service.sources(scopes=service.scopes(), states=["failed"])


def extraction_preferences() -> tuple[list[str] | None, str | None]:
    """OCR languages and a Whisper model folder from this machine's preferences (read at each
    run, so a change in Settings applies to the next run)."""
    preferences = Preferences()
    return preferences.ocr_languages() or None, preferences.whisper_model_dir()
