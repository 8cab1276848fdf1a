"""File › Export…: the memory out of the vault as plaintext files, by the person's choice.

The person picks a format (Markdown notes, or everything as JSON Lines to import into a new
vault), which scopes, and where: a folder to save in and the name of the new folder the export
makes there (never one that holds files). The dialog says plainly, before anything is written,
that the files are not encrypted. The export runs in a worker (``MemoryService.export``) with
a progress bar; the window's auto-lock waits for it. It ends with where the files are and how
many memories they hold, or with the sentence of what went wrong (nothing is left half-written).
"""

from __future__ import annotations

import datetime
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import PLAINTEXT_WARNING, ExportReport
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session

FORMATS = {
    "markdown": "&Markdown notes: one file per memory, for Obsidian or any editor",
    "jsonl": "&Everything as JSON Lines: to import into a new vault (cairn import)",
}


class ExportDialog(QDialog):
    exported = Signal(object)  # the ExportReport
    busy_changed = Signal(object)  # a sentence while exporting, None when done
    # (done, total) from the worker's thread, delivered on the UI thread (a queued signal).
    _progressed_in_worker = Signal(object)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setWindowTitle("Export memories")
        self.setMinimumWidth(520)

        self.formats = {name: QRadioButton(text) for name, text in FORMATS.items()}
        self.formats["markdown"].setChecked(True)
        self.scopes = QListWidget()
        self.scopes.setMaximumHeight(96)
        self.scopes.setAccessibleName("Scopes to export")
        self.location = QLineEdit(str(Path.home()))
        self.location.setAccessibleName("Save in")
        self.location.setAccessibleDescription("The folder the export's new folder is made in")
        choose = QPushButton("C&hoose…")
        choose.clicked.connect(self._choose_location)
        self.folder_name = QLineEdit(f"Cairn export {datetime.date.today().isoformat()}")
        self.folder_name.setAccessibleName("New folder")
        self.folder_name.setAccessibleDescription("The name of the folder the export makes")
        self.target = QLabel()
        self.target.setWordWrap(True)
        self.target.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        warning = NoticeLabel()
        warning.show_error(PLAINTEXT_WARNING)
        self.warning = warning
        self.notice = NoticeLabel()
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Progress of the export")
        self.progress.setVisible(False)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.export_button = self.buttons.addButton(
            "&Export", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.buttons.accepted.connect(self.start)
        self.buttons.rejected.connect(self.reject)

        where = QHBoxLayout()
        where.addWidget(self.location, 1)
        where.addWidget(choose)
        # A row whose field is a layout gets no buddy from the form: without one, the label
        # would show its "&" instead of underlining the key that jumps to the field.
        save_in = QLabel("&Save in:")
        save_in.setBuddy(self.location)
        self._form = QFormLayout()
        self._form.addRow("&Scopes:", self.scopes)
        self._form.addRow(save_in, where)
        self._form.addRow("&New folder:", self.folder_name)
        self._form.addRow("", self.target)
        column = QVBoxLayout(self)
        column.addWidget(QLabel("Format:"))
        for button in self.formats.values():
            column.addWidget(button)
        column.addLayout(self._form)
        column.addWidget(warning)
        column.addWidget(self.notice)
        column.addWidget(self.progress)
        column.addWidget(self.buttons)

        self.location.textChanged.connect(self._update)
        self.folder_name.textChanged.connect(self._update)
        self.scopes.itemChanged.connect(self._update)
        # Through a method of its own: a slot that overrides Qt's (``reject`` below) stays
        # connected after the dialog is deleted, and a later lock would call into it.
        session.locked.connect(self._vault_locked)
        self._progressed_in_worker.connect(self._progressed)
        self._running = False
        self._load_scopes()
        self._update()

    # -- what the person chose ----------------------------------------------------------------

    def chosen_format(self) -> str:
        return next(name for name, button in self.formats.items() if button.isChecked())

    def chosen_scopes(self) -> list[str]:
        items = [self.scopes.item(i) for i in range(self.scopes.count())]
        return [i.text() for i in items if i.checkState() == Qt.CheckState.Checked]

    def destination(self) -> Path | None:
        name = self.folder_name.text().strip()
        location = self.location.text().strip()
        if not name or not location or "/" in name or "\\" in name:
            return None
        return Path(location).expanduser() / name

    # -- the export ---------------------------------------------------------------------------

    def start(self) -> None:
        service = self.session.service
        dest = self.destination()
        if service is None or dest is None or self._running or not self.chosen_scopes():
            return
        self._set_running(True)
        self.notice.clear()
        self.progress.setRange(0, 0)
        call_in_worker(
            self,
            service.export,
            dest,
            format=self.chosen_format(),
            scopes=self.chosen_scopes(),
            on_done=self._done,
            on_failed=self._failed,
            progress=lambda done, total: self._progressed_in_worker.emit((done, total)),
        )

    def _progressed(self, done_total: tuple[int, int]) -> None:
        done, total = done_total
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(min(done, total))
        self.progress.setFormat(f"{done} of {total} memories")

    def _done(self, report: ExportReport) -> None:
        self._set_running(False)
        where = report.file or report.path
        left_out = (
            f" {report.links_left_out} links to memories in other scopes were left out."
            if report.links_left_out
            else ""
        )
        self.notice.show_info(f"Exported {report.memories} memories to {where}.{left_out}")
        self.export_button.setEnabled(False)  # the folder is taken now: a new name for more
        self.exported.emit(report)

    def _failed(self, sentence: str) -> None:
        self._set_running(False)
        self.notice.show_error(sentence)

    def _set_running(self, running: bool) -> None:
        self._running = running
        self.progress.setVisible(running)
        for widget in (*self.formats.values(), self.scopes, self.location, self.folder_name):
            widget.setEnabled(not running)
        self.busy_changed.emit("Exporting…" if running else None)
        self._update()

    def _update(self) -> None:
        dest = self.destination()
        self.target.setText(
            f"Cairn will create {dest}" if dest else "Name the new folder the export makes."
        )
        ready = dest is not None and bool(self.chosen_scopes()) and not self._running
        self.export_button.setEnabled(ready and self.session.is_open)

    def _choose_location(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Save the export in", self.location.text())
        if chosen:
            self.location.setText(chosen)

    def _load_scopes(self) -> None:
        service = self.session.service
        if service is None:
            return

        def listed(names: list[str]) -> None:
            self.scopes.blockSignals(True)
            self.scopes.clear()
            for name in names:
                item = QListWidgetItem(name)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked)
                self.scopes.addItem(item)
            self.scopes.blockSignals(False)
            self._form.setRowVisible(self.scopes, len(names) > 1)
            self._update()

        call_in_worker(self, service.scopes, on_done=listed, on_failed=self.notice.show_error)

    def _vault_locked(self) -> None:
        self.reject()

    def reject(self) -> None:
        if self._running and self.session.is_open:
            return  # the export finishes first (it is quick to wait for, and leaves no half)
        super().reject()
