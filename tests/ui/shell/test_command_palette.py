"""The command palette of the real window: every menu action with its path and shortcut,
filtered by typing, run with Enter, closed with Esc; what cannot run now is said so."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication

from cairn.ui.settings.dialog import SettingsDialog
from cairn.ui.shell.capture import QuickCaptureDialog
from cairn.ui.shell.command_palette import (
    UNAVAILABLE,
    CommandPalette,
    match_score,
    menu_commands,
    plain,
)
from cairn.ui.shell.main_window import MainWindow
from cairn.ui.shell.menus import SETTINGS_PAGES


def _open(qtbot, window: MainWindow) -> CommandPalette:
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.findChild(CommandPalette) is not None)
    palette = window.findChild(CommandPalette)
    qtbot.waitUntil(lambda: palette.isVisible() and palette.filter.hasFocus())
    return palette


def test_ctrl_p_lists_every_menu_action_with_its_path_and_shortcut(
    qtbot, window: MainWindow
) -> None:
    palette = _open(qtbot, window)
    shown = {label: (keys, runnable) for label, keys, runnable in palette.shown_commands()}
    assert shown["File › Quick Capture…"] == ("Ctrl+N", True)
    assert shown["File › Lock"] == ("Ctrl+L", True)
    assert shown["Edit › Find"] == ("Ctrl+K", True)  # its first keys, as its menu shows
    assert shown["Help › About Cairn"] == ("", True)
    assert shown["View › Library (on)"][1]
    # Every action of every menu is there, without mnemonics, and each page of Settings.
    menus = [c.path for c in menu_commands(window.menuBar())]
    assert len(shown) == len(menus) + len(SETTINGS_PAGES)
    assert all("&" not in label for label in shown)
    assert shown["Settings › Appearance (theme, text size)"] == ("", True)


def test_an_action_added_to_a_menu_later_is_listed_without_registering(
    qtbot, window: MainWindow
) -> None:
    ran: list[bool] = []
    later = QAction("Re&index Everything", window)
    later.triggered.connect(lambda: ran.append(True))
    (view,) = [a.menu() for a in window.menuBar().actions() if plain(a.text()) == "View"]
    view.addAction(later)
    palette = _open(qtbot, window)
    qtbot.keyClicks(palette.filter, "reindex")
    assert [row[0] for row in palette.shown_commands()] == ["View › Reindex Everything"]
    qtbot.keyClick(palette.filter, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: ran == [True])


def test_typing_filters_and_enter_runs_the_command(qtbot, window: MainWindow) -> None:
    palette = _open(qtbot, window)
    qtbot.keyClicks(palette.filter, "capt")
    assert palette.shown_commands()[0] == ("File › Quick Capture…", "Ctrl+N", True)
    qtbot.keyClick(palette.filter, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), QuickCaptureDialog))
    assert window.findChild(CommandPalette) is None
    QApplication.activeModalWidget().reject()


def test_letters_in_order_find_a_command_and_arrows_choose(qtbot, window: MainWindow) -> None:
    palette = _open(qtbot, window)
    qtbot.keyClicks(palette.filter, "xport")
    labels = [row[0] for row in palette.shown_commands()]
    assert labels == ["File › Export…"]
    palette.filter.clear()
    qtbot.keyClicks(palette.filter, "nnote")  # New Note, by letters in order
    assert "File › New › Note…" in [row[0] for row in palette.shown_commands()]
    palette.filter.clear()
    first = palette.list.currentItem().text(0)
    qtbot.keyClick(palette.filter, Qt.Key.Key_Down)
    assert palette.list.currentItem().text(0) != first
    qtbot.keyClick(palette.filter, Qt.Key.Key_Up)
    assert palette.list.currentItem().text(0) == first


def test_new_lists_everyday_commands_before_a_new_vault(qtbot, window: MainWindow) -> None:
    palette = _open(qtbot, window)
    qtbot.keyClicks(palette.filter, "new")
    labels = [row[0] for row in palette.shown_commands()]
    assert labels[0] == "File › New › Note…"
    assert labels[-1] == "File › New Vault…"  # it locks the vault open: seldom what is meant
    assert all(label.startswith("File › New") for label in labels)
    palette.filter.clear()
    # Nothing typed: menu order, but what is seldom meant after what can run every day.
    runnable = [row[0] for row in palette.shown_commands() if row[2]]
    seldom = {"File › New Vault…", "File › Open Vault…", "File › Quit"}
    seldom |= {"Help › Try the Sample Vault", "Help › Remove the Sample…"} & set(runnable)
    assert set(runnable[-len(seldom) :]) == seldom
    assert runnable.index("File › Add Files…") < runnable.index("File › Open Vault…")


def test_letters_in_order_count_only_when_no_command_has_the_word(
    qtbot, window: MainWindow
) -> None:
    palette = _open(qtbot, window)
    qtbot.keyClicks(palette.filter, "theme")
    assert [row[0] for row in palette.shown_commands()] == [
        "Settings › Appearance (theme, text size)"
    ]  # not "Try the Sample Vault", whose letters are in order too
    assert match_score("theme", "Help › Try the Sample Vault") == 1
    assert match_score("theme", "Help › Try the Sample Vault", in_order=False) is None


@pytest.mark.parametrize("name", [name for name, _words in SETTINGS_PAGES])
def test_each_settings_page_opens_from_the_palette(qtbot, window: MainWindow, name: str) -> None:
    palette = _open(qtbot, window)
    qtbot.keyClicks(palette.filter, name)
    assert palette.shown_commands()[0][0].startswith(f"Settings › {name} (")
    qtbot.keyClick(palette.filter, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.findChild(SettingsDialog) is not None)
    dialog = window.findChild(SettingsDialog)
    assert dialog.page_list.currentItem().text() == name
    dialog.reject()


def test_an_edit_command_acts_on_the_field_that_had_the_focus(qtbot, window: MainWindow) -> None:
    field = window.workspace.search.search_field
    window.activateWindow()
    window.focus_search()  # Ctrl+K: the search field, past the welcome of an empty vault
    qtbot.keyClicks(field, "kiln glaze")
    field.deselect()
    palette = _open(qtbot, window)
    qtbot.keyClicks(palette.filter, "select all")
    qtbot.keyClick(palette.filter, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: field.selectedText() == "kiln glaze")
    assert QApplication.focusWidget() is field


def test_a_click_elsewhere_closes_the_palette(qtbot, window: MainWindow) -> None:
    _open(qtbot, window)
    window.workspace.search.search_field.setFocus()
    qtbot.waitUntil(lambda: window.findChild(CommandPalette) is None)


def test_esc_closes_the_palette_and_runs_nothing(qtbot, window: MainWindow) -> None:
    palette = _open(qtbot, window)
    qtbot.keyClicks(palette.filter, "lock")
    qtbot.keyClick(palette.filter, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.findChild(CommandPalette) is None)
    assert window.session.is_open


def test_what_cannot_run_now_is_listed_last_and_said_so(qtbot, window: MainWindow) -> None:
    with qtbot.waitSignal(window.session.locked):
        window.lock()
    palette = _open(qtbot, window)
    rows = palette.shown_commands()
    lock = next(row for row in rows if row[0].startswith("File › Lock"))
    assert lock == (f"File › Lock — {UNAVAILABLE}", "Ctrl+L", False)
    runnable = [row[2] for row in rows]
    assert runnable == sorted(runnable, reverse=True)  # those that run come first
    qtbot.keyClicks(palette.filter, "lock")
    qtbot.keyClick(palette.filter, Qt.Key.Key_Return)  # nothing to run: it stays open
    assert palette.isVisible()
    palette.close()


def test_the_filter_matches_words_substrings_and_letters_in_order() -> None:
    label = "File › Quick Capture…"
    assert match_score("quick", label) == 3
    assert match_score("apture", label) == 2
    assert match_score("qc", label) == 1
    assert match_score("file capture", label) == 6
    assert match_score("export", label) is None
    assert match_score("", label) == 0
