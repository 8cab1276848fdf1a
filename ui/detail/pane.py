"""The detail pane: one memory in full, what it links to, its versions, and what can be done
with it (edit, supersede, link, archive, forget).

A note (typed in the window, or read from a notes folder) is shown as its text rendered from
Markdown, with the words of the search that found it marked; a note or document lists its
sections, and a section opened from a search shows its note, scrolled to that section. Edit
opens the note editor for a note (a note read from a file says its file stays as it is) and a
plain editor for the rest; a file other than a note is not edited.

``show_node`` loads in a worker; a load started later wins over one started earlier. Every
action runs in a worker too, reports a failure in a message box with the service's sentence,
and after a write announces ``session.changed``, which reloads the pane (and the lists and
counts elsewhere); the keyboard then goes back to the act's button. Link…, Replace with… and
Forget… ask first (``questions``: window-modal, no nested event loop, deleted once closed).
Links and versions are lists: clicking an entry asks to open that memory, and its context menu
(``memory_menu``) offers what can be done with it; a link's entry also offers Remove Link. An
edit, a link made or removed and an archive or unarchive done here are recorded for Edit ›
Undo (``session.undo_history``). The title (and an entry of the Links list) can be dragged out
as text (``memory_drag``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QMimeData, QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QListWidget,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import (
    EdgeSummary,
    Forgotten,
    LinkResult,
)
from cairn.ui.base.flow_layout import FlowLayout
from cairn.ui.base.memory_drag import DragSource, memory_mime
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session
from cairn.ui.detail import actions as detail_actions
from cairn.ui.detail import questions
from cairn.ui.detail.actions import Loaded
from cairn.ui.detail.memory_view import MemoryView
from cairn.ui.detail.parts import EDGE_ROLE, ID_ROLE, text_label
from cairn.ui.memory.memory_menu import MemoryMenu, memory_menu
from cairn.ui.memory.open_at import Opened, open_source, show_in_folder
from cairn.ui.memory.pickers import LinkDialog, LinkOption, MemoryPicker
from cairn.ui.rows.results_model import ResultRow
from cairn.ui.writing.editors import open_editor

RELOAD_DELAY_MS = 100


class DetailPane(QWidget):
    open_requested = Signal(str)  # a node id: a link or version was clicked
    loaded = Signal(str)  # the id now shown (or asked for, when it is gone)
    action_done = Signal(str)  # "edit", "supersede", "link", "archive", "unarchive", "forget"
    node_forgotten = Signal(str)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._generation = 0
        self._loaded: Loaded | None = None
        self._wanted: str | None = None  # the id asked for last (reloaded after writes)
        self.last_error = ""  # the last failure's sentence, as its message box showed it
        # The button of an act in flight: it has the keyboard again once the pane reloads.
        self._act_button: QPushButton | None = None

        self.notice = NoticeLabel()
        self.view = MemoryView(self._scroll_to)
        self.view.open_requested.connect(self.open_requested)
        self.view.name_requested.connect(self.open_named)
        self.view.open_button.clicked.connect(self.open_source_file)
        self.view.folder_button.clicked.connect(self.show_source_folder)
        # The parts tests and the window reach, by the names they always had.
        view = self.view
        self.icon_label, self.title_label, self.meta_label, self.review_label = (
            view.icon_label,
            view.title_label,
            view.meta_label,
            view.review_label,
        )
        self.text_view, self.marks_label, self.attrs_label = (
            view.text_view,
            view.marks_label,
            view.attrs_label,
        )
        self.source_label, self.open_button, self.folder_button = (
            view.source_label,
            view.open_button,
            view.folder_button,
        )
        self.links_list, self.history_list, self.sections_list = (
            view.links_list,
            view.history_list,
            view.sections_list,
        )
        for entries in (self.links_list, self.history_list, self.sections_list):
            entries.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            entries.customContextMenuRequested.connect(
                lambda position, entries=entries: self._entry_menu_at(entries, position)
            )
        # A drag from the title or the icon carries the memory shown; from a link, that one.
        self.title_label.setToolTip("Drag the title into a note to paste this memory")
        for handle in (self.icon_label, self.title_label):
            DragSource(handle, lambda _position: self.drag_mime())
        DragSource(self.links_list.viewport(), self._link_mime_at)

        self.edit_button = QPushButton("Edit…")
        self.supersede_button = QPushButton("Replace with…")
        self.supersede_button.setToolTip("Pick the memory that replaces this one")
        self.link_button = QPushButton("Link…")
        self.archive_button = QPushButton("Archive")
        self.forget_button = QPushButton("Forget…")
        self.edit_button.clicked.connect(self.edit_current)
        self.supersede_button.clicked.connect(self.supersede_current)
        self.link_button.clicked.connect(self.link_current)
        self.archive_button.clicked.connect(self._archive_clicked)
        self.forget_button.clicked.connect(self.forget_current)
        self._buttons = (
            self.edit_button,
            self.supersede_button,
            self.link_button,
            self.archive_button,
            self.forget_button,
        )
        for button, name in zip(
            self._buttons,
            (
                "Edit this memory",
                "Replace with a newer memory",
                "Link to another memory",
                "Archive or unarchive",
                "Forget for good",
            ),
            strict=True,
        ):
            button.setAccessibleName(name)
        self.empty_label = text_label()
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)

        # The buttons wrap onto a second row in a narrow pane or at a large scale.
        actions = FlowLayout()
        for button in self._buttons:
            actions.addWidget(button)
        column = self.view.layout()
        assert isinstance(column, QVBoxLayout)
        column.insertLayout(self.view.actions_at, actions)
        column.insertWidget(self.view.actions_at + 1, self.notice)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty_label)
        layout.addWidget(scroll, 1)
        self._scroll = scroll

        # Writes come in bursts (an ingest): reload once the burst pauses.
        self._reload_later = QTimer(self)
        self._reload_later.setSingleShot(True)
        self._reload_later.setInterval(RELOAD_DELAY_MS)
        self._reload_later.timeout.connect(self.reload)
        session.locked.connect(self.clear)
        session.changed.connect(self._reload_later.start)
        self.clear()

    # -- showing ------------------------------------------------------------------------------

    @property
    def current_node_id(self) -> str | None:
        loaded = self._loaded
        return loaded.detail.node.id if loaded and loaded.detail else None

    @property
    def wanted_node_id(self) -> str | None:
        """The memory asked for last (shown, or on its way): what a reload loads."""
        return self._wanted

    def show_node(self, node_id: str, *, use: bool = True) -> None:
        """Load and show a memory; ``use``: the person opened it, which counts for retention
        (the window coming back after an unlock shows it again without counting)."""
        self._wanted = node_id
        self.notice.clear()
        self.reload(use=use)

    def reload(self, *, use: bool = False) -> None:
        """Load the memory asked for again: after writes here or by another program, which
        are not uses of it."""
        self._reload_later.stop()
        service = self._session.service
        if service is None or self._wanted is None:
            return
        self._generation += 1
        generation = self._generation
        call_in_worker(
            self,
            detail_actions.load_detail,
            service,
            self._wanted,
            use,
            on_done=lambda loaded: self._show(generation, loaded),
            on_failed=lambda text: self._load_failed(generation, text),
        )

    def clear(self, message: str = "Pick a memory to see it here.") -> None:
        """Show nothing of any memory (after a lock, a forget, or before the first pick)."""
        self._generation += 1
        self._loaded = None
        self._wanted = None
        self.view.clear()
        self.notice.clear()
        self.empty_label.setText(message)
        self.empty_label.setVisible(True)
        self._scroll.setVisible(False)

    def _show(self, generation: int, loaded: Loaded) -> None:
        if generation != self._generation:
            return
        if loaded.detail is None:
            self.clear("This memory is no longer in the vault: it may have been forgotten.")
            self.loaded.emit(loaded.asked)
            return
        self._loaded = loaded
        node = loaded.detail.node
        pack = self._pack()
        self.view.show_loaded(loaded, pack)
        supersedable = pack is not None and detail_actions.can_supersede(pack, node)
        editable = pack is not None and detail_actions.can_edit(pack, node)
        self.edit_button.setEnabled(editable)
        self.supersede_button.setEnabled(supersedable)
        why = "" if editable or pack is None else detail_actions.why_not_editable(pack, node)
        self.edit_button.setToolTip(why or "Change the title or text; the old text is kept")
        self.archive_button.setText("Unarchive" if node.status == "archived" else "Archive")
        for button in (self.link_button, self.archive_button, self.forget_button):
            button.setEnabled(True)
        self.empty_label.setVisible(False)
        self._scroll.setVisible(True)
        self._refocus()
        if loaded.focus is not None:
            QTimer.singleShot(0, lambda: self.view.scroll_to_section(loaded))
        else:
            self._scroll.verticalScrollBar().setValue(0)
        self.loaded.emit(node.id)

    def open_named(self, name: str) -> None:
        """A ``[[link]]`` in the text: open the memory it names, or say there is none."""
        service = self._session.service
        if service is None:
            return

        def found(node_id: object) -> None:
            if isinstance(node_id, str):
                self.open_requested.emit(node_id)
            else:
                self.notice.show_info(
                    f"No memory is called “{name}” yet. Write one (File › New) to fill the link."
                )

        call_in_worker(
            self,
            detail_actions.find_named,
            service,
            name,
            on_done=found,
            on_failed=self.notice.show_error,
        )

    def mark_query(self, query: str) -> None:
        """Mark ``query``'s words in the text shown (and in what is shown next)."""
        self.view.mark_query(query)

    def open_section(self, section_id: str) -> None:
        """See ``MemoryView.open_section``."""
        self.view.open_section(section_id)

    def _scroll_to(self, y: int) -> None:
        """Bring ``y`` of the memory's view in sight; one already in sight from the top keeps
        the title and the buttons in sight too."""
        visible = self._scroll.viewport().height()
        scroll = 0 if y < visible * 2 // 3 else max(y - visible // 4, 0)
        self._scroll.verticalScrollBar().setValue(scroll)

    def _load_failed(self, generation: int, text: str) -> None:
        if generation == self._generation:
            self.clear(f"This memory could not be read: {text}")

    # -- actions ------------------------------------------------------------------------------

    def open_source_file(self) -> None:
        loaded = self._loaded
        if loaded is None or loaded.detail is None or not loaded.detail.node.source:
            return
        node = loaded.detail.node
        self._tell(open_source(str(node.source), node.locator))

    def show_source_folder(self) -> None:
        """The folder of the memory's file, for when no program here opens the file."""
        loaded = self._loaded
        if loaded is None or loaded.detail is None or not loaded.detail.node.source:
            return
        self._tell(show_in_folder(str(loaded.detail.node.source)))

    def _tell(self, opened: Opened) -> None:
        if opened.ok:
            self.notice.show_info(opened.message)
        else:
            self.notice.show_error(opened.message)
        self.folder_button.setVisible(opened.offer_folder)

    def edit_current(self) -> QDialog | None:
        """Edit…: the memory's own editor (``writing.editors``): a note in the note editor,
        anything else a person writes in its form; each save a new version. Returns it."""
        loaded, node = self._loaded, self._current_node()
        if node is None or loaded is None:
            return None
        # A note file read before its text was kept whole is edited from its sections' text.
        editor = open_editor(self._session, replace(node, body=loaded.text), self)
        if editor is not None and hasattr(editor, "saved"):
            editor.saved.connect(self.show_node)
        return editor

    def save_edit(self, title: str, body: str) -> None:
        """Store ``title``/``body`` as a new version of the memory shown; then show it."""
        node, history = self._current_node(), self._session.undo_history
        if node is None:
            return

        def recorded(new_id: Any) -> None:
            if history is not None and isinstance(new_id, str):
                history.record_edit(node.id, new_id, title, body)

        self._act(
            "edit",
            detail_actions.write_new_version,
            node,
            title,
            body,
            then_show=True,
            after=recorded,
        )

    def supersede_current(self) -> MemoryPicker | None:
        """Replace with…: asks for the newer memory (``questions``); returns the question."""
        node, pack = self._current_node(), self._pack()
        if node is None or pack is None:
            return None
        return questions.ask_replacement(self._session, pack, node, self, self.supersede_with)

    def supersede_with(self, new_id: str) -> None:
        node = self._current_node()
        if node is not None:
            self._act("supersede", detail_actions.supersede, node.id, new_id, then_show=True)

    def link_current(self) -> LinkDialog | None:
        """Link…: asks for the other memory and how the two are related (``questions``);
        returns the question."""
        node, pack = self._current_node(), self._pack()
        if node is None or pack is None:
            return None

        def link(row: ResultRow, option: LinkOption) -> None:
            self.link_to(str(row.node_id), option.edge_type, outgoing=option.outgoing)

        return questions.ask_link(self._session, pack, node, self, link)

    def link_to(self, other_id: str, edge_type: str, *, outgoing: bool = True) -> None:
        node, service = self._current_node(), self._session.service
        if node is None or service is None:
            return
        src, dst = (node.id, other_id) if outgoing else (other_id, node.id)
        history = self._session.undo_history

        def recorded(made: tuple[LinkResult, str]) -> None:
            result, other_title = made
            if result.created and history is not None:  # a link that was there is not undone
                history.record_link(result.src, result.dst, result.type, other_title)

        link = detail_actions.link_and_name
        self._act("link", link, src, dst, edge_type, other_id, after=recorded)

    def archive_current(self) -> None:
        self._set_archived(True)

    def unarchive_current(self) -> None:
        self._set_archived(False)

    def _set_archived(self, archived: bool) -> None:
        node, history = self._current_node(), self._session.undo_history
        if node is None:
            return

        def recorded(_: Any) -> None:
            if history is not None:
                history.record_archive(node.id, node.title, archived=archived)

        def change(service: Any) -> Any:
            if archived:
                return service.archive(node.id, scopes=service.scopes())
            return service.unarchive(node.id, scopes=service.scopes())

        self._act("archive" if archived else "unarchive", change, after=recorded)

    def forget_current(self, *, confirmed: bool = False) -> QMessageBox | None:
        """Forget the memory shown, once the person confirms it in the question (which is
        returned), or at once when ``confirmed`` already."""
        loaded = self._loaded
        if loaded is None or loaded.detail is None:
            return None
        node = loaded.detail.node
        if confirmed:
            self._forget(node.id, node.title)
            return None
        return questions.ask_forget(loaded.detail, self, lambda: self._forget(node.id, node.title))

    def _forget(self, node_id: str, title: str) -> None:
        def forgotten(result: object) -> None:
            note = result.note if isinstance(result, Forgotten) else None
            self.clear(
                f"Forgotten: “{title}” is no longer in the vault." + (f" {note}" if note else "")
            )
            self.node_forgotten.emit(node_id)

        self._act("forget", lambda s: s.forget(node_id, scopes=s.scopes()), after=forgotten)

    def _archive_clicked(self) -> None:
        node = self._current_node()
        if node is not None and node.status == "archived":
            self.unarchive_current()
        else:
            self.archive_current()

    def _act(
        self,
        name: str,
        fn: Callable[..., Any],
        *args: Any,
        then_show: bool = False,
        after: Callable[[Any], None] | None = None,
    ) -> None:
        """Run a write in a worker; then announce the change (or show why it failed)."""
        service = self._session.service
        if service is None:
            return
        self._act_button = self._button_of(name)
        for button in self._buttons:
            button.setEnabled(False)  # one write at a time: a second click would race the first

        def done(result: Any) -> None:
            if then_show and isinstance(result, str):
                self._wanted = result
            if after is not None:
                after(result)
            self._session.changed.emit()
            self.action_done.emit(name)

        def failed(text: str) -> None:
            self.reload()  # the buttons come back in the state the memory is really in
            self._show_error(text)

        call_in_worker(self, fn, service, *args, on_done=done, on_failed=failed)

    def _button_of(self, act: str) -> QPushButton | None:
        buttons = {
            "edit": self.edit_button,
            "supersede": self.supersede_button,
            "link": self.link_button,
            "archive": self.archive_button,
            "unarchive": self.archive_button,
        }
        return buttons.get(act)  # a forgotten memory's buttons go with it

    def _refocus(self) -> None:
        """After an act, the keyboard goes back to the act's button, where the person left
        it. Disabling the buttons during the write moved it into the memory's text, where
        Ctrl+Z and the arrow keys would mean little; elsewhere (the search field, a list) the
        person put it there, and it stays."""
        button, self._act_button = self._act_button, None
        focused = QApplication.focusWidget()
        here = focused is None or focused is self or self.isAncestorOf(focused)
        if button is not None and button.isEnabled() and here:
            button.setFocus(Qt.FocusReason.OtherFocusReason)

    def _show_error(self, text: str) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Warning, "Cairn", text, QMessageBox.StandardButton.Ok, self
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()  # window-modal but not blocking: the window keeps drawing
        self.last_error = text

    # -- menus and drags ----------------------------------------------------------------------

    def entry_menu(self, entries: QListWidget, row: int) -> MemoryMenu | None:
        """The context menu of entry ``row`` of the Links or Versions list (the version shown
        is the memory itself): the memory's menu, and for a link, Remove Link too."""
        item = entries.item(row)
        node_id = item.data(ID_ROLE) if item is not None else None
        node_id = node_id or self.current_node_id
        if node_id is None or self._session.service is None:
            return None
        menu = memory_menu(self._session, str(node_id), self)
        menu.open_requested.connect(self.open_requested)
        edge = item.data(EDGE_ROLE) if item is not None else None
        shown = self.current_node_id
        if isinstance(edge, EdgeSummary) and shown is not None:
            ends = (shown, edge.other_id) if edge.direction == "out" else (edge.other_id, shown)
            menu.offer_remove_link(*ends, edge.type, edge.other_title)
        return menu

    def _entry_menu_at(self, entries: QListWidget, position: QPoint) -> None:
        item = entries.itemAt(position)
        menu = self.entry_menu(entries, entries.row(item)) if item is not None else None
        if menu is not None:
            menu.popup(entries.viewport().mapToGlobal(position))

    def drag_mime(self) -> QMimeData | None:
        """The memory shown, as a drag carries it (None when none is shown)."""
        node = self._current_node()
        return None if node is None else memory_mime(node.id, node.title, node.body)

    def link_mime(self, row: int) -> QMimeData | None:
        """Entry ``row`` of the Links list as a drag carries it."""
        item = self.links_list.item(row)
        loaded = self._loaded
        if item is None or loaded is None:
            return None
        node_id = str(item.data(ID_ROLE))
        title, body = loaded.linked.get(node_id, (item.text(), ""))
        return memory_mime(node_id, title, body)

    def _link_mime_at(self, position: QPoint) -> QMimeData | None:
        item = self.links_list.itemAt(position)
        return None if item is None else self.link_mime(self.links_list.row(item))

    def _current_node(self) -> Any:
        loaded = self._loaded
        return loaded.detail.node if loaded and loaded.detail else None

    def _pack(self) -> Any:
        service = self._session.service
        return service.pack_rules() if service is not None else None
