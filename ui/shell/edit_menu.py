"""The Edit menu's standard half: Undo, Redo, Cut, Copy, Paste and Select All.

While a text field has focus they act on that field, as in every desktop app (its own undo of
what was typed, its selection, the clipboard). Otherwise Undo and Redo act on the window's
``QUndoStack``, on which panels push what a person may take back (an archive, a merge), and
the other four have nothing to act on. The keys need no routing of their own: a focused text
field claims the standard keys before the window's shortcuts see them (Qt's shortcut
override), so the actions' shortcuts fire only where no field wants the key.

The state of each action is worked out when the focus moves, when the stack changes and when
the menu opens (a selection can change without either), so the menu and the command palette
show what would happen now.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

TextField = QLineEdit | QTextEdit | QPlainTextEdit
# The action's name without what it would take back ("Undo", not "Undo Archive “Seeds”"), for
# a list of the keys, which should not show a memory's title.
PLAIN_NAME = "plainName"


def text_field(widget: QWidget | None) -> TextField | None:
    """The text field that has the focus as ``widget``, or None. A spin box or an editable
    combo box holds the focus for the line edit inside it."""
    if isinstance(widget, QLineEdit | QTextEdit | QPlainTextEdit):
        return widget
    if isinstance(widget, QAbstractSpinBox):
        return widget.findChild(QLineEdit)  # its lineEdit() is protected
    if isinstance(widget, QComboBox) and widget.isEditable():
        return widget.lineEdit()
    return None


def _has_selection(field: TextField) -> bool:
    if isinstance(field, QLineEdit):
        # A passphrase field never gives its text away: Qt refuses to copy it, so say so.
        return field.hasSelectedText() and field.echoMode() == QLineEdit.EchoMode.Normal
    return field.textCursor().hasSelection()


def _can_undo(field: TextField) -> bool:
    if isinstance(field, QLineEdit):
        return not field.isReadOnly() and field.isUndoAvailable()
    return not field.isReadOnly() and field.document().isUndoAvailable()


def _can_redo(field: TextField) -> bool:
    if isinstance(field, QLineEdit):
        return not field.isReadOnly() and field.isRedoAvailable()
    return not field.isReadOnly() and field.document().isRedoAvailable()


class EditActions(QObject):
    """The six actions, for the window's Edit menu. ``undo_stack`` is the window's."""

    def __init__(self, undo_stack: QUndoStack, parent: QWidget) -> None:
        super().__init__(parent)
        self.undo_stack = undo_stack
        standard = QKeySequence.StandardKey
        self.undo = self._action("&Undo", standard.Undo, lambda f: f.undo(), undo_stack.undo)
        self.redo = self._action("&Redo", standard.Redo, lambda f: f.redo(), undo_stack.redo)
        self.cut = self._action("Cu&t", standard.Cut, lambda field: field.cut())
        self.copy = self._action("&Copy", standard.Copy, lambda field: field.copy())
        self.paste = self._action("&Paste", standard.Paste, lambda field: field.paste())
        self.select_all = self._action(
            "Select &All", standard.SelectAll, lambda field: field.selectAll()
        )
        for signal in (
            undo_stack.canUndoChanged,
            undo_stack.canRedoChanged,
            undo_stack.undoTextChanged,
            undo_stack.redoTextChanged,
        ):
            signal.connect(self.refresh)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self.refresh)
        self.refresh()

    def add_to(self, menu: QMenu) -> None:
        menu.addActions([self.undo, self.redo])
        menu.addSeparator()
        menu.addActions([self.cut, self.copy, self.paste])
        menu.addSeparator()
        menu.addAction(self.select_all)
        menu.aboutToShow.connect(self.refresh)

    def refresh(self, *_: object) -> None:
        """Enable what would do something now, and name what Undo and Redo would take back."""
        field = text_field(QApplication.focusWidget())
        stack = self.undo_stack
        if field is not None:
            self._set(self.undo, _can_undo(field), "&Undo")
            self._set(self.redo, _can_redo(field), "&Redo")
        else:
            self._set(self.undo, stack.canUndo(), _named("&Undo", stack.undoText()))
            self._set(self.redo, stack.canRedo(), _named("&Redo", stack.redoText()))
        selected = field is not None and _has_selection(field)
        self.cut.setEnabled(selected and field is not None and not field.isReadOnly())
        self.copy.setEnabled(selected)
        # Not asked of the clipboard: on X11 that is a round trip to the program that owns it,
        # which may hang, on every move of the focus. Pasting nothing does nothing.
        self.paste.setEnabled(field is not None and not field.isReadOnly())
        self.select_all.setEnabled(field is not None)

    # -- acting -------------------------------------------------------------------------------

    def _action(
        self,
        text: str,
        key: QKeySequence.StandardKey,
        on_field: Callable[[TextField], None],
        on_window: Callable[[], None] | None = None,
    ) -> QAction:
        action = QAction(text, self.parent())
        action.setProperty(PLAIN_NAME, text)
        action.setShortcuts(QKeySequence.keyBindings(key))
        action.triggered.connect(lambda _=False: self._act(on_field, on_window))
        return action

    def _act(
        self, on_field: Callable[[TextField], None], on_window: Callable[[], None] | None
    ) -> None:
        field = text_field(QApplication.focusWidget())
        if field is not None:
            on_field(field)
        elif on_window is not None:
            on_window()
        self.refresh()

    @staticmethod
    def _set(action: QAction, enabled: bool, text: str) -> None:
        action.setEnabled(enabled)
        action.setText(text)


def _named(verb: str, what: str) -> str:
    return f"{verb} {what}" if what else verb
