"""How the window tells the person things: an inline notice next to what went wrong, a line
that shows only while it has something to say, and a desktop notification when long work
finishes (the balloon of the window's tray icon when the desktop has a tray, and the window's
status bar). Also the window's icon, drawn here so the app needs no image files.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QStatusBar,
    QStyle,
    QSystemTrayIcon,
    QWidget,
)

NOTICE_ICON_SIZE = 16
STATUS_MESSAGE_MS = 10_000


class NoticeLabel(QWidget):
    """A sentence with a warning or information icon; hidden while there is nothing to say."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._icon = QLabel()
        self._text = QLabel()
        self._text.setWordWrap(True)
        self._text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._icon, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self._text, 1)
        self.setVisible(False)

    def text(self) -> str:
        return self._text.text()

    def show_error(self, text: str) -> None:
        self._show(text, QStyle.StandardPixmap.SP_MessageBoxWarning)

    def show_info(self, text: str) -> None:
        self._show(text, QStyle.StandardPixmap.SP_MessageBoxInformation)

    def clear(self) -> None:
        self._text.clear()
        self.setVisible(False)

    def _show(self, text: str, icon: QStyle.StandardPixmap) -> None:
        pixmap = self.style().standardIcon(icon).pixmap(NOTICE_ICON_SIZE, NOTICE_ICON_SIZE)
        self._icon.setPixmap(pixmap)
        self._text.setText(text)
        self.setVisible(bool(text))


class QuietLine(QLabel):
    """A line of words, wrapped, that takes no room while it has nothing to say."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setVisible(False)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setVisible(bool(text))


class DesktopNotifier:
    """``notify(title, text)``: a balloon of the window's tray icon where the desktop has a
    tray that shows messages, and always a status bar message."""

    def __init__(self, status_bar: QStatusBar, tray: QSystemTrayIcon | None = None) -> None:
        self._status_bar = status_bar
        self._tray = tray if tray is not None and QSystemTrayIcon.supportsMessages() else None

    @property
    def uses_tray(self) -> bool:
        return self._tray is not None

    def notify(self, title: str, text: str) -> None:
        if self._tray is not None:
            self._tray.showMessage(title, text, QSystemTrayIcon.MessageIcon.Information)
        # The status bar says it too: the balloon vanishes, the window keeps the last word.
        self._status_bar.showMessage(f"{title}: {text}", STATUS_MESSAGE_MS)


def app_icon() -> QIcon:
    """Three stacked stones, a cairn, at the sizes desktops ask for."""
    icon = QIcon()
    for size in (16, 24, 32, 48, 64, 128, 256):
        icon.addPixmap(_draw_cairn(size))
    return icon


def _draw_cairn(size: int) -> QPixmap:
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    # An icon is a picture, not a themed surface: its stone colours are fixed on purpose.
    stones = (
        (0.50, 0.80, 0.84, 0.26, "#5b6770"),
        (0.50, 0.55, 0.62, 0.22, "#7d8a93"),
        (0.50, 0.33, 0.40, 0.18, "#a3b1ba"),
    )
    for cx, cy, width, height, colour in stones:
        painter.setBrush(QColor(colour))
        center = QPointF(cx * size, cy * size)
        painter.drawEllipse(
            QRectF(
                center.x() - width * size / 2,
                center.y() - height * size / 2,
                width * size,
                height * size,
            )
        )
    painter.end()
    return pixmap
