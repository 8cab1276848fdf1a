"""The window: the unlock screen while the vault is locked, the workspace while it is open.

It owns what belongs to the whole window and to no panel: the menus and shortcuts, dropping
files anywhere to add them, auto-lock, the status bar (vault, counts, work in progress, graph
server), desktop notifications, the welcome panel of an empty vault, and the layout restored
from the last run. It stays live while other programs write to the vault (``outside_changes``)
and comes back after an unlock as it was before the lock (``resume``). Panels are wired
together here only through their signals and the few methods of the panel contract.
"""

from __future__ import annotations

import importlib.metadata

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QWidget,
)

from cairn.app.api import IngestReport, MemoryService, PassReport, SearchFilter, Swept
from cairn.ui.base.memory_drag import is_memory_drag
from cairn.ui.base.notify import STATUS_MESSAGE_MS, DesktopNotifier, app_icon
from cairn.ui.base.preferences import Preferences
from cairn.ui.base.screen_fit import fit_to_screen
from cairn.ui.base.session import Session
from cairn.ui.base.undoable import UndoHistory
from cairn.ui.ingest.drops import read_drop
from cairn.ui.ingest.words import STOPPED
from cairn.ui.lock.autolock import AutoLock
from cairn.ui.lock.unlock import VAULT_FILTER, UnlockScreen
from cairn.ui.settings.dialog import SettingsDialog
from cairn.ui.settings.server_switch import GraphServerSwitch
from cairn.ui.shell.capture import QuickCaptureDialog
from cairn.ui.shell.command_palette import CommandPalette
from cairn.ui.shell.export_dialog import ExportDialog
from cairn.ui.shell.file_choosers import choose_files, choose_folder
from cairn.ui.shell.help import ShortcutsDialog, UserGuide
from cairn.ui.shell.menus import ADD_FILES_KEYS, ADD_FOLDER_KEYS, NEW_NOTE_KEYS, build_menus
from cairn.ui.shell.outside_changes import OutsideChanges
from cairn.ui.shell.resume import Resume
from cairn.ui.shell.retention_schedule import RetentionSchedule
from cairn.ui.shell.status_bar import WindowStatus
from cairn.ui.shell.tray import WindowTray, tray_available
from cairn.ui.shell.welcome import Shortcuts, Welcome
from cairn.ui.shell.workspace import (
    Workspace,
    bring_forward,
    build_workspace,
    restore_layout,
    save_layout,
)
from cairn.ui.writing.inbox_item import InboxItemDialog
from cairn.ui.writing.note_editor import NoteEditor

DEFAULT_SIZE = (1280, 800)
LOCKED_BY_HAND = "Locked (Ctrl+L)"
ABOUT = (
    "<h3>Cairn</h3><p>A person's memory on their own computer: notes, facts, people, places "
    "and documents in one encrypted file, found again by meaning and by words.</p>"
    "<p>Nothing leaves this computer.</p>"
)


class MainWindow(QMainWindow):
    def __init__(
        self,
        session: Session | None = None,
        preferences: Preferences | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session or Session(self)
        self.preferences = preferences or Preferences()
        self.setWindowTitle("Cairn")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        fit_to_screen(self, QSize(*DEFAULT_SIZE))  # a saved layout may replace it below
        # What a person may take back (an archive, a merge...): panels push commands here, and
        # Edit › Undo and Redo act on it when no text field has the focus. A vault's commands
        # mean nothing once it is locked.
        self.undo_stack = QUndoStack(self)
        self.session.locked.connect(self.undo_stack.clear)
        self.undo_history = UndoHistory(self.undo_stack, self.session, self)
        self.session.undo_history = self.undo_history  # where panels record what they did
        self.undo_history.failed.connect(self._undo_failed)

        # Before the panels connect to the session: it must stop serving before they forget.
        self.server_switch = GraphServerSwitch(self.session, self.preferences, self)
        self.unlock_screen = UnlockScreen(self.session, self.preferences)
        self.unlock_screen.message.connect(self.say)
        self.workspace = self._build_workspace()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.unlock_screen)
        self.stack.addWidget(self.workspace.window)
        self.setCentralWidget(self.stack)

        self._build_status_bar()
        self.tray = self._build_tray()
        self.notifier = DesktopNotifier(self.statusBar(), self.tray)
        self.welcome = self._build_welcome()
        self.menus = build_menus(self, self)
        # The actions others reach by the names they always had.
        menus = self.menus
        self.new_note_action, self.new_menu, self.capture_action = (
            menus.new_note,
            menus.new_menu,
            menus.capture,
        )
        self.export_action, self.lock_action, self.find_action = (
            menus.export,
            menus.lock,
            menus.find,
        )
        self.edit_actions, self.palette_action, self.graph_action = (
            menus.edit,
            menus.palette,
            menus.graph,
        )
        self._vault_actions = menus.needs_vault
        self.autolock = AutoLock(
            self.session,
            self.preferences.autolock_minutes(),
            is_busy=lambda: self.status.busy_text is not None,
            parent=self,
        )
        self.outside_changes = OutsideChanges(self.session, self)
        self.outside_changes.problem.connect(self._outside_changes_failed)
        self.resume = Resume(self.session, self.workspace, self)
        self.retention_schedule = RetentionSchedule(self.session, self)
        self.retention_schedule.passed.connect(self._retention_passed)

        self.undo_history.open_requested.connect(self.open_node)
        self.session.unlocked.connect(self._unlocked)
        self.session.locked.connect(self._locked)
        self._restore_layout()
        if self.session.is_open:
            self._unlocked(self.session.service)
            self.server_switch.resume()  # its unlock came before this window
        else:
            self._locked()

    # -- building -----------------------------------------------------------------------------

    def _build_workspace(self) -> Workspace:
        workspace = build_workspace(self.session)
        for opener in (workspace.detail, workspace.ingest, workspace.review):
            opener.open_requested.connect(self.open_node)
        search = workspace.search
        search.open_requested.connect(lambda node: self.open_node(node, search.shown_query or ""))
        workspace.graph.open_requested.connect(self.open_node)
        workspace.ingest.busy_changed.connect(self.set_busy)
        workspace.ingest.finished.connect(self._ingest_finished)
        workspace.library.filter_changed.connect(workspace.search.set_filter)
        workspace.search.search_all_requested.connect(
            lambda: workspace.library.select(SearchFilter())
        )
        workspace.library.filter_changed.connect(self._shelf_chosen)
        workspace.ingest.resume_bar.needs_attention.connect(
            lambda: bring_forward(workspace, "ingest")
        )
        workspace.library.new_note_requested.connect(self.new_note)
        workspace.library.export_requested.connect(self.export)
        workspace.search.inbox_item_activated.connect(self.open_inbox_item)
        return workspace

    def _build_tray(self) -> WindowTray | None:
        """The tray icon, where the desktop has a tray (see ``ui/shell/tray.py``)."""
        if not tray_available():
            return None
        tray = WindowTray(
            self,
            self.session,
            self.windowIcon(),
            quick_capture=self.quick_capture,
            quit_app=self.quit,
        )
        tray.show()
        return tray

    def _build_welcome(self) -> Welcome:
        shortcuts = Shortcuts.of(ADD_FOLDER_KEYS, ADD_FILES_KEYS, NEW_NOTE_KEYS)
        welcome = Welcome(self.session, self.workspace, shortcuts, self)
        welcome.panel.notes_folder_chosen.connect(lambda watch: self.add_folder(watch=watch))
        welcome.panel.files_chosen.connect(self.add_files)
        welcome.panel.note_chosen.connect(self.new_note)
        welcome.told.connect(lambda text: self.statusBar().showMessage(text, STATUS_MESSAGE_MS))
        welcome.busy_changed.connect(self.set_busy)
        return welcome

    def _build_status_bar(self) -> None:
        self.status = WindowStatus(
            self.statusBar(), self.session, self.server_switch, self.open_server_settings
        )
        self.workspace.review.counts_changed.connect(self.status.set_waiting)
        self.status.review_button.clicked.connect(self.show_review)
        # The labels others reach by the names they always had.
        status = self.status
        self.vault_label, self.counts_label = status.vault_label, status.counts_label
        self.busy_label, self.server_label = status.busy_label, status.server_label

    # -- what panels and menus call -----------------------------------------------------------

    def open_node(self, node_id: str, found_by: str = "") -> None:
        """Show a memory in the detail pane (and centre the graph on it); ``found_by``: the
        search that found it, whose words the text marks."""
        self.welcome.dismiss()  # if it shows: the columns show the memory
        self.workspace.detail.mark_query(found_by)
        self.workspace.detail.show_node(node_id)
        self.workspace.graph.show_ego(node_id)

    def ingest_paths(self, paths: list[str], *, watch: bool = False) -> bool:
        """Hand files and folders to the ingest panel and bring it forward. ``watch`` keeps
        watching the folders: what changes in them later is added too (``watched_folders``)."""
        if not paths or not self.session.is_open:
            return False
        bring_forward(self.workspace, "ingest")
        if watch:
            for folder in paths:
                self.workspace.ingest.watching.add(folder)  # watched; what it holds is added
        else:
            self.workspace.ingest.start(paths)
        return True

    def show_review(self) -> None:
        """The review dock in front: the person asked for what waits for them."""
        if self.session.is_open:
            bring_forward(self.workspace, "review")

    def _shelf_chosen(self, wanted: SearchFilter) -> None:
        if wanted.kind == "review":  # the decisions are made in the review dock
            self.show_review()

    def focus_search(self) -> None:
        self.welcome.dismiss()  # if it shows: the search field is in the columns
        self.workspace.show_tab("search")
        self.workspace.search.focus_search()

    def show_graph(self) -> None:
        """View › Graph: the graph's tab in front, ready for the zoom keys."""
        self.welcome.dismiss()  # if it shows: the graph is in the columns
        self.workspace.show_tab("graph")
        self.workspace.graph.canvas.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def quick_capture(self) -> QuickCaptureDialog | None:
        if not self.session.is_open:
            return None
        dialog = QuickCaptureDialog(self.session, self)
        dialog.captured.connect(lambda _: self.say("Captured to the inbox."))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def new_note(self) -> NoteEditor | None:
        """File › New › Note: a note written in the window's Markdown editor."""
        if not self.session.is_open:
            return None
        editor = NoteEditor(self.session, self)
        editor.saved.connect(self.open_node)
        editor.finished.connect(editor.deleteLater)
        editor.show()
        return editor

    def open_inbox_item(self, item_id: str) -> InboxItemDialog | None:
        """An inbox capture opened from the list: edit it, make it a memory, or discard it."""
        if not self.session.is_open:
            return None
        dialog = InboxItemDialog(self.session, item_id, self)
        dialog.promoted.connect(self.open_node)
        dialog.open_requested.connect(self.open_node)  # from the form a capture went to
        dialog.promoted.connect(lambda _: self.say("Made a memory of the capture."))
        dialog.told.connect(self.say)  # a discard, and how to take it back
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def export(self) -> ExportDialog | None:
        """File › Export…: the memory out as plaintext files (see ``ExportDialog``)."""
        if not self.session.is_open:
            return None
        dialog = ExportDialog(self.session, self)
        dialog.busy_changed.connect(self.set_busy)
        dialog.exported.connect(
            lambda report: self.notify(
                "Export finished", f"{report.memories} memories written to {report.path}"
            )
        )
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def open_settings(self) -> SettingsDialog | None:
        if not self.session.is_open:
            return None
        dialog = SettingsDialog(
            self.session,
            self.preferences,
            self,
            self.server_switch,
            self.workspace.ingest.watching,
        )
        dialog.preferences_changed.connect(
            lambda: self.autolock.set_minutes(self.preferences.autolock_minutes())
        )
        dialog.busy_changed.connect(self.set_busy)  # auto-lock waits for a backup
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def open_settings_page(self, name: str) -> SettingsDialog | None:
        """Settings at its page ``name`` (the command palette's Settings › …)."""
        dialog = self.open_settings()
        if dialog is not None:
            dialog.show_page_named(name)
        return dialog

    def open_server_settings(self) -> SettingsDialog | None:
        dialog = self.open_settings()
        if dialog is not None:
            dialog.show_page(dialog.graph_server)
        return dialog

    def lock(self) -> None:
        """File › Lock (Ctrl+L)."""
        self.session.lock(LOCKED_BY_HAND)

    # -- the palette, help and quitting -------------------------------------------------------

    def open_command_palette(self) -> CommandPalette:
        """View › Command Palette (Ctrl+P): every menu command, found by typing."""
        palette = CommandPalette(self.menuBar(), self, self.menus.settings_pages)
        palette.popup()
        return palette

    def open_user_guide(self) -> UserGuide:
        """Help › User Guide: the guide in a window beside this one."""
        guide = self.findChild(UserGuide)
        if guide is None:
            guide = UserGuide(self)
        guide.show()
        guide.raise_()
        guide.activateWindow()
        return guide

    def show_shortcuts(self) -> ShortcutsDialog:
        dialog = ShortcutsDialog(self)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def quit(self) -> None:
        """File › Quit and the tray's Quit: close the window, and with it the vault, then end
        Cairn (a window hidden in the tray ends nothing by closing)."""
        if self.close():
            QApplication.quit()

    def say(self, text: str) -> None:
        """A line in the status bar about what just happened; it goes after a while, as every
        such line does (the vault's name and counts stay beside it)."""
        self.statusBar().showMessage(text, STATUS_MESSAGE_MS)

    def notify(self, title: str, text: str) -> None:
        """Tell the person that long work finished (a desktop notification where possible)."""
        self.notifier.notify(title, text)

    def tell_unfinished_exports(self, swept: list[Swept]) -> QMessageBox:
        """Say what Cairn removed at start: the plaintext an export left when it was killed
        (or why it could not remove it)."""
        failed = any(s.error is not None for s in swept)
        box = QMessageBox(
            QMessageBox.Icon.Warning if failed else QMessageBox.Icon.Information,
            "An export did not finish",
            "\n\n".join(s.sentence() for s in swept),
            QMessageBox.StandardButton.Ok,
            self,
        )
        box.open()
        return box

    def set_busy(self, text: str | None) -> None:
        """Show work in progress in the status bar (None when it is done). While work runs,
        auto-lock waits for it."""
        self.status.set_busy(text)

    def new_vault(self) -> QMessageBox | None:
        """File › New Vault…: the page that creates one. With a vault open it asks first
        (window-modal, without a nested event loop), since creating one locks this one."""
        if not self.session.is_open:
            self.unlock_screen.show_create()
            return None
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "New vault",
            "Lock this vault and create a new one?",
            QMessageBox.StandardButton.NoButton,
            self,
        )
        box.setInformativeText(
            "This vault stays as it is; open it again with its passphrase whenever you like."
        )
        create = box.addButton("&Lock and Create…", QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(box.addButton(QMessageBox.StandardButton.Cancel))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def answered(button: object) -> None:
            if button is create:
                self.session.lock()
                self.unlock_screen.show_create()

        box.buttonClicked.connect(answered)
        box.open()
        return box

    def open_vault(self) -> None:
        start = str(self.session.path.parent) if self.session.path else ""
        chosen, _ = QFileDialog.getOpenFileName(self, "Open a Cairn vault", start, VAULT_FILTER)
        if chosen:
            self.session.lock()
            self.unlock_screen.show_open(chosen)

    def add_files(self) -> QFileDialog | None:
        """File › Add Files…: the files chosen are added (the dialog opens without blocking)."""
        if not self.session.is_open:
            return None
        return choose_files(self, "Add files to the vault", self.ingest_paths)

    def add_folder(self, *, watch: bool = False) -> QFileDialog | None:
        """File › Add Folder…: the folder chosen is added, and with ``watch`` watched."""
        if not self.session.is_open:
            return None
        caption = "Add a folder to the vault"
        return choose_folder(self, caption, lambda f: self.ingest_paths([f], watch=watch))

    def about(self) -> None:
        try:
            version = f"<p>Version {importlib.metadata.version('cairn')}</p>"
        except importlib.metadata.PackageNotFoundError:  # run from a tree without metadata
            version = ""
        QMessageBox.about(self, "About Cairn", ABOUT + version)

    def _retention_passed(self, report: PassReport) -> None:
        if report.archived:
            self.statusBar().showMessage(
                f"Archived {len(report.archived)} faded short-lived memories (the Archive "
                "shelf lists them).",
                STATUS_MESSAGE_MS,
            )

    def _undo_failed(self, text: str) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Warning, "Cairn", text, QMessageBox.StandardButton.Ok, self
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()  # the window keeps drawing
        self.statusBar().showMessage(text, STATUS_MESSAGE_MS)

    def _outside_changes_failed(self, text: str) -> None:
        self.statusBar().showMessage(
            f"Changes made by other programs may not show until the next unlock: {text}",
            STATUS_MESSAGE_MS,
        )

    def _ingest_finished(self, report: IngestReport) -> None:
        summary = self.workspace.ingest.summary_text or "Your files are in the vault."
        if self.workspace.ingest.watched_run and not report.failed:
            # A watched folder's save is routine: a line in the status bar, no notification.
            self.statusBar().showMessage(f"Watched folders: {summary}", STATUS_MESSAGE_MS)
            return
        if report.cancelled:  # the title says it stopped; the summary need not say it twice
            self.notify("Adding files stopped", summary.removeprefix(STOPPED))
        else:
            self.notify("Adding files finished", summary)

    # -- session ------------------------------------------------------------------------------

    def _unlocked(self, service: MemoryService | None) -> None:
        self.stack.setCurrentWidget(self.workspace.window)
        self.menus.toolbar.setVisible(True)
        name = self.session.path.name if self.session.path else "vault"
        self.setWindowTitle(f"{name} — Cairn")
        self.status.unlocked(name, str(self.session.path or ""))
        for action in self._vault_actions:
            action.setEnabled(True)
        self.workspace.search.focus_search()

    def _locked(self) -> None:
        self.stack.setCurrentWidget(self.unlock_screen)
        # Its commands need an open vault: greyed buttons would only say "not now".
        self.menus.toolbar.setVisible(False)
        self.setWindowTitle("Cairn")
        self.status.locked()
        self.statusBar().clearMessage()  # a message about the vault's work is not for now
        for action in self._vault_actions:
            action.setEnabled(False)
        if self.session.path is not None:
            self.unlock_screen.show_open(self.session.path)

    # -- drops --------------------------------------------------------------------------------

    # Drops land here from anywhere in the window whose own widget does not take them. Links
    # are accepted too, so that refusing a web link can say why instead of a silent no-entry.
    # A memory dragged out of this window and dropped back is not a file to add.

    def _takes(self, event: QDragEnterEvent | QDragMoveEvent) -> None:
        mime = event.mimeData()
        if self.session.is_open and mime.hasUrls() and not is_memory_drag(mime):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        self._takes(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        self._takes(event)

    def dropEvent(self, event: QDropEvent) -> None:
        if not self.session.is_open or is_memory_drag(event.mimeData()):
            event.ignore()
            return
        dropped = read_drop(event.mimeData())
        if dropped.message:
            self.statusBar().showMessage(dropped.message, STATUS_MESSAGE_MS)
        if dropped.paths and self.ingest_paths(dropped.paths):
            event.acceptProposedAction()
        else:
            event.ignore()

    # -- layout -------------------------------------------------------------------------------

    def _restore_layout(self) -> None:
        geometry = self.preferences.layout("window")
        if geometry is not None:
            self.restoreGeometry(geometry)
        restore_layout(self.workspace, self.preferences, self.width())

    def save_layout(self) -> None:
        self.preferences.set_layout("window", self.saveGeometry())
        save_layout(self.workspace, self.preferences)
        self.preferences.save_layout()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_layout()
        self.autolock.stop_watching()
        # Closing the window closes the vault: the key does not outlive the window. The graph
        # server stops first (on ``about_to_lock``), and here too if no vault was open.
        self.session.lock()
        self.resume.forget()  # what the window showed goes with it
        self.server_switch.stop_now()
        super().closeEvent(event)
