"""The inbox worked in the window: a capture opened, edited, made a memory of its kind, or
discarded (and kept as discarded)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from cairn.ui.base.session import Session
from cairn.ui.writing.inbox_item import InboxItemDialog


def _dialog(qtbot, session: Session, text: str) -> InboxItemDialog:
    item = session.service.inbox_capture(text)
    dialog = InboxItemDialog(session, item.id)
    qtbot.addWidget(dialog)
    with qtbot.waitActive(dialog):  # its Alt keys work only in a shown, active dialog
        dialog.show()
        dialog.activateWindow()
    qtbot.waitUntil(lambda: dialog.text.toPlainText() == text, timeout=10_000)
    return dialog


def test_ctrl_enter_makes_a_note_of_the_edited_text(qtbot, open_session: Session) -> None:
    service = open_session.service
    dialog = _dialog(qtbot, open_session, "call the plumber")
    dialog.text.moveCursor(dialog.text.textCursor().MoveOperation.End)
    qtbot.keyClicks(dialog.text, " about the boiler")
    with qtbot.waitSignal(dialog.promoted, timeout=15_000) as promoted:
        qtbot.keyClick(dialog.text, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    node = service.get([promoted.args[0]], scopes=service.scopes()).nodes[0].node
    assert (node.type, node.body) == ("Note", "call the plumber about the boiler")
    assert service.inbox_list(scopes=service.scopes()) == []


@pytest.mark.parametrize("kind", ["Fact", "Person", "Commitment"])
def test_a_capture_becomes_the_kind_chosen(qtbot, open_session: Session, kind: str) -> None:
    service = open_session.service
    dialog = _dialog(qtbot, open_session, "Ada Lindqvist repairs boats")
    with qtbot.waitSignal(dialog.promoted, timeout=15_000) as promoted:
        qtbot.mouseClick(dialog.kind_buttons[kind], Qt.MouseButton.LeftButton)
    node = service.get([promoted.args[0]], scopes=service.scopes()).nodes[0].node
    assert node.type == kind and node.source == "inbox"


def test_discarding_keeps_the_capture_as_discarded(qtbot, open_session: Session) -> None:
    service = open_session.service
    dialog = _dialog(qtbot, open_session, "a stray thought")
    with qtbot.waitSignal(dialog.discarded, timeout=10_000):
        qtbot.keyClick(dialog.text, Qt.Key.Key_D, Qt.KeyboardModifier.AltModifier)
    assert service.inbox_list(scopes=service.scopes()) == []
    kept = service.inbox_list(scopes=service.scopes(), include_decided=True)
    assert [(item.text, item.state) for item in kept] == [("a stray thought", "discarded")]


def test_a_capture_sorted_elsewhere_says_so(qtbot, open_session: Session) -> None:
    service = open_session.service
    item = service.inbox_capture("sorted by the CLI")
    service.inbox_discard(item.id, scopes=service.scopes())
    dialog = InboxItemDialog(open_session, item.id)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.notice.isVisibleTo(dialog), timeout=10_000)
    assert "sorted already" in dialog.notice.text()
