"""The note editor (File › New › Note, Ctrl+Shift+N): a title, tags, and a Markdown body with a
preview, ``[[`` completing the names the vault knows.

The completion asks the vault as the name after ``[[`` grows (``MemoryService.titles_like``: the
whole vault, the titles that start with it first), in a worker, a moment after the last key;
the newest answer wins, and what is shown meanwhile narrows with each letter. Enter or Tab
takes the suggestion chosen, the first one unless Up or Down chose another; Esc closes the list.

The first Save writes a Note (through the dedup gate, like any write); each later Save with
changes makes one new version that supersedes the last (``MemoryService.revise``), so the note's
links and history stay and typing never makes a version per keystroke. Closing with unsaved
changes asks first. Nothing is kept as a draft on disk; locking the vault closes the editor and
clears its text from the screen.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QSize, QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import History, MemoryService, Node, WriteResult
from cairn.ui.base.keys import EDITOR_SAVE
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.screen_fit import fit_to_screen
from cairn.ui.base.session import Session
from cairn.ui.writing.markdown import OPEN_LINK, MarkdownHighlighter
from cairn.ui.writing.unsaved import ask_to_save

EDITOR_SIZE = QSize(720, 560)  # cut down to a small screen: Save and Close stay in sight
NAMES_LIMIT = 20  # the names a [[ offers at once: the best matches, from the whole vault
SAVED = "Saved."
COMPLETE_DELAY_MS = 80  # the vault is asked once typing pauses this long, not at every key
_TAG_SPLIT = re.compile(r"[,\s]+")


def parse_tags(text: str) -> list[str]:
    """``"ferry, #travel  plans"`` -> ``["ferry", "travel", "plans"]`` (each once, in order)."""
    tags: list[str] = []
    for part in _TAG_SPLIT.split(text):
        tag = part.strip().lstrip("#")
        if tag and tag not in tags:
            tags.append(tag)
    return tags


def _names_like(service: MemoryService, typed: str) -> list[str]:
    return service.titles_like(typed, scopes=service.scopes(), limit=NAMES_LIMIT)


def _write_note(service: MemoryService, title: str, body: str, tags: list[str], scope: str) -> str:
    result: WriteResult = service.write(
        "Note", title, body, attrs={"tags": tags} if tags else None, scope=scope
    )
    if result.node is None:
        raise ValueError("The note was not stored: it looks like a memory you already have.")
    return result.node.id


def _revise_note(
    service: MemoryService, node_id: str, title: str, body: str, tags: list[str]
) -> str:
    history: History = service.revise(
        node_id, title, body, scopes=service.scopes(), attrs={"tags": tags}
    )
    return history.chain[-1].id


class NoteBody(QPlainTextEdit):
    """The note's text. While the ``[[`` names show, the keys that choose among them are left
    to the completer (a text field would take Enter and Tab as a new line and a tab): Enter or
    Tab takes the name chosen, Esc closes the list."""

    COMPLETER_KEYS = (
        Qt.Key.Key_Return,
        Qt.Key.Key_Enter,
        Qt.Key.Key_Tab,
        Qt.Key.Key_Backtab,
        Qt.Key.Key_Escape,
    )

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.completer: QCompleter | None = None

    def keyPressEvent(self, event: QKeyEvent) -> None:
        popup = self.completer.popup() if self.completer is not None else None
        if popup is not None and popup.isVisible() and event.key() in self.COMPLETER_KEYS:
            event.ignore()  # the completer's own handling follows
            return
        super().keyPressEvent(event)


class NoteEditor(QDialog):
    saved = Signal(str)  # the id of the note's newest version

    def __init__(
        self,
        session: Session,
        parent: QWidget | None = None,
        node: Node | None = None,
        about: str = "",
    ) -> None:
        """A new note, or ``node`` to edit; ``about`` says what saving it does, when that is
        more than a new version (a note read from a file: the file is not changed)."""
        super().__init__(parent)
        self.session = session
        self.node_id: str | None = node.id if node else None
        self._scope = node.scope if node else "personal"
        self._saving = False
        self.close_question: QMessageBox | None = None  # open while asking about unsaved text
        self.setWindowTitle("Edit note" if node else "New note")
        fit_to_screen(self, EDITOR_SIZE)

        self.title = QLineEdit(node.title if node else "")
        self.title.setPlaceholderText("Title")
        self.title.setAccessibleName("Note title")
        self.tags = QLineEdit(", ".join(_tags_of(node)))
        self.tags.setPlaceholderText("tags, separated by commas")
        self.tags.setAccessibleName("Tags")
        self.body = NoteBody(node.body if node else "")
        self.body.setPlaceholderText(
            "Write in Markdown. Type [[ to link a person, place, project or note you have."
        )
        self.body.setAccessibleName("Note text")
        self.body.setAccessibleDescription("Markdown; [[ completes the names in the vault")
        self.highlighter = MarkdownHighlighter(self.body.document())
        self.preview = QTextBrowser()
        self.preview.setAccessibleName("Preview")
        self.preview.setOpenLinks(False)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.body, "&Write")
        self.tabs.addTab(self.preview, "&Preview")
        self.tabs.tabBar().setAccessibleName("Write or preview")
        self.tabs.currentChanged.connect(self._tab_changed)
        self.notice = NoticeLabel()

        self.names = QStringListModel(self)
        self.completer = QCompleter(self.names, self)
        self.completer.setWidget(self.body)
        self.body.completer = self.completer
        # The vault chose and ranked the names: the list shows them as they came.
        self.completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        self.completer.activated.connect(self.insert_link)
        self._popup().setAccessibleName("Names to link")
        self._asked = 0  # the generation of the newest question: only its answer is shown
        self._ask_later = QTimer(self)
        self._ask_later.setSingleShot(True)
        self._ask_later.setInterval(COMPLETE_DELAY_MS)
        self._ask_later.timeout.connect(self.complete_now)
        self.body.textChanged.connect(self._maybe_complete)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setToolTip(EDITOR_SAVE.shown)
        self.save_button.clicked.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        for keys in EDITOR_SAVE.sequences():
            QShortcut(keys, self).activated.connect(self.save)

        form = QFormLayout()
        form.addRow("&Title:", self.title)
        form.addRow("Ta&gs:", self.tags)
        column = QVBoxLayout(self)
        self.about = QLabel(about)
        self.about.setWordWrap(True)
        self.about.setVisible(bool(about))
        column.addWidget(self.about)
        column.addLayout(form)
        column.addWidget(self.tabs, 1)
        column.addWidget(self.notice)
        column.addWidget(self.buttons)

        self._saved_state = self._state() if node else ("", "", "")
        for field in (self.title, self.tags):
            field.textChanged.connect(self._update)
        self.body.textChanged.connect(self._update)
        session.locked.connect(self._locked)
        self._update()
        (self.body if node else self.title).setFocus()

    # -- state --------------------------------------------------------------------------------

    def _state(self) -> tuple[str, str, str]:
        return (self.title.text().strip(), self.body.toPlainText(), self.tags.text().strip())

    @property
    def dirty(self) -> bool:
        return self._state() != self._saved_state

    def _update(self) -> None:
        if self.dirty and self.notice.text() == SAVED:
            self.notice.clear()  # changed again since: no longer saved
        ready = bool(self.title.text().strip()) and self.dirty and not self._saving
        self.save_button.setEnabled(ready and self.session.is_open)
        self.setWindowTitle(
            ("• " if self.dirty else "") + (self.title.text().strip() or "New note")
        )

    # -- saving -------------------------------------------------------------------------------

    def save(self) -> None:
        """Store what changed since the last save: a new note, or one new version of it."""
        service = self.session.service
        title, body, tags_text = self._state()
        if service is None or self._saving or not self.dirty:
            return
        if not title:
            self.notice.show_error("Give the note a title before saving it.")
            self.title.setFocus()
            return
        tags = parse_tags(tags_text)
        self._saving = True
        self._update()
        state = (title, body, tags_text)
        node_id = self.node_id

        def store() -> str:
            if node_id is None:
                return _write_note(service, title, body, tags, self._scope)
            return _revise_note(service, node_id, title, body, tags)

        call_in_worker(
            self,
            store,
            on_done=lambda new_id: self._stored(new_id, state, node_id, tags),
            on_failed=self._failed,
        )

    def _stored(
        self, node_id: str, state: tuple[str, str, str], edited: str | None, tags: list[str]
    ) -> None:
        """Saved as ``node_id``; a save that was a new version of ``edited`` can be undone
        (Edit › Undo: the version goes, the one before is current again)."""
        self._saving = False
        history = self.session.undo_history
        if edited is not None and history is not None:
            history.record_edit(edited, node_id, state[0], state[1], {"tags": tags})
        self.node_id = node_id
        self._saved_state = state
        self.notice.show_info(SAVED)
        self._update()
        self.saved.emit(node_id)
        self.session.changed.emit()

    def _failed(self, sentence: str) -> None:
        self._saving = False
        self.notice.show_error(f"{sentence} Your text is still here; try Save again.")
        self._update()

    def reject(self) -> None:
        """Close (the Close button, Esc, the title bar), asking first about unsaved changes.
        The question is window-modal, not a nested event loop: the window keeps drawing and
        a lock meanwhile still clears the text."""
        if self.session.is_open and self.dirty and self.title.text().strip():
            self._ask_before_closing()
            return
        super().reject()

    def _ask_before_closing(self) -> None:
        def save_then_close() -> None:
            # Closes once it is stored; a failure keeps the text here with its message.
            self.saved.connect(lambda _: super(NoteEditor, self).reject())
            self.save()

        self.close_question = ask_to_save(
            self,
            "Save the note?",
            "This note has changes that are not saved.",
            save=save_then_close,
            discard=lambda: super(NoteEditor, self).reject(),
        )
        self.close_question.finished.connect(self._question_closed)

    def _question_closed(self) -> None:
        self.close_question = None

    def _locked(self) -> None:
        # The vault is closed: no memory text stays on screen.
        for field in (self.title, self.tags):
            field.clear()
        self.body.clear()
        self.preview.clear()
        self._saved_state = self._state()
        super().reject()

    # -- writing aids -------------------------------------------------------------------------

    def _tab_changed(self, index: int) -> None:
        if self.tabs.widget(index) is self.preview:
            self.preview.setMarkdown(self.body.toPlainText())

    def _popup(self) -> QAbstractItemView:
        popup = self.completer.popup()
        assert popup is not None  # a completer always has its list
        return popup

    def _typed_link(self) -> str | None:
        """The name typed after an open ``[[`` before the cursor, if there is one."""
        cursor = self.body.textCursor()
        line = cursor.block().text()[: cursor.positionInBlock()]
        match = OPEN_LINK.search(line)
        return match.group(1) if match else None

    def _maybe_complete(self) -> None:
        """A key in the body: narrow the names shown to those that still fit, and ask the vault
        for the best ones once typing pauses."""
        typed = self._typed_link()
        if not typed or not typed.strip():
            self._ask_later.stop()
            self._asked += 1  # an answer on its way is for a name no longer being typed
            self._popup().hide()
            return
        needle = typed.casefold()
        fitting = [name for name in self.names.stringList() if needle in name.casefold()]
        self._show_names(fitting)
        self._ask_later.start()

    def complete_now(self) -> None:
        """Ask the vault for the names that match what follows the open ``[[`` (in a worker;
        a later question's answer replaces this one's, which is then dropped)."""
        self._ask_later.stop()
        service, typed = self.session.service, self._typed_link()
        if service is None or not typed or not typed.strip():
            return
        self._asked += 1
        asked = self._asked

        def answered(names: list[str]) -> None:
            if asked == self._asked and self._typed_link() == typed:
                self._show_names(names)

        # Without the names [[ simply completes nothing: the note can still be written.
        call_in_worker(
            self, _names_like, service, typed, on_done=answered, on_failed=lambda _: None
        )

    def _show_names(self, names: list[str]) -> None:
        """Show ``names`` under the cursor, the first one chosen: Enter or Tab takes it."""
        self.names.setStringList(names)
        popup = self._popup()
        if not names:
            popup.hide()
            return
        rect = self.body.cursorRect()
        rect.setWidth(max(240, popup.sizeHintForColumn(0) + 24))
        self.completer.complete(rect)
        popup.setCurrentIndex(self.completer.completionModel().index(0, 0))

    def insert_link(self, name: str) -> None:
        """Finish the ``[[`` being typed with ``name]]``."""
        typed = self._typed_link()
        if typed is None:
            return
        cursor = self.body.textCursor()
        cursor.movePosition(
            QTextCursor.MoveOperation.Left, QTextCursor.MoveMode.KeepAnchor, len(typed)
        )
        cursor.insertText(f"{name}]]")
        self.body.setTextCursor(cursor)
        self._popup().hide()


def _tags_of(node: Node | None) -> list[str]:
    tags = node.attrs.get("tags") if node else None
    return [str(tag) for tag in tags] if isinstance(tags, list) else []
