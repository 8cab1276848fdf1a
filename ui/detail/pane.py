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
counts elsewhere). Links and versions are lists: clicking an entry asks to open that memory,
and its context menu (``memory_menu``) offers what can be done with it. An edit, a link and an
archive or unarchive done here are recorded for Edit › Undo (``session.undo_history``). The
title (and an entry of the Links list) can be dragged out as text (``memory_drag``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QMimeData, QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import (
    NOTE,
    EdgeCounts,
    EdgeSummary,
    Forgotten,
    LinkResult,
    is_note_file,
    shelf_of,
)
from cairn.ui.base.icons import type_icon
from cairn.ui.base.memory_drag import DragSource, memory_mime
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session
from cairn.ui.detail import actions as detail_actions
from cairn.ui.detail.actions import EditDialog, Loaded
from cairn.ui.detail.note_text import NoteText, query_words
from cairn.ui.detail.parts import (
    ID_ROLE,
    EntryList,
    attrs_html,
    history_entries,
    link_entries,
    meta_text,
    review_text,
    section_entries,
    text_label,
)
from cairn.ui.memory.forget_question import confirm_forget
from cairn.ui.memory.memory_menu import MemoryMenu, memory_menu
from cairn.ui.memory.open_at import Opened, is_file_source, open_source, place_text, show_in_folder
from cairn.ui.memory.pickers import LinkDialog, MemoryPicker
from cairn.ui.rows.results_model import local_date, source_name
from cairn.ui.writing.note_editor import NoteEditor

TITLE_POINT_SCALE = 1.4
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

        self.notice = NoticeLabel()
        self.icon_label = QLabel()
        self.title_label = text_label(selectable=True)
        font = self.title_label.font()
        font.setPointSizeF(font.pointSizeF() * TITLE_POINT_SCALE)
        font.setBold(True)
        self.title_label.setFont(font)
        self.meta_label = text_label()
        self.review_label = text_label()  # a possible duplicate waiting for the person
        self.review_label.setTextFormat(Qt.TextFormat.PlainText)
        self.text_view = NoteText()
        self.marks_label = text_label()  # the search's words marked in the text, in words
        self.attrs_label = text_label(selectable=True)
        self.attrs_label.setTextFormat(Qt.TextFormat.RichText)
        self.source_label = text_label(selectable=True)
        self.open_button = QPushButton()
        self.open_button.clicked.connect(self.open_source_file)
        # Offered when no program here opens the file: its folder, in the file manager.
        self.folder_button = QPushButton("Show in folder")
        self.folder_button.setAccessibleName("Show the source file in its folder")
        self.folder_button.clicked.connect(self.show_source_folder)
        self.folder_button.setVisible(False)
        self.links_heading = QLabel("<b>Links</b>")
        self.links_list = EntryList()
        self.links_note = text_label()
        self.history_heading = QLabel("<b>Versions</b>")
        self.history_list = EntryList()
        self.links_list.setAccessibleName("Links")
        self.history_list.setAccessibleName("Versions")
        for entries in (self.links_list, self.history_list):
            entries.entry_opened.connect(self.open_requested)
            entries.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            entries.customContextMenuRequested.connect(
                lambda position, entries=entries: self._entry_menu_at(entries, position)
            )
        # A drag from the title or the icon carries the memory shown; from a link, that one.
        self.title_label.setToolTip("Drag the title into a note to paste this memory")
        for handle in (self.icon_label, self.title_label):
            DragSource(handle, lambda _position: self.drag_mime())
        DragSource(self.links_list.viewport(), self._link_mime_at)
        self.sections_heading = QLabel("<b>Sections</b>")
        self.sections_list = EntryList()
        self.sections_list.entry_opened.connect(self.open_section)
        self.sections_note = text_label()
        self.sections_list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.sections_list.customContextMenuRequested.connect(
            lambda position: self._entry_menu_at(self.sections_list, position)
        )
        for entries, name in (
            (self.links_list, "Links"),
            (self.history_list, "Versions"),
            (self.sections_list, "Sections"),
        ):
            entries.setAccessibleName(name)
        self._query = ""  # the search whose words are marked in the text

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
        self.empty_label = text_label()
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)

        self._content = QWidget()
        content = QVBoxLayout(self._content)
        header = QHBoxLayout()
        header.addWidget(self.icon_label, 0, Qt.AlignmentFlag.AlignTop)
        header.addWidget(self.title_label, 1)
        content.addLayout(header)
        content.addWidget(self.meta_label)
        content.addWidget(self.review_label)
        actions = QHBoxLayout()
        for button in self._buttons:
            actions.addWidget(button)
        actions.addStretch(1)
        content.addLayout(actions)
        content.addWidget(self.notice)
        content.addWidget(self.marks_label)
        content.addWidget(self.text_view)
        content.addWidget(self.attrs_label)
        source_row = QHBoxLayout()
        source_row.addWidget(self.source_label, 1)
        source_row.addWidget(self.open_button)
        source_row.addWidget(self.folder_button)
        content.addLayout(source_row)
        for widget in (self.links_heading, self.links_list, self.links_note):
            content.addWidget(widget)
        for widget in (self.sections_heading, self.sections_list, self.sections_note):
            content.addWidget(widget)
        content.addWidget(self.history_heading)
        content.addWidget(self.history_list)
        content.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self._content)
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
        for label in (self.title_label, self.meta_label, self.attrs_label, self.marks_label):
            label.clear()
        self.text_view.clear()
        self.review_label.clear()
        self.source_label.clear()
        self.icon_label.clear()
        self.links_list.clear()
        self.history_list.clear()
        self.sections_list.clear()
        self.notice.clear()
        self.folder_button.setVisible(False)
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
        detail, node = loaded.detail, loaded.detail.node
        pack = self._pack()
        self.icon_label.setPixmap(type_icon(node.type).pixmap(32, 32))
        self.title_label.setText(node.title)
        self.meta_label.setText(meta_text(node))
        self.review_label.setText(review_text(detail.awaiting_review))
        self.review_label.setVisible(bool(detail.awaiting_review))
        self._show_text(loaded)
        attributes = attrs_html(node.attrs)
        self.attrs_label.setText(attributes)
        self.attrs_label.setVisible(bool(attributes))
        self._show_source(node.source, node.locator)
        self._show_links(detail.edges, detail.edges_truncated, detail.edge_counts, pack)
        self._show_sections(loaded)
        self._show_history(loaded)
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
        if loaded.focus is not None:
            QTimer.singleShot(0, lambda: self._scroll_to_section(loaded))
        else:
            self._scroll.verticalScrollBar().setValue(0)
        self.loaded.emit(node.id)

    def mark_query(self, query: str) -> None:
        """Mark ``query``'s words in the text shown (and in what is shown next)."""
        self._query = query
        if self._loaded is not None and self._loaded.detail is not None:
            self.text_view.mark_words(query)
            self._say_marks()

    def _show_text(self, loaded: Loaded) -> None:
        assert loaded.detail is not None
        detail, node = loaded.detail, loaded.detail.node
        text = loaded.text
        for addendum in detail.addenda:
            text += f"\n\nAdded {local_date(addendum.recorded_at)}: {addendum.text}"
        markdown = shelf_of(node.type, node.attrs) == NOTE
        self.text_view.show_text(text, markdown=markdown, query=self._query)
        self.text_view.setVisible(bool(text))
        self.text_view.setAccessibleDescription(
            "The note's text, rendered from Markdown" if markdown else "The memory's text"
        )
        self._say_marks()

    def _say_marks(self) -> None:
        marks = self.text_view.marks
        words = ", ".join(f"“{w}”" for w in sorted(query_words(self._query)))
        said = f"{marks} place{'s' if marks != 1 else ''} marked for {words}" if marks else ""
        self.marks_label.setText(said)
        self.marks_label.setVisible(bool(said))

    def _show_sections(self, loaded: Loaded) -> None:
        assert loaded.detail is not None
        node = loaded.detail.node
        entries = section_entries(loaded.sections, node.title)
        self.sections_list.set_entries(entries)
        visible = bool(entries)
        self.sections_heading.setVisible(visible)
        self.sections_list.setVisible(visible)
        shown = len(loaded.sections)
        note = f"The first {shown:,} sections; search finds the others." if shown >= 1000 else ""
        if loaded.text and not node.body and visible:
            note = "Shown from its sections: add the file again to keep its text as written."
        self.sections_note.setText(note)
        self.sections_note.setVisible(bool(note))

    def open_section(self, section_id: str) -> None:
        """A section of the note shown: scrolled to and marked; of another document (a page,
        a stretch of a recording): opened on its own, with its place in the file."""
        loaded = self._loaded
        if loaded is None or loaded.detail is None:
            return
        node = loaded.detail.node
        section = next((s for s in loaded.sections if s.id == section_id), None)
        if section is None or shelf_of(node.type, node.attrs) != NOTE or not loaded.text:
            self.open_requested.emit(section_id)
            return
        self._scroll_to_section(replace(loaded, focus=section))

    def _scroll_to_section(self, loaded: Loaded) -> None:
        if self._loaded is None or loaded.focus is None:
            return
        top = self.text_view.focus_section(loaded.focus.body)
        if top is None:
            return
        offset = self.text_view.mapTo(self._content, self.text_view.rect().topLeft()).y()
        target = offset + top
        visible = self._scroll.viewport().height()
        # A section already in view from the top keeps the title and buttons in view too.
        scroll = 0 if target < visible * 2 // 3 else max(target - visible // 4, 0)
        self._scroll.verticalScrollBar().setValue(scroll)

    def _load_failed(self, generation: int, text: str) -> None:
        if generation == self._generation:
            self.clear(f"This memory could not be read: {text}")

    def _show_source(self, source: str | None, locator: dict[str, Any] | None) -> None:
        where = place_text(locator)
        self.folder_button.setVisible(False)
        if not source:
            self.source_label.setVisible(False)
            self.open_button.setVisible(False)
            return
        file_source = is_file_source(source)
        shown = source_name(source) if file_source else source
        self.source_label.setText(f"From {shown}" + (f", {where}" if where else ""))
        self.source_label.setToolTip(source)
        self.source_label.setVisible(True)
        self.open_button.setText(f"Open at {where}" if where else "Open file")
        self.open_button.setVisible(file_source)

    def _show_links(
        self, edges: list[EdgeSummary], truncated: bool, counts: EdgeCounts, pack: Any
    ) -> None:
        self.links_list.set_entries(link_entries(edges, pack))
        visible = bool(edges)
        self.links_heading.setVisible(visible)
        self.links_list.setVisible(visible)
        note = ""
        if truncated:
            note = (
                f"Showing the newest links: {counts.outgoing} go out and "
                f"{counts.incoming} come in. The graph view shows them all."
            )
        self.links_note.setText(note)
        self.links_note.setVisible(bool(note))

    def _show_history(self, loaded: Loaded) -> None:
        chain = loaded.history.chain if loaded.history else []
        self.history_list.set_entries(history_entries(loaded.history))
        visible = len(chain) > 1
        self.history_heading.setVisible(visible)
        self.history_list.setVisible(visible)

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
        """Edit…: a note in the note editor (each save a version), anything else in a plain
        editor of its title and text. Returns the editor opened."""
        loaded, node = self._loaded, self._current_node()
        if node is None or loaded is None:
            return None
        if shelf_of(node.type, node.attrs) == NOTE:
            about = ""
            if is_note_file(node.type, node.attrs):
                about = (
                    f"Read from {source_name(node.source)}. Saving keeps the new text in Cairn "
                    "as a new version; the file itself is not changed."
                )
            editor = NoteEditor(self._session, self, replace(node, body=loaded.text), about)
            editor.saved.connect(self.show_node)
            editor.finished.connect(editor.deleteLater)
            editor.show()
            return editor
        dialog = EditDialog(node, self)
        dialog.accepted.connect(lambda: self.save_edit(*dialog.values()))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

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

    def supersede_current(self) -> None:
        node, pack = self._current_node(), self._pack()
        if node is None or pack is None:
            return
        picker = MemoryPicker(
            self._session,
            "Replace with a newer memory",
            f"Find the memory that replaces “{node.title}”. This one stays as an older version.",
            accepts=lambda other: pack.edge_for(other, node.type, ("supersedes",)) is not None,
            exclude=frozenset({node.id}),
            parent=self,
        )
        if picker.exec() == QDialog.DialogCode.Accepted and (row := picker.chosen()):
            self.supersede_with(str(row.node_id))

    def supersede_with(self, new_id: str) -> None:
        node = self._current_node()
        if node is not None:
            self._act("supersede", detail_actions.supersede, node.id, new_id, then_show=True)

    def link_current(self) -> None:
        node, pack = self._current_node(), self._pack()
        if node is None or pack is None:
            return
        dialog = LinkDialog(self._session, pack, node.id, node.type, node.title, self)
        if dialog.exec() == QDialog.DialogCode.Accepted and (chosen := dialog.chosen_link()):
            row, option = chosen
            self.link_to(str(row.node_id), option.edge_type, outgoing=option.outgoing)

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

    def forget_current(self, *, confirmed: bool = False) -> None:
        """Forget the memory shown, after the confirmation (unless ``confirmed`` already)."""
        loaded = self._loaded
        if loaded is None or loaded.detail is None:
            return
        detail = loaded.detail
        if not confirmed:
            box = confirm_forget(self, detail)
            box.exec()
            if box.buttonRole(box.clickedButton()) != QMessageBox.ButtonRole.DestructiveRole:
                return
        node_id, title = detail.node.id, detail.node.title

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
        is the memory itself)."""
        item = entries.item(row)
        node_id = item.data(ID_ROLE) if item is not None else None
        node_id = node_id or self.current_node_id
        if node_id is None or self._session.service is None:
            return None
        menu = memory_menu(self._session, str(node_id), self)
        menu.open_requested.connect(self.open_requested)
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
