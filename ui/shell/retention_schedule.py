"""The retention supervisor's pass on a schedule, while a vault is open in the window.

The first pass runs a minute after unlocking (not during the rush of opening), then every few
hours. Each pass runs in a worker. When it proposes or archives something new, the session's
``changed`` makes the review panel read its queue again. A pass that meets a busy vault (an
ingest writing) tries again a few minutes later; nothing is lost by waiting.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from cairn.app.api import MemoryService, PassReport
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session

FIRST_PASS_MS = 60_000
PASS_INTERVAL_MS = 4 * 3_600_000
RETRY_MS = 5 * 60_000


def _run_pass(service: MemoryService) -> PassReport:
    return service.run_retention()


class RetentionSchedule(QObject):
    passed = Signal(object)  # the PassReport of a pass that ran
    failed = Signal(str)

    def __init__(
        self, session: Session, parent: QObject | None = None, first_pass_ms: int = FIRST_PASS_MS
    ) -> None:
        super().__init__(parent)
        self._session = session
        self._first_pass_ms = first_pass_ms
        self._running = False
        self._shown: set[str] = set()  # proposals already announced this session
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.run_now)
        session.unlocked.connect(lambda _service: self._timer.start(self._first_pass_ms))
        session.locked.connect(self._stop)
        if session.service is not None:
            self._timer.start(self._first_pass_ms)

    @property
    def next_pass_in_ms(self) -> int:
        return self._timer.remainingTime() if self._timer.isActive() else -1

    def run_now(self) -> None:
        service = self._session.service
        if service is None or self._running:
            return
        self._running = True
        call_in_worker(self, _run_pass, service, on_done=self._done, on_failed=self._not_done)

    def _done(self, report: PassReport) -> None:
        self._running = False
        if self._session.service is None:
            return
        self._timer.start(PASS_INTERVAL_MS)
        fresh = {p.id for p in report.proposals} - self._shown
        self._shown |= fresh
        if fresh or report.archived or report.labelled:
            self._session.changed.emit()
        self.passed.emit(report)

    def _not_done(self, message: str) -> None:
        self._running = False
        if self._session.service is None:
            return
        self._timer.start(RETRY_MS)
        self.failed.emit(message)

    def _stop(self) -> None:
        self._timer.stop()
        self._shown.clear()
