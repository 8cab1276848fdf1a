"""The open vault of a window: the ``MemoryService`` while unlocked, nothing while locked.

Opening and creating run in a worker (deriving the key and loading the model take about a
second); ``unlocked`` and ``locked`` tell the panels to fill themselves or to forget what they
show. Locking closes the service, which closes the connections and drops the key.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from cairn.app import compose
from cairn.app.service import MemoryService
from cairn.ui.workers import Task, run_in_worker


class Session(QObject):
    unlocked = Signal(object)  # the MemoryService
    locked = Signal()
    failed = Signal(str)  # opening or creating failed: the sentence to show
    changed = Signal()  # memories were written (a panel may refresh its counts)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.service: MemoryService | None = None
        self.path: Path | None = None

    @property
    def is_open(self) -> bool:
        return self.service is not None

    def open(self, path: Path, passphrase: str) -> Task:
        return self._start(compose.open_vault, path, passphrase)

    def create(self, path: Path, passphrase: str) -> Task:
        path.parent.mkdir(parents=True, exist_ok=True)
        return self._start(compose.create_vault, path, passphrase)

    def lock(self) -> None:
        service, self.service = self.service, None
        if service is not None:
            service.close()
            self.locked.emit()

    def _start(self, opener: object, path: Path, passphrase: str) -> Task:
        task = run_in_worker(opener, path, passphrase)  # type: ignore[arg-type]

        def opened(service: MemoryService) -> None:
            self.lock()
            self.service, self.path = service, path
            self.unlocked.emit(service)

        task.signals.done.connect(opened)
        task.signals.failed.connect(self.failed.emit)
        return task
