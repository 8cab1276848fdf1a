"""One inbox capture, worked: read and edit its text, then make it a note, fact, person or task,
or discard it, all from the keyboard (Ctrl+Enter makes a note; each button has its Alt key).

A note is made at once. A fact, a person or a task opens its form (``MemoryForm``) prefilled
with the text (its first line as the title), so the person can fill in the attributes first
(a birthday, a due date); this dialog waits hidden meanwhile, and comes back with the text if
the form is closed without saving. A memory made from a capture keeps the text as edited
(``MemoryService.inbox_promote`` with ``body``). Discarding keeps the capture in the vault as
discarded, so a slip loses nothing, says so in the window's status bar (``told``) and is
recorded for Edit › Undo, which puts the capture back in the inbox; only Forget deletes. The
dialog stays open with the text until the vault has it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import InboxItem, MemoryService, WriteResult
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session
from cairn.ui.rows.results_model import local_date
from cairn.ui.writing.form_store import first_line
from cairn.ui.writing.memory_form import MemoryForm

# What a capture can become: the button's text and the pack's type.
KINDS = (("&Note", "Note"), ("&Fact", "Fact"), ("&Person", "Person"), ("&Task", "Commitment"))
AT_ONCE = "Note"  # made without a form; the other kinds open theirs


def _find(service: MemoryService, item_id: str) -> InboxItem:
    for item in service.inbox_list(scopes=service.scopes()):
        if item.id == item_id:
            return item
    raise LookupError("This capture was sorted already (or is gone); the inbox shows what is left.")


def _promote(service: MemoryService, item_id: str, type_name: str, text: str) -> str:
    result: WriteResult = service.inbox_promote(
        item_id, scopes=service.scopes(), type=type_name, body=text
    )
    assert result.node is not None  # promote raises when nothing was stored
    return result.node.id


class InboxItemDialog(QDialog):
    promoted = Signal(str)  # the id of the memory it became
    discarded = Signal(str)  # the capture's id
    told = Signal(str)  # what happened, for the window's status bar
    open_requested = Signal(str)  # the form the capture went to asked to show its memory

    def __init__(self, session: Session, item_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.item_id = item_id
        self._busy = False
        self.form: MemoryForm | None = None  # the form a fact, person or task is made in
        self._made: str | None = None  # the memory the capture became
        self.setWindowTitle("Inbox")
        self.setMinimumWidth(480)

        self.captured_label = QLabel()
        self.text = QPlainTextEdit()
        self.text.setAccessibleName("Captured text")
        self.text.setTabChangesFocus(True)
        self.text.installEventFilter(self)
        self.notice = NoticeLabel()
        hint = QLabel(
            "Make it a memory (Ctrl+Enter: a note; a fact, person or task opens its form to "
            "fill in), or discard it."
        )
        hint.setWordWrap(True)

        self.buttons = QDialogButtonBox()
        self.kind_buttons: dict[str, QPushButton] = {}
        for text, type_name in KINDS:
            button = QPushButton(f"Make a {text}")
            button.setAccessibleName(f"Make a {text.replace('&', '').lower()} of this capture")
            button.clicked.connect(lambda _=False, t=type_name: self.promote(t))
            self.buttons.addButton(button, QDialogButtonBox.ButtonRole.ActionRole)
            self.kind_buttons[type_name] = button
        self.discard_button = QPushButton("&Discard")
        self.discard_button.setToolTip("Kept in the vault as discarded; nothing is deleted")
        self.discard_button.clicked.connect(self.discard)
        self.buttons.addButton(self.discard_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)

        column = QVBoxLayout(self)
        column.addWidget(self.captured_label)
        column.addWidget(self.text, 1)
        column.addWidget(hint)
        column.addWidget(self.notice)
        column.addWidget(self.buttons)
        session.locked.connect(self._locked)
        self._set_busy(True)
        self._load()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.text
            and isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            self.promote("Note")
            return True
        return super().eventFilter(watched, event)

    def _load(self) -> None:
        service = self.session.service
        if service is None:
            return

        def found(item: InboxItem) -> None:
            self.text.setPlainText(item.text)
            self.captured_label.setText(f"Captured {local_date(item.captured_at)}")
            self._set_busy(False)
            self.text.setFocus()

        call_in_worker(self, _find, service, self.item_id, on_done=found, on_failed=self._failed)

    def promote(self, type_name: str) -> None:
        service = self.session.service
        text = self.text.toPlainText().strip()
        if service is None or self._busy:
            return
        if not text:
            self.notice.show_error("The text is empty: write something, or discard the capture.")
            return
        if type_name != AT_ONCE:
            self.open_form(type_name, text)
            return
        self._set_busy(True)

        def made(node_id: str) -> None:
            self._set_busy(False)
            self.session.changed.emit()
            self.promoted.emit(node_id)
            self.accept()

        call_in_worker(
            self,
            _promote,
            service,
            self.item_id,
            type_name,
            text,
            on_done=made,
            on_failed=self._failed,
        )

    def open_form(self, type_name: str, text: str) -> MemoryForm:
        """The form of ``type_name`` with the capture's text, in this dialog's place."""
        form = MemoryForm(
            self.session,
            self.parentWidget(),
            type_name=type_name,
            title=first_line(text),
            body=text,
            capture=self.item_id,
        )
        form.saved.connect(self._made_in_form)
        form.open_requested.connect(self.open_requested)
        form.finished.connect(self._form_closed)
        form.finished.connect(form.deleteLater)
        self.form = form
        self.hide()
        form.show()
        form.activateWindow()  # in this dialog's place, with the keyboard
        return form

    def _made_in_form(self, node_id: str) -> None:
        if self._made is None:  # the first save sorts the capture; later ones are edits
            self._made = node_id
            self.promoted.emit(node_id)

    def _form_closed(self) -> None:
        self.form = None
        if self._made is not None:
            self.accept()
        elif self.session.is_open:
            self.open()  # back to the capture, its text as it was
            self.text.setFocus()

    def discard(self) -> None:
        service = self.session.service
        if service is None or self._busy:
            return
        self._set_busy(True)

        def gone(item: InboxItem) -> None:
            self._set_busy(False)
            what = first_line(item.text)
            if self.session.undo_history is not None:
                self.session.undo_history.record_discard(self.item_id, what)
            self.session.changed.emit()
            self.told.emit(
                f"Discarded “{what}”; it is kept as discarded (Edit › Undo brings it back)."
            )
            self.discarded.emit(self.item_id)
            self.accept()

        call_in_worker(
            self,
            service.inbox_discard,
            self.item_id,
            scopes=service.scopes(),
            on_done=gone,
            on_failed=self._failed,
        )

    def _failed(self, sentence: str) -> None:
        self._set_busy(False)
        self.notice.show_error(sentence)

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.text.setReadOnly(busy)
        for button in (*self.kind_buttons.values(), self.discard_button):
            button.setEnabled(not busy)

    def _locked(self) -> None:
        self.text.clear()
        self.reject()
