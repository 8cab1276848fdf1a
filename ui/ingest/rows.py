"""The file list of the ingest panel: one row per file of a run (what is happening to it now,
and what came of it, with the reason when it failed).

Kept apart from ``panel`` so the panel reads as the story of a run (start, progress, stop,
end) and this module as what is shown for each file; the words are ``words``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from cairn.app.api import FileOutcome, IngestProgress, IngestReport
from cairn.ui.ingest.words import count, passages_words, reading_words

# A row's state code and the words shown for it (a file being read may say more: its page).
ROW_WORDS = {
    "queued": "Waiting",
    "reading": "Reading…",
    "embedding": "Preparing for search…",
    "saving": "Saving…",
    "done": "Added",
    "replaced": "Added (new version)",
    "unchanged": "Already kept",
    "moved": "Moved (memory kept)",
    "removed": "Gone from disk (memory kept)",
    "skipped": "Skipped",
    "failed": "Failed",
    "cancelled": "Not read (stopped)",
    "partial": "Partly saved (stopped)",
}
# The states of a file still waiting or under way; the others are what came of it.
ACTIVE = frozenset({"queued", "reading", "embedding", "saving"})
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


class FileList(QTreeWidget):
    """One row per file of the current run, saying what the run told of it: read (with its
    page or time), prepared for search, saved, and then what came of it, as each file's
    outcome arrives. The report at the end sets every row once more, for certain."""

    open_requested = Signal(str)  # the Document id of a double-clicked file

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(["File", "State", "Details"])
        self.setAccessibleName("Files of this run")
        self.setRootIsDecorated(False)
        self.setColumnWidth(0, 260)
        self.setColumnWidth(1, 210)
        self.setUniformRowHeights(True)
        self.itemDoubleClicked.connect(self._open)
        self._rows: dict[str, QTreeWidgetItem] = {}
        self._roots: list[Path] = []

    def begin_run(self, roots: list[Path]) -> None:
        self.clear()
        self._rows.clear()
        self._roots = roots

    def found(self, path: str) -> None:
        self._row(path)

    def show_event(self, event: IngestProgress) -> None:
        """What ``event`` says of its file: read, prepared for search, or being saved."""
        if not event.current:
            return
        item = self._row(event.current)
        if item.data(0, STATE_ROLE) not in ACTIVE:
            return  # its outcome is known: a late word does not take it back
        if event.stage in ("reading", "file_progress"):
            self._set_state(item, "reading", reading_words(event))
            self.scrollToItem(item)
        elif event.stage == "embedding":
            self._set_state(item, "embedding", passages_words("Preparing for search", event))
        elif event.stage == "writing":
            self._set_state(item, "saving", passages_words("Saving", event))

    def settle(self, outcomes: Iterable[FileOutcome]) -> None:
        """Files whose outcome is known: each row says what came of it, and why."""
        for outcome in outcomes:
            self._settle_one(outcome)

    def apply(self, report: IngestReport) -> None:
        """The run's report: every row for certain."""
        self.settle(report.files)
        for path in report.removed:
            item = self._row(path)
            self._set_state(item, "removed")
            item.setText(2, "No longer on disk; its memories are kept.")
        for path in report.not_found:
            item = self._row(path)
            self._set_state(item, "failed")
            item.setText(2, "Not found: it may have been moved or renamed.")

    def interrupted(self) -> None:
        """The run ended without a report: no file still waiting or under way was saved
        for certain."""
        for item in self._rows.values():
            if item.data(0, STATE_ROLE) in ACTIVE:
                self._set_state(item, "cancelled")
                item.setText(2, "The run ended before this file was saved; Resume adds it.")

    def rows(self) -> dict[str, tuple[str, str]]:
        """path → (state code, details); the codes are the keys of ``ROW_WORDS``."""
        return {p: (str(i.data(0, STATE_ROLE)), i.text(2)) for p, i in self._rows.items()}

    def state_texts(self) -> dict[str, str]:
        """path → the words of its State column, as shown."""
        return {p: i.text(1) for p, i in self._rows.items()}

    def _settle_one(self, outcome: FileOutcome) -> None:
        item = self._row(outcome.path)
        code = OUTCOME_ROWS.get(outcome.state, outcome.state)
        if outcome.state == "cancelled" and outcome.passages:
            code = "partial"  # a long document stopped between its parts
        self._set_state(item, code)
        detail = outcome_detail(outcome)
        item.setText(2, detail)
        item.setToolTip(2, detail)
        if outcome.document_id:
            item.setData(0, DOCUMENT_ROLE, outcome.document_id)

    def _row(self, path: str) -> QTreeWidgetItem:
        item = self._rows.get(path)
        if item is None:
            item = QTreeWidgetItem([self._shown_path(path), ROW_WORDS["queued"], ""])
            item.setData(0, STATE_ROLE, "queued")
            item.setToolTip(0, path)
            self.addTopLevelItem(item)
            self._rows[path] = item
        return item

    def _set_state(self, item: QTreeWidgetItem, state: str, words: str | None = None) -> None:
        item.setData(0, STATE_ROLE, state)
        item.setText(1, words or ROW_WORDS.get(state, state))
        # The files under way stand out; a file's state is always said in words too.
        item.setFont(0, _bold() if state in ACTIVE - {"queued"} else QFont())

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


def outcome_detail(outcome: FileOutcome) -> str:
    """The Details column of a file whose outcome is known: why it failed, what to know."""
    detail = outcome.error or "; ".join(outcome.warnings)
    if detail:
        return detail
    if outcome.state == "skipped":
        return "Cairn does not read this kind of file."
    if outcome.state == "duplicate":
        return "The same file is already kept under another name."
    if outcome.state in ("ingested", "replaced"):
        return count(outcome.passages, "passage")
    if outcome.moved_from:
        return f"Was {outcome.moved_from}; its memory and links follow it."
    return ""


def _bold() -> QFont:
    font = QFont()
    font.setBold(True)
    return font
