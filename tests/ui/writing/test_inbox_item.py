"""The inbox worked in the window, all from the keyboard: a capture opened from the Inbox
shelf with Enter, edited, made a note at once or a fact, person or task in its form, or
discarded (and kept as discarded)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from cairn.ui.base.session import Session
from cairn.ui.rows.results_model import ROW_ROLE
from cairn.ui.shell.main_window import MainWindow
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


@pytest.mark.parametrize(("key", "kind"), [("F", "Fact"), ("P", "Person"), ("T", "Commitment")])
def test_a_capture_opens_the_form_of_the_kind_chosen(
    qtbot, open_session: Session, key: str, kind: str
) -> None:
    service = open_session.service
    dialog = _dialog(qtbot, open_session, "Ada Lindqvist\nrepairs boats at the harbour")
    qtbot.keyClick(dialog.text, getattr(Qt.Key, f"Key_{key}"), Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: dialog.form is not None)  # an Alt key clicks after a moment
    form = dialog.form
    assert form is not None and form.isVisible() and not dialog.isVisible()
    assert (form.type_name, form.title.text()) == (kind, "Ada Lindqvist")
    assert form.body.toPlainText() == "Ada Lindqvist\nrepairs boats at the harbour"
    assert service.inbox_list(scopes=service.scopes()) != []  # nothing written yet
    qtbot.waitUntil(lambda: QApplication.focusWidget() is form.title)  # its keys work now
    with qtbot.waitSignal(dialog.promoted, timeout=15_000) as promoted:
        qtbot.keyClick(form.title, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    node = service.get([promoted.args[0]], scopes=service.scopes()).nodes[0].node
    assert (node.type, node.title, node.source) == (kind, "Ada Lindqvist", "inbox")
    assert service.inbox_list(scopes=service.scopes()) == []
    form.close()
    assert dialog.result() == InboxItemDialog.DialogCode.Accepted


def test_a_form_closed_unsaved_gives_the_capture_back(qtbot, open_session: Session) -> None:
    service = open_session.service
    dialog = _dialog(qtbot, open_session, "Bea Kovacs")
    dialog.text.moveCursor(dialog.text.textCursor().MoveOperation.End)
    qtbot.keyClicks(dialog.text, ", the new neighbour")
    form = dialog.open_form("Person", dialog.text.toPlainText())
    with qtbot.waitSignal(form.finished):
        form.done(0)  # as Discard answers the question a close asks
    assert dialog.isVisible() and dialog.text.toPlainText() == "Bea Kovacs, the new neighbour"
    assert [item.text for item in service.inbox_list(scopes=service.scopes())] == ["Bea Kovacs"]


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


def test_the_inbox_is_worked_from_the_keyboard_in_the_window(qtbot, window: MainWindow) -> None:
    """The Inbox shelf, a capture opened with Enter (moving through the list opens nothing),
    made a person in its form with an attribute filled in, and shown in the detail pane."""
    service = window.session.service
    service.inbox_capture("Buy stamps")
    service.inbox_capture("Bea Kovacs\nthe new neighbour at number 4")
    window.session.changed.emit()
    library, search = window.workspace.library, window.workspace.search
    qtbot.waitUntil(lambda: library.counts().get("inbox") == 2, timeout=10_000)
    window.activateWindow()
    library.tree.setFocus()  # where Tab or a click puts the keyboard
    qtbot.keyClick(library.tree, Qt.Key.Key_Down)  # All, then Inbox
    qtbot.waitUntil(lambda: search.model.rowCount() == 2, timeout=10_000)
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(search.search_field, Qt.Key.Key_Down)  # into the list
    qtbot.waitUntil(lambda: QApplication.focusWidget() is search.results_view)
    qtbot.keyClick(search.results_view, Qt.Key.Key_Down)
    assert window.findChildren(InboxItemDialog) == []  # moving opens nothing
    assert search.results_view.currentIndex().data(ROW_ROLE).title == "Bea Kovacs"
    qtbot.keyClick(search.results_view, Qt.Key.Key_Return)
    [dialog] = window.findChildren(InboxItemDialog)
    qtbot.waitUntil(lambda: dialog.text.toPlainText().startswith("Bea Kovacs"), timeout=10_000)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.text)

    qtbot.keyClick(dialog.text, Qt.Key.Key_P, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: dialog.form is not None)
    form = dialog.form
    qtbot.waitUntil(lambda: QApplication.focusWidget() is form.title)
    for _ in range(12):  # Tab, Tab... down the form to the phone field
        if QApplication.focusWidget() is form.fields["phone"].focusProxy():
            break
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    qtbot.keyClicks(QApplication.focusWidget(), "0612 345 678")
    with qtbot.waitSignal(dialog.promoted, timeout=15_000) as promoted:
        qtbot.keyClick(
            QApplication.focusWidget(), Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier
        )
    qtbot.waitUntil(lambda: window.workspace.detail.title_label.text() == "Bea Kovacs")
    qtbot.keyClick(form.title, Qt.Key.Key_Escape)  # saved: it closes without asking
    qtbot.waitUntil(lambda: dialog.result() == InboxItemDialog.DialogCode.Accepted)

    person = service.get([promoted.args[0]], scopes=service.scopes()).nodes[0].node
    assert (person.type, person.attrs) == ("Person", {"phone": "0612 345 678"})
    assert [item.text for item in service.inbox_list(scopes=service.scopes())] == ["Buy stamps"]


def test_a_discard_is_said_and_undone_in_the_window(qtbot, window: MainWindow) -> None:
    service = window.session.service
    scopes = service.scopes()
    item = service.inbox_capture("a stray thought\nabout the shed roof")
    dialog = window.open_inbox_item(item.id)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.discard_button.isEnabled(), timeout=10_000)
    with qtbot.waitSignal(dialog.discarded, timeout=10_000):
        dialog.discard_button.click()
    assert window.statusBar().currentMessage() == (
        "Discarded “a stray thought”; it is kept as discarded (Edit › Undo brings it back)."
    )
    assert service.inbox_list(scopes=scopes) == []
    assert window.undo_stack.undoText() == "Discard “a stray thought”"

    with qtbot.waitSignal(window.undo_history.finished, timeout=10_000):
        window.undo_stack.undo()
    back = service.inbox_list(scopes=scopes)
    assert [(i.id, i.state, i.text) for i in back] == [(item.id, "open", item.text)]
    library = window.workspace.library
    qtbot.waitUntil(lambda: library.counts().get("inbox") == 1, timeout=10_000)
    with qtbot.waitSignal(window.undo_history.finished, timeout=10_000):
        window.undo_stack.redo()
    assert service.inbox_list(scopes=scopes) == []
