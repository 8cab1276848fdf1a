"""The widgets a screen reader would announce without a name: a field, a list, a choice, a
progress bar, a tab bar or a button without words, that has no accessible name of its own.

A drawing surface (the graph) counts too. A button's text is its name. Qt's own parts of a
composite widget are left out: a combo box's pop-up list and a spin box's or combo box's line
edit (the owner's name is theirs), a view's header (read with its view), a calendar's parts,
and the buttons Qt adds inside a line edit, a tool bar, a menu bar or a tab bar (clear,
overflow and scroll arrows).
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QCalendarWidget,
    QComboBox,
    QGraphicsView,
    QHeaderView,
    QLineEdit,
    QMenuBar,
    QPlainTextEdit,
    QProgressBar,
    QTabBar,
    QTextEdit,
    QToolBar,
    QWidget,
)

NAMED_KINDS = (
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QComboBox,
    QAbstractSpinBox,
    QAbstractItemView,
    QAbstractButton,
    QProgressBar,
    QTabBar,
    QGraphicsView,
)
# Where Qt puts buttons of its own: a line edit's clear button, a tab bar's scroll arrows, the
# overflow arrows of a tool bar or menu bar.
QT_BUTTONS_IN = (QLineEdit, QTabBar, QToolBar, QMenuBar)


def _qt_part(widget: QWidget) -> bool:
    """A piece Qt builds inside another widget, not one Cairn made: a calendar's parts too
    (the calendar a date field drops down is read as one)."""
    parent = widget.parentWidget()
    if isinstance(widget, QHeaderView) or _inside(widget, QCalendarWidget):
        return True
    if isinstance(widget, QLineEdit) and isinstance(parent, QAbstractSpinBox | QComboBox):
        return True
    if isinstance(widget, QAbstractItemView) and _inside(widget, QComboBox):
        return True
    return isinstance(widget, QAbstractButton) and isinstance(parent, QT_BUTTONS_IN)


def _inside(widget: QWidget, kind: type) -> bool:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, kind):
            return True
        parent = parent.parentWidget()
    return False


def _has_name(widget: QWidget) -> bool:
    if widget.accessibleName().strip():
        return True
    return isinstance(widget, QAbstractButton) and bool(widget.text().replace("&", "").strip())


def _where(widget: QWidget, root: QWidget) -> str:
    chain = []
    at: QWidget | None = widget
    while at is not None and at is not root and len(chain) < 5:
        chain.append(at.objectName() or type(at).__name__)
        at = at.parentWidget()
    return " < ".join(chain)


def unnamed(root: QWidget) -> list[str]:
    """Every widget under ``root`` (``root`` too, shown or hidden) that a screen reader would
    announce without a name, said as its kind and where it sits."""
    found = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not isinstance(widget, NAMED_KINDS) or _qt_part(widget) or _has_name(widget):
            continue
        found.append(_where(widget, root))
    return found
