"""The lists of the ingest panel, and the words it uses: one row per file of a run (its state
and, when it failed, why), the failures of earlier runs, and the summary of a run.

Kept apart from ``ingest_panel`` so the panel reads as the story of a run (start, progress,
stop, end) and this module as what is shown for each file.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from cairn.app.api import IngestReport, TrackedFile

# A row's state code and the words shown for it.
ROW_WORDS = {
    "queued": "Waiting",
    "reading": "Reading…",
    "embedding": "Preparing for search…",
    "read": "Read, saving…",
    "done": "Added",
    "replaced": "Added (new version)",
    "unchanged": "Already kept",
    "moved": "Moved (memory kept)",
    "removed": "Gone from disk (memory kept)",
    "skipped": "Skipped",
    "failed": "Failed",
    "cancelled": "Not read (stopped)",
}
# What the report's per-file state means for a row.
OUTCOME_ROWS = {
    "ingested": "done",
    "replaced": "replaced",
    "unchanged": "unchanged",
    "duplicate": "unchanged",
    "moved": "moved",
    "skipped": "skipped",
    "failed": "failed",
    "cancelled": "cancelled",
    "planned": "queued",
}
STATE_ROLE = Qt.ItemDataRole.UserRole
DOCUMENT_ROLE = Qt.ItemDataRole.UserRole + 1
PATH_ROLE = Qt.ItemDataRole.UserRole + 2


class FileList(QTreeWidget):
    """One row per file of the current run. During the run the states are inferred from the
    progress events (a file that never reached the embedder failed); the report at the end
    sets every row for certain, with the reasons."""

    open_requested = Signal(str)  # the Document id of a double-clicked file

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(["File", "State", "Details"])
        self.setRootIsDecorated(False)
        self.setColumnWidth(0, 260)
        self.setColumnWidth(1, 150)
        self.setUniformRowHeights(True)
        self.itemDoubleClicked.connect(self._open)
        self._rows: dict[str, QTreeWidgetItem] = {}
        self._roots: list[Path] = []
        self._current: QTreeWidgetItem | None = None

    def begin_run(self, roots: list[Path]) -> None:
        self.clear()
        self._rows.clear()
        self._current = None
        self._roots = roots

    def found(self, path: str) -> None:
        self._row(path)

    def reading(self, path: str) -> None:
        self.settle_current()
        self._current = self._row(path)
        self._set_state(self._current, "reading")
        self._current.setFont(0, _bold())
        self.scrollToItem(self._current)

    def embedding(self) -> None:
        if self._current is not None:
            self._set_state(self._current, "embedding")

    def settle_current(self) -> None:
        """The file being read is past that stage: read (its batch saves it) or, if it never
        reached the embedder, failed (the report brings the reason)."""
        item, self._current = self._current, None
        if item is None:
            return
        item.setFont(0, QFont())
        state = item.data(0, STATE_ROLE)
        if state == "embedding":
            self._set_state(item, "read")
        elif state == "reading":
            self._set_state(item, "failed")
            item.setText(2, "The reason is shown when the run ends.")

    def apply(self, report: IngestReport) -> None:
        self.settle_current()
        for outcome in report.files:
            item = self._row(outcome.path)
            self._set_state(item, OUTCOME_ROWS.get(outcome.state, outcome.state))
            detail = outcome.error or "; ".join(outcome.warnings)
            if outcome.state == "skipped" and not detail:
                detail = "Cairn does not read this kind of file."
            elif outcome.state == "duplicate" and not detail:
                detail = "The same file is already kept under another name."
            elif outcome.state in ("ingested", "replaced") and not detail:
                detail = _count(outcome.passages, "passage")
            elif outcome.moved_from and not detail:
                detail = f"Was {outcome.moved_from}; its memory and links follow it."
            item.setText(2, detail)
            item.setToolTip(2, detail)
            if outcome.document_id:
                item.setData(0, DOCUMENT_ROLE, outcome.document_id)
        for path in report.removed:
            item = self._row(path)
            self._set_state(item, "removed")
            item.setText(2, "No longer on disk; its memories are kept.")
        for path in report.not_found:
            item = self._row(path)
            self._set_state(item, "failed")
            item.setText(2, "Not found: it may have been moved or renamed.")

    def rows(self) -> dict[str, tuple[str, str]]:
        """path → (state code, details); the codes are the keys of ``ROW_WORDS``."""
        return {p: (str(i.data(0, STATE_ROLE)), i.text(2)) for p, i in self._rows.items()}

    def _row(self, path: str) -> QTreeWidgetItem:
        item = self._rows.get(path)
        if item is None:
            item = QTreeWidgetItem([self._shown_path(path), ROW_WORDS["queued"], ""])
            item.setData(0, STATE_ROLE, "queued")
            item.setToolTip(0, path)
            self.addTopLevelItem(item)
            self._rows[path] = item
        return item

    def _set_state(self, item: QTreeWidgetItem, state: str) -> None:
        item.setData(0, STATE_ROLE, state)
        item.setText(1, ROW_WORDS.get(state, state))

    def _shown_path(self, path: str) -> str:
        """The path below the dropped folder, with the folder's name; a file on its own by
        name. The full path is the row's tooltip."""
        file = Path(path)
        for root in self._roots:
            if file != root and file.is_relative_to(root):
                return str(file.relative_to(root.parent))
        return file.name

    def _open(self, item: QTreeWidgetItem, _column: int) -> None:
        document_id = item.data(0, DOCUMENT_ROLE)
        if document_id:
            self.open_requested.emit(str(document_id))


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


def summarize(report: IngestReport) -> str:
    """What a run did, in one paragraph."""
    added = report.count("ingested") + report.count("replaced")
    parts = [f"{_count(added, 'file')} added"]
    if report.count("replaced"):
        parts[0] += f" ({report.count('replaced')} of them a new version of a file already kept)"
    kept = report.count("unchanged") + report.count("duplicate")
    if kept:
        parts.append(f"{kept} already kept and unchanged")
    failed = report.count("failed") + len(report.not_found)
    if failed:
        parts.append(f"{failed} could not be read (the reasons are in the list)")
    if report.count("skipped"):
        parts.append(f"{report.count('skipped')} skipped (kinds of file Cairn does not read)")
    text = "; ".join(parts) + "."
    if report.pending_review:
        copies = _count(report.pending_review, "near-copy", "near-copies")
        text += f" {copies} of files already kept wait for you in Review."
    if report.count("moved"):
        text += f" {_count(report.count('moved'), 'file')} moved or renamed; each keeps its memory."
    if report.removed:
        gone = _count(len(report.removed), "file")
        text += f" {gone} no longer in the folder; their memories are kept."
    if report.cancelled:
        left = _count(report.count("cancelled"), "file")
        text = (
            f"Stopped as you asked. Kept what was read before: {text} {left} not read; add "
            "them again to finish (files already added are skipped)."
        )
    return text


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KB", "MB"):
        if value < 1024:
            return f"{size} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def _count(number: int, singular: str, plural: str | None = None) -> str:
    return f"{number} {singular if number == 1 else plural or singular + 's'}"


def _bold() -> QFont:
    font = QFont()
    font.setBold(True)
    return font
