"""No label of the window's screens and dialogs shows a mnemonic's "&" instead of underlining
its key (the mistake the export dialog's "&Save in:" made): the workspace, the unlock and
create screens, quick capture, export and settings."""

from __future__ import annotations

from cairn.ui.shell.main_window import MainWindow
from tests.ui.mnemonics import literal_ampersands


def test_no_screen_or_dialog_shows_a_stray_ampersand(qtbot, window: MainWindow) -> None:
    assert literal_ampersands(window) == []
    for opened in (window.quick_capture(), window.export(), window.open_settings()):
        assert opened is not None
        assert literal_ampersands(opened) == [], type(opened).__name__
        opened.reject()
    with qtbot.waitSignal(window.session.locked):
        window.lock()
    window.unlock_screen.show_create()
    assert literal_ampersands(window.unlock_screen) == []
