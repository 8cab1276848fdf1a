"""File › Export…: the dialog says the files are plaintext, exports the chosen scopes in the
chosen format off the UI thread, owner-only, and says where; a folder that holds files is
refused with a sentence and left as it was."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from cairn.ui.base.session import Session
from cairn.ui.shell.export_dialog import ExportDialog
from tests.ui.mnemonics import literal_ampersands
from tests.ui.windows import new_vault_window


def _dialog(qtbot, session: Session) -> ExportDialog:
    dialog = ExportDialog(session)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.scopes.count() > 0)
    return dialog


def test_every_label_underlines_its_key_instead_of_showing_an_ampersand(
    qtbot, open_session: Session
) -> None:
    open_session.service.add_scope("work")  # the scopes row shows only with two scopes
    dialog = _dialog(qtbot, open_session)
    assert literal_ampersands(dialog) == []
    save_in = next(label for label in dialog.findChildren(QLabel) if "Save in" in label.text())
    assert save_in.buddy() is dialog.location


def test_the_dialog_exports_the_chosen_scope_as_json_lines(
    qtbot, open_session: Session, tmp_path: Path
) -> None:
    service = open_session.service
    service.add_scope("work")
    service.write("Note", "Seed order", "Heirloom tomatoes and basil.")
    service.write("Note", "Board memo", "The merger closes in May.", scope="work")
    dialog = _dialog(qtbot, open_session)
    assert "plaintext, not encrypted" in dialog.warning.text()
    assert dialog.warning.isVisibleTo(dialog)
    assert [dialog.scopes.item(i).text() for i in range(2)] == ["personal", "work"]
    dialog.scopes.item(1).setCheckState(Qt.CheckState.Unchecked)
    dialog.formats["jsonl"].setChecked(True)
    dialog.location.setText(str(tmp_path))
    dialog.folder_name.setText("memories")
    assert str(tmp_path / "memories") in dialog.target.text()
    with qtbot.waitSignal(dialog.exported, timeout=30_000) as exported:
        qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    report = exported.args[0]
    file = tmp_path / "memories" / "memories.jsonl"
    assert report.file == str(file)
    assert f"Exported 1 memories to {file}" in dialog.notice.text()
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    assert stat.S_IMODE(file.parent.stat().st_mode) == 0o700
    titles = [
        line["title"]
        for line in map(json.loads, file.read_text(encoding="utf-8").splitlines())
        if line["kind"] == "node"
    ]
    assert titles == ["Seed order"]
    assert not dialog.export_button.isEnabled()  # that folder is taken now


def test_a_folder_that_holds_files_is_refused_and_left_alone(
    qtbot, open_session: Session, tmp_path: Path
) -> None:
    open_session.service.write("Note", "Seed order", "Heirloom tomatoes and basil.")
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine", encoding="utf-8")
    dialog = _dialog(qtbot, open_session)
    dialog.location.setText(str(tmp_path))
    dialog.folder_name.setText("taken")
    qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "already holds files" in dialog.notice.text(), timeout=30_000)
    assert [p.name for p in taken.iterdir()] == ["notes.txt"]
    assert dialog.export_button.isEnabled()  # another name, and try again
    dialog.folder_name.setText("fresh")
    with qtbot.waitSignal(dialog.exported, timeout=30_000):
        qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    assert [p.name for p in (tmp_path / "fresh").iterdir()] == ["Seed order.md"]


def test_file_export_opens_the_dialog_from_the_menu(qtbot, tmp_path: Path) -> None:
    window = new_vault_window(qtbot, tmp_path)
    assert window.export_action.isEnabled()
    window.export_action.trigger()
    dialog = window.findChild(ExportDialog)
    assert dialog is not None and dialog.isVisible()
    dialog.location.setText(str(tmp_path))
    dialog.folder_name.setText("out")
    qtbot.waitUntil(dialog.export_button.isEnabled)  # once the scopes are listed
    with qtbot.waitSignal(dialog.exported, timeout=30_000):
        dialog.export_button.click()
    assert window.busy_label.isHidden()  # the status bar said so while it ran, and stopped
    dialog.reject()
    window.session.lock()
    assert not window.export_action.isEnabled()


def test_a_closed_dialog_is_left_alone_when_the_vault_locks(qtbot, open_session: Session) -> None:
    dialog = ExportDialog(open_session)  # not the test's to close: it deletes itself
    qtbot.waitUntil(lambda: dialog.scopes.count() > 0)
    dialog.finished.connect(dialog.deleteLater)
    dialog.reject()
    qtbot.waitUntil(lambda: not shiboken6.isValid(dialog))
    open_session.lock()  # would call into the deleted dialog (an error in a slot fails here)
    assert open_session.service is None
