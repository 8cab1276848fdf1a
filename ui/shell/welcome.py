"""The welcome panel: what to do first in a vault that holds no memories yet.

It takes the place of the three columns while the vault is empty, and goes away by itself once
the vault holds memories, or when the person closes it (Help › Welcome brings it back). Its
choices are big buttons, each with its keyboard shortcut: add a notes folder (and keep watching
it), add files (or drop them anywhere), write a note, try the sample vault; and, while the
sample is in the vault, remove it.

``WelcomePanel`` is the widget. ``Welcome`` decides when it shows (a look in a worker after each
unlock and each burst of writes: are there memories, is the sample in?) and writes or removes
the sample in a worker, the removal once the person confirms it. The window does the other
choices: it owns the file dialogs, the ingest and the note editor.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractButton,
    QCheckBox,
    QCommandLinkButton,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import MemoryService, SampleAdded, SampleRemoved
from cairn.ui.base.keys import WELCOME_REMOVE, WELCOME_SAMPLE
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.scaled_font import keep_scaled
from cairn.ui.base.session import Session
from cairn.ui.shell.workspace import Workspace

TITLE_SCALE = 1.6  # of the text size
COLUMN_WIDTH = 620  # the choices read as one column, not stretched across a wide window
LOOK_DELAY_MS = 300  # an ingest writes in bursts: look once the burst pauses
TITLE = "Welcome to your vault"
INTRO = (
    "Everything you add stays in this one encrypted file, on this computer. Start with one of "
    "these:"
)
DROP_LINE = "Or drop files and folders anywhere on this window."
KEEP_WATCHING = "Keep watching the folder: what changes in it is added while the vault is open"
# The sample's buttons work by their underlined letter while the panel is shown.
SAMPLE_KEYS, REMOVE_KEYS = WELCOME_SAMPLE.shown, WELCOME_REMOVE.shown
REMOVE_QUESTION = (
    "Remove the sample? This forgets its invented memories for good. Your own memories stay, "
    "and so does anything you wrote into the sample (an edit, a note merged into it)."
)


@dataclass(frozen=True)
class Shortcuts:
    """The window's shortcuts for the choices it carries out, as the platform writes them."""

    notes_folder: str
    files: str
    note: str

    @classmethod
    def of(cls, notes_folder: str, files: str, note: str) -> Shortcuts:
        """From portable key names (``"Ctrl+Shift+D"``)."""
        native = QKeySequence.SequenceFormat.NativeText
        shown = [QKeySequence(keys).toString(native) for keys in (notes_folder, files, note)]
        return cls(*shown)


def _choice(title: str, keys: str, description: str) -> QCommandLinkButton:
    """A big button: its title with the keys that press it, and a line on what it does."""
    shown = f"{title}    {keys}" if keys else title
    button = QCommandLinkButton(shown, description)
    plain = title.replace("&", "")
    button.setAccessibleName(plain)
    button.setAccessibleDescription(f"{description} Shortcut: {keys}." if keys else description)
    return button


class WelcomePanel(QWidget):
    notes_folder_chosen = Signal(bool)  # keep watching it
    files_chosen = Signal()
    note_chosen = Signal()
    sample_chosen = Signal()
    removal_chosen = Signal()
    close_requested = Signal()

    def __init__(self, shortcuts: Shortcuts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcomePanel")
        self.setAccessibleName("Welcome")
        self.folder_button = _choice(
            "Add a notes folder…",
            shortcuts.notes_folder,
            "An Obsidian, Logseq or Foam vault, or any folder of notes, PDFs and recordings.",
        )
        self.keep_watching = QCheckBox(KEEP_WATCHING)
        self.keep_watching.setChecked(True)
        self.keep_watching.setAccessibleName("Keep watching the notes folder")
        self.files_button = _choice(
            "Add files…",
            shortcuts.files,
            "PDFs, scans, photos, voice memos, recordings, documents.",
        )
        self.drop_line = QLabel(DROP_LINE)
        self.note_button = _choice(
            "Write a note",
            shortcuts.note,
            "Markdown, with [[links]] to the people, places and projects it is about.",
        )
        self.sample_button = _choice(
            "&Try the sample vault",
            SAMPLE_KEYS,
            "A small invented world (people, a project, linked notes, a fact that changed, a "
            "task due soon) to see what search, the graph and review do. Removed in one step.",
        )
        self.remove_button = _choice(
            "&Remove the sample",
            REMOVE_KEYS,
            "Forgets the sample's invented memories. Yours stay.",
        )
        self.remove_button.setVisible(False)
        self.notice = NoticeLabel()
        self.close_button = QPushButton("Close")
        self.close_button.setAccessibleName("Close the welcome")
        self.close_button.setToolTip("Show the library, search and detail columns")
        self._connect()
        self._lay_out()

    def _connect(self) -> None:
        self.folder_button.clicked.connect(
            lambda: self.notes_folder_chosen.emit(self.keep_watching.isChecked())
        )
        self.files_button.clicked.connect(self.files_chosen)
        self.note_button.clicked.connect(self.note_chosen)
        self.sample_button.clicked.connect(self.sample_chosen)
        self.remove_button.clicked.connect(self.removal_chosen)
        self.close_button.clicked.connect(self.close_requested)

    def _lay_out(self) -> None:
        title = QLabel(TITLE)
        keep_scaled(title, TITLE_SCALE, bold=True)
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        indent = QVBoxLayout()
        indent.setContentsMargins(48, 0, 0, 8)  # under the button's text, past its arrow
        indent.addWidget(self.keep_watching)
        drop = QVBoxLayout()
        drop.setContentsMargins(48, 0, 0, 8)
        drop.addWidget(self.drop_line)
        closing = QHBoxLayout()
        closing.addStretch(1)
        closing.addWidget(self.close_button)

        column = QWidget()
        column.setMaximumWidth(COLUMN_WIDTH)
        layout = QVBoxLayout(column)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addSpacing(12)
        layout.addWidget(self.folder_button)
        layout.addLayout(indent)
        layout.addWidget(self.files_button)
        layout.addLayout(drop)
        layout.addWidget(self.note_button)
        layout.addWidget(self.sample_button)
        layout.addWidget(self.remove_button)
        layout.addWidget(self.notice)
        layout.addSpacing(12)
        layout.addLayout(closing)
        layout.addStretch(1)

        centred = QWidget()
        row = QHBoxLayout(centred)
        row.addStretch(1)
        row.addWidget(column, 100)
        row.addStretch(1)
        # A small window scrolls the choices instead of squeezing them.
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(centred)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 24, 0, 0)
        outer.addWidget(scroll)

    @property
    def choices(self) -> list[QAbstractButton]:
        """The buttons shown now, top to bottom."""
        buttons = (
            self.folder_button,
            self.files_button,
            self.note_button,
            self.sample_button,
            self.remove_button,
        )
        return [b for b in buttons if not b.isHidden()]

    def set_sample_present(self, present: bool) -> None:
        self.sample_button.setVisible(not present)
        self.remove_button.setVisible(present)

    def set_working(self, text: str | None) -> None:
        """While the sample is written or removed: say so, and take no second click."""
        for button in (self.sample_button, self.remove_button):
            button.setEnabled(text is None)
        if text is None:
            self.notice.clear()
        else:
            self.notice.show_info(text)


def _look(service: MemoryService) -> tuple[bool, bool]:
    """(worker) Whether the vault holds memories, and whether the sample is among them."""
    memories = service.list_memories(scopes=service.scopes(), limit=1)
    return bool(memories), service.sample_in_vault()


class Welcome(QObject):
    """The welcome panel in the workspace's ``center`` in place of its columns, and its
    actions for the Help menu (Welcome, Try the Sample Vault, Remove the Sample…)."""

    sample_added = Signal(object)  # the SampleAdded, once written and shown
    told = Signal(str)  # a sentence for the status bar
    busy_changed = Signal(object)  # str while the sample is written or removed, None after

    def __init__(
        self, session: Session, workspace: Workspace, shortcuts: Shortcuts, parent: QObject
    ) -> None:
        super().__init__(parent)
        self.panel = WelcomePanel(shortcuts)
        self._session = session
        self._workspace = workspace
        self._center = workspace.center
        self._columns = workspace.splitter
        self._center.addWidget(self.panel)
        self._has_memories: bool | None = None  # not looked yet
        self._dismissed = False  # closed by the person, until the next unlock
        self._working = False
        self.removal_question: QMessageBox | None = None
        self._look_later = QTimer(self)
        self._look_later.setSingleShot(True)
        self._look_later.setInterval(LOOK_DELAY_MS)
        self._look_later.timeout.connect(self.look)
        self.actions = self._build_actions()
        self._connect(session)
        if session.is_open:  # a window made for a vault already open
            self._unlocked()

    def _build_actions(self) -> list[QAction]:
        self.show_action = QAction("&Welcome", self)
        self.try_action = QAction("Try the &Sample Vault", self)
        self.remove_action = QAction("&Remove the Sample…", self)
        self.show_action.triggered.connect(lambda _=False: self.show())
        self.try_action.triggered.connect(lambda _=False: self.add_sample())
        self.remove_action.triggered.connect(lambda _=False: self.ask_to_remove())
        return [self.show_action, self.try_action, self.remove_action]

    def _connect(self, session: Session) -> None:
        session.unlocked.connect(self._unlocked)
        session.locked.connect(self._locked)
        session.changed.connect(self._look_later.start)
        panel = self.panel
        panel.sample_chosen.connect(self.add_sample)
        panel.removal_chosen.connect(self.ask_to_remove)
        panel.close_requested.connect(self.dismiss)
        for chosen in (panel.notes_folder_chosen, panel.files_chosen, panel.note_chosen):
            chosen.connect(self._went_on)
        self._enable(sample=None)

    # -- showing ------------------------------------------------------------------------------

    @property
    def showing(self) -> bool:
        return self._center.currentWidget() is self.panel

    def show(self) -> None:
        """Help › Welcome: the panel, whatever the vault holds."""
        if not self._session.is_open:
            return
        self._dismissed = False
        self._show_panel()
        self.look()

    def dismiss(self) -> None:
        """The person closed it (or went to the columns): not shown again until the next
        unlock or Help › Welcome. Nothing happens while it is not shown."""
        if not self.showing:
            return
        self._dismissed = True
        self._center.setCurrentWidget(self._columns)

    def look(self) -> None:
        self._look_later.stop()
        service = self._session.service
        if service is None:
            return
        call_in_worker(
            self,
            _look,
            service,
            on_done=lambda seen: self._seen(service, *seen),
            on_failed=lambda _text: None,  # the status bar's counts say what went wrong
        )

    def _seen(self, service: MemoryService, has_memories: bool, sample: bool) -> None:
        if self._session.service is not service:
            return  # locked, or another vault opened, meanwhile
        had, self._has_memories = self._has_memories, has_memories
        self.panel.set_sample_present(sample)
        self._enable(sample)
        if not has_memories and not self._dismissed and not self.showing:
            self._show_panel()
        elif has_memories and had is False:
            self._center.setCurrentWidget(self._columns)  # the vault's first memories came

    def _show_panel(self) -> None:
        """In place of the columns, the keyboard's focus on its first choice (the search
        field, which had it, is hidden with the columns)."""
        self._center.setCurrentWidget(self.panel)
        self.panel.choices[0].setFocus(Qt.FocusReason.OtherFocusReason)

    def _went_on(self) -> None:
        """A choice the window carries out: in a vault with memories (Help › Welcome) the
        person goes on to it; an empty one keeps the panel until memories come."""
        if self._has_memories:
            self._center.setCurrentWidget(self._columns)

    def _enable(self, sample: bool | None) -> None:
        """The Help menu's actions: the sample's by whether it is in (None: not known, as
        while the vault is locked)."""
        self.show_action.setEnabled(self._session.is_open)
        self.try_action.setEnabled(sample is False)
        self.remove_action.setEnabled(sample is True)

    def _unlocked(self) -> None:
        self._has_memories, self._dismissed = None, False
        self._center.setCurrentWidget(self._columns)
        self._enable(sample=None)
        self.look()

    def _locked(self) -> None:
        self._look_later.stop()
        self._enable(sample=None)
        self._has_memories, self._working = None, False
        self.panel.set_working(None)
        if self.removal_question is not None:
            self.removal_question.close()
        self._center.setCurrentWidget(self._columns)

    # -- the sample ---------------------------------------------------------------------------

    def add_sample(self) -> None:
        service = self._session.service
        if service is None or self._working:
            return
        self._start("Writing the sample into your vault…")
        call_in_worker(
            self,
            lambda: service.add_sample(),
            on_done=lambda added: self._added(service, added),
            on_failed=self._failed,
        )

    def ask_to_remove(self) -> QMessageBox | None:
        """Ask before the sample is forgotten; ``remove_sample`` once the person says yes."""
        if not self._session.is_open or self._working:
            return None
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Remove the sample",
            REMOVE_QUESTION,
            QMessageBox.StandardButton.NoButton,
            self.panel.window(),
        )
        remove = box.addButton("Remove the sample", QMessageBox.ButtonRole.DestructiveRole)
        remove.setAccessibleName("Remove the sample")
        box.setDefaultButton(box.addButton(QMessageBox.StandardButton.Cancel))

        def answered(button: QAbstractButton) -> None:
            if button is remove:
                self.remove_sample()

        box.buttonClicked.connect(answered)
        box.finished.connect(lambda _: self._forget_question(box))
        self.removal_question = box
        box.open()
        return box

    def remove_sample(self) -> None:
        service = self._session.service
        if service is None or self._working:
            return
        self._start("Removing the sample…")
        call_in_worker(
            self,
            lambda: service.remove_sample(),
            on_done=lambda removed: self._removed(service, removed),
            on_failed=self._failed,
        )

    def _forget_question(self, box: QMessageBox) -> None:
        if self.removal_question is box:
            self.removal_question = None
        box.deleteLater()

    def _start(self, text: str) -> None:
        self._working = True
        self.panel.set_working(text)
        self.busy_changed.emit(text)

    def _finish(self) -> None:
        self._working = False
        self.panel.set_working(None)
        self.busy_changed.emit(None)

    def _added(self, service: MemoryService, added: SampleAdded) -> None:
        """Show the sample: its project in the detail pane and the graph, the graph in front."""
        self._finish()
        if self._session.service is not service:
            return
        self._has_memories = True
        self._center.setCurrentWidget(self._columns)  # the person wants to look at it now
        self.told.emit(added.sentence())
        self._session.changed.emit()
        workspace = self._workspace
        workspace.detail.show_node(added.project_id)
        workspace.graph.show_ego(added.project_id)
        workspace.show_tab("graph")
        self.sample_added.emit(added)

    def _removed(self, service: MemoryService, removed: SampleRemoved) -> None:
        """What showed a sample memory shows nothing of it now."""
        self._finish()
        if self._session.service is not service:
            return
        self._dismissed = False  # an empty vault again: the welcome comes back
        self.told.emit(removed.sentence())
        self._session.changed.emit()
        detail, graph = self._workspace.detail, self._workspace.graph
        if detail.current_node_id in removed.ids:
            detail.clear()
        if graph.root in removed.ids:
            graph.show_overview()

    def _failed(self, text: str) -> None:
        self._finish()
        if self._session.is_open:
            self.panel.notice.show_error(text)
            self.told.emit(text)
