"""The Edit menu's standard half: Undo, Redo, Cut, Copy, Paste and Select All.

While a text field a person types in has focus they act on that field, as in every desktop app
(its own undo of what was typed, its selection, the clipboard). Otherwise Undo and Redo act on
the window's ``QUndoStack``, on which panels push what a person may take back (a link, an
archive, a merge). A read-only text (a memory's text in the detail pane) has nothing to undo,
cut or paste: there Undo and Redo act on the window's stack too, while Copy and Select All act
on its text. The keys need no routing of their own: a focused field claims the standard keys
it uses before the window's shortcuts see them (Qt's shortcut override; a read-only one claims
Copy and Select All, not Undo), so the actions' shortcuts fire only where no field wants the key.

The state of each action is worked out when the focus moves, when the stack changes and when
the menu opens (a selection can change without either), so the menu and the command palette
show what would happen now.
"""

from __future__ import annotations

import contextlib
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


def editable_field(widget: QWidget | None) -> TextField | None:
    """The text field with the focus as ``widget`` if a person can type in it: a read-only
    one has nothing of its own to undo, cut or paste."""
    field = text_field(widget)
    return field if field is not None and not field.isReadOnly() else None


def _has_selection(field: TextField) -> bool:
    if isinstance(field, QLineEdit):
        # A passphrase field never gives its text away: Qt refuses to copy it, so say so.
        return field.hasSelectedText() and field.echoMode() == QLineEdit.EchoMode.Normal
    return field.textCursor().hasSelection()


def _can_undo(field: TextField) -> bool:
    if isinstance(field, QLineEdit):
        return field.isUndoAvailable()
    return field.document().isUndoAvailable()


def _can_redo(field: TextField) -> bool:
    if isinstance(field, QLineEdit):
        return field.isRedoAvailable()
    return field.document().isRedoAvailable()


class EditActions(QObject):
    """The six actions, for the window's Edit menu. ``undo_stack`` is the window's."""

    def __init__(self, undo_stack: QUndoStack, parent: QWidget) -> None:
        super().__init__(parent)
        self.undo_stack = undo_stack
        standard = QKeySequence.StandardKey
        self.undo = self._action(
            "&Undo", standard.Undo, lambda f: f.undo(), undo_stack.undo, editing=True
        )
        self.redo = self._action(
            "&Redo", standard.Redo, lambda f: f.redo(), undo_stack.redo, editing=True
        )
        self.cut = self._action("Cu&t", standard.Cut, lambda field: field.cut(), editing=True)
        self.copy = self._action("&Copy", standard.Copy, lambda field: field.copy())
        self.paste = self._action(
            "&Paste", standard.Paste, lambda field: field.paste(), editing=True
        )
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
            # The window's children go one by one as it is destroyed, the stack maybe first,
            # while the focus still moves: no refresh reads a stack that is gone.
            undo_stack.destroyed.connect(lambda _=None: self._stop_following(app))
        self.refresh()

    def _stop_following(self, app: QApplication) -> None:
        with contextlib.suppress(RuntimeError, TypeError):  # already gone with this object
            app.focusChanged.disconnect(self.refresh)

    def add_to(self, menu: QMenu) -> None:
        menu.addActions([self.undo, self.redo])
        menu.addSeparator()
        menu.addActions([self.cut, self.copy, self.paste])
        menu.addSeparator()
        menu.addAction(self.select_all)
        menu.aboutToShow.connect(self.refresh)

    def refresh(self, *_: object) -> None:
        """Enable what would do something now, and name what Undo and Redo would take back."""
        focused = QApplication.focusWidget()
        field, editable = text_field(focused), editable_field(focused)
        stack = self.undo_stack
        if editable is not None:
            self._set(self.undo, _can_undo(editable), "&Undo")
            self._set(self.redo, _can_redo(editable), "&Redo")
        else:
            self._set(self.undo, stack.canUndo(), _named("&Undo", stack.undoText()))
            self._set(self.redo, stack.canRedo(), _named("&Redo", stack.redoText()))
        selected = field is not None and _has_selection(field)
        self.cut.setEnabled(selected and editable is not None)
        self.copy.setEnabled(selected)
        # Not asked of the clipboard: on X11 that is a round trip to the program that owns it,
        # which may hang, on every move of the focus. Pasting nothing does nothing.
        self.paste.setEnabled(editable is not None)
        self.select_all.setEnabled(field is not None)

    # -- acting -------------------------------------------------------------------------------

    def _action(
        self,
        text: str,
        key: QKeySequence.StandardKey,
        on_field: Callable[[TextField], None],
        on_window: Callable[[], None] | None = None,
        *,
        editing: bool = False,
    ) -> QAction:
        """``editing``: it changes the text, so it acts only on a field a person types in."""
        action = QAction(text, self.parent())
        action.setProperty(PLAIN_NAME, text)
        action.setShortcuts(QKeySequence.keyBindings(key))
        action.triggered.connect(lambda _=False: self._act(on_field, on_window, editing))
        return action

    def _act(
        self,
        on_field: Callable[[TextField], None],
        on_window: Callable[[], None] | None,
        editing: bool,
    ) -> None:
        focused = QApplication.focusWidget()
        field = editable_field(focused) if editing else text_field(focused)
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
