"""Settings: the window's look, the passphrase and auto-lock, the vault's memory settings
(plain questions first, the numbers under Advanced), backups, how files are read, the watched
folders, the embedder, and the graph server. The pages are listed on the left, as desktop
settings list them, so any number of them fits; each page scrolls when the window is small.

Two kinds of setting live here and the dialog keeps them apart: the vault's own (read with
``MemoryService.settings``, changed with ``change_setting``, so the vault behaves the same on any
machine) and this computer's preferences (``Preferences``). Every vault call runs in a worker.
OK and Apply save both; the passphrase, the backup and the vector rebuild are actions with their
own button. The look applies at once, and Cancel puts it back.
"""

from __future__ import annotations

from typing import Any

import shiboken6
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import InvalidRequest, MemoryService, VaultStats
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.preferences import Preferences
from cairn.ui.base.screen_fit import fit_to_screen
from cairn.ui.base.session import Session
from cairn.ui.ingest.watched_folders import FolderWatching, WatchedFoldersBox
from cairn.ui.lock import saved_passphrase
from cairn.ui.lock.passphrase import NewPassphraseFields
from cairn.ui.settings.appearance_page import AppearancePage
from cairn.ui.settings.backup_page import BackupPage
from cairn.ui.settings.memory_page import MemoryPage
from cairn.ui.settings.pages import ReadingFilesPage
from cairn.ui.settings.server_page import GraphServerPage
from cairn.ui.settings.server_switch import GraphServerSwitch

MAX_AUTOLOCK_MINUTES = 24 * 60
DIALOG_SIZE = QSize(820, 600)


def apply_memory_settings(service: MemoryService, changes: dict[str, Any]) -> dict[str, Any]:
    """Store ``changes`` and return the vault's settings. The bands must stay ordered after
    each single change, so raising both a low band and the high band works only high first:
    a change refused for the order is retried once the others are in."""
    waiting = dict(changes)
    while waiting:
        refused: InvalidRequest | None = None
        for name, value in list(waiting.items()):
            try:
                service.change_setting(name, value)
            except InvalidRequest as error:
                refused = error
            else:
                del waiting[name]
        if refused is not None and len(waiting) == len(changes):
            raise refused
        changes = dict(waiting)
    return service.settings()


def _vault_facts(service: MemoryService) -> tuple[dict[str, Any], VaultStats]:
    return service.settings(), service.stats(scopes=service.scopes())


class SettingsDialog(QDialog):
    applied = Signal()  # preferences and vault settings are saved
    preferences_changed = Signal()
    passphrase_changed = Signal()
    vectors_rebuilt = Signal(int)
    busy_changed = Signal(object)  # a backup's sentence while it runs, None when done

    def __init__(
        self,
        session: Session,
        preferences: Preferences,
        parent: QWidget | None = None,
        server: GraphServerSwitch | None = None,
        watching: FolderWatching | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.preferences = preferences
        self._loaded: dict[str, Any] = {}
        self._closing = False
        self.setWindowTitle("Settings")

        self.page_list = QListWidget()
        self.page_list.setAccessibleName("Settings pages")
        self.page_list.setSpacing(2)
        self.pages = QStackedWidget()
        self.appearance = AppearancePage(preferences)
        self._add_page(self.appearance, "Appearance")
        self._add_page(self._security_page(), "Security")
        self.memory_page = MemoryPage()
        self.memory_page.setEnabled(False)  # until the vault's values are in
        self._add_page(self.memory_page, "Memory")
        self.backup = BackupPage(session, preferences)
        self.backup.busy_changed.connect(self.busy_changed)
        self._add_page(self.backup, "Backup")
        self.reading_files = ReadingFilesPage(preferences)
        self._add_page(self.reading_files, "Reading files")
        # The window's watcher (the ingest panel's): the list changes what it watches.
        self.watched_folders = WatchedFoldersBox(watching) if watching else None
        if self.watched_folders is not None:
            self._add_page(self.watched_folders, "Watched folders")
        self._add_page(self._search_page(), "Search")
        # The window's switch: the server outlives this dialog. Without one (a dialog on its
        # own), a switch of the dialog's, which stops its server when the dialog goes.
        self.server = server or GraphServerSwitch(session, preferences, self)
        self.graph_server = GraphServerPage(self.server)
        self._add_page(self.graph_server, "Graph server")
        self.page_list.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.page_list.setCurrentRow(0)
        width = self.page_list.sizeHintForColumn(0) + 2 * self.page_list.frameWidth() + 16
        self.page_list.setFixedWidth(width)

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.Apply
        )
        buttons.accepted.connect(lambda: self.apply(close=True))
        buttons.rejected.connect(self.reject)
        self.apply_button = buttons.button(QDialogButtonBox.StandardButton.Apply)
        self.apply_button.clicked.connect(lambda: self.apply(close=False))
        sides = QHBoxLayout()
        sides.addWidget(self.page_list)
        sides.addWidget(self.pages, 1)
        column = QVBoxLayout(self)
        column.addLayout(sides, 1)
        column.addWidget(buttons)

        session.locked.connect(self.reject)
        fit_to_screen(self, DIALOG_SIZE)
        self._load()

    # -- the pages ----------------------------------------------------------------------------

    def _add_page(self, page: QWidget, name: str) -> None:
        """A page in a scroll area: a small screen (or a large text size) scrolls it instead
        of cutting it off or pushing the dialog past the screen."""
        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.Shape.NoFrame)
        area.setWidget(page)
        self.pages.addWidget(area)
        self.page_list.addItem(name)

    def show_page(self, page: QWidget) -> None:
        for index in range(self.pages.count()):
            area = self.pages.widget(index)
            if isinstance(area, QScrollArea) and area.widget() is page:
                self.page_list.setCurrentRow(index)
                return

    def show_page_named(self, name: str) -> bool:
        """Show the page listed as ``name``; False (and the page shown stays) if none is."""
        found = self.page_list.findItems(name, Qt.MatchFlag.MatchExactly)
        if found:
            self.page_list.setCurrentItem(found[0])
        return bool(found)

    def current_page(self) -> QWidget | None:
        area = self.pages.currentWidget()
        return area.widget() if isinstance(area, QScrollArea) else area

    @property
    def memory_fields(self) -> dict[str, Any]:
        """The raw settings' fields (Memory › Advanced), by setting name."""
        return dict(self.memory_page.fields)

    @property
    def memory_notice(self) -> NoticeLabel:
        return self.memory_page.notice

    # -- pages --------------------------------------------------------------------------------

    def _security_page(self) -> QWidget:
        page = QWidget()
        passphrase_box = QGroupBox("Change the passphrase")
        self.new_passphrase = NewPassphraseFields()
        self.change_button = QPushButton("&Change passphrase")
        self.change_button.clicked.connect(self.change_passphrase)
        self.passphrase_notice = NoticeLabel()
        self.passphrase_busy = _busy_bar()
        self.passphrase_busy.setAccessibleName("Changing the passphrase")
        box_column = QVBoxLayout(passphrase_box)
        box_column.addWidget(
            QLabel("The vault is open, so the current passphrase is not asked for again.")
        )
        box_column.addWidget(self.new_passphrase)
        box_column.addWidget(self.passphrase_notice)
        box_column.addWidget(self.passphrase_busy)
        box_column.addWidget(self.change_button)

        lock_box = QGroupBox("Auto-lock")
        self.autolock_minutes = QSpinBox()
        self.autolock_minutes.setRange(0, MAX_AUTOLOCK_MINUTES)
        self.autolock_minutes.setSpecialValueText("Never")
        self.autolock_minutes.setSuffix(" min")
        self.autolock_minutes.setValue(self.preferences.autolock_minutes())
        self.autolock_minutes.setAccessibleName("Minutes idle before the vault locks")
        self.autolock_minutes.setAccessibleDescription("0 (Never) keeps it open")
        lock_form = QFormLayout(lock_box)
        lock_form.addRow("Lock the vault after &idle time:", self.autolock_minutes)
        lock_form.addRow(QLabel("Ctrl+L locks it at once."))

        column = QVBoxLayout(page)
        column.addWidget(passphrase_box)
        column.addWidget(lock_box)
        column.addStretch(1)
        return page

    def _search_page(self) -> QWidget:
        page = QWidget()
        self.embedder_label = QLabel("…")
        self.embedder_label.setWordWrap(True)
        self.vector_state = QLabel("…")
        self.rebuild_button = QPushButton("Re&build vectors")
        self.rebuild_button.setToolTip(
            "Compute the meaning vectors of every memory that lacks one (after a model change)."
        )
        self.rebuild_button.clicked.connect(self.rebuild_vectors)
        self.rebuild_progress = QProgressBar()
        self.rebuild_progress.setAccessibleName("Progress of the rebuild")
        self.rebuild_progress.setVisible(False)
        self.search_notice = NoticeLabel()
        explained = QLabel(
            "Search by meaning compares vectors the embedding model computes for each memory. "
            "After a change of model, or if search by meaning is off, rebuild them."
        )
        explained.setWordWrap(True)
        button_row = QHBoxLayout()
        button_row.addWidget(self.rebuild_button)
        button_row.addStretch(1)
        form = QFormLayout(page)
        form.addRow("Embedding model:", self.embedder_label)
        form.addRow("Search by meaning:", self.vector_state)
        form.addRow(explained)
        form.addRow(button_row)
        form.addRow(self.rebuild_progress)
        form.addRow(self.search_notice)
        return page

    # -- loading and saving -------------------------------------------------------------------

    def _load(self) -> None:
        service = self.session.service
        if service is None:
            return
        call_in_worker(
            self,
            _vault_facts,
            service,
            on_done=lambda facts: self._show_vault_facts(*facts),
            on_failed=self.memory_notice.show_error,
        )

    def _show_vault_facts(self, settings: dict[str, Any], stats: VaultStats) -> None:
        self._loaded = settings
        self.memory_page.show_values(settings)
        self.memory_page.setEnabled(True)
        self.embedder_label.setText(stats.embedder or "none loaded")
        self.vector_state.setText(
            "on" if stats.vector_search else "off until the vectors are rebuilt"
        )

    def memory_changes(self) -> dict[str, Any]:
        return self.memory_page.changes(self._loaded)

    def apply(self, *, close: bool) -> None:
        self.preferences.set_autolock_minutes(self.autolock_minutes.value())
        self.appearance.save()
        self.reading_files.save()
        self.preferences_changed.emit()
        changes = self.memory_changes()
        service = self.session.service
        if not changes or service is None:
            self._applied(close)
            return
        self.apply_button.setEnabled(False)

        def stored(settings: dict[str, Any]) -> None:
            self.apply_button.setEnabled(True)
            self._loaded = settings
            self.memory_notice.clear()
            self._applied(close)

        def refused(sentence: str) -> None:
            self.apply_button.setEnabled(True)
            self.show_page(self.memory_page)
            self.memory_notice.show_error(sentence)

        call_in_worker(
            self, apply_memory_settings, service, changes, on_done=stored, on_failed=refused
        )

    def _applied(self, close: bool) -> None:
        self.applied.emit()
        if close:
            self.accept()

    def done(self, result: int) -> None:
        """Closing waits for a backup in flight (it is written whole or not at all), unless
        the vault was locked; a look tried but not kept goes back."""
        if self.backup.running and self.session.is_open:
            self.backup.notice.show_info("The backup finishes first; then Settings closes.")
            self.show_page(self.backup)
            return
        if result != QDialog.DialogCode.Accepted.value:
            self.appearance.revert()
        super().done(result)

    # -- actions ------------------------------------------------------------------------------

    def change_passphrase(self) -> None:
        service, vault = self.session.service, self.session.path
        if self.new_passphrase.refused(self.passphrase_notice):
            return
        if service is None or vault is None:
            return
        new = self.new_passphrase.passphrase()
        self.change_button.setEnabled(False)
        self.passphrase_busy.setVisible(True)

        def rekey() -> None:
            service.change_passphrase(new)
            # The keyring must not keep the old one: it would no longer open the vault.
            if saved_passphrase.recall(vault) is not None:
                saved_passphrase.remember(vault, new)

        def finished() -> None:
            self.change_button.setEnabled(True)
            self.passphrase_busy.setVisible(False)

        def failed(sentence: str) -> None:
            finished()
            self.passphrase_notice.show_error(sentence)

        def changed(_: object) -> None:
            finished()
            self.new_passphrase.clear()
            self.passphrase_notice.show_info(
                "The passphrase is changed. Use the new one next time."
            )
            self.passphrase_changed.emit()

        call_in_worker(self, rekey, on_done=changed, on_failed=failed)

    def rebuild_vectors(self) -> None:
        service = self.session.service
        if service is None:
            return
        self.rebuild_button.setEnabled(False)
        self.rebuild_progress.setRange(0, 0)
        self.rebuild_progress.setVisible(True)
        self.search_notice.clear()

        def rebuild(progress: Any) -> int:
            return service.rebuild_vectors(lambda done, total: progress((done, total)))

        # The rebuild goes on if the dialog is closed meanwhile; its answer then has no reader.
        def failed(sentence: str) -> None:
            self._rebuild_ended()
            self.search_notice.show_error(sentence)

        def step(progress: tuple[int, int]) -> None:
            if shiboken6.isValid(self):
                self._rebuild_progress(progress)

        call_in_worker(self, rebuild, on_done=self._rebuilt, on_failed=failed, on_progress=step)

    def _rebuild_progress(self, step: tuple[int, int]) -> None:
        done, total = step
        self.rebuild_progress.setRange(0, max(total, 1))
        self.rebuild_progress.setValue(done)

    def _rebuild_ended(self) -> None:
        self.rebuild_button.setEnabled(True)
        self.rebuild_progress.setVisible(False)

    def _rebuilt(self, count: int) -> None:
        self._rebuild_ended()
        self.search_notice.show_info(
            f"{count} memor{'y' if count == 1 else 'ies'} embedded; search by meaning is on."
        )
        self.vector_state.setText("on")
        self.vectors_rebuilt.emit(count)


def _busy_bar() -> QProgressBar:
    bar = QProgressBar()
    bar.setRange(0, 0)
    bar.setTextVisible(False)
    bar.setVisible(False)
    return bar
