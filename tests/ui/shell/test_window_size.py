"""The window and its dialogs open no bigger than the screen: at 200 % a 1366×768 laptop
screen is 683×384 logical pixels, and a window bigger than that hides its own buttons. (The
tests' offscreen screen is 800×600, smaller than the window's preferred 1280×800.)"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication, QWidget

from cairn.ui.base.preferences import Preferences
from cairn.ui.base.screen_fit import FRAME_ALLOWANCE, fit_to_screen
from cairn.ui.base.session import Session
from cairn.ui.shell.main_window import DEFAULT_SIZE, MainWindow
from cairn.ui.shell.workspace import DOCK_HEIGHT, DOCK_SHARE, size_docks


def _room() -> QSize:
    return QApplication.primaryScreen().availableGeometry().size() - FRAME_ALLOWANCE


def test_the_first_size_is_cut_down_to_the_screen(qtbot) -> None:
    room = _room()
    assert room.width() < DEFAULT_SIZE[0] and room.height() < DEFAULT_SIZE[1]
    window = MainWindow(Session(), Preferences())
    qtbot.addWidget(window)
    assert window.width() <= room.width() and window.height() <= room.height()
    window.show()
    qtbot.waitExposed(window)
    assert window.width() <= room.width() and window.height() <= room.height()


def test_a_preferred_size_that_fits_is_kept(qtbot) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    assert fit_to_screen(widget, QSize(300, 200)) == QSize(300, 200)
    assert widget.size() == QSize(300, 200)


def test_on_a_small_screen_the_docks_leave_the_columns_room(qtbot, window: MainWindow) -> None:
    # The first layout of a window on a laptop at 200 %: about 680×380 logical pixels.
    window.resize(680, 380)
    workspace = window.workspace
    qtbot.waitUntil(lambda: workspace.window.height() < 380)
    size_docks(workspace)
    dock = workspace.docks["review"]
    share = workspace.window.height() * DOCK_SHARE
    assert share < DOCK_HEIGHT
    qtbot.waitUntil(lambda: dock.height() <= share + 1)
    assert workspace.splitter.height() >= dock.height()
