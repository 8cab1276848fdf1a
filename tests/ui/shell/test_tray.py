"""The tray icon's menu on the real window: show and hide the window (the vault stays open),
quick capture, lock, quit (which closes the vault). The tests' platform has no tray, so the
window makes none; the tray is built here by hand, as the window builds it on a desktop."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication, QSystemTrayIcon

from cairn.ui.shell.capture import QuickCaptureDialog
from cairn.ui.shell.main_window import MainWindow
from cairn.ui.shell.tray import HIDE, SHOW, WindowTray, tray_available


@pytest.fixture
def tray(window: MainWindow) -> Iterator[WindowTray]:
    made = WindowTray(
        window,
        window.session,
        window.windowIcon(),
        quick_capture=window.quick_capture,
        quit_app=window.quit,
    )
    yield made
    made.deleteLater()


def test_the_window_makes_a_tray_icon_only_where_the_desktop_has_a_tray(
    window: MainWindow,
) -> None:
    assert tray_available() == QSystemTrayIcon.isSystemTrayAvailable()
    assert (window.tray is not None) == tray_available()
    window.notify("Export finished", "12 memories written")  # the status bar says it anyway
    assert window.statusBar().currentMessage() == "Export finished: 12 memories written"


def test_hide_and_show_keep_the_vault_open(qtbot, window: MainWindow, tray: WindowTray) -> None:
    assert tray.show_action.text() == HIDE
    tray.show_action.trigger()
    assert not window.isVisible()
    assert window.session.is_open  # hidden is not locked
    tray.menu.aboutToShow.emit()
    assert tray.show_action.text() == SHOW
    tray.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)  # a click on the icon
    qtbot.waitUntil(window.isVisible)
    assert tray.show_action.text() == HIDE


def test_quick_capture_from_the_tray(qtbot, window: MainWindow, tray: WindowTray) -> None:
    tray.capture_action.trigger()
    qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), QuickCaptureDialog))
    QApplication.activeModalWidget().reject()


def test_lock_from_the_tray_and_capture_while_locked_shows_the_window(
    qtbot, window: MainWindow, tray: WindowTray
) -> None:
    assert tray.lock_action.isEnabled()
    with qtbot.waitSignal(window.session.locked):
        tray.lock_action.trigger()
    assert not tray.lock_action.isEnabled()
    window.hide()
    tray.capture_action.trigger()  # the vault must be unlocked first: the window comes back
    qtbot.waitUntil(window.isVisible)
    assert window.stack.currentWidget() is window.unlock_screen
    assert window.findChild(QuickCaptureDialog) is None


def test_quit_from_the_tray_closes_the_vault_even_while_hidden(
    qtbot, window: MainWindow, tray: WindowTray
) -> None:
    service = window.session.service
    window.hide()
    with qtbot.waitSignal(window.session.locked):
        tray.quit_action.trigger()
    assert window.session.service is None
    assert service is not None and not window.isVisible()
