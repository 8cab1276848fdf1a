"""Help in the real window: the user guide as docs/user-guide.md says it, found where an
installed Cairn keeps it; the list of every keyboard shortcut, read from the actions; About."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QTextDocument
from PySide6.QtWidgets import QApplication

from cairn.ui.shell import help as help_windows
from cairn.ui.shell.help import ShortcutsDialog, UserGuide, guide_path
from cairn.ui.shell.main_window import MainWindow
from tests.conftest import PROJECT_ROOT

GUIDE = PROJECT_ROOT / "docs" / "user-guide.md"


def _help_menu(window: MainWindow) -> list[QAction]:
    (menu,) = [a.menu() for a in window.menuBar().actions() if a.text() == "&Help"]
    return [action for action in menu.actions() if not action.isSeparator()]


def test_the_help_menu_has_the_guide_the_shortcuts_and_about(window: MainWindow) -> None:
    texts = [action.text() for action in _help_menu(window)]
    assert texts == [
        "User &Guide",
        "&Keyboard Shortcuts",
        "&Welcome",
        "Try the &Sample Vault",
        "&Remove the Sample…",
        "&About Cairn",
    ]


def test_help_opens_the_guide_and_its_text_is_the_guides(qtbot, window: MainWindow) -> None:
    assert guide_path() == GUIDE.resolve()
    _help_menu(window)[0].trigger()
    guide = window.findChild(UserGuide)
    assert guide is not None
    qtbot.waitExposed(guide)
    expected = QTextDocument()
    expected.setMarkdown(GUIDE.read_text(encoding="utf-8"))
    shown = guide.browser.toPlainText()
    assert shown == expected.toPlainText()
    assert shown.startswith("Cairn user guide")
    assert "Your vault and its passphrase" in shown  # a heading, rendered without its "##"
    assert "##" not in shown.splitlines()[0]
    # Asked for again, the same window comes forward rather than a second one.
    _help_menu(window)[0].trigger()
    assert window.findChildren(UserGuide) == [guide]


def test_the_guide_finds_words_and_says_when_they_are_not_there(qtbot, window: MainWindow) -> None:
    guide = window.open_user_guide()
    qtbot.keyClicks(guide.find_field, "verify-restore")
    qtbot.keyClick(guide.find_field, Qt.Key.Key_Return)
    assert guide.browser.textCursor().selectedText() == "verify-restore"
    assert not guide.notice.isVisibleTo(guide)
    guide.find_field.clear()
    qtbot.keyClicks(guide.find_field, "zeppelin hangar")
    qtbot.keyClick(guide.find_field, Qt.Key.Key_Return)
    assert guide.notice.text() == "“zeppelin hangar” is not in the guide."


def test_a_missing_guide_is_said_plainly(qtbot, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(help_windows, "guide_path", lambda: tmp_path / "user-guide.md")
    guide = UserGuide()
    qtbot.addWidget(guide)
    assert "The user guide is missing from this copy of Cairn" in guide.notice.text()
    assert str(tmp_path / "user-guide.md") in guide.notice.text()


def test_keyboard_shortcuts_lists_every_action_that_has_keys(qtbot, window: MainWindow) -> None:
    _help_menu(window)[1].trigger()
    dialog = window.findChild(ShortcutsDialog)
    assert dialog is not None
    rows = dict(dialog.rows())
    assert rows["File › Quick Capture…"] == "Ctrl+N"
    assert rows["File › New › Note…"] == "Ctrl+Shift+N"
    assert rows["View › Command Palette…"] == "Ctrl+P"
    assert rows["Edit › Copy"] in ("Ctrl+C", "Ctrl+C, Ctrl+Ins")  # the platform's others
    assert rows["Help › User Guide"] == "F1"  # not the Help key of special keyboards
    assert rows["Edit › Find"].startswith("Ctrl+K, Ctrl+F")
    keyed = [a for a in window.findChildren(QAction) if a.shortcuts() and a.text()]
    assert len(rows) >= len({a.text() for a in keyed}) - 1  # the toolbar's twin of Add Files
    assert "Help › About Cairn" not in rows  # no keys, nothing to list
    dialog.reject()
    assert QApplication.activeModalWidget() is None


def test_the_guide_lists_its_headings_and_each_shows_its_section(qtbot, window: MainWindow) -> None:
    guide = window.open_user_guide()
    qtbot.waitExposed(guide)
    headings = guide.headings()
    assert headings[:3] == ["Cairn user guide", "1. Install and start", "Around the window"]
    assert "7. Backups" in headings and "Export and import" in headings
    scroll = guide.browser.verticalScrollBar()
    assert scroll.value() == 0
    (item,) = guide.contents.findItems("7. Backups", Qt.MatchFlag.MatchExactly)
    at = guide.contents.visualItemRect(item).center()
    qtbot.mouseClick(guide.contents.viewport(), Qt.MouseButton.LeftButton, pos=at)
    assert guide.browser.textCursor().block().text() == "7. Backups"
    qtbot.waitUntil(lambda: scroll.value() > 0)
    shown_from = guide.browser.cursorForPosition(guide.browser.viewport().rect().topLeft())
    assert shown_from.block().text() == "7. Backups"  # the section at the top of the text
    assert guide.go_to("Export and import")
    assert guide.browser.textCursor().block().text() == "Export and import"


def test_the_keys_list_names_undo_plainly_and_the_keys_of_panels_too(
    qtbot, window: MainWindow
) -> None:
    service = window.session.service
    note = service.write("Note", "The wifi password at the cabin", "On the fridge.").node
    detail = window.workspace.detail
    with qtbot.waitSignal(detail.loaded, timeout=10_000):
        window.open_node(note.id)
    detail.archive_current()
    qtbot.waitUntil(lambda: window.undo_stack.count() == 1, timeout=10_000)
    window.workspace.library.setFocus()  # no text field: Undo names what it would take back
    window.edit_actions.refresh()
    assert "wifi" in window.edit_actions.undo.text()
    dialog = window.show_shortcuts()
    rows = dict(dialog.rows())
    assert rows["Edit › Undo"] == rows["Edit › Undo"].strip() != ""
    assert not any("wifi" in command for command in rows)
    # The keys that live in panels and dialogs, as they are bound.
    assert rows["Search field › Clear it (when empty: go to the results)"] == "Esc"
    assert rows["Note editor and forms › Save"] == "Ctrl+S"
    assert rows["Quick capture › Capture to the inbox"] == "Ctrl+Enter"
    assert rows["Graph › Zoom in"] == "Ctrl++, Ctrl+="
    assert rows["Graph › Fit the whole picture"] == "Ctrl+0"
    assert rows["Welcome › Try the sample vault"] == "Alt+T"
    dialog.reject()
