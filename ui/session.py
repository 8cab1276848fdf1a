"""The open vault of a window: the ``MemoryService`` while unlocked, nothing while locked.

Opening and creating run in a worker (deriving the key and loading the model take about a
second); ``unlocked`` and ``locked`` tell the panels to fill themselves or to forget what they
show. Locking closes the service, which closes the connections and drops the key.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from cairn.app import compose
from cairn.app.service import MemoryService
from cairn.ui.workers import Task, run_in_worker


class Session(QObject):
    unlocked = Signal(object)  # the MemoryService
    about_to_lock = Signal()  # work in flight should stop: the service closes next
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
        """Close the service: its connections close and the key is wiped. A write in flight
        (an ingest batch) finishes its transaction first; the vault waits for it."""
        if self.service is None:
            return
        self.about_to_lock.emit()
        service, self.service = self.service, None
        service.close()
        self.locked.emit()

    def _start(self, opener: Callable[..., MemoryService], path: Path, passphrase: str) -> Task:
        def opened(service: MemoryService) -> None:
            self.lock()
            self.service, self.path = service, path
            self.unlocked.emit(service)

        return run_in_worker(opener, path, passphrase, on_done=opened, on_failed=self.failed.emit)
