"""Lock the vault when nobody has touched the computer for a while.

An application-wide event filter restarts a timer on every key press, click, wheel turn, touch
and mouse move in any of the app's windows; when the timer runs out the session locks (the
service closes, the key is dropped, the panels forget what they showed). While long work runs
(an ingest, a rebuild) the lock waits for it: closing the vault under a running worker would
make it fail half-way. It checks again shortly and locks as soon as the work is done. The lock
says why ("Locked after 10 minutes without use"), for the unlock screen.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer

from cairn.ui.base.session import Session

MS_PER_MINUTE = 60_000
MS_PER_SECOND = 1_000
BUSY_RECHECK_MS = 30_000

_INPUT_EVENTS = frozenset(
    {
        QEvent.Type.KeyPress,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseButtonDblClick,
        QEvent.Type.MouseMove,
        QEvent.Type.Wheel,
        QEvent.Type.TouchBegin,
        QEvent.Type.TabletPress,
    }
)


class AutoLock(QObject):
    def __init__(
        self,
        session: Session,
        minutes: int,
        is_busy: Callable[[], bool] = lambda: False,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self._is_busy = is_busy
        self._interval_ms = 0
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self._idle)
        self.set_minutes(minutes)
        app = QCoreApplication.instance()
        if app is not None:
            app.installEventFilter(self)
        session.unlocked.connect(self._unlocked)
        session.locked.connect(self.timer.stop)
        if session.is_open:
            self.restart()

    @property
    def interval_ms(self) -> int:
        return self._interval_ms

    def set_minutes(self, minutes: int) -> None:
        """Idle minutes before locking; 0 turns auto-lock off."""
        self.set_interval_ms(max(0, minutes) * MS_PER_MINUTE)

    def set_interval_ms(self, interval_ms: int) -> None:
        """The idle time in milliseconds (what ``set_minutes`` sets; tests use short ones)."""
        self._interval_ms = max(0, interval_ms)
        self.restart()

    def restart(self) -> None:
        if self._interval_ms and self.session.is_open:
            self.timer.start(self._interval_ms)
        else:
            self.timer.stop()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _INPUT_EVENTS and self.timer.isActive():
            self.timer.start(self._interval_ms)
        return False  # only watching: every event goes on to where it was going

    def stop_watching(self) -> None:
        app = QCoreApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        self.timer.stop()

    def _unlocked(self, _service: object) -> None:
        self.restart()

    def _idle(self) -> None:
        if not self.session.is_open:
            return
        if self._is_busy():
            self.timer.start(min(self._interval_ms, BUSY_RECHECK_MS))
            return
        self.session.lock(idle_reason(self._interval_ms))


def idle_reason(interval_ms: int) -> str:
    """Why the vault locked after ``interval_ms`` without use, as the unlock screen says it."""
    minutes, rest = divmod(interval_ms, MS_PER_MINUTE)
    if minutes and not rest:
        return f"Locked after {_count(minutes, 'minute')} without use"
    seconds = max(1, round(interval_ms / MS_PER_SECOND))  # the short times tests set
    return f"Locked after {_count(seconds, 'second')} without use"


def _count(number: int, unit: str) -> str:
    return f"{number} {unit}" if number == 1 else f"{number} {unit}s"
