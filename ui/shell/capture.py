"""Quick capture (Ctrl+N): a thought typed in a few seconds goes to the vault's inbox, to be
turned into a memory (or discarded) later in the review panel.

The text goes through ``MemoryService.inbox_capture`` in a worker; until it is stored the
dialog stays open with the text, so a failure never loses what was typed. Nothing is kept as a
draft on disk: the inbox is inside the encrypted vault.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import InboxItem
from cairn.ui.base.keys import CAPTURE
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session

DEFAULT_SCOPE = "personal"


class QuickCaptureDialog(QDialog):
    captured = Signal(object)  # the InboxItem

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setWindowTitle("Quick capture")
        self.setMinimumWidth(440)

        hint = QLabel(
            f"Write it down now; sort it out later from the inbox. {CAPTURE.shown} saves."
        )
        hint.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setPlaceholderText("A thought, a task, something to remember…")
        self.text.setTabChangesFocus(True)
        self.text.setAccessibleName("Thought to capture")
        self.text.setAccessibleDescription(f"{CAPTURE.shown} captures it to the inbox")
        self.scope = QComboBox()
        self.scope.setAccessibleName("Scope")
        self.scope.addItem(DEFAULT_SCOPE)
        self.notice = NoticeLabel()
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.setVisible(False)
        self.busy_bar.setAccessibleName("Capturing")

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setText("&Capture")
        self.save_button.setToolTip(CAPTURE.shown)
        self.buttons.accepted.connect(self.capture)
        self.buttons.rejected.connect(self.reject)
        # Ctrl+Enter in the text saves; a plain Enter is a new line of the thought.
        self.text.installEventFilter(self)

        self._form = QFormLayout()
        self._form.addRow("&Scope:", self.scope)
        self._form.setRowVisible(self.scope, False)  # shown once a second scope exists
        column = QVBoxLayout(self)
        column.addWidget(hint)
        column.addWidget(self.text, 1)
        column.addLayout(self._form)
        column.addWidget(self.notice)
        column.addWidget(self.busy_bar)
        column.addWidget(self.buttons)

        self.text.textChanged.connect(self._update_button)
        session.locked.connect(self._locked)
        self._update_button()
        self._load_scopes()
        self.text.setFocus()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.text
            and isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            self.capture()
            return True
        return super().eventFilter(watched, event)

    def capture(self) -> None:
        text = self.text.toPlainText().strip()
        service = self.session.service
        if not text or service is None or self.busy_bar.isVisible():
            return
        self._set_busy(True)
        call_in_worker(
            self,
            service.inbox_capture,
            text,
            scope=self.scope.currentText(),
            on_done=self._stored,
            on_failed=self._failed,
        )

    def _stored(self, item: InboxItem) -> None:
        self._set_busy(False)
        self.text.clear()
        self.captured.emit(item)
        self.session.changed.emit()
        self.accept()

    def _failed(self, sentence: str) -> None:
        self._set_busy(False)
        self.notice.show_error(sentence)

    def _set_busy(self, busy: bool) -> None:
        self.busy_bar.setVisible(busy)
        self.text.setReadOnly(busy)
        self._update_button()

    def _update_button(self) -> None:
        ready = bool(self.text.toPlainText().strip()) and not self.busy_bar.isVisible()
        self.save_button.setEnabled(ready and self.session.is_open)
        self.notice.clear()

    def _load_scopes(self) -> None:
        service = self.session.service
        if service is None:
            return

        def listed(names: list[str]) -> None:
            if not names:
                return
            current = self.scope.currentText()
            self.scope.clear()
            self.scope.addItems(names)
            self.scope.setCurrentText(current if current in names else names[0])
            self._form.setRowVisible(self.scope, len(names) > 1)

        call_in_worker(self, service.scopes, on_done=listed, on_failed=self.notice.show_error)

    def _locked(self) -> None:
        # The vault is closed: a typed text must not stay on screen.
        self.text.clear()
        self.reject()
