"""The command palette (Ctrl+P): every action of the window's menus, found by typing, and the
few commands the window adds for it alone (each page of Settings).

The list is read from the menu bar each time the palette opens, so an action a panel adds to a
menu later is in it without being registered anywhere. Each command shows its menu path and
its shortcut; typing filters them: each word of the filter must be in the command, as a word's
start or anywhere in it; only when no command has them so are letters in order enough ("nno"
finds New › Note, but "theme" does not find "Try the Sample Vault" when Appearance names the
theme). Best matches come first, and among them the everyday commands before those a person
seldom means (a new vault, quitting: ``rarely_used``). Enter runs the chosen one, Esc closes.
A command that cannot run now (no vault is open) is listed after the others, greyed and marked
"not available now".

``menu_commands`` is also what Help › Keyboard shortcuts lists.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHeaderView,
    QLineEdit,
    QMenu,
    QMenuBar,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

SEPARATOR = " › "
UNAVAILABLE = "not available now"
PALETTE_WIDTH = 640
PALETTE_ROWS = 12
TOP_MARGIN = 48  # below the menu bar and tool bar, where a person looks for it
# Keys the filter field passes to the list, so the choice moves while the cursor stays put.
LIST_KEYS = {Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown}
ACTION_ROLE = Qt.ItemDataRole.UserRole
TYPABLE_KEYS = {f"F{number}" for number in range(1, 13)} | {"Del", "Ins", "Esc"}
RARELY_USED = "cairnRarelyUsed"  # the QAction property ``rarely_used`` sets


def rarely_used(action: QAction) -> QAction:
    """Mark ``action`` as one a person seldom means (it changes the vault open, or ends Cairn):
    the palette lists it after the everyday commands that match as well."""
    action.setProperty(RARELY_USED, True)
    return action


def plain(text: str) -> str:
    """A menu text without its mnemonic: "Quick &Capture…" is "Quick Capture…"."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


@dataclass(frozen=True)
class Command:
    action: QAction
    path: tuple[str, ...]  # the menus and the action's own text, mnemonics removed

    @property
    def label(self) -> str:
        text = SEPARATOR.join(self.path)
        if self.action.isCheckable():  # a state is said in words, not only by a tick
            text += " (on)" if self.action.isChecked() else " (off)"
        return text

    @property
    def shortcut(self) -> str:
        """The action's first keys, as the menu shows them ("" when it has none)."""
        keys = self.action.shortcuts()
        return keys[0].toString(QKeySequence.SequenceFormat.NativeText) if keys else ""

    @property
    def every_shortcut(self) -> str:
        """All its keys: a standard action has the platform's others too (Ctrl+Ins)."""
        return key_names(self.action)


def key_names(action: QAction) -> str:
    """The keys of ``action`` a person can type: combinations and F1 to F12, without the
    keys of special keyboards a standard action also lists (F14, a key labelled Undo)."""
    names = [key.toString(QKeySequence.SequenceFormat.NativeText) for key in action.shortcuts()]
    return ", ".join(name for name in names if "+" in name or name in TYPABLE_KEYS)


def menu_commands(menu_bar: QMenuBar) -> list[Command]:
    """Every visible action of the menu bar's menus and submenus, in menu order."""
    return list(_walk(menu_bar.actions(), ()))


def _walk(actions: list[QAction], path: tuple[str, ...]) -> Iterator[Command]:
    for action in actions:
        if action.isSeparator() or not action.isVisible() or not action.text():
            continue
        here = (*path, plain(action.text()))
        submenu = action.menu()
        if isinstance(submenu, QMenu):
            yield from _walk(submenu.actions(), here)
        else:
            yield Command(action, here)


def refresh_menus(menu_bar: QMenuBar) -> None:
    """Let every menu that works out its actions' state when it opens do so now."""
    for action in menu_bar.actions():
        menu = action.menu()
        if isinstance(menu, QMenu):
            menu.aboutToShow.emit()


def match_score(query: str, text: str, *, in_order: bool = True) -> int | None:
    """How well ``text`` matches ``query`` (higher is better), or None when a word of the
    query is not in it at all (with ``in_order``, not even as letters in order)."""
    haystack = text.casefold()
    words = haystack.replace(SEPARATOR.strip(), " ").split()
    score = 0
    for needle in query.casefold().split():
        if any(word.startswith(needle) for word in words):
            score += 3
        elif needle in haystack:
            score += 2
        elif in_order and _in_order(needle, haystack):
            score += 1
        else:
            return None
    return score


def _in_order(needle: str, haystack: str) -> bool:
    letters = iter(haystack)
    return all(letter in letters for letter in needle)


def ranked(commands: list[Command], query: str) -> list[Command]:
    """The commands that match ``query`` (letters in order only when nothing has the words):
    available ones first, best matches first, everyday ones before those rarely used, then
    in menu order (the sort is stable)."""
    kept: list[tuple[int, Command]] = []
    for in_order in (False, True):
        scored = [(match_score(query, c.label, in_order=in_order), c) for c in commands]
        kept = [(score, c) for score, c in scored if score is not None]
        if kept:
            break
    kept.sort(
        key=lambda pair: (
            not pair[1].action.isEnabled(),
            -pair[0],
            bool(pair[1].action.property(RARELY_USED)),
        )
    )
    return [c for _, c in kept]


class CommandPalette(QFrame):
    """A panel over the top of the window: a filter field above the list of commands. It is
    a child of the window, not a popup window of its own: it needs no grab of the keyboard
    and mouse (which some platforms refuse), and it closes when the focus leaves it."""

    def __init__(self, menu_bar: QMenuBar, parent: QWidget, extra: Sequence[Command] = ()) -> None:
        """The menu bar's commands, and ``extra`` ones only the palette lists."""
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setAccessibleName("Command palette")
        self._window = parent
        # Given the focus back on closing, unless the person moved it elsewhere themselves.
        self._previous_focus = QApplication.focusWidget()
        refresh_menus(menu_bar)
        self._commands = menu_commands(menu_bar) + [c for c in extra if c.action.isVisible()]

        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Type a command…")
        self.filter.setAccessibleName("Filter the commands")
        self.filter.setClearButtonEnabled(True)
        self.filter.installEventFilter(self)
        self.list = QTreeWidget()
        self.list.setAccessibleName("Commands")
        self.list.setColumnCount(2)
        self.list.setHeaderLabels(["Command", "Shortcut"])
        self.list.setHeaderHidden(True)
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the cursor stays in the filter
        header = self.list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 6, 6, 6)
        column.addWidget(self.filter)
        column.addWidget(self.list)

        self.filter.textChanged.connect(self._fill)
        self.list.itemActivated.connect(lambda item, _column: self.run(item))
        self.list.itemClicked.connect(lambda item, _column: self.run(item))
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)
        self._fill("")

    def popup(self) -> None:
        """Show the palette at the top of its window, the cursor in the filter."""
        window = self._window
        rows = self.list.sizeHintForRow(0) * PALETTE_ROWS if self.list.topLevelItemCount() else 0
        width = min(PALETTE_WIDTH, window.width() - 2 * TOP_MARGIN)
        height = self.filter.sizeHint().height() + rows + 24
        height = min(height, window.height() - 2 * TOP_MARGIN)
        self.resize(max(width, 200), max(height, 120))
        self.move((window.width() - self.width()) // 2, TOP_MARGIN)
        self.show()
        self.raise_()
        self.filter.setFocus(Qt.FocusReason.PopupFocusReason)

    def shown_commands(self) -> list[tuple[str, str, bool]]:
        """What the list shows: each row's command, shortcut and whether it can run now."""
        return [(item.text(0), item.text(1), _runnable(item)) for item in self._items()]

    def run(self, item: QTreeWidgetItem | None = None) -> None:
        """Close the palette and run the chosen command (the current one by default)."""
        item = item or self.list.currentItem()
        if item is None or not _runnable(item):
            return
        action = item.data(0, ACTION_ROLE)
        self.close()
        # Once the palette has gone and the focus is back where it was: an Edit command acts
        # on the field that had the focus before the palette opened.
        if isinstance(action, QAction):
            QTimer.singleShot(0, action.trigger)

    # -- the list -----------------------------------------------------------------------------

    def _fill(self, query: str) -> None:
        self.list.clear()
        for command in ranked(self._commands, query):
            enabled = command.action.isEnabled()
            label = command.label if enabled else f"{command.label} — {UNAVAILABLE}"
            item = QTreeWidgetItem([label, command.shortcut])
            item.setData(0, ACTION_ROLE, command.action)
            item.setToolTip(0, command.action.toolTip())
            if not enabled:
                item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addTopLevelItem(item)
        first = self.list.topLevelItem(0)
        if first is not None and _runnable(first):
            self.list.setCurrentItem(first)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.filter
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
        ):
            return self._filter_key(event)
        return super().eventFilter(watched, event)

    def _filter_key(self, event: QKeyEvent) -> bool:
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.run()
            return True
        if key == Qt.Key.Key_Escape:
            self.close()
            return True
        if key in LIST_KEYS:
            self._move(key)
            return True
        return False

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        """A click or Tab elsewhere in the window closes the palette, as a popup would."""
        if new is not None and new is not self and not self.isAncestorOf(new):
            self._previous_focus = None
            self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        previous = self._previous_focus
        if previous is not None and shiboken6.isValid(previous) and previous.isVisible():
            previous.setFocus(Qt.FocusReason.PopupFocusReason)
        super().closeEvent(event)

    def _items(self) -> list[QTreeWidgetItem]:
        rows = (self.list.topLevelItem(n) for n in range(self.list.topLevelItemCount()))
        return [item for item in rows if item is not None]

    def _move(self, key: int) -> None:
        """Up and Down from the filter: to the next command that can run."""
        runnable = [item for item in self._items() if _runnable(item)]
        if not runnable:
            return
        step = -1 if key in (Qt.Key.Key_Up, Qt.Key.Key_PageUp) else 1
        if key in (Qt.Key.Key_PageUp, Qt.Key.Key_PageDown):
            step *= PALETTE_ROWS
        current = self.list.currentItem()
        here = runnable.index(current) if current in runnable else -1
        there = max(0, min(len(runnable) - 1, here + step))
        self.list.setCurrentItem(runnable[there])


def _runnable(item: QTreeWidgetItem) -> bool:
    return bool(item.flags() & Qt.ItemFlag.ItemIsEnabled)
