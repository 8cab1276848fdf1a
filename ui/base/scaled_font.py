"""A text drawn a step larger or smaller than the text around it, at whatever text size is
chosen.

A font set on a widget keeps its point size when the application's font changes (Settings ›
Appearance › Text size), so a title made 1.4 times the text size once stays at the old size
while everything around it grows. ``keep_scaled`` sets the widget's font from its parent's,
and again whenever the parent's font changes (the parent has no font of its own, so it
follows the application's) or the widget moves to another parent.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget


class _Scaler(QObject):
    def __init__(self, widget: QWidget, scale: float, bold: bool) -> None:
        super().__init__(widget)
        self._widget = widget
        self._scale = scale
        self._bold = bold
        self._parent: QWidget | None = None
        widget.installEventFilter(self)
        self._follow_parent()

    def _follow_parent(self) -> None:
        if self._parent is not None:
            self._parent.removeEventFilter(self)
        self._parent = self._widget.parentWidget()
        if self._parent is not None:
            self._parent.installEventFilter(self)
        self.apply()

    def apply(self) -> None:
        parent = self._parent
        font = parent.font() if parent is not None else QApplication.font(self._widget)
        font.setPointSizeF(font.pointSizeF() * self._scale)
        font.setBold(self._bold)
        self._widget.setFont(font)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if watched is self._widget and kind == QEvent.Type.ParentChange:
            self._follow_parent()
        elif watched is self._parent and kind == QEvent.Type.FontChange:
            self.apply()
        return False


def keep_scaled(widget: QWidget, scale: float, *, bold: bool = False) -> None:
    """Give ``widget`` its parent's font times ``scale`` (bold or not), now and after every
    change of that font."""
    _Scaler(widget, scale, bold)
