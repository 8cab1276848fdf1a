"""The window's status bar: the open vault, how many memories and links it holds (the same
count as the library's All), how many decisions wait for review (a button that opens the
review dock, shown only when some wait), the work in progress (auto-lock waits while there is
some), and the graph server's state, which opens its settings when clicked.

The counts are read in a worker, once after a burst of writes (``STATS_DELAY_MS``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QStatusBar, QToolButton

from cairn.app.api import MemoryService, VaultStats
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session
from cairn.ui.settings.server_switch import GraphServerSwitch, ServerStatusLabel

STATS_DELAY_MS = 400  # several writes in a row refresh the counts once


def _vault_stats(service: MemoryService) -> VaultStats:
    return service.stats(scopes=service.scopes())


class WindowStatus(QObject):
    def __init__(
        self,
        bar: QStatusBar,
        session: Session,
        server_switch: GraphServerSwitch,
        open_server_settings: Callable[[], object],
    ) -> None:
        super().__init__(bar)
        self._session = session
        self.busy_text: str | None = None  # the work in progress, None when there is none
        self.vault_label = QLabel()
        self.vault_label.setAccessibleName("Vault")
        self.counts_label = QLabel()
        self.counts_label.setAccessibleName("What the vault holds")
        self.review_button = QToolButton()
        self.review_button.setAutoRaise(True)
        self.review_button.setAccessibleDescription("Opens the review panel")
        self.review_button.setToolTip("Open the review panel")
        self.review_button.setVisible(False)
        self.busy_label = QLabel()
        self.busy_label.setAccessibleName("Work in progress")
        self.server_label = ServerStatusLabel(server_switch)
        self.server_label.clicked.connect(open_server_settings)
        bar.addWidget(self.vault_label)
        bar.addWidget(self.counts_label)
        # On the right with the other lasting states: a normal widget shown while a message
        # is (the count changes as an ingest ends and says so) would be drawn over its words.
        bar.addPermanentWidget(self.review_button)
        bar.addPermanentWidget(self.busy_label)
        bar.addPermanentWidget(self.server_label)
        self.busy_label.setVisible(False)
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(STATS_DELAY_MS)
        self._later.timeout.connect(self.refresh_counts)
        session.changed.connect(self._later.start)

    def set_busy(self, text: str | None) -> None:
        """Show work in progress (None when it is done)."""
        self.busy_text = text
        self.busy_label.setText(text or "")
        self.busy_label.setVisible(text is not None)

    def set_waiting(self, count: int) -> None:
        """How many decisions wait in the review panel (hidden at none)."""
        self.review_button.setText(f"{count} waiting for review")
        self.review_button.setVisible(count > 0)

    def unlocked(self, name: str, where: str) -> None:
        self.vault_label.setText(name)
        self.vault_label.setToolTip(where)
        self.refresh_counts()

    def locked(self) -> None:
        self.vault_label.setText("Locked")
        self.vault_label.setToolTip("")
        self.counts_label.clear()

    def refresh_counts(self) -> None:
        service = self._session.service
        if service is None:
            return

        def counted(stats: VaultStats) -> None:
            if self._session.service is not service:
                return  # locked (or another vault opened) meanwhile
            # Every shelf, as the library's All counts them: the two always say the same.
            self.counts_label.setText(f"{stats.memories} memories · {stats.edges} links")

        call_in_worker(
            self, _vault_stats, service, on_done=counted, on_failed=self.counts_label.setText
        )
