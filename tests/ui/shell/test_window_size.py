"""The window and its dialogs open no bigger than the screen: at 200 % a 1366×768 laptop
screen is 683×384 logical pixels, and a window bigger than that hides its own buttons. (The
tests' offscreen screen is 800×600, smaller than the window's preferred 1280×800; the sizes
the window and its dialogs ask for at least are checked against the laptop's.)"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QWidget

from cairn.ui.base.preferences import Preferences
from cairn.ui.base.screen_fit import FRAME_ALLOWANCE, available_size, fit_to_screen
from cairn.ui.base.session import Session
from cairn.ui.shell.main_window import DEFAULT_SIZE, MainWindow
from cairn.ui.shell.workspace import DOCK_HEIGHT, DOCK_SHARE, bring_forward, size_docks
from cairn.ui.writing.memory_form import FORM_SIZE
from cairn.ui.writing.note_editor import EDITOR_SIZE


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


# 1366×768 at 200 % in logical pixels: the smallest screen the window is made to fit.
LAPTOP_AT_200 = QSize(683, 384)


def _fits(size: QSize, room: QSize) -> bool:
    return size.width() <= room.width() and size.height() <= room.height()


def test_at_200_percent_the_window_fits_a_laptop_screen_locked_or_not(
    qtbot, window: MainWindow
) -> None:
    """Its status bar stays on the screen: nothing in the window asks for more height (the
    unlock screen scrolls its card, the docks scroll their panels)."""
    assert _fits(window.minimumSizeHint(), LAPTOP_AT_200), window.minimumSizeHint()
    for name in ("ingest", "review"):
        bring_forward(window.workspace, name)
    qtbot.waitUntil(lambda: window.workspace.docks["review"].isVisible())
    assert _fits(window.minimumSizeHint(), LAPTOP_AT_200), window.minimumSizeHint()
    with qtbot.waitSignal(window.session.locked):
        window.lock()
    for page in (window.unlock_screen.show_create, window.unlock_screen.show_open):
        page()
        assert _fits(window.minimumSizeHint(), LAPTOP_AT_200), window.minimumSizeHint()


def _buttons_in_sight(dialog: QDialog, buttons: QDialogButtonBox) -> bool:
    inside = dialog.rect()
    return all(
        inside.contains(QRect(button.mapTo(dialog, QPoint(0, 0)), button.size()))
        for button in buttons.buttons()
        if not button.isHidden()
    )


def test_the_note_editor_and_the_form_open_within_the_screen_with_their_buttons(
    qtbot, window: MainWindow
) -> None:
    room = available_size(window)
    small_room = LAPTOP_AT_200 - FRAME_ALLOWANCE
    editor = window.new_note()
    form = window.new_menu.new_memory("Person")  # the kind with the most fields
    assert editor is not None and form is not None
    assert editor.size() == EDITOR_SIZE.boundedTo(room)  # its size, cut to this screen's
    assert form.size() == FORM_SIZE.boundedTo(room)
    for dialog in (editor, form):
        qtbot.waitExposed(dialog)
        assert _fits(dialog.minimumSizeHint(), small_room), type(dialog).__name__
        dialog.resize(small_room)
        qtbot.waitUntil(lambda d=dialog: d.size() == small_room)
        assert _buttons_in_sight(dialog, dialog.buttons), type(dialog).__name__
    # The form's fields scroll above its buttons, down to the last.
    scroll = form.fields_area.verticalScrollBar()
    assert scroll.maximum() > 0
    last = list(form.fields.values())[-1]
    last.focus_chain()[0].setFocus()
    qtbot.waitUntil(lambda: scroll.value() > 0)
    editor.done(0)
    form.done(0)
