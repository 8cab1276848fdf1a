"""Quick capture writes to the vault's inbox, keeps the text when it cannot, and forgets it
when the vault locks."""

from __future__ import annotations

from PySide6.QtCore import Qt

from cairn.storage.vault import Vault
from cairn.ui.base.session import Session
from cairn.ui.shell.capture import QuickCaptureDialog


def test_a_capture_lands_in_the_inbox(qtbot, open_session: Session) -> None:
    dialog = QuickCaptureDialog(open_session)
    qtbot.addWidget(dialog)
    assert not dialog.save_button.isEnabled()  # nothing typed yet
    qtbot.keyClicks(dialog.text, "call the plumber about the boiler")
    assert dialog.save_button.isEnabled()
    with (
        qtbot.waitSignal(dialog.captured, timeout=10_000) as captured,
        qtbot.waitSignal(open_session.changed, timeout=10_000),
    ):
        qtbot.keyClick(dialog.text, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    service = open_session.service
    items = service.inbox_list(scopes=service.scopes())
    assert [item.text for item in items] == ["call the plumber about the boiler"]
    assert captured.args[0].id == items[0].id
    assert dialog.result() == QuickCaptureDialog.DialogCode.Accepted
    assert dialog.text.toPlainText() == ""


def test_a_failed_capture_keeps_the_text_and_says_why(
    qtbot, open_session: Session, session_vault: Vault
) -> None:
    dialog = QuickCaptureDialog(open_session)
    qtbot.addWidget(dialog)
    session_vault.close()  # the file is gone from under the window
    qtbot.keyClicks(dialog.text, "a thought worth keeping")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.notice.isVisibleTo(dialog))
    assert "closed" in dialog.notice.text().lower()
    assert dialog.text.toPlainText() == "a thought worth keeping"
    assert dialog.save_button.isEnabled()  # try again


def test_locking_clears_the_dialog(qtbot, open_session: Session) -> None:
    dialog = QuickCaptureDialog(open_session)
    qtbot.addWidget(dialog)
    qtbot.keyClicks(dialog.text, "not yet saved")
    open_session.lock()
    assert dialog.text.toPlainText() == ""
    assert dialog.result() == QuickCaptureDialog.DialogCode.Rejected
