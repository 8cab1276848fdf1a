"""The first thing the window shows: open a vault with its passphrase, or create one.

Opening derives the key and loads the model, about a second: it runs in a worker through the
session while a busy bar moves, so the window never freezes. A passphrase that does not open
the vault is most often a typo: the screen says so in one plain sentence and leaves everything
in place to try again; the vault's longer explanation (the file may not be a Cairn vault, or
be damaged where it looks the same) is behind More…, and shown at once from the second
failure on. Passphrases are
cleared from the fields as soon as the vault is open; only the vault's path is remembered.
After a lock it says why the vault locked (idle time, Ctrl+L), and nothing of what the vault
holds: the screen is what anyone at the computer sees.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import Config, MemoryService
from cairn.ui.base.notify import NoticeLabel, QuietLine
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.preferences import Preferences
from cairn.ui.base.scaled_font import keep_scaled
from cairn.ui.base.session import Session
from cairn.ui.lock import saved_passphrase
from cairn.ui.lock.passphrase import NewPassphraseFields

VAULT_FILTER = "Cairn vaults (*.cairn);;All files (*)"
CARD_WIDTH = 480
# What a passphrase that does not open the vault is told first, plainly: most often a typo.
DOES_NOT_OPEN = "That passphrase does not open this vault. Check it (Caps Lock?) and try again."
EXPLAIN_AFTER = 2  # failures in a row after which the longer explanation shows without asking
TITLE_SCALE = 2.0  # of the text size


class UnlockScreen(QWidget):
    remember_open: QCheckBox
    remember_create: QCheckBox
    lock_notice: NoticeLabel
    open_notice: NoticeLabel
    create_notice: NoticeLabel
    # A sentence for the window's status bar, about what happened after the screen was left
    # (the keyring refused to store the passphrase).
    message = Signal(str)

    def __init__(
        self, session: Session, preferences: Preferences, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.preferences = preferences
        self._busy_with: Path | None = None  # the vault being opened or created
        self._remember_choice = False
        self._refusals = 0  # passphrases in a row that did not open the vault chosen

        title = QLabel("Cairn")
        keep_scaled(title, TITLE_SCALE, bold=True)
        subtitle = QLabel("Your memory, kept in one encrypted file on this computer.")
        subtitle.setWordWrap(True)

        self.pages = QStackedWidget()
        self.pages.addWidget(self._build_open_page())
        self.pages.addWidget(self._build_create_page())

        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)  # moving without a known end: the key derivation
        self.busy_bar.setTextVisible(False)
        self.busy_bar.setAccessibleName("Opening the vault")
        self.busy_label = QLabel()
        self.busy_bar.setVisible(False)
        self.busy_label.setVisible(False)

        card = QWidget()
        card.setMaximumWidth(CARD_WIDTH)
        card.setMinimumWidth(min(CARD_WIDTH, 360))
        column = QVBoxLayout(card)
        column.addWidget(title)
        column.addWidget(subtitle)
        column.addSpacing(12)
        column.addWidget(self.pages)
        column.addWidget(self.busy_label)
        column.addWidget(self.busy_bar)

        centred = QWidget()
        outer = QHBoxLayout(centred)
        outer.addStretch(1)
        middle = QVBoxLayout()
        middle.addStretch(1)
        middle.addWidget(card)
        middle.addStretch(2)
        outer.addLayout(middle)
        outer.addStretch(1)
        # On a short screen (a laptop at 200 %) the card scrolls: it never makes the window
        # taller than the screen, which would hide the status bar below it.
        scrolled = QScrollArea()
        scrolled.setWidgetResizable(True)
        scrolled.setFrameShape(QFrame.Shape.NoFrame)
        scrolled.setWidget(centred)
        whole = QVBoxLayout(self)
        whole.setContentsMargins(0, 0, 0, 0)
        whole.addWidget(scrolled)

        keyring_problem = saved_passphrase.unavailable_reason()
        for box in (self.remember_open, self.remember_create):
            box.setEnabled(keyring_problem is None)
            box.setToolTip(keyring_problem or "Unlock without typing it, while you are logged in.")

        session.unlocked.connect(self._unlocked)
        session.locked.connect(self._locked)
        session.failed.connect(self._failed)
        session.wrong_passphrase.connect(self._refused)
        self.reload_recent()

    # -- pages --------------------------------------------------------------------------------

    def _build_open_page(self) -> QWidget:
        page = QWidget()
        self.lock_notice = NoticeLabel()
        self.lock_notice.setAccessibleName("Why the vault locked")
        self.vault_choice = QComboBox()
        self.vault_choice.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.vault_choice.setMinimumContentsLength(24)
        self.vault_choice.setAccessibleName("Vault")
        self.vault_choice.currentIndexChanged.connect(self._vault_chosen)
        browse = QPushButton("&Browse…")
        browse.clicked.connect(self.browse_for_vault)
        row = QHBoxLayout()
        row.addWidget(self.vault_choice, 1)
        row.addWidget(browse)

        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.passphrase.setAccessibleName("Passphrase")
        self.passphrase.returnPressed.connect(self.unlock)
        self.passphrase.textEdited.connect(lambda _: self._clear_open_notice())
        self.remember_open = QCheckBox("Remember the passphrase in the system keyring")
        self.open_notice = NoticeLabel()
        self.more_button = QPushButton("&More…")
        self.more_button.setFlat(True)
        self.more_button.setAccessibleName("More about why the vault did not open")
        self.more_button.clicked.connect(self._explain)
        self.more_button.setVisible(False)
        self.explanation = QuietLine()
        self.explanation.setAccessibleName("Why the vault may not open")
        self.explanation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.unlock_button = QPushButton("&Unlock")
        self.unlock_button.setDefault(True)
        self.unlock_button.clicked.connect(self.unlock)
        to_create = QPushButton("Create a &new vault…")
        to_create.setFlat(True)
        to_create.clicked.connect(self.show_create)

        vault_label = QLabel("&Vault:")
        vault_label.setBuddy(self.vault_choice)
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(self.lock_notice)
        form.addRow(vault_label, row)
        form.addRow("&Passphrase:", self.passphrase)
        form.addRow("", self.remember_open)
        form.addRow(self.open_notice)
        more = QHBoxLayout()
        more.addWidget(self.more_button)
        more.addStretch(1)
        form.addRow(more)
        form.addRow(self.explanation)
        buttons = QHBoxLayout()
        buttons.addWidget(to_create)
        buttons.addStretch(1)
        buttons.addWidget(self.unlock_button)
        form.addRow(buttons)
        return page

    def _build_create_page(self) -> QWidget:
        page = QWidget()
        self.location = QLineEdit()
        self.location.setAccessibleName("Location of the new vault")
        choose = QPushButton("&Choose…")
        choose.clicked.connect(self.choose_location)
        row = QHBoxLayout()
        row.addWidget(self.location, 1)
        row.addWidget(choose)
        self.create_notice = NoticeLabel()
        self.new_passphrase = NewPassphraseFields()
        self.new_passphrase.edited.connect(self.create_notice.clear)
        self.new_passphrase.second.returnPressed.connect(self.create_vault)
        self.remember_create = QCheckBox("Remember the passphrase in the system keyring")
        self.create_button = QPushButton("C&reate vault")
        self.create_button.clicked.connect(self.create_vault)
        to_open = QPushButton("Open an &existing vault…")
        to_open.setFlat(True)
        to_open.clicked.connect(lambda: self.show_open())

        location_label = QLabel("&Location:")
        location_label.setBuddy(self.location)
        self.new_passphrase.form.insertRow(0, location_label, row)

        column = QVBoxLayout(page)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.new_passphrase)
        column.addWidget(self.remember_create)
        column.addWidget(self.create_notice)
        buttons = QHBoxLayout()
        buttons.addWidget(to_open)
        buttons.addStretch(1)
        buttons.addWidget(self.create_button)
        column.addLayout(buttons)
        return page

    # -- what the window asks of it -----------------------------------------------------------

    def reload_recent(self, preselect: Path | str | None = None) -> None:
        """Fill the vault list from the recent vaults (and the default vault if it exists),
        select ``preselect`` or the last one used, and show the page that fits: create on a
        machine with no vault yet, open otherwise."""
        default = Config.from_environment().default_vault
        paths = self.preferences.recent_vaults()
        if default.exists() and str(default) not in paths:
            paths.append(str(default))
        if preselect is not None and str(preselect) not in paths:
            paths.insert(0, str(preselect))
        self.vault_choice.blockSignals(True)
        self.vault_choice.clear()
        for path in paths:
            self.vault_choice.addItem(_vault_label(Path(path)), path)
            self.vault_choice.setItemData(
                self.vault_choice.count() - 1, path, Qt.ItemDataRole.ToolTipRole
            )
        wanted = str(preselect) if preselect is not None else (paths[0] if paths else None)
        self.vault_choice.setCurrentIndex(max(0, self.vault_choice.findData(wanted)))
        self.vault_choice.blockSignals(False)
        self.location.setText(str(_unused_name(default)))
        if paths:
            self.show_open()
        else:
            self.show_create()

    def show_open(self, path: Path | str | None = None) -> None:
        if path is not None:
            self.reload_recent(preselect=path)
            return
        self.pages.setCurrentIndex(0)
        self._vault_chosen()
        self.passphrase.setFocus()

    def show_create(self) -> None:
        self.pages.setCurrentIndex(1)
        self.new_passphrase.first.setFocus()

    def selected_vault(self) -> Path | None:
        data = self.vault_choice.currentData()
        return Path(data) if data else None

    @property
    def busy(self) -> bool:
        return self._busy_with is not None

    # -- actions ------------------------------------------------------------------------------

    def browse_for_vault(self) -> None:
        start = str(self.selected_vault() or Config.from_environment().data_dir)
        chosen, _ = QFileDialog.getOpenFileName(self, "Open a Cairn vault", start, VAULT_FILTER)
        if chosen:
            self.reload_recent(preselect=chosen)

    def choose_location(self) -> None:
        chosen, _ = QFileDialog.getSaveFileName(
            self, "Where to keep the new vault", self.location.text(), VAULT_FILTER
        )
        if chosen:
            path = Path(chosen)
            self.location.setText(str(path if path.suffix else path.with_suffix(".cairn")))

    def unlock(self) -> None:
        if self.busy:
            return
        vault = self.selected_vault()
        if vault is None:
            self.open_notice.show_error("Choose a vault first, or create a new one.")
            return
        if not self.passphrase.text():
            self.open_notice.show_error("Type the vault's passphrase.")
            return
        self._remember_choice = self.remember_open.isChecked()
        self._start(vault, "Opening the vault…")
        self.session.open(vault, self.passphrase.text())

    def create_vault(self) -> None:
        if self.busy:
            return
        text = self.location.text().strip()
        if not text:
            self.create_notice.show_error("Choose where to keep the new vault.")
            return
        if self.new_passphrase.refused(self.create_notice):
            return
        vault = Path(text).expanduser()
        if vault.exists():
            self.create_notice.show_error(
                f"{vault} already exists. Open it instead, or choose another location."
            )
            return
        config = Config.from_environment()
        if vault.parent == config.data_dir:
            config.ensure_data_dir()  # private (0700), like the command line makes it
        self._remember_choice = self.remember_create.isChecked()
        self._start(vault, "Creating the vault…")
        self.session.create(vault, self.new_passphrase.passphrase())

    # -- results ------------------------------------------------------------------------------

    def _start(self, vault: Path, what: str) -> None:
        self._busy_with = vault
        self._clear_open_notice()
        self.create_notice.clear()
        self.busy_label.setText(what)
        self.busy_bar.setAccessibleName(what.rstrip("…"))  # opening, or creating
        self._set_busy(True)

    def _set_busy(self, busy: bool) -> None:
        self.busy_bar.setVisible(busy)
        self.busy_label.setVisible(busy)
        self.pages.setEnabled(not busy)

    def _locked(self) -> None:
        if self.session.lock_reason:
            self.lock_notice.show_info(self.session.lock_reason)
        else:
            self.lock_notice.clear()

    def _unlocked(self, service: MemoryService) -> None:
        self.lock_notice.clear()
        self._refusals = 0
        if self._busy_with is None:
            return  # opened by someone else (a test, another screen): nothing of ours to tidy
        vault = self._busy_with
        passphrase = (
            self.passphrase.text()
            if self.pages.currentIndex() == 0
            else self.new_passphrase.passphrase()
        )
        self._busy_with = None
        self._set_busy(False)
        self.preferences.add_recent_vault(vault)
        if self.remember_open.isEnabled():
            keep = (saved_passphrase.remember, vault, passphrase)
            call = keep if self._remember_choice else (saved_passphrase.forget, vault)
            call_in_worker(self, *call, on_done=lambda _: None, on_failed=self.message.emit)
        self.passphrase.clear()
        self.new_passphrase.clear()
        self.reload_recent(preselect=vault)

    def _failed(self, sentence: str) -> None:
        if self._busy_with is None:
            return
        self._busy_with = None
        self._set_busy(False)
        if self.pages.currentIndex() == 0:
            self.open_notice.show_error(sentence)
            self.passphrase.setFocus()
            self.passphrase.selectAll()
        else:
            self.create_notice.show_error(sentence)

    def _refused(self, explanation: str) -> None:
        """The passphrase did not open the vault: say so plainly, the vault's explanation
        behind More… (at once from the second time in a row)."""
        if self._busy_with is None:
            return
        self._busy_with = None
        self._set_busy(False)
        self._refusals += 1
        self.open_notice.show_error(DOES_NOT_OPEN)
        self.explanation.setText(explanation)
        explained = self._refusals >= EXPLAIN_AFTER
        self.explanation.setVisible(explained)
        self.more_button.setVisible(not explained)
        self.passphrase.setFocus()
        self.passphrase.selectAll()

    def _explain(self) -> None:
        self.more_button.setVisible(False)
        self.explanation.setVisible(bool(self.explanation.text()))

    def _clear_open_notice(self) -> None:
        self.open_notice.clear()
        self.more_button.setVisible(False)
        self.explanation.setText("")

    def _vault_chosen(self) -> None:
        """Fill in the passphrase if the keyring holds it for this vault (looked up in a
        worker: the keyring may have to ask the desktop)."""
        self._clear_open_notice()
        self._refusals = 0  # another vault: its first try
        vault = self.selected_vault()
        if vault is None or self.session.is_open or not self.remember_open.isEnabled():
            return

        def recalled(passphrase: str | None) -> None:
            if passphrase and self.selected_vault() == vault and not self.passphrase.text():
                self.passphrase.setText(passphrase)
                self.remember_open.setChecked(True)

        call_in_worker(
            self, saved_passphrase.recall, vault, on_done=recalled, on_failed=self.message.emit
        )


def _vault_label(path: Path) -> str:
    home = Path.home()
    folder = path.parent
    shown = f"~/{folder.relative_to(home)}" if folder.is_relative_to(home) else str(folder)
    return f"{path.name}  —  {shown}"


def _unused_name(default: Path) -> Path:
    """The default location for a new vault, numbered if a vault is already there."""
    candidate, number = default, 2
    while candidate.exists():
        candidate = default.with_name(f"{default.stem}-{number}{default.suffix}")
        number += 1
    return candidate
