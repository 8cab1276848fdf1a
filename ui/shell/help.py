"""The Help menu's windows: the user guide and the list of keyboard shortcuts.

The guide is ``docs/user-guide.md``, shown as it is written (Markdown rendered by Qt), with its
contents beside it: each heading, a click away from its section. It ships with Cairn as the
package data of ``cairn.docs`` (pyproject; ``packaging/cairn.spec`` for the bundle), which
sits beside ``cairn.ui``: in the source tree ``docs/`` beside ``ui/``, when installed
``cairn/docs/`` beside ``cairn/ui/``, so one path finds it in both.

The shortcuts are read from the window's actions, as the command palette reads them: the
menus' first (Undo and Redo by their plain names, not by what they would take back), then any
other action of the window that has keys of its own, then the keys that work inside a panel
or a dialog, from their table (``ui/base/keys.py``).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QTextBlock, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QTreeWidgetItemIterator,
    QVBoxLayout,
    QWidget,
)

import cairn.ui
from cairn.ui.base.keys import PANEL_KEYS
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.screen_fit import fit_to_screen
from cairn.ui.shell.command_palette import SEPARATOR, key_names, menu_commands, plain
from cairn.ui.shell.edit_menu import PLAIN_NAME

GUIDE_NAME = "user-guide.md"
GUIDE_SIZE = QSize(980, 680)
CONTENTS_WIDTH = 230  # the guide's contents, beside its text
CONTENTS_DEPTH = 3  # headings down to ### are listed
POSITION_ROLE = Qt.ItemDataRole.UserRole
SHORTCUTS_SIZE = QSize(560, 560)
ELSEWHERE = "Elsewhere"


def guide_path() -> Path:
    """Where this copy of Cairn keeps its user guide."""
    return Path(cairn.ui.__file__).resolve().parent.parent / "docs" / GUIDE_NAME


def read_guide() -> str:
    """The guide's Markdown; raises OSError (with the path) when it is not there."""
    return guide_path().read_text(encoding="utf-8")


class UserGuide(QDialog):
    """Help › User guide: the guide in a window of its own, with its contents and a find
    field."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Cairn user guide")
        fit_to_screen(self, GUIDE_SIZE)
        self.find_field = QLineEdit()
        self.find_field.setPlaceholderText("Find in the guide (Enter for the next match)")
        self.find_field.setAccessibleName("Find in the guide")
        self.find_field.setClearButtonEnabled(True)
        self.browser = QTextBrowser()
        self.browser.setAccessibleName("User guide")
        # Its links name files of the source tree, not pages this window could show.
        self.browser.setOpenLinks(False)
        self.contents = QTreeWidget()
        self.contents.setHeaderHidden(True)
        self.contents.setAccessibleName("Contents of the guide")
        self.contents.setAccessibleDescription("Each heading; choosing one shows its section")
        self.contents.itemActivated.connect(self._go_to)
        self.contents.itemClicked.connect(self._go_to)
        self.notice = NoticeLabel()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(self.contents)
        split.addWidget(self.browser)
        split.setStretchFactor(1, 1)
        split.setSizes([CONTENTS_WIDTH, GUIDE_SIZE.width() - CONTENTS_WIDTH])
        column = QVBoxLayout(self)
        column.addWidget(self.find_field)
        column.addWidget(split, 1)
        column.addWidget(self.notice)
        column.addWidget(buttons)
        self.find_field.returnPressed.connect(self.find_next)
        self.find_field.textEdited.connect(lambda _: self.notice.clear())
        try:
            self.browser.setMarkdown(read_guide())
            self._list_headings()
        except OSError as error:
            self.browser.setPlainText("")
            self.notice.show_error(
                f"The user guide is missing from this copy of Cairn ({error.strerror}: "
                f"{guide_path()}). Reinstalling Cairn puts it back; it is also "
                "docs/user-guide.md in Cairn's source."
            )

    def _list_headings(self) -> None:
        """The contents: the headings in order, a level-3 heading under the one before it (the
        title and the numbered sections at the top)."""
        self.contents.clear()
        parent: QTreeWidgetItem | None = None
        block = self.browser.document().begin()
        while block.isValid():
            level = block.blockFormat().headingLevel()
            if 0 < level <= CONTENTS_DEPTH and block.text().strip():
                item = QTreeWidgetItem([block.text().strip()])
                item.setData(0, POSITION_ROLE, block.position())
                if level == CONTENTS_DEPTH and parent is not None:
                    parent.addChild(item)
                else:
                    self.contents.addTopLevelItem(item)
                    parent = item
            block = block.next()
        self.contents.expandAll()

    def headings(self) -> list[str]:
        """The contents' entries, top to bottom."""
        found: list[str] = []
        every = QTreeWidgetItemIterator(self.contents)
        while (item := every.value()) is not None:
            found.append(item.text(0))
            every += 1
        return found

    def go_to(self, heading: str) -> bool:
        """Show the section of ``heading`` (as the contents list it) at the top."""
        found = self.contents.findItems(
            heading, Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive
        )
        if not found:
            return False
        self.contents.setCurrentItem(found[0])
        self._go_to(found[0])
        return True

    def _go_to(self, item: QTreeWidgetItem) -> None:
        document = self.browser.document()
        block: QTextBlock = document.findBlock(int(item.data(0, POSITION_ROLE)))
        self.browser.setTextCursor(QTextCursor(block))
        top = document.documentLayout().blockBoundingRect(block).top()
        self.browser.verticalScrollBar().setValue(int(top))

    def find_next(self) -> bool:
        """Select the next match of the find field, from the top again after the last."""
        words = self.find_field.text().strip()
        if not words:
            return False
        if self.browser.find(words):
            self.notice.clear()
            return True
        self.browser.moveCursor(QTextCursor.MoveOperation.Start)
        if self.browser.find(words):
            self.notice.clear()
            return True
        self.notice.show_info(f"“{words}” is not in the guide.")
        return False


def window_shortcuts(window: QMainWindow) -> list[tuple[str, str]]:
    """Every (command, keys) of the window: the menus' in menu order, then other actions
    with keys of their own (a panel's), under "Elsewhere"."""
    rows: list[tuple[str, str]] = []
    seen: set[QAction] = set()
    for command in menu_commands(window.menuBar()):
        seen.add(command.action)
        if command.shortcut:
            named = command.action.property(PLAIN_NAME)
            path = (*command.path[:-1], plain(named)) if named else command.path
            rows.append((SEPARATOR.join(path), command.every_shortcut))
    for action in window.findChildren(QAction):
        if action in seen or not action.shortcuts() or not action.text():
            continue
        rows.append((f"{ELSEWHERE}{SEPARATOR}{plain(action.text())}", key_names(action)))
    rows += [(f"{keys.where}{SEPARATOR}{keys.what}", keys.shown) for keys in PANEL_KEYS]
    return rows


class ShortcutsDialog(QDialog):
    """Help › Keyboard shortcuts: every command that has keys, and its keys."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.setWindowTitle("Keyboard shortcuts")
        fit_to_screen(self, SHORTCUTS_SIZE)
        intro = QLabel(
            "Every command is also in the command palette (Ctrl+P): type a few letters of "
            "its name. In a dialog or a form, Alt and the underlined letter of a field or a "
            "button goes to it."
        )
        intro.setWordWrap(True)
        self.table = QTreeWidget()
        self.table.setAccessibleName("Keyboard shortcuts")
        self.table.setHeaderLabels(["Command", "Keys"])
        self.table.setRootIsDecorated(False)
        self.table.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.header().setStretchLastSection(False)
        self.table.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        for command, keys in window_shortcuts(window):
            self.table.addTopLevelItem(QTreeWidgetItem([command, keys]))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(intro)
        column.addWidget(self.table, 1)
        column.addWidget(buttons)

    def rows(self) -> list[tuple[str, str]]:
        items = (self.table.topLevelItem(n) for n in range(self.table.topLevelItemCount()))
        return [(item.text(0), item.text(1)) for item in items if item is not None]
