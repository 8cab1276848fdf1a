"""Watched folders in the window: the watcher runs while the vault is unlocked, and the list is
shown with Add and Remove in the ingest panel and in Settings.

``FolderWatching`` starts the service's watcher at each unlock (which first catches up with
what changed while the vault was locked) and stops it before the vault locks. The watcher hands
its batches over on its own thread; they arrive here as a Qt signal, on the UI thread, and go
to the ingest panel, which runs each one like a drop (in a worker, in a child process, queued
while another run goes). Every service call runs in a worker (starting a watch walks the
folders).

``WatchedFoldersBox`` is the list: each folder with its scope, Add… and Remove, and a notice
for a folder that cannot be watched (gone, unreadable, the system's limit) saying what to do.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import MemoryService, WatchBatch, WatchedFolder
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session

Watched = tuple[list[WatchedFolder], list[WatchedFolder]]  # (listed, being watched)
ABOUT = (
    "Changes in these folders (new, edited, renamed, deleted files) are added a few seconds "
    "after they happen, while the vault is unlocked. A renamed or moved file keeps its memory; "
    "a deleted file's memory is kept. What changes while the vault is locked is added at the "
    "next unlock."
)


class FolderWatching(QObject):
    batch_arrived = Signal(object)  # a WatchBatch, on the UI thread
    problem = Signal(str)  # a folder that cannot be watched, on the UI thread
    folders_changed = Signal()  # the list, or what is being watched, changed

    def __init__(
        self, session: Session, run_batch: Callable[[WatchBatch], None], parent: QObject
    ) -> None:
        super().__init__(parent)
        self._session = session
        self.folders: list[WatchedFolder] = []
        self.watching: list[WatchedFolder] = []
        self.problems: list[str] = []
        self.batch_arrived.connect(run_batch)
        self.problem.connect(self._note_problem)
        session.unlocked.connect(self._start)
        session.about_to_lock.connect(self._stop)
        session.locked.connect(self._forget)

    # -- what the boxes call ------------------------------------------------------------------

    def add(self, path: str, scope: str = "personal") -> None:
        """Watch ``path`` and add what it holds now."""
        self._change(_add, path, scope)

    def remove(self, path: str) -> None:
        self._change(_remove, path)

    # -- the watcher --------------------------------------------------------------------------

    def _start(self, service: MemoryService) -> None:
        self.problems = []
        call_in_worker(
            self,
            _watch,
            service,
            self._hand_over,
            self._report,
            True,
            on_done=self._show,
            on_failed=self._note_problem,
        )

    def _change(self, step: Callable[..., WatchedFolder | None], *args: str) -> None:
        service = self._session.service
        if service is None:
            return
        self.problems = []

        def changed(result: tuple[WatchedFolder | None, Watched]) -> None:
            added, watched = result
            self._show(watched)
            if added is not None:  # what the new folder holds now: one run
                self.batch_arrived.emit(WatchBatch(added.scope, (added.path,), None))

        call_in_worker(
            self,
            _changed,
            service,
            step,
            args,
            self._hand_over,
            self._report,
            on_done=changed,
            on_failed=self._note_problem,
        )

    def _hand_over(self, batch: WatchBatch) -> None:
        # The watcher's thread: a queued signal carries it to the UI thread.
        if shiboken6.isValid(self):
            self.batch_arrived.emit(batch)

    def _report(self, message: str) -> None:
        if shiboken6.isValid(self):
            self.problem.emit(message)

    def _show(self, watched: Watched) -> None:
        if self._session.service is None:
            return
        self.folders, self.watching = watched
        self.folders_changed.emit()

    def _note_problem(self, message: str) -> None:
        if self._session.service is not None and message not in self.problems:
            self.problems.append(message)
            self.folders_changed.emit()

    def _stop(self) -> None:
        service = self._session.service
        if service is not None:
            service.stop_watching()  # the watcher's thread hands over nothing after this

    def _forget(self) -> None:
        self.folders, self.watching, self.problems = [], [], []
        self.folders_changed.emit()


def _watch(
    service: MemoryService,
    on_batch: Callable[[WatchBatch], None],
    on_problem: Callable[[str], None],
    catch_up: bool,
) -> Watched:
    """(worker) Start watching; the folders listed and those watched."""
    watching = service.start_watching(on_batch, on_problem, catch_up=catch_up)
    return service.watched_folders(), watching


def _changed(
    service: MemoryService,
    step: Callable[..., WatchedFolder | None],
    args: tuple[str, ...],
    on_batch: Callable[[WatchBatch], None],
    on_problem: Callable[[str], None],
) -> tuple[WatchedFolder | None, Watched]:
    """(worker) Change the list, then watch the new list (no catch-up: what the old watcher
    had not handed over yet is carried into the new one)."""
    added = step(service, *args)
    return added, _watch(service, on_batch, on_problem, False)


def merged_batches(waiting: WatchBatch | None, batch: WatchBatch) -> WatchBatch:
    """Two batches of one scope as one run: a folder caught up whole covers its changes."""
    if waiting is None:
        return batch
    folders = tuple(sorted({*waiting.folders, *batch.folders}))
    if waiting.changed is None or batch.changed is None:
        return WatchBatch(batch.scope, folders, None)
    return WatchBatch(batch.scope, folders, tuple(sorted({*waiting.changed, *batch.changed})))


def _add(service: MemoryService, path: str, scope: str) -> WatchedFolder | None:
    return service.watch_folder(path, scope=scope)[-1]


def _remove(service: MemoryService, path: str) -> WatchedFolder | None:
    service.unwatch_folder(path)
    return None


class WatchedFoldersBox(QWidget):
    """The watched folders, with Add… and Remove."""

    def __init__(self, watching: FolderWatching, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._watching = watching
        about = QLabel(ABOUT)
        about.setWordWrap(True)
        self.list = QListWidget()
        self.list.setAccessibleName("Watched folders")
        self.list.setMinimumHeight(60)
        self.notice = NoticeLabel()
        self.add_button = QPushButton("Add folder…")
        self.add_button.clicked.connect(self._choose)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Stop watching it; what was added from it is kept.")
        self.remove_button.clicked.connect(self._remove_chosen)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        column = QVBoxLayout(self)
        column.addWidget(about)
        column.addWidget(self.list, 1)
        column.addLayout(buttons)
        column.addWidget(self.notice)
        watching.folders_changed.connect(self._refresh)
        self.list.currentRowChanged.connect(lambda _: self._enable())
        self._refresh()

    def add_folder(self, path: str) -> None:
        self.notice.clear()
        self._watching.add(path)

    def shown(self) -> list[str]:
        """The rows' text, as shown."""
        return [self.list.item(i).text() for i in range(self.list.count())]

    def _choose(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Watch a folder", str(Path.home()))
        if chosen:
            self.add_folder(chosen)

    def _remove_chosen(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.notice.clear()
            self._watching.remove(str(item.data(Qt.ItemDataRole.UserRole)))

    def _refresh(self) -> None:
        self.list.clear()
        watched = {f.path for f in self._watching.watching}
        for folder in self._watching.folders:
            state = "watching" if folder.path in watched else "not watched now"
            item = QListWidgetItem(f"{folder.path}  ·  scope {folder.scope}  ·  {state}")
            item.setData(Qt.ItemDataRole.UserRole, folder.path)
            self.list.addItem(item)
        problems = self._watching.problems
        if problems:
            self.notice.show_error("\n".join(problems))
        else:
            self.notice.clear()
        self._enable()

    def _enable(self) -> None:
        self.remove_button.setEnabled(self.list.currentItem() is not None)
