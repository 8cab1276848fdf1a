"""The window's menus and toolbar: File (vaults, adding, New, capture, export, lock,
settings, quit), Edit (undo, the clipboard, find), View (the palette, the library, the graph,
the docks) and Help (the guide, the keys, the welcome, about). The command palette and the
shortcut list read these menus, so an action added here is found there too. The palette also
lists each page of Settings (``settings_pages``: "theme" finds Appearance), and puts what a
person seldom means (a new or another vault, the sample, quitting) after everyday commands.

The window is the host: ``MenuHost`` names what of it the menus call, and ``build_menus``
answers with the actions the window keeps (``Menus``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import QMainWindow, QMenuBar, QToolBar

from cairn.ui.base.session import Session
from cairn.ui.shell.command_palette import Command, rarely_used
from cairn.ui.shell.edit_menu import EditActions
from cairn.ui.shell.new_menu import NewMenu
from cairn.ui.shell.welcome import Welcome
from cairn.ui.shell.workspace import Workspace

# The welcome panel shows these too.
ADD_FOLDER_KEYS, ADD_FILES_KEYS, NEW_NOTE_KEYS = "Ctrl+Shift+D", "Ctrl+Shift+O", "Ctrl+Shift+N"
CAPTURE_KEYS, LOCK_KEYS, FIND_KEYS, PALETTE_KEYS, GRAPH_KEYS = (
    "Ctrl+N",
    "Ctrl+L",
    "Ctrl+K",
    "Ctrl+P",
    "Ctrl+G",
)
# The pages of Settings as the palette lists them: the dialog's name for each, and the words a
# person may look for it by. A name the dialog does not have opens Settings at its first page.
SETTINGS_PAGES = (
    ("Appearance", "theme, text size"),
    ("Security", "passphrase, auto-lock"),
    ("Memory", "duplicates, what is kept"),
    ("Backup", "back up, restore"),
    ("Reading files", "scans, OCR languages, recordings"),
    ("Watched folders", "folders kept up to date"),
    ("Search", "search by meaning, vectors"),
    ("Graph server", "local programs, tokens, port"),
)


class MenuHost(Protocol):
    """What the menus call of the window."""

    session: Session
    workspace: Workspace
    welcome: Welcome
    undo_stack: QUndoStack

    def menuBar(self) -> QMenuBar: ...
    def addToolBar(self, title: str) -> QToolBar: ...
    def new_vault(self) -> object: ...
    def open_vault(self) -> None: ...
    def add_files(self) -> object: ...
    def add_folder(self) -> object: ...
    def new_note(self) -> object: ...
    def open_node(self, node_id: str, found_by: str = "") -> None: ...
    def quick_capture(self) -> object: ...
    def export(self) -> object: ...
    def lock(self) -> None: ...
    def open_settings(self) -> object: ...
    def open_settings_page(self, name: str) -> object: ...
    def quit(self) -> None: ...
    def focus_search(self) -> None: ...
    def open_command_palette(self) -> object: ...
    def show_graph(self) -> None: ...
    def open_user_guide(self) -> object: ...
    def show_shortcuts(self) -> object: ...
    def about(self) -> None: ...


@dataclass
class Menus:
    """The actions the window keeps: those it enables and disables with the vault, and
    those others reach (the toolbar, the tray, the tests)."""

    new_note: QAction
    new_menu: NewMenu
    capture: QAction
    export: QAction
    lock: QAction
    edit: EditActions
    find: QAction
    palette: QAction
    graph: QAction
    toolbar: QToolBar
    needs_vault: list[QAction] = field(default_factory=list)
    settings_pages: list[Command] = field(default_factory=list)  # for the palette alone


class _Actions:
    def __init__(self, owner: QMainWindow) -> None:
        self.owner = owner
        self.needs_vault: list[QAction] = []

    def __call__(
        self, text: str, slot: Callable[[], Any], *shortcuts: Any, needs_vault: bool = False
    ) -> QAction:
        """An action of ``text`` that runs ``slot``, with its shortcuts (a standard key gives
        the platform's bindings, none where it has none)."""
        action = QAction(text, self.owner)
        keys: list[QKeySequence] = []
        for shortcut in shortcuts:
            if isinstance(shortcut, QKeySequence.StandardKey):
                keys += QKeySequence.keyBindings(shortcut)
            else:
                keys.append(QKeySequence(shortcut))
        action.setShortcuts(keys)
        action.triggered.connect(lambda _=False: slot())
        if needs_vault:
            self.needs_vault.append(action)
        return action


def build_menus(host: MenuHost, owner: QMainWindow) -> Menus:
    """The menus and toolbar of the window ``host`` (``owner``, the same window, as Qt's
    parent of the actions)."""
    a = _Actions(owner)
    standard = QKeySequence.StandardKey
    bar = host.menuBar()
    file_menu = bar.addMenu("&File")
    file_menu.addAction(rarely_used(a("New &Vault…", host.new_vault)))
    file_menu.addAction(rarely_used(a("&Open Vault…", host.open_vault, standard.Open)))
    file_menu.addSeparator()
    file_menu.addAction(a("Add &Files…", host.add_files, ADD_FILES_KEYS, needs_vault=True))
    file_menu.addAction(a("Add Fol&der…", host.add_folder, ADD_FOLDER_KEYS, needs_vault=True))
    new_note = a("&Note…", host.new_note, NEW_NOTE_KEYS, needs_vault=True)
    new_menu = NewMenu(host.session, new_note, host.open_node, owner)
    file_menu.addMenu(new_menu)  # the toolbar's New button drops it down too
    capture = a("Quick &Capture…", host.quick_capture, CAPTURE_KEYS, needs_vault=True)
    file_menu.addAction(capture)
    file_menu.addSeparator()
    export = a("&Export…", host.export, needs_vault=True)
    file_menu.addAction(export)
    file_menu.addSeparator()
    lock = a("&Lock", host.lock, LOCK_KEYS, needs_vault=True)
    file_menu.addAction(lock)
    settings = a("&Settings…", host.open_settings, standard.Preferences, needs_vault=True)
    settings.setMenuRole(QAction.MenuRole.PreferencesRole)
    if not settings.shortcuts():  # GNOME and Windows have no standard one: the common one
        settings.setShortcut(QKeySequence("Ctrl+,"))
    file_menu.addAction(settings)
    file_menu.addSeparator()
    quit_action = rarely_used(a("&Quit", host.quit, standard.Quit))
    quit_action.setMenuRole(QAction.MenuRole.QuitRole)
    file_menu.addAction(quit_action)

    edit_menu = bar.addMenu("&Edit")
    edit = EditActions(host.undo_stack, owner)
    edit.add_to(edit_menu)
    edit_menu.addSeparator()
    find = a("&Find", host.focus_search, FIND_KEYS, standard.Find, needs_vault=True)
    edit_menu.addAction(find)

    view_menu = bar.addMenu("&View")
    palette = a("Command &Palette…", host.open_command_palette, PALETTE_KEYS)
    view_menu.addAction(palette)
    view_menu.addSeparator()
    show_library = a("&Library", lambda: None, needs_vault=True)
    show_library.setCheckable(True)
    show_library.setChecked(True)
    show_library.toggled.connect(host.workspace.library.setVisible)
    view_menu.addAction(show_library)
    graph = a("&Graph", host.show_graph, GRAPH_KEYS, needs_vault=True)
    view_menu.addAction(graph)
    view_menu.addSeparator()
    for name, dock in host.workspace.docks.items():
        toggle = dock.toggleViewAction()
        toggle.setText(f"&{name.capitalize()}")
        a.needs_vault.append(toggle)
        view_menu.addAction(toggle)

    toolbar = host.addToolBar("Main")
    toolbar.setObjectName("mainToolBar")
    toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    toolbar.addWidget(new_menu.button)
    toolbar.addAction(capture)
    toolbar.addAction(a("Add Files…", host.add_files, needs_vault=True))

    help_menu = bar.addMenu("&Help")
    help_menu.addAction(a("User &Guide", host.open_user_guide, standard.HelpContents))
    help_menu.addAction(a("&Keyboard Shortcuts", host.show_shortcuts))
    help_menu.addSeparator()
    help_menu.addActions(host.welcome.actions)  # Welcome, Try and Remove the Sample
    rarely_used(host.welcome.try_action)
    rarely_used(host.welcome.remove_action)
    help_menu.addSeparator()
    about = a("&About Cairn", host.about)
    about.setMenuRole(QAction.MenuRole.AboutRole)
    help_menu.addAction(about)
    pages = [_settings_page(a, host, name, words) for name, words in SETTINGS_PAGES]
    return Menus(
        new_note,
        new_menu,
        capture,
        export,
        lock,
        edit,
        find,
        palette,
        graph,
        toolbar,
        a.needs_vault,
        pages,
    )


def _settings_page(a: _Actions, host: MenuHost, name: str, words: str) -> Command:
    """The palette's command that opens Settings at page ``name``, found by ``words`` too."""
    text = f"{name} ({words})"
    return Command(
        a(text, lambda: host.open_settings_page(name), needs_vault=True), ("Settings", text)
    )
