"""Settings › Backup: "Back up now…" writes an encrypted copy of the open vault to a file the
person chooses (``MemoryService.backup``, as ``cairn backup`` does), in a worker, and says
where it went, how big it is and whether the copy checks out. The copy is checked before it
takes its name, so a failed backup leaves nothing half-written under it.

Restoring is explained rather than done here: a backup is a whole vault, which File › Open
Vault… opens, and ``cairn restore`` puts a checked copy in place from a terminal.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import CopyResult
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.preferences import Preferences
from cairn.ui.base.session import Session

BACKUP_FILTER = "Cairn vaults (*.cairn);;All files (*)"
WHAT_IT_IS = (
    "An encrypted copy of the whole vault, taken while it stays open. It opens only with this "
    "vault's passphrase. Keep backups on another disk."
)
RESTORE = (
    "A backup is a whole vault. To go back to one, copy the backup file, then open the copy "
    "with File › Open Vault… and the passphrase the vault had when the backup was taken; keep "
    "the backup itself as it is. From a terminal, cairn restore BACKUP NEW-VAULT checks the "
    "backup before it puts the copy in place, and cairn verify-restore BACKUP checks a backup "
    "without changing it."
)


def _size(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.0f} kB"


def backed_up_sentence(result: CopyResult) -> str:
    """What a finished backup says: where, how big, and whether the copy checks out."""
    state = (
        "the copy checks out"
        if result.report.ok
        else "the copy is whole, but " + " ".join(result.report.problems)
    )
    return (
        f"Backed up to {result.path} ({_size(result.size)}); {state}. It opens with this "
        "vault's passphrase."
    )


class BackupPage(QWidget):
    backed_up = Signal(str)  # the backup's path
    busy_changed = Signal(object)  # a sentence while backing up, None when done

    def __init__(
        self, session: Session, preferences: Preferences, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.preferences = preferences
        self._running = False

        backup_box = QGroupBox("Back up the vault")
        what = QLabel(WHAT_IT_IS)
        what.setWordWrap(True)
        self.backup_button = QPushButton("&Back up now…")
        self.backup_button.setAccessibleName("Back up the vault now")
        self.backup_button.clicked.connect(self.choose_file)
        self.busy_bar = QProgressBar()
        self.busy_bar.setAccessibleName("Backing up")
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.setVisible(False)
        self.notice = NoticeLabel()
        button_row = QHBoxLayout()
        button_row.addWidget(self.backup_button)
        button_row.addStretch(1)
        backup_column = QVBoxLayout(backup_box)
        backup_column.addWidget(what)
        backup_column.addLayout(button_row)
        backup_column.addWidget(self.busy_bar)
        backup_column.addWidget(self.notice)

        restore_box = QGroupBox("Restore a backup")
        restore = QLabel(RESTORE)
        restore.setWordWrap(True)
        QVBoxLayout(restore_box).addWidget(restore)

        column = QVBoxLayout(self)
        column.addWidget(backup_box)
        column.addWidget(restore_box)
        column.addStretch(1)

    @property
    def running(self) -> bool:
        return self._running

    def suggested_path(self) -> Path:
        """A dated file name in the folder the last backup went to (or the home folder)."""
        folder = Path(self.preferences.backup_folder() or Path.home())
        stem = self.session.path.stem if self.session.path else "vault"
        return folder / f"{stem}-backup-{datetime.date.today().isoformat()}.cairn"

    def choose_file(self) -> QFileDialog:
        """Ask where the backup goes; the dialog asks before replacing a file."""
        dialog = QFileDialog(self, "Back up the vault to", str(self.suggested_path()))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(BACKUP_FILTER)
        dialog.setDefaultSuffix("cairn")
        dialog.fileSelected.connect(lambda chosen: self.back_up_to(Path(chosen), replace=True))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def back_up_to(self, path: Path, *, replace: bool = False) -> None:
        """Write the backup to ``path`` in a worker (``replace``: the person agreed to
        replace a file already there)."""
        service = self.session.service
        if service is None or self._running:
            return
        self._set_running(True)
        self.notice.clear()

        def done(result: CopyResult) -> None:
            self._set_running(False)
            self.preferences.set_backup_folder(str(Path(result.path).parent))
            self.notice.show_info(backed_up_sentence(result))
            self.backed_up.emit(result.path)

        def failed(sentence: str) -> None:
            self._set_running(False)
            self.notice.show_error(f"The backup was not made: {sentence}")

        call_in_worker(
            self, service.backup, path, overwrite=replace, on_done=done, on_failed=failed
        )

    def _set_running(self, running: bool) -> None:
        self._running = running
        self.backup_button.setEnabled(not running)
        self.busy_bar.setVisible(running)
        self.busy_changed.emit("Backing up the vault…" if running else None)
