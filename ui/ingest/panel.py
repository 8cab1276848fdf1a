"""The ingest panel: files and folders go in, and the person sees what happens to each one.

An ingest run can take minutes (a folder of PDFs, a recording to transcribe), so it runs in a
worker and the panel shows, as it goes: the file list, each row saying what is happening to
that file now (waiting, reading page 12 of 80, transcribing 03:10 of 41:00, saving) and then
what came of it (added, failed and why, not read); a bar by bytes with the files and bytes
counted and, once the run can tell it honestly, the time left; the stage in words; and Stop.
The run reads text first, pictures and recordings last, and saves as it goes: the library
grows while it runs (``announce`` tells the session what the run stored).

Stop says "Stopping…" at once: the file being read is let go, what was read is kept, and the
files not read say so. A run that did not finish (stopped, or cut short by a lock or a crash)
is offered again (``resume``), after an unlock too. Failures are listed with their reason;
failures of earlier runs are a click away (``earlier``).

Paths given while a run is going are queued, not refused: a person who drops a second folder
expects it to be added. They are read together in one run once the current run ends (and let
go, with a word, if the person stops the run or locks the vault).

After an unlock the panel shows the last run again, its files and summary (``view`` before the
lock, ``restore`` after); a run the lock stopped says so, and Resume is offered for it.

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
    WatchBatch,
)
from cairn.ui.base.notify import QuietLine
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.preferences import Preferences
from cairn.ui.base.session import Session
from cairn.ui.ingest.announce import StoredAnnouncer
from cairn.ui.ingest.earlier import EarlierFailuresBox
from cairn.ui.ingest.resume import ResumeBar
from cairn.ui.ingest.rows import FileList
from cairn.ui.ingest.watched_folders import FolderWatching, WatchedFoldersBox, merged_batches
from cairn.ui.ingest.words import STAGE_WORDS, human_size, stage_line, summarize, time_left

IDLE_TEXT = "Drop files or folders anywhere on the window, or use File › Add, to add them."
BAR_STEPS = 1000  # the bar counts thousandths: a byte count overflows a QProgressBar's int
STOP_TEXT = "Stop"
STOPPED_BY_LOCK = (
    "The vault was locked while files were being added: what was saved before is kept, and "
    "Resume adds the rest."
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
    bar: int = 0  # how far the bar was, in BAR_STEPS: a stopped run's is not full


class IngestPanel(QWidget):
    open_requested = Signal(str)  # the Document id of a file the person double-clicked
    finished = Signal(object)  # the IngestReport of a run that ended
    busy_changed = Signal(object)  # str for the status bar while a run goes, None when idle
    progressed = Signal(object)  # each IngestProgress, on the UI thread, once it is shown

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
        self._last: IngestProgress | None = None  # the run's last event
        self._announcer = StoredAnnouncer(session, self)
        self._build()
        session.unlocked.connect(self._on_unlocked)
        session.about_to_lock.connect(self._stop_for_lock)
        session.locked.connect(self._on_locked)
        if session.service is not None:
            self.resume_bar.refresh()

    def _build(self) -> None:
        self._stage = QLabel(IDLE_TEXT)
        self._stage.setWordWrap(True)
        self._bar = QProgressBar()
        self._bar.setRange(0, BAR_STEPS)
        self._bar.setTextVisible(False)
        self._bar.setAccessibleName("Progress of adding files")
        self._counts = QuietLine()
        self._cancel = QPushButton(STOP_TEXT)
        self._cancel.setAccessibleName("Stop adding files")
        self._cancel.setToolTip(
            "Stops now: the file being read is let go, what was read is kept, and Resume adds "
            "the rest later."
        )
        self._cancel.setEnabled(False)
        self._cancel.clicked.connect(self.cancel)
        self._waiting = QuietLine()
        self._files = FileList()
        self._files.open_requested.connect(self.open_requested)
        self._summary = QuietLine()
        self._summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.resume_bar = ResumeBar(self._session, lambda: self._running)
        self.resume_bar.resume_requested.connect(self.resume)
        self._earlier = EarlierFailuresBox(self._session)
        self._earlier.open_requested.connect(self.open_requested)

        top = QHBoxLayout()
        top.addWidget(self._bar, 1)
        top.addWidget(self._cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self._stage)
        layout.addLayout(top)
        layout.addWidget(self._counts)
        layout.addWidget(self._waiting)
        # What a run came to, and the offer to resume it, above its list of files: in a
        # short dock a long list would push them out of sight.
        layout.addWidget(self._summary)
        layout.addWidget(self.resume_bar)
        layout.addWidget(self._files, 2)
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
            self._batches[batch.scope] = merged_batches(self._batches.get(batch.scope), batch)
            self._show_waiting()
            return
        self._begin(list(batch.folders), service, batch=batch)

    def resume(self, request: IngestRequest | None = None) -> None:
        """Run again a run that did not finish (the one offered, unless ``request``)."""
        request = request or self.resume_bar.offered
        service = self._session.service
        if request is None or service is None or self._running:
            return
        self.resume_bar.clear()
        self._begin(list(request.paths), service, scope=request.scope)

    def cancel(self) -> None:
        """Stop now: the file being read is let go, what was read is kept, and the rest can be
        resumed. Files dropped meanwhile are let go. A watched folder's changes waiting still
        run after a drop is stopped: the person stopped the files they dropped, and the
        watcher will not hand those changes over again before the next unlock. Stopping a
        watched run lets them go too."""
        if not self._running or self._token is None:
            return
        self._token.cancel()
        self._cancel.setEnabled(False)
        self._cancel.setText("Stopping…")
        dropped = len(self._queue) + (len(self._batches) if self._watched_run else 0)
        self._queue.clear()
        if self._watched_run:
            self._batches.clear()
        self._show_waiting()
        note = f" The {dropped} waiting to be added next were let go." if dropped else ""
        self._stage.setText(f"Stopping…{note}")
        self._set_busy("Stopping…")
        if self._last is not None:  # no time left is said of a run that is stopping
            self._show_counts(self._last, final=True)

    def file_rows(self) -> dict[str, tuple[str, str]]:
        """Each file of the run shown: path → (state code, details); codes as in
        ``rows.ROW_WORDS`` (queued, reading, saving, done, failed, cancelled...)."""
        return self._files.rows()

    def file_states(self) -> dict[str, str]:
        """Each file of the run shown: path → the words of its State column."""
        return self._files.state_texts()

    def earlier_failures(self) -> list[tuple[str, str]]:
        """(path, reason) of the earlier failures shown."""
        return self._earlier.list.failures()

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
        return IngestView(
            self._summary.text(), counts, self._last_run, self._running, self._bar.value()
        )

    def restore(self, view: IngestView) -> None:
        """Show the last run again, unless a run already started (a watched folder's)."""
        if self._running:
            return
        if view.run is not None:
            roots, report = view.run
            self._last_run = view.run
            self._files.begin_run(roots)
            self._files.apply(report)
            self._bar.setValue(view.bar)
            self._stage.setText("Stopped." if report.cancelled else "Done.")
            self._counts.setText(view.counts)
        summary = f"{STOPPED_BY_LOCK} {view.summary}" if view.interrupted else view.summary
        self._summary.setText(summary.strip())

    @property
    def waiting_text(self) -> str:
        """What waits for the current run to end, as shown ("" when nothing does)."""
        return self._waiting.text()

    @property
    def bar_value(self) -> float:
        """How full the bar is, from 0 to 1."""
        return self._bar.value() / BAR_STEPS if self._bar.maximum() else 0.0

    # -- a run --------------------------------------------------------------------------------

    def _begin(
        self,
        paths: list[str],
        service: MemoryService,
        *,
        scope: str = "personal",
        batch: WatchBatch | None = None,
    ) -> None:
        self._forget()
        self.resume_bar.clear()
        self._roots = [Path(p).expanduser().resolve() for p in paths]
        self._files.begin_run(self._roots)
        self._run += 1
        run = self._run
        self._running = True
        self._watched_run = batch is not None
        self._token = CancelToken()
        self._cancel.setText(STOP_TEXT)
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
            scope=batch.scope if batch else scope,
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
        if event.stage == "scanning":
            self._scanned += 1
            if event.current:
                self._files.found(event.current)
            if not self._stopping:
                total = event.files_total
                self._stage.setText(f"{STAGE_WORDS['scanning']}: {self._scanned} of {total}")
            self.progressed.emit(event)
            return
        self._files.show_event(event)
        self._files.settle(event.settled)
        if event.stored:
            self._announcer.stored()
        if not self._stopping:  # else keep saying that it is stopping
            self._stage.setText(stage_line(event))
        self._last = event
        self._show_counts(event)
        self.progressed.emit(event)  # after the panel shows it, so a listener sees it shown

    @property
    def _stopping(self) -> bool:
        return self._token is not None and self._token.cancelled

    def _on_done(self, run: int, report: IngestReport) -> None:
        if run != self._run:
            return
        self._files.apply(report)
        self._last_run = (self._roots, report)
        if not report.cancelled:  # a stopped run's bar stays where the run got to
            self._bar.setRange(0, BAR_STEPS)
            self._bar.setValue(BAR_STEPS)
        self._stage.setText("Stopped." if report.cancelled else "Done.")
        self._summary.setText(summarize(report, resumable=not self._watched_run))
        self._end_run()
        self.finished.emit(report)
        self._start_queued()

    def _on_failed(self, run: int, message: str) -> None:
        if run != self._run:
            return
        self._files.interrupted()
        self._bar.setRange(0, BAR_STEPS)
        self._stage.setText("The run stopped.")
        rest = (
            "the watcher adds the rest when the vault is next unlocked"
            if self._watched_run
            else "Resume adds the rest"
        )
        self._summary.setText(f"{message} The files saved before it stopped are kept; {rest}.")
        self._end_run()
        self._start_queued()

    def _end_run(self) -> None:
        self._running = False
        self._token = None
        self._cancel.setText(STOP_TEXT)
        self._cancel.setEnabled(False)
        self._set_busy(None)
        if self._last is not None:
            self._show_counts(self._last, final=True)
        self._announcer.now()  # even a stopped or failed run may have added files
        self._earlier.refresh()
        if not (self._queue or self._batches):
            self.resume_bar.refresh()

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
            self._begin(list(batch.folders), service, batch=batch)
        self._summary.setText(f"Last run: {summary}")

    # -- labels -------------------------------------------------------------------------------

    def _show_counts(self, event: IngestProgress, *, final: bool = False) -> None:
        """The bar and the counts of ``event``; ``final``: the run has ended, so the counts
        stay as it left them, without a time left."""
        if not final:
            self._show_bar(event)
        left = "" if final or self._stopping else time_left(event.seconds_left)
        self._counts.setText(
            f"{event.files_done} of {event.files_total} files done · "
            f"{human_size(event.bytes_done)} of {human_size(event.bytes_total)}"
            + (f" · {left}" if left else "")
        )
        if not final and not self._stopping:
            done = f"Adding files: {event.files_done} of {event.files_total} done"
            self._set_busy(f"{done}, {left}" if left else done)

    def _show_bar(self, event: IngestProgress) -> None:
        if event.bytes_total > 0:
            self._bar.setRange(0, BAR_STEPS)
            self._bar.setValue(min(BAR_STEPS, event.bytes_done * BAR_STEPS // event.bytes_total))
        elif event.files_total > 0:
            self._bar.setRange(0, BAR_STEPS)
            self._bar.setValue(event.files_done * BAR_STEPS // event.files_total)

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

    # -- the session --------------------------------------------------------------------------

    def _forget(self, *_: object) -> None:
        """Clear what the last run showed (file names are the person's, like memories)."""
        self._files.begin_run([])
        self._last_run = None
        self._scanned = 0
        self._last = None
        self._counts.setText("")
        self._summary.setText("")
        self._bar.setRange(0, BAR_STEPS)
        self._bar.setValue(0)
        self._stage.setText(IDLE_TEXT)

    def _on_unlocked(self, *_: object) -> None:
        self._forget()
        self.resume_bar.refresh()  # a run the lock cut short is offered again

    def _stop_for_lock(self) -> None:
        # Stop before the vault closes: the file being read is let go, and what the run
        # committed is kept; the batch being written finishes (the vault waits for it). The
        # vault keeps the run as unfinished, and the next unlock offers to resume it.
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
        self._announcer.stop()
        self._show_waiting()
        self._cancel.setText(STOP_TEXT)
        self._cancel.setEnabled(False)
        self._forget()
        self.resume_bar.clear()
        self._earlier.clear()
        self._set_busy(None)


def extraction_preferences() -> tuple[list[str] | None, str | None]:
    """OCR languages and a Whisper model folder from this machine's preferences (read at each
    run, so a change in Settings applies to the next run)."""
    preferences = Preferences()
    return preferences.ocr_languages() or None, preferences.whisper_model_dir()
