"""Settings › Graph server: the switch that lets local programs read the graph, and the tokens
they read it with.

The switch acts at once, like the passphrase button, rather than on OK: a server is running or
not, and the page says which. While it runs, the port and the token rule are fixed (turn it off
to change them), so what the page shows is what the server does. A token's secret is shown once,
right after it is created; the vault keeps only its hash, so it cannot be shown again.
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import MAX_PORT, MIN_PORT, NAME_MAX, WINDOW_HOST, MemoryService, Token
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.settings.server_switch import GraphServerSwitch

WHERE = (
    f"It listens on {WINDOW_HOST} only, so only programs on this computer can reach it, and it "
    "only reads: nothing it is asked can change a memory. To serve other machines, use "
    "`cairn serve --host` with a token."
)
OPEN_TO_THIS_COMPUTER = (
    "Ticked, any program running on this computer, under any account, can read every scope."
)
SHOWN_ONCE = (
    "Copy the secret now: it will not be shown again. A program sends it as "
    "Authorization: Bearer <secret>."
)
COLUMNS = ("Name", "Scopes", "Created", "State")


def _tokens_and_scopes(service: MemoryService) -> tuple[list[Token], list[str]]:
    return service.list_tokens(), service.scopes()


class GraphServerPage(QWidget):
    def __init__(self, switch: GraphServerSwitch, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.switch = switch
        self.scope_boxes: dict[str, QCheckBox] = {}
        column = QVBoxLayout(self)
        column.addWidget(self._server_box())
        column.addWidget(self._tokens_box())
        column.addStretch(1)
        switch.changed.connect(self.show_state)
        self.show_state()
        self.refresh_tokens()

    # -- building -----------------------------------------------------------------------------

    def _server_box(self) -> QGroupBox:
        box = QGroupBox("Serve the graph")
        self.enabled = QCheckBox("&Serve the graph to programs on this computer (read-only)")
        self.enabled.toggled.connect(self._switched)
        self.state_label = QLabel()
        self.state_label.setWordWrap(True)
        self.state_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.server_notice = NoticeLabel()
        self.port = QSpinBox()
        self.port.setRange(MIN_PORT, MAX_PORT)
        self.port.setAccessibleName("Port")
        self.port.setAccessibleDescription("The port on 127.0.0.1 the graph server listens on")
        self.allow_without_token = QCheckBox("&Allow requests without a token (this computer only)")
        choice = self.switch.choice()
        self.port.setValue(choice.port)
        self.allow_without_token.setChecked(choice.allow_without_token)
        where = QLabel(WHERE)
        where.setWordWrap(True)
        caution = QLabel(OPEN_TO_THIS_COMPUTER)
        caution.setWordWrap(True)
        form = QFormLayout(box)
        form.addRow(self.enabled)
        form.addRow(self.state_label)
        form.addRow(self.server_notice)
        form.addRow("&Port:", self.port)
        form.addRow(self.allow_without_token)
        form.addRow(caution)
        form.addRow(where)
        return box

    def _tokens_box(self) -> QGroupBox:
        box = QGroupBox("Tokens")
        self.token_list = QTreeWidget()
        self.token_list.setHeaderLabels(list(COLUMNS))
        self.token_list.setAccessibleName("Tokens")
        self.token_list.setRootIsDecorated(False)
        self.token_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.token_list.setMaximumHeight(120)
        self.token_list.itemSelectionChanged.connect(self._selection_changed)
        self.revoke_button = QPushButton("&Revoke")
        self.revoke_button.setEnabled(False)
        self.revoke_button.clicked.connect(self.revoke_selected)
        self.token_name = QLineEdit()
        self.token_name.setMaxLength(NAME_MAX)
        self.token_name.setAccessibleName("Name of the new token")
        self.token_name.setPlaceholderText("what will use it, e.g. notes agent")
        self.scope_row = QHBoxLayout()
        self.scope_row.addStretch(1)  # the scopes' boxes go before it
        self.create_button = QPushButton("&Create token")
        self.create_button.clicked.connect(self.create_token)
        create_row = QHBoxLayout()
        create_row.addWidget(self.create_button)
        create_row.addStretch(1)
        self.secret = QLineEdit()
        self.secret.setReadOnly(True)
        self.secret.setAccessibleName("The new token, to copy")
        self.secret.setAccessibleDescription(SHOWN_ONCE)
        self.copy_button = QPushButton("C&opy")
        self.copy_button.clicked.connect(self.copy_secret)
        self.shown_once = QLabel(SHOWN_ONCE)
        self.shown_once.setWordWrap(True)
        secret_row = QHBoxLayout()
        secret_row.addWidget(self.secret, 1)
        secret_row.addWidget(self.copy_button)
        self.secret_box = QWidget()
        secret_column = QVBoxLayout(self.secret_box)
        secret_column.setContentsMargins(0, 0, 0, 0)
        secret_column.addLayout(secret_row)
        secret_column.addWidget(self.shown_once)
        self.secret_box.setVisible(False)
        self.token_notice = NoticeLabel()

        list_row = QHBoxLayout()
        list_row.addWidget(self.token_list, 1)
        list_row.addWidget(self.revoke_button, 0, Qt.AlignmentFlag.AlignTop)
        form = QFormLayout(box)
        form.addRow(list_row)
        form.addRow("&Name:", self.token_name)
        form.addRow("Scopes:", self.scope_row)
        form.addRow(create_row)
        form.addRow(self.secret_box)
        form.addRow(self.token_notice)
        return box

    # -- the server ---------------------------------------------------------------------------

    def show_state(self) -> None:
        state = self.switch.state
        self.enabled.blockSignals(True)
        self.enabled.setChecked(state.running)
        self.enabled.blockSignals(False)
        self.enabled.setEnabled(not self.switch.stopping)
        # What the server does is what the page shows: fixed while it runs.
        self.port.setEnabled(not state.running and not self.switch.stopping)
        self.allow_without_token.setEnabled(not state.running and not self.switch.stopping)
        if state.running and state.port is not None:
            self.port.setValue(state.port)
            self.allow_without_token.setChecked(state.allow_without_token)
            rule = (
                "answers without a token"
                if state.allow_without_token
                else "needs a token for everything but /v1/health"
            )
            self.state_label.setText(f"On at {state.url}/v1/ — {rule}. Turn it off to change.")
        elif self.switch.stopping:
            self.state_label.setText("Stopping…")
        else:
            self.state_label.setText("Off: no program can read the graph.")
        if self.switch.problem:
            self.server_notice.show_error(self.switch.problem)
        else:
            self.server_notice.clear()

    def _switched(self, on: bool) -> None:
        if on:
            # A refusal (a port in use) comes back through ``changed``, which unticks the box.
            self.switch.turn_on(
                self.port.value(), allow_without_token=self.allow_without_token.isChecked()
            )
        else:
            self.switch.turn_off()
        self.show_state()

    # -- tokens -------------------------------------------------------------------------------

    def refresh_tokens(self) -> None:
        service = self.switch.session.service
        if service is None:
            return
        call_in_worker(
            self,
            _tokens_and_scopes,
            service,
            on_done=lambda found: self._show_tokens(*found),
            on_failed=self.token_notice.show_error,
        )

    def _show_tokens(self, tokens: list[Token], scopes: list[str]) -> None:
        self.token_list.clear()
        for token in tokens:
            state = f"revoked {_day(token.revoked_at)}" if token.revoked_at else "live"
            row = QTreeWidgetItem(
                [token.name or "(no name)", ", ".join(token.scopes), _day(token.created_at), state]
            )
            row.setData(0, Qt.ItemDataRole.UserRole, token.id)
            row.setDisabled(token.revoked)
            self.token_list.addTopLevelItem(row)
        for index in range(len(COLUMNS)):
            self.token_list.resizeColumnToContents(index)
        if [name for name in self.scope_boxes] != scopes:
            ticked = {name for name, box in self.scope_boxes.items() if box.isChecked()}
            for box in self.scope_boxes.values():
                self.scope_row.removeWidget(box)
                box.deleteLater()
            self.scope_boxes = {}
            for name in scopes:
                box = QCheckBox(name)
                box.setChecked(name in ticked)
                self.scope_row.insertWidget(self.scope_row.count() - 1, box)
                self.scope_boxes[name] = box
        self._selection_changed()

    def chosen_scopes(self) -> list[str]:
        return [name for name, box in self.scope_boxes.items() if box.isChecked()]

    def create_token(self) -> None:
        service = self.switch.session.service
        if service is None:
            return
        scopes = self.chosen_scopes()
        if not scopes:
            self.token_notice.show_error("Tick the scopes this token may read.")
            return
        self.create_button.setEnabled(False)
        self.token_notice.clear()

        def created(made: tuple[Token, str]) -> None:
            self.create_button.setEnabled(True)
            token, secret = made
            self.secret.setText(secret)
            self.secret_box.setVisible(True)
            self.token_name.clear()
            self.token_notice.show_info(
                f"Token {token.name or token.id[:8]} can read {', '.join(token.scopes)}."
            )
            self.switch.tokens_changed.emit()
            self.refresh_tokens()

        def refused(sentence: str) -> None:
            self.create_button.setEnabled(True)
            self.token_notice.show_error(sentence)

        call_in_worker(
            self,
            service.create_token,
            scopes,
            name=self.token_name.text(),
            on_done=created,
            on_failed=refused,
        )

    def copy_secret(self) -> None:
        QGuiApplication.clipboard().setText(self.secret.text())
        self.token_notice.show_info("The secret is on the clipboard.")

    def selected_token(self) -> str | None:
        items = self.token_list.selectedItems()
        if not items or items[0].isDisabled():
            return None
        return str(items[0].data(0, Qt.ItemDataRole.UserRole))

    def _selection_changed(self) -> None:
        self.revoke_button.setEnabled(self.selected_token() is not None)

    def revoke_selected(self) -> None:
        service, token_id = self.switch.session.service, self.selected_token()
        if service is None or token_id is None:
            return
        self.revoke_button.setEnabled(False)

        def revoked(token: Token) -> None:
            self.token_notice.show_info(
                f"Token {token.name or token.id[:8]} is revoked: it no longer works."
            )
            self.switch.tokens_changed.emit()
            self.refresh_tokens()

        call_in_worker(
            self,
            service.revoke_token,
            token_id,
            on_done=revoked,
            on_failed=self.token_notice.show_error,
        )


def _day(stamp: str | None) -> str:
    """A stored UTC time as this computer's local time to the minute (no seconds needed)."""
    if not stamp:
        return ""
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return stamp
