"""Windows no bigger than the screen they open on.

A size that suits a 1080p screen is too big at 200 % on a laptop (1366×768 at 200 % leaves
683×384 logical pixels): a window opened bigger than its screen hides its own buttons. The
first size of a window or dialog is its preferred one cut down to the screen's available area
(less the room a title bar and panel take).
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

# What a window manager adds around a window (title bar, borders) and a margin from the edges.
FRAME_ALLOWANCE = QSize(16, 48)


def available_size(widget: QWidget) -> QSize:
    """The room for ``widget`` on its screen (its parent's, or the primary one)."""
    anchor = widget.parentWidget() or widget
    screen = anchor.screen() or QGuiApplication.primaryScreen()
    if screen is None:  # no screen at all (a test without a platform): no limit
        return QSize(2**15, 2**15)
    room = screen.availableGeometry().size() - FRAME_ALLOWANCE
    return room.expandedTo(QSize(1, 1))


def fit_to_screen(widget: QWidget, preferred: QSize) -> QSize:
    """Resize ``widget`` to ``preferred``, cut down to its screen; returns the size given."""
    size = preferred.boundedTo(available_size(widget))
    widget.resize(size)
    return size
