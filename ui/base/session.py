"""The open vault of a window: the ``MemoryService`` while unlocked, nothing while locked.

Opening and creating run in a worker (deriving the key and loading the model take about a
second); ``unlocked`` and ``locked`` tell the panels to fill themselves or to forget what they
show. A passphrase that does not open the vault is ``wrong_passphrase`` (a slip to type again,
said plainly by the unlock screen), any other failure ``failed``. The vector index goes on
loading after ``unlocked`` (searches answer from the words until then, and say so);
``vectors_loaded`` says when it is in. Locking closes the service, which
closes the connections and drops the key; ``lock_reason`` says why it locked, for the unlock
screen (idle time, Ctrl+L), and is empty when it did not lock on its own or by the person's
asking (another vault opened, the window closed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from cairn.app import api
from cairn.app.api import MemoryService, WrongPassphrase
from cairn.ui.base.workers import Task, run_in_worker


class UndoRecorder(Protocol):
    """What a panel records for Edit › Undo once an act of the person's succeeded
    (``undoable.UndoHistory`` is the window's)."""

    def record_link(self, src: str, dst: str, edge_type: str, other_title: str) -> None: ...

    def record_archive(self, node_id: str, title: str, *, archived: bool) -> None: ...

    def record_edit(
        self,
        old_id: str,
        new_id: str,
        title: str,
        body: str,
        attrs: Mapping[str, Any] | None = None,
    ) -> None: ...

    def record_merge(self, item_id: str, folded_title: str, kept_title: str) -> None: ...

    def record_unlink(self, src: str, dst: str, edge_type: str, other_title: str) -> None: ...

    def record_discard(self, item_id: str, what: str) -> None: ...


@dataclass(frozen=True)
class Refused:
    """An open the passphrase did not unlock, as a worker answers it (not an error: a typo)."""

    explanation: str  # the vault's own sentence: what else looks the same, what to do


def _refusing(opener: Callable[..., MemoryService]) -> Callable[..., MemoryService | Refused]:
    def open_it(path: Path, passphrase: str) -> MemoryService | Refused:
        try:
            return opener(path, passphrase)
        except WrongPassphrase as refused:
            return Refused(str(refused))

    return open_it


class Session(QObject):
    unlocked = Signal(object)  # the MemoryService
    about_to_lock = Signal()  # work in flight should stop: the service closes next
    locked = Signal()
    failed = Signal(str)  # opening or creating failed: the sentence to show
    wrong_passphrase = Signal(str)  # the passphrase did not open it: the vault's explanation
    changed = Signal()  # memories were written (a panel may refresh its counts)
    vectors_loaded = Signal()  # the open vault's vector index finished loading

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.service: MemoryService | None = None
        self.path: Path | None = None
        self.lock_reason = ""  # why the vault last locked, in words; cleared by an unlock
        # Where panels record what a person may take back (Edit › Undo); the window sets it.
        self.undo_history: UndoRecorder | None = None

    @property
    def is_open(self) -> bool:
        return self.service is not None

    def open(self, path: Path, passphrase: str) -> Task:
        return self._start(partial(api.open_vault, vectors_in_background=True), path, passphrase)

    def create(self, path: Path, passphrase: str) -> Task:
        path.parent.mkdir(parents=True, exist_ok=True)
        return self._start(api.create_vault, path, passphrase)

    def lock(self, reason: str = "") -> None:
        """Close the service: its connections close and the key is wiped. A write in flight
        (an ingest batch) finishes its transaction first; the vault waits for it. ``reason``
        is what the unlock screen says about it (no memory text: it is shown while locked)."""
        if self.service is None:
            return
        self.lock_reason = reason
        self.about_to_lock.emit()
        service, self.service = self.service, None
        service.close()
        self.locked.emit()

    def _start(self, opener: Callable[..., MemoryService], path: Path, passphrase: str) -> Task:
        def opened(service: MemoryService | Refused) -> None:
            if isinstance(service, Refused):
                self.wrong_passphrase.emit(service.explanation)
                return
            self.lock()
            self.service, self.path = service, path
            self.lock_reason = ""
            self.unlocked.emit(service)
            if service.vectors_loading:
                run_in_worker(service.wait_for_vectors, on_done=lambda _: loaded(service))

        def loaded(service: MemoryService) -> None:
            if self.service is service:  # not locked (or reopened) meanwhile
                self.vectors_loaded.emit()

        return run_in_worker(
            _refusing(opener), path, passphrase, on_done=opened, on_failed=self.failed.emit
        )
