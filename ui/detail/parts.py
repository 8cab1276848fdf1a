"""The pieces the detail pane is made of: how a memory's facts read (its line of metadata,
its attributes), and the clickable lists of its links and versions.

Kept apart from the pane so the pane is only layout and actions, and so the wording of each
part can be read (and tested) on its own.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QWidget

from cairn.app.api import (
    BOOKKEEPING_ATTRS,
    AwaitingReview,
    EdgeSummary,
    History,
    Node,
    Pack,
    clock,
    is_note_file,
    section_place,
    shelf_of,
)
from cairn.ui.base.icons import type_icon
from cairn.ui.rows.results_model import local_date
from cairn.ui.writing.kinds import kind_label

ID_ROLE = Qt.ItemDataRole.UserRole + 1
EDGE_ROLE = Qt.ItemDataRole.UserRole + 2  # a Links entry's link (an EdgeSummary)
# Bookkeeping of ingest, not something a person reads: a passage's position among its
# document's passages, a file's path, kind and checksum (the source line says the file).
HIDDEN_ATTRS = frozenset({"ordinal"}) | BOOKKEEPING_ATTRS


@dataclass(frozen=True)
class Entry:
    label: str
    node_id: str | None  # what a click opens; None for the entry of the memory shown
    icon_type: str | None = None
    tooltip: str = ""
    bold: bool = False
    edge: EdgeSummary | None = None  # the link an entry of the Links list stands for


SECTION_EDGE = "part_of"
VERSION_EDGE = "supersedes"
SECTION_SHOWN = 160  # characters of a section's text in its tooltip


def link_entries(edges: list[EdgeSummary], pack: Pack | None) -> list[Entry]:
    """One entry per link: its direction (an undirected link has none), kind and other end,
    with the other end's type in words ("→ involves: Ada Brook (person)"): the badge beside it
    is letters in a colour, not a word. A document's sections are listed as its sections, not
    among its links."""
    entries = []
    for edge in edges:
        if edge.type == SECTION_EDGE and edge.direction == "in" and edge.other_type == "Passage":
            continue
        if edge.type == VERSION_EDGE:
            continue  # the Versions list says it, with what each version changed
        spec = pack.edge_types.get(edge.type) if pack is not None else None
        if spec is not None and not spec.directed:
            arrow = "—"  # stored one way round, meant both ways: no arrow to mislead
        else:
            arrow = "→" if edge.direction == "out" else "←"
        words = edge.type.replace("_", " ")
        kind = kind_label(edge.other_type).lower()
        entries.append(
            Entry(
                f"{arrow} {words}: {edge.other_title} ({kind})",
                edge.other_id,
                edge.other_type,
                edge.rationale or f"{edge.other_type}, {edge.layer} link",
                edge=edge,
            )
        )
    return entries


CHANGES_SHOWN = 240  # characters of a version's word diff in the list; the tooltip has all it said


def history_entries(history: History | None) -> list[Entry]:
    """The versions, oldest first; the one shown is marked and not a link to itself."""
    if history is None:
        return []
    entries = []
    for position, version in enumerate(history.chain):
        this_one = position == history.position
        label = f"{local_date(version.recorded_at)} · {version.title}"
        label += " (this one)" if this_one else f" ({version.status})"
        if version.changes:
            # What this version changed, word by word ([-old-] {+new+}), under its line.
            label += "\n" + textwrap.shorten(version.changes, CHANGES_SHOWN, placeholder=" …")
        said = version.body or version.title
        entries.append(Entry(label, None if this_one else version.id, tooltip=said, bold=this_one))
    return entries


def section_entries(sections: Sequence[Node], document_title: str) -> list[Entry]:
    """A note's or document's sections, each by its place (a heading, a page, a time); a
    place that several sections share (a long page) is told apart by its part."""
    seen: dict[str, int] = {}
    entries = []
    for section in sections:
        place = section_place(section.title, document_title)
        seen[place] = seen.get(place, 0) + 1
        shown = place if seen[place] == 1 else f"{place}, part {seen[place]}"
        said = " ".join(section.body.split())
        entries.append(
            Entry(shown, section.id, None, textwrap.shorten(said, SECTION_SHOWN, placeholder=" …"))
        )
    return entries


def document_text(sections: Sequence[Node], document_title: str) -> str:
    """A file's words read from it, section by section under each one's place: what the
    detail pane shows of a PDF, a scan or a recording (their Document keeps no text)."""
    parts: list[str] = []
    last = None
    for section in sections:
        place = section_place(section.title, document_title)
        if place != last:
            parts.append(f"[{place}]")
            last = place
        parts.append(section.body.strip())
    return "\n\n".join(parts)


def meta_text(node: Node) -> str:
    """What it is (its shelf: a note read from a file is a note, said so), status when it is
    not the ordinary one, when it was kept, its scope, and the time it held true when known."""
    kind = shelf_of(node.type, node.attrs)
    if is_note_file(node.type, node.attrs):
        kind += " from a file"
    parts = [kind, f"kept {local_date(node.recorded_at)}", f"in {node.scope}"]
    if node.status != "active":
        parts.insert(1, node.status)
    if node.valid_from or node.valid_to:
        start, end = local_date(node.valid_from) or "…", local_date(node.valid_to) or "now"
        parts.append(f"true {start} to {end}")
    return " · ".join(parts)


def review_text(awaiting: AwaitingReview | None) -> str:
    """The line of a memory kept as a possible duplicate until the person settles it in the
    review panel; empty when nothing waits."""
    if awaiting is None:
        return ""
    return (
        f"Awaiting review: may repeat “{awaiting.other_title}” ({awaiting.reason}). "
        "Keep both or merge them in the review panel."
    )


SECONDS_SUFFIX = "_s"  # a number of seconds (duration_s, start_s): shown as a clock


def attrs_html(attrs: dict[str, Any]) -> str:
    rows = []
    for name, value in attrs.items():
        if name in HIDDEN_ATTRS:
            continue
        shown = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        if name.endswith(SECONDS_SUFFIX) and isinstance(value, int | float):
            name, shown = name[: -len(SECONDS_SUFFIX)], clock(float(value))
        label = name.replace("_", " ").capitalize()
        rows.append(
            f"<tr><td style='padding-right:12px'><b>{html.escape(label)}</b></td>"
            f"<td>{html.escape(shown)}</td></tr>"
        )
    return f"<table>{''.join(rows)}</table>" if rows else ""


def text_label(*, selectable: bool = False) -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class EntryList(QListWidget):
    """A list of entries as tall as its content (the pane scrolls, not each list); clicking
    or activating an entry that names a memory emits ``entry_opened``."""

    entry_opened = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # A long entry (a version's changes) is cut at the edge, all of it in its tooltip: the
        # pane scrolls down, never sideways.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setSelectionMode(QListWidget.SelectionMode.NoSelection)
        self.itemClicked.connect(self._opened)
        self.itemActivated.connect(self._opened)

    def set_entries(self, entries: list[Entry]) -> None:
        self.clear()
        for entry in entries:
            item = QListWidgetItem(entry.label)
            if entry.icon_type:
                item.setIcon(type_icon(entry.icon_type))
            item.setData(ID_ROLE, entry.node_id)
            item.setData(EDGE_ROLE, entry.edge)
            item.setToolTip(entry.tooltip)
            if entry.bold:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.addItem(item)
        rows = sum(self.sizeHintForRow(row) for row in range(self.count()))
        self.setFixedHeight(rows + 2 * self.frameWidth())

    def labels(self) -> list[str]:
        return [self.item(row).text() for row in range(self.count())]

    def _opened(self, item: QListWidgetItem) -> None:
        node_id = item.data(ID_ROLE)
        if node_id:
            self.entry_opened.emit(node_id)
