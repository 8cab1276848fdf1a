"""Telling the window that an ingest run stored memories while it runs, so the library's
counts, the search list, the detail pane and the graph show the run's files as they arrive.

The session hears it (``session.changed``) at once, then at most once a ``CHANGED_EVERY_MS``:
a refresh is not free (the counts take about 0.3 s at 100,000 memories), so a run of thousands
of files is not a refresh per file. An announcement of anyone else's counts as one: the
shell's watch on other programs' writes also sees the run's child process, and the two never
refresh the window twice for the same writes.
"""

from __future__ import annotations

import math
import time

from PySide6.QtCore import QObject, QTimer

from cairn.ui.base.session import Session

CHANGED_EVERY_MS = 5000


class StoredAnnouncer(QObject):
    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._soon = QTimer(self)
        self._soon.setSingleShot(True)
        self._soon.timeout.connect(self.now)
        self._announced_at = -math.inf  # when session.changed was last announced, by anyone
        session.changed.connect(self._heard)

    def stored(self) -> None:
        """The run stored memories: announce it now, or once the last announcement is
        ``CHANGED_EVERY_MS`` old."""
        if self._soon.isActive():
            return
        wait_ms = CHANGED_EVERY_MS - (time.monotonic() - self._announced_at) * 1000
        if wait_ms <= 0:
            self.now()
        else:
            self._soon.start(int(wait_ms))

    def now(self) -> None:
        """Announce now (a run ended: even a stopped or failed one may have added files)."""
        self._soon.stop()
        if self._session.service is not None:
            self._session.changed.emit()

    def stop(self) -> None:
        """The vault locks: nothing is left to announce."""
        self._soon.stop()

    def _heard(self) -> None:
        """Someone announced ``session.changed``: what the run stored so far is covered."""
        self._announced_at = time.monotonic()
        self._soon.stop()
