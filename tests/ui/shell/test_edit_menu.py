"""The Edit menu of the real window: Undo, Redo, Cut, Copy, Paste and Select All act on the
focused text field, Undo and Redo otherwise on the window's undo stack, then Find."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import QApplication

from cairn.ui.shell.edit_menu import text_field
from cairn.ui.shell.main_window import MainWindow


class Counted(QUndoCommand):
    """A command as a panel would push one: it changes something and can change it back."""

    def __init__(self, values: list[int]) -> None:
        super().__init__("Archive “Pharmacy hours”")
        self.values = values

    def redo(self) -> None:
        self.values.append(len(self.values))

    def undo(self) -> None:
        self.values.pop()


def _edit_menu_texts(window: MainWindow) -> list[str]:
    (edit,) = [a.menu() for a in window.menuBar().actions() if a.text() == "&Edit"]
    return [action.text() for action in edit.actions() if not action.isSeparator()]


def test_the_edit_menu_has_the_standard_commands_then_find(window: MainWindow) -> None:
    assert _edit_menu_texts(window) == [
        "&Undo",
        "&Redo",
        "Cu&t",
        "&Copy",
        "&Paste",
        "Select &All",
        "&Find",
    ]
    actions = window.edit_actions
    assert actions.undo.shortcut().toString() == "Ctrl+Z"
    assert actions.copy.shortcut().toString() == "Ctrl+C"
    assert actions.select_all.shortcut().toString() == "Ctrl+A"


def test_with_a_text_field_focused_the_commands_act_on_it(qtbot, window: MainWindow) -> None:
    field = window.workspace.search.search_field
    actions = window.edit_actions
    window.activateWindow()
    field.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    qtbot.keyClicks(field, "pharmacy")
    actions.select_all.trigger()
    assert field.selectedText() == "pharmacy"
    actions.refresh()
    assert actions.copy.isEnabled() and actions.cut.isEnabled()
    actions.copy.trigger()
    assert QApplication.clipboard().text() == "pharmacy"
    actions.cut.trigger()
    assert field.text() == ""
    actions.paste.trigger()
    actions.paste.trigger()
    assert field.text() == "pharmacypharmacy"
    actions.undo.trigger()
    assert field.text() == "pharmacy"
    actions.redo.trigger()
    assert field.text() == "pharmacypharmacy"


def test_the_keys_in_a_text_field_stay_the_fields_own(qtbot, window: MainWindow) -> None:
    values: list[int] = []
    window.undo_stack.push(Counted(values))
    field = window.workspace.search.search_field
    window.activateWindow()
    field.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    qtbot.keyClicks(field, "kiln")
    qtbot.keyClick(field, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert field.text() == ""  # the typing was undone, not the window's command
    assert values == [0]


def test_elsewhere_undo_and_redo_act_on_the_windows_stack(qtbot, window: MainWindow) -> None:
    actions = window.edit_actions
    library = window.workspace.library  # a list, not a text field
    window.activateWindow()
    library.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
    shelves = QApplication.focusWidget()
    assert text_field(shelves) is None
    assert not actions.undo.isEnabled()  # nothing to take back yet
    assert not actions.copy.isEnabled() and not actions.paste.isEnabled()
    values: list[int] = []
    window.undo_stack.push(Counted(values))
    assert values == [0]
    assert actions.undo.isEnabled()
    assert actions.undo.text() == "&Undo Archive “Pharmacy hours”"
    qtbot.keyClick(shelves, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert values == []
    assert actions.redo.isEnabled() and not actions.undo.isEnabled()
    actions.redo.trigger()
    assert values == [0]


def test_locking_forgets_what_could_be_undone(qtbot, window: MainWindow) -> None:
    window.undo_stack.push(Counted([]))
    with qtbot.waitSignal(window.session.locked):
        window.lock()
    assert window.undo_stack.count() == 0
    assert not window.edit_actions.undo.isEnabled()
