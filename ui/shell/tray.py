"""The system tray icon, on desktops that have a tray: show or hide the window, quick capture,
lock, quit. Clicking the icon shows or hides the window as well. The window's desktop
notifications go through it (``DesktopNotifier``).

Hiding the window keeps the vault open (auto-lock still counts the idle time); closing the
window, or Quit here, closes it: the key never outlives the window.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMainWindow, QMenu, QSystemTrayIcon

from cairn.ui.base.session import Session

SHOW = "&Show Cairn"
HIDE = "&Hide Cairn"


def tray_available() -> bool:
    return QSystemTrayIcon.isSystemTrayAvailable()


class WindowTray(QSystemTrayIcon):
    def __init__(
        self,
        window: QMainWindow,
        session: Session,
        icon: QIcon,
        *,
        quick_capture: Callable[[], object],
        quit_app: Callable[[], object],
    ) -> None:
        super().__init__(icon, window)
        self._window = window
        self._session = session
        self._quick_capture = quick_capture
        self.setToolTip("Cairn")
        # The menu has no parent widget (a tray menu is a window of its own): kept here.
        self.menu = QMenu()
        self.show_action = self._add(HIDE, self.toggle_window)
        self.capture_action = self._add("Quick &Capture…", self.capture)
        self.lock_action = self._add("&Lock", session.lock)
        self.menu.addSeparator()
        self.quit_action = self._add("&Quit", quit_app)
        self.setContextMenu(self.menu)
        self.menu.aboutToShow.connect(self.refresh)
        self.activated.connect(self._activated)
        session.unlocked.connect(self.refresh)
        session.locked.connect(self.refresh)
        window.destroyed.connect(self.menu.deleteLater)
        self.refresh()

    def refresh(self, *_: object) -> None:
        self.show_action.setText(HIDE if self._window.isVisible() else SHOW)
        self.lock_action.setEnabled(self._session.is_open)

    def toggle_window(self) -> None:
        if self._window.isVisible() and not self._window.isMinimized():
            self._window.hide()
        else:
            self.bring_back()
        self.refresh()

    def bring_back(self) -> None:
        self._window.showNormal() if self._window.isMinimized() else self._window.show()
        self._window.raise_()
        self._window.activateWindow()

    def capture(self) -> None:
        """A capture while locked needs the vault first: the window comes up to unlock it."""
        if not self._session.is_open:
            self.bring_back()
            return
        self._quick_capture()

    def _add(self, text: str, slot: Callable[[], object]) -> QAction:
        action = self.menu.addAction(text)
        action.triggered.connect(lambda _=False: slot())
        return action

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.toggle_window()
