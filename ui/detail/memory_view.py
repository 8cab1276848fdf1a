"""What the detail pane shows of one memory, to read: its title and line of facts, its text (a
note rendered from Markdown, the search's words marked and said in words), its attributes,
where it came from, its links, its sections and its versions.

Only showing: the pane around it loads the memory, offers what can be done with it and holds
the scroll area, which a section opened is scrolled to through ``scroll_to``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from cairn.app.api import NOTE, EdgeCounts, EdgeSummary, Pack, section_place, shelf_of
from cairn.ui.base.icons import type_icon
from cairn.ui.base.scaled_font import keep_scaled
from cairn.ui.detail.actions import Loaded
from cairn.ui.detail.note_text import NoteText, query_words
from cairn.ui.detail.parts import (
    EntryList,
    attrs_html,
    history_entries,
    link_entries,
    meta_text,
    review_text,
    section_entries,
    text_label,
)
from cairn.ui.memory.open_at import is_file_source, place_text
from cairn.ui.rows.results_model import local_date, source_name

TITLE_POINT_SCALE = 1.4
MANY_SECTIONS = 1000  # the sections listed at most (``MemoryService.sections``' default)


class MemoryView(QWidget):
    open_requested = Signal(str)  # a link, version or a document's section was clicked
    name_requested = Signal(str)  # a [[link]] in the text was clicked: the name it gives

    def __init__(self, scroll_to: Callable[[int], None], parent: QWidget | None = None) -> None:
        """``scroll_to(y)``: scroll the pane so that ``y`` of this view is in sight, or to the
        top for 0."""
        super().__init__(parent)
        self._scroll_to = scroll_to
        self._loaded: Loaded | None = None
        self._query = ""  # the search whose words are marked in the text
        self._section = ""  # the section opened, where the text is shaded, in words

        self.icon_label = QLabel()
        self.title_label = text_label(selectable=True)
        keep_scaled(self.title_label, TITLE_POINT_SCALE, bold=True)  # grows with the text
        self.title_label.setAccessibleName("Title")
        self.meta_label = text_label()
        self.review_label = text_label()  # a possible duplicate waiting for the person
        self.review_label.setTextFormat(Qt.TextFormat.PlainText)
        self.marks_label = text_label()  # the search's words marked in the text, in words
        self.text_view = NoteText()
        self.text_view.link_opened.connect(self.name_requested)
        self.attrs_label = text_label(selectable=True)
        self.attrs_label.setTextFormat(Qt.TextFormat.RichText)
        self.attrs_label.setAccessibleName("Attributes")
        self.source_label = text_label(selectable=True)
        self.open_button = QPushButton()
        self.open_button.setAccessibleName("Open the source file")
        # Offered when no program here opens the file: its folder, in the file manager.
        self.folder_button = QPushButton("Show in folder")
        self.folder_button.setAccessibleName("Show the source file in its folder")
        self.folder_button.setVisible(False)
        self.links_heading = QLabel("<b>Links</b>")
        self.links_list = EntryList()
        self.links_note = text_label()
        self.sections_heading = QLabel("<b>Sections</b>")
        self.sections_list = EntryList()
        self.sections_note = text_label()
        self.history_heading = QLabel("<b>Versions</b>")
        self.history_list = EntryList()
        for entries, name in (
            (self.links_list, "Links"),
            (self.history_list, "Versions"),
            (self.sections_list, "Sections"),
        ):
            entries.setAccessibleName(name)
        for entries in (self.links_list, self.history_list):
            entries.entry_opened.connect(self.open_requested)
        self.sections_list.entry_opened.connect(self.open_section)
        self._lay_out()

    def _lay_out(self) -> None:
        self.header = QHBoxLayout()
        self.header.addWidget(self.icon_label, 0, Qt.AlignmentFlag.AlignTop)
        self.header.addWidget(self.title_label, 1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(self.header)
        column.addWidget(self.meta_label)
        column.addWidget(self.review_label)
        self.actions_at = column.count()  # where the pane puts its buttons and notices
        column.addWidget(self.marks_label)
        column.addWidget(self.text_view)
        column.addWidget(self.attrs_label)
        source_row = QHBoxLayout()
        source_row.addWidget(self.source_label, 1)
        source_row.addWidget(self.open_button)
        source_row.addWidget(self.folder_button)
        column.addLayout(source_row)
        for widget in (
            self.links_heading,
            self.links_list,
            self.links_note,
            self.sections_heading,
            self.sections_list,
            self.sections_note,
            self.history_heading,
            self.history_list,
        ):
            column.addWidget(widget)
        column.addStretch(1)

    # -- showing ------------------------------------------------------------------------------

    def show_loaded(self, loaded: Loaded, pack: Pack | None) -> None:
        assert loaded.detail is not None
        self._loaded = loaded
        self._section = ""
        detail, node = loaded.detail, loaded.detail.node
        self.icon_label.setPixmap(type_icon(shelf_of(node.type, node.attrs)).pixmap(32, 32))
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

    def clear(self) -> None:
        self._loaded = None
        self._section = ""
        for label in (self.title_label, self.meta_label, self.attrs_label, self.marks_label):
            label.clear()
        self.text_view.clear()
        self.review_label.clear()
        self.source_label.clear()
        self.icon_label.clear()
        for entries in (self.links_list, self.history_list, self.sections_list):
            entries.clear()

    def mark_query(self, query: str) -> None:
        """Mark ``query``'s words in the text shown (and in what is shown next)."""
        self._query = query
        if self._loaded is not None:
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
        """The line above the text says what its marks mean: the section opened (a shade) and
        the search's words (a highlight), so neither is told by colour alone."""
        lines = []
        if self._section:
            lines.append(f"Opened at the section “{self._section}”, shaded where it begins.")
        marks = self.text_view.marks
        words = ", ".join(f"“{w}”" for w in sorted(query_words(self._query)))
        if marks:
            lines.append(f"{marks} place{'s' if marks != 1 else ''} marked for {words}")
        self.marks_label.setText("\n".join(lines))
        self.marks_label.setVisible(bool(lines))

    def _show_sections(self, loaded: Loaded) -> None:
        assert loaded.detail is not None
        node = loaded.detail.node
        entries = section_entries(loaded.sections, node.title)
        self.sections_list.set_entries(entries)
        visible = bool(entries)
        self.sections_heading.setVisible(visible)
        self.sections_list.setVisible(visible)
        shown = len(loaded.sections)
        note = (
            f"The first {shown:,} sections; search finds the others."
            if (shown >= MANY_SECTIONS)
            else ""
        )
        if loaded.text and not node.body and visible:
            note = "Shown from its sections: add the file again to keep its text as written."
        self.sections_note.setText(note)
        self.sections_note.setVisible(bool(note))

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
        self, edges: list[EdgeSummary], truncated: bool, counts: EdgeCounts, pack: Pack | None
    ) -> None:
        entries = link_entries(edges, pack)
        self.links_list.set_entries(entries)
        visible = bool(entries)
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

    # -- sections -----------------------------------------------------------------------------

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
        self.scroll_to_section(replace(loaded, focus=section))

    def scroll_to_section(self, loaded: Loaded) -> None:
        """Scroll to the section ``loaded`` focuses on, and mark where it begins."""
        if self._loaded is None or loaded.focus is None:
            return
        top = self.text_view.focus_section(loaded.focus.body)
        if top is not None:
            assert loaded.detail is not None
            self._section = section_place(loaded.focus.title, loaded.detail.node.title)
            self._say_marks()
            self._scroll_to(self.text_view.mapTo(self, self.text_view.rect().topLeft()).y() + top)
