"""Settings › Backup in the real window: Back up now writes an encrypted copy that opens with
the vault's passphrase and holds its memories, says where it went, fails with a sentence and
nothing half-written, and keeps Settings open until it is done."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from cairn.app import compose
from cairn.app.upkeep.backups import verify_copy
from cairn.ui.settings.backup_page import BackupPage
from cairn.ui.settings.dialog import SettingsDialog
from cairn.ui.shell.main_window import MainWindow
from tests.conftest import PASSPHRASE

TIMEOUT_MS = 30_000


def _backup_page(window: MainWindow) -> tuple[SettingsDialog, BackupPage]:
    dialog = window.open_settings()
    assert dialog is not None
    dialog.show_page(dialog.backup)
    return dialog, dialog.backup


def test_back_up_now_writes_a_copy_that_opens_with_the_passphrase(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    window.session.service.write("Note", "Kiln firing", "Cone 6 for the stoneware glaze.")
    _dialog, page = _backup_page(window)
    target = tmp_path / "backups" / "mine.cairn"
    target.parent.mkdir()
    with qtbot.waitSignal(page.backed_up, timeout=TIMEOUT_MS) as done:
        page.back_up_to(target)
        assert window.busy_label.text() == "Backing up the vault…"  # auto-lock waits
    assert done.args == [str(target)]
    assert not window.busy_label.isVisible()
    sentence = page.notice.text()
    assert sentence.startswith(f"Backed up to {target} (")
    assert "the copy checks out" in sentence and "passphrase" in sentence
    assert verify_copy(target, PASSPHRASE).ok
    copy = compose.open_vault(target, PASSPHRASE, with_embedder=False)
    try:
        titles = [node.title for node in copy.list_memories(scopes=copy.scopes())]
    finally:
        copy.close()
    assert titles == ["Kiln firing"]
    assert window.preferences.backup_folder() == str(target.parent)
    assert page.suggested_path().parent == target.parent  # the next one is offered there


def test_the_file_is_chosen_in_a_save_dialog(qtbot, window: MainWindow, tmp_path: Path) -> None:
    _dialog, page = _backup_page(window)
    chooser = page.choose_file()
    assert isinstance(chooser, QFileDialog)
    assert chooser.acceptMode() == QFileDialog.AcceptMode.AcceptSave
    assert chooser.selectedFiles()[0].endswith(".cairn")
    target = tmp_path / "chosen.cairn"
    with qtbot.waitSignal(page.backed_up, timeout=TIMEOUT_MS):
        chooser.selectFile(str(target))
        chooser.accept()
    assert verify_copy(target, PASSPHRASE).ok


def test_a_backup_that_cannot_be_written_says_why(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    _dialog, page = _backup_page(window)
    page.back_up_to(window.session.path)  # the vault itself
    assert page.running
    qtbot.waitUntil(lambda: not page.running, timeout=TIMEOUT_MS)
    assert page.notice.text().startswith("The backup was not made: ")
    assert "is the vault itself" in page.notice.text()
    assert page.backup_button.isEnabled()


def test_settings_stays_open_until_the_backup_is_written(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    dialog, page = _backup_page(window)
    target = tmp_path / "while-closing.cairn"
    with qtbot.waitSignal(page.backed_up, timeout=TIMEOUT_MS):
        page.back_up_to(target)
        dialog.reject()  # at once, while the worker writes
        assert dialog.isVisible()
        assert "finishes first" in page.notice.text()
    assert target.exists()
    dialog.reject()
    assert not dialog.isVisible()
