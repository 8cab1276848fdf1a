"""What other programs write shows in the open window: ``cairn add``, ``cairn watch run``, an
import, or the window's own ingest run in its child process.

About once a second, while the vault is unlocked, a worker asks the service whether another
program committed since the last look (``MemoryService.changed_elsewhere``: a few microseconds,
the same at any vault size, and the window's own writes do not count). When one did, it
announces ``session.changed``, which the library, the search list, the detail pane, the graph,
the review panel and the status bar already follow after the window's own writes; by then the
vector index has taken in the other program's vectors, so its memories are found by meaning.

A refresh is not free (the counts take about 0.3 s at 100,000 memories), so while another
program writes without pause (an ingest, in a terminal or the window's own child) the window
refreshes at its first write, then at most every ``BUSY_REFRESH_MS``, and once more as soon as
the writing stops: a single ``cairn add`` shows at once, a long run does not keep the window
busy refreshing.

The question runs on a pool of its own, one thread: it never waits behind an ingest or an
export that holds the shared pool's threads, and it never takes one from a search. One question
is asked at a time. Polling stops when the vault is about to lock (and so when the window
closes) and starts again at the next unlock.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal

from cairn.app.api import MemoryService
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session

POLL_MS = 1_000  # what another program writes shows within about two seconds
BUSY_REFRESH_MS = 5_000  # while another program keeps writing, a refresh this often


class OutsideChanges(QObject):
    noticed = Signal()  # another program's write was announced as ``session.changed``
    problem = Signal(str)  # the question failed: the sentence, once until it works again

    def __init__(
        self,
        session: Session,
        parent: QObject | None = None,
        interval_ms: int = POLL_MS,
        busy_refresh_ms: int = BUSY_REFRESH_MS,
    ) -> None:
        super().__init__(parent)
        self._session = session
        self._asking: MemoryService | None = None  # the service a question in flight asks
        self._problem = ""
        self._busy_refresh_s = busy_refresh_ms / 1000
        self._last_refresh = -float("inf")  # monotonic seconds of the last announcement
        self._held_back = False  # a change seen but not yet announced (writing goes on)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.poll)
        session.unlocked.connect(self._start)
        session.about_to_lock.connect(self.stop)
        session.locked.connect(self.stop)
        if session.is_open:
            self._start()

    @property
    def polling(self) -> bool:
        return self.timer.isActive()

    def poll(self) -> None:
        """Ask once now (the timer asks every ``POLL_MS``), unless a question is on its way."""
        service = self._session.service
        if service is None or self._asking is not None:
            return
        self._asking = service
        call_in_worker(
            self,
            service.changed_elsewhere,
            on_done=lambda changed: self._answered(service, changed),
            on_failed=lambda text: self._failed(service, text),
            pool=self._pool,
        )

    def stop(self) -> None:
        self.timer.stop()

    def wait_for_question(self, timeout_ms: int = 5_000) -> bool:
        """Wait for a question in flight to end (the window's close; tests)."""
        return self._pool.waitForDone(timeout_ms)

    def _start(self, *_: object) -> None:
        self._problem = ""
        self._held_back = False
        self._last_refresh = -float("inf")
        self.timer.start()

    def _answered(self, service: MemoryService, changed: bool) -> None:
        self._asking = None
        if service is not self._session.service:
            return  # locked (or another vault opened) while it was asked: not this one's news
        self._problem = ""
        now = time.monotonic()
        if changed and now - self._last_refresh < self._busy_refresh_s:
            self._held_back = True  # still writing: announced when it stops, or in a while
        elif changed or self._held_back:
            self._held_back = False
            self._last_refresh = now
            self._session.changed.emit()
            self.noticed.emit()

    def _failed(self, service: MemoryService, text: str) -> None:
        self._asking = None
        if service is not self._session.service or text == self._problem:
            return  # a closed vault answers that it is closed; a lasting failure is told once
        self._problem = text
        self.problem.emit(text)
