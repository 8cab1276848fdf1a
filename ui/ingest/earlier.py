"""The failures of earlier runs, a click away below the ingest panel's runs: each file that
failed in any run and scope, why, and when (``service.sources(states=["failed"])``), read
again after each run while shown. A double-click opens an older version still kept.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from cairn.app.api import MemoryService, TrackedFile
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session

DOCUMENT_ROLE = Qt.ItemDataRole.UserRole + 1
PATH_ROLE = Qt.ItemDataRole.UserRole + 2
SHOW_TEXT = "Show earlier failures"


class EarlierFailuresBox(QWidget):
    """The button that shows or hides the earlier failures, and their list."""

    open_requested = Signal(str)  # a Document id

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self.button = QPushButton(SHOW_TEXT)
        self.button.setAccessibleName("Show the failures of earlier runs")
        self.button.setCheckable(True)
        self.button.toggled.connect(self._toggle)
        self.list = EarlierFailures()
        self.list.setAccessibleName("Failures of earlier runs")
        self.list.open_requested.connect(self.open_requested)
        self.list.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.list, 1)

    def refresh(self) -> None:
        """Read the failures again, if they are shown (a run just ended)."""
        if self.button.isChecked():
            self._load()

    def clear(self) -> None:
        """The vault locked: nothing of it stays shown."""
        self.list.clear()
        self.button.setChecked(False)

    def _toggle(self, shown: bool) -> None:
        self.list.setVisible(shown)
        self.button.setText("Hide earlier failures" if shown else SHOW_TEXT)
        if shown:
            self._load()

    def _load(self) -> None:
        service = self._session.service
        if service is None:
            return
        call_in_worker(
            self, failed_sources, service, on_done=self._show, on_failed=self._show_error
        )

    def _show(self, rows: list[TrackedFile]) -> None:
        if self._session.service is not None and self.button.isChecked():
            self.list.show_rows(rows)

    def _show_error(self, message: str) -> None:
        if self._session.service is not None and self.button.isChecked():
            self.list.show_error(message)


class EarlierFailures(QTreeWidget):
    """Files that failed in earlier runs (``service.sources(states=["failed"])``)."""

    open_requested = Signal(str)  # an older version of the file that is still kept

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(["File", "Why it failed", "When"])
        self.setRootIsDecorated(False)
        self.setColumnWidth(0, 220)
        self.setColumnWidth(1, 480)
        self.itemDoubleClicked.connect(self._open)

    def show_rows(self, rows: list[TrackedFile]) -> None:
        self.clear()
        if not rows:
            self._note("No file has failed in earlier runs.")
        for row in rows:
            when = row.updated_at[:16].replace("T", " ")
            reason = row.error or ""
            item = QTreeWidgetItem([Path(row.path).name, reason, when])
            item.setData(0, PATH_ROLE, row.path)
            item.setToolTip(0, row.path)
            item.setToolTip(1, reason)
            if row.document_id:
                item.setData(0, DOCUMENT_ROLE, row.document_id)
            self.addTopLevelItem(item)

    def show_error(self, message: str) -> None:
        self.clear()
        self._note(message)

    def failures(self) -> list[tuple[str, str]]:
        """(path, reason) of each failure shown."""
        items = [self.topLevelItem(i) for i in range(self.topLevelItemCount())]
        return [
            (str(item.data(0, PATH_ROLE)), item.text(1))
            for item in items
            if item is not None and item.flags() != Qt.ItemFlag.NoItemFlags
        ]

    def _note(self, text: str) -> None:
        item = QTreeWidgetItem([text, "", ""])
        item.setFlags(Qt.ItemFlag.NoItemFlags)
        self.addTopLevelItem(item)

    def _open(self, item: QTreeWidgetItem, _column: int) -> None:
        document_id = item.data(0, DOCUMENT_ROLE)
        if document_id:
            self.open_requested.emit(str(document_id))


def failed_sources(service: MemoryService) -> list[TrackedFile]:
    """Files that failed in any run, in every scope the vault has (worker side)."""
    return service.sources(scopes=service.scopes(), states=["failed"])
