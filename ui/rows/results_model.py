"""The rows of a result list: one per memory, a note or document with the sections of it that
matched under it (a two-level tree), each drawn by ``result_delegate``.

Search hits (grouped by ``cairn.app.api.group_hits``), the newest memories, review items,
inbox captures and ingested files all become a ``ResultRow``, so the search panel and the
pickers show every listing the same way and a view never needs to know where its rows came
from. Rows are made in the worker that fetched them; the model only hands them to the view.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import PurePath
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QWidget

from cairn.app.api import (
    InboxItem,
    Node,
    RecentItem,
    ResultGroup,
    ReviewItem,
    SearchHit,
    TrackedFile,
    group_hits,
    readable_snippet,
    section_place,
    shelf_of,
)
from cairn.ui.base.icons import type_icon

ROW_ROLE = Qt.ItemDataRole.UserRole + 1  # the ResultRow itself
SNIPPET_HTML_ROLE = Qt.ItemDataRole.UserRole + 2  # the snippet as HTML, matches in <b>
NODE_ID_ROLE = Qt.ItemDataRole.UserRole + 3  # the memory to open, or None

INBOX_TYPE = "Inbox"  # what an unsorted capture shows as its type
SNIPPET_CHARS = 180  # of a memory's text, when a listing shows its start


@dataclass(frozen=True)
class ResultRow:
    key: str  # unique in a listing: the node id, or the inbox item's id
    node_id: str | None  # the memory to open; None for a capture not yet made a memory
    type: str
    title: str
    snippet: str = ""
    highlights: tuple[tuple[int, int], ...] = ()
    source_name: str = ""
    date: str = ""
    status: str = "active"
    awaiting_review: bool = False  # kept as a possible duplicate; the person has not decided
    shelf: str = ""  # what the person sees it as ("Note" for a note file); "" means its type
    sections: tuple[ResultRow, ...] = ()  # the sections of it that matched, best first
    is_section: bool = False  # a row under its note or document: its title is its place

    @property
    def shown_type(self) -> str:
        """The type a person reads and the icon shows."""
        return self.shelf or self.type


AWAITING_REVIEW = "awaiting review"  # the marker a row's meta line and tooltip carry

PLURALS = {"Person": "People", "Inbox": "Inbox"}


def type_plural(type_name: str) -> str:
    """What a list of this type is called ("Notes", "People")."""
    return PLURALS.get(type_name) or f"{type_name}s"


def local_date(stamp: str | None) -> str:
    """An ISO stamp (stored in UTC) as the date it was here, where the person is."""
    if not stamp:
        return ""
    try:
        return datetime.fromisoformat(stamp).astimezone().date().isoformat()
    except ValueError:
        return stamp[:10]


def source_name(source: str | None) -> str:
    """The file name of a memory's source; other sources ("inbox") are shown as they are."""
    if not source:
        return ""
    return PurePath(source).name or source


def without_title(
    snippet: str, spans: Sequence[tuple[int, int]], title: str
) -> tuple[str, list[tuple[int, int]]]:
    """The snippet minus a first line that only repeats the title (the row shows the title
    above it), with the highlight spans moved to match."""
    lead = title + "\n"
    if not title or not snippet.startswith(lead):
        return snippet, [tuple(span) for span in spans]  # type: ignore[misc]
    cut = len(lead)
    moved = [(max(start - cut, 0), end - cut) for start, end in spans if end > cut]
    return snippet[cut:], moved


def highlighted_html(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` as HTML with each span in bold, lines joined with a middle dot (a snippet's
    lines are title, body and attributes: one flowing line reads better in a list)."""
    parts: list[str] = []
    position = 0
    for start, end in sorted(spans):
        start, end = max(start, position), min(end, len(text))
        if start >= end:
            continue
        parts.append(_escaped(text[position:start]))
        parts.append(f"<b>{_escaped(text[start:end])}</b>")
        position = end
    parts.append(_escaped(text[position:]))
    return "".join(parts)


def _escaped(text: str) -> str:
    return html.escape(" · ".join(line for line in text.split("\n")), quote=False)


# -- making rows --------------------------------------------------------------------------------


def row_from_hit(hit: SearchHit) -> ResultRow:
    snippet, spans = without_title(hit.snippet, hit.highlights, hit.title)
    return ResultRow(
        key=hit.id,
        node_id=hit.id,
        type=hit.type,
        title=hit.title,
        snippet=snippet,
        highlights=tuple(spans),
        source_name=source_name(hit.source),
        date=local_date(hit.recorded_at),
        status=hit.status,
        awaiting_review=hit.awaiting_review,
        shelf=hit.shelf,
    )


def rows_from_hits(hits: list[SearchHit]) -> list[ResultRow]:
    """One row per memory: a note or document with the sections of it that matched."""
    return [row_from_group(group) for group in group_hits(hits)]


def row_from_group(group: ResultGroup) -> ResultRow:
    best = group.best
    text, spans = group.snippet
    snippet, spans = without_title(text, spans, group.title)
    # Under the row, in the order they stand in the note (the row itself shows the best).
    in_order = sorted(
        group.sections,
        key=lambda hit: (hit.position is None, hit.position or 0),
    )
    sections = tuple(_section_row(hit, group.title) for hit in in_order)
    return ResultRow(
        key=group.id,
        node_id=group.id,
        type=group.type,
        title=group.title,
        snippet=snippet,
        highlights=tuple(spans),
        source_name=source_name(best.source),
        date=local_date(best.recorded_at),
        status=group.head.status if group.head else best.status,
        awaiting_review=any(hit.awaiting_review for hit in (group.head, *group.sections) if hit),
        shelf=group.shelf,
        sections=sections,
    )


def _section_row(hit: SearchHit, document_title: str) -> ResultRow:
    snippet, spans = without_title(hit.snippet, hit.highlights, hit.title)
    return ResultRow(
        key=hit.id,
        node_id=hit.id,
        type=hit.type,
        title=section_place(hit.title, document_title),
        snippet=snippet,
        highlights=tuple(spans),
        status=hit.status,
        is_section=True,
    )


def row_from_brief(brief: RecentItem) -> ResultRow:
    """A memory as the briefing lists it."""
    return ResultRow(
        key=brief.id,
        node_id=brief.id,
        type=brief.type,
        title=brief.title,
        date=local_date(brief.recorded_at),
        awaiting_review=brief.awaiting_review,
    )


def row_from_node(node: Node, awaiting_review: bool = False) -> ResultRow:
    """A memory as a shelf lists it: what it says begins its snippet."""
    row = row_from_brief(
        RecentItem(node.id, node.type, node.title, node.recorded_at, awaiting_review)
    )
    first = " ".join(readable_snippet(node.body).split())
    text = first[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …" if len(first) > SNIPPET_CHARS else first
    return replace(
        row,
        snippet=text,
        source_name=source_name(node.source),
        shelf=shelf_of(node.type, node.attrs),
        status=node.status,
    )


def row_from_review(item: ReviewItem) -> ResultRow:
    node = item.node
    return ResultRow(
        key=item.id,
        node_id=node.id if node else None,
        type=node.type if node else "",
        title=node.title if node else "",
        snippet=item.reason,
        date=local_date(item.created_at),
        status=node.status if node else "",
    )


def row_from_inbox(item: InboxItem) -> ResultRow:
    """A capture: its first line as the title, the rest (if any) as the snippet."""
    first_line, _, rest = item.text.strip().partition("\n")
    return ResultRow(
        key=item.id,
        node_id=item.node_id,
        type=INBOX_TYPE,
        title=first_line.strip(),
        snippet=rest.strip(),
        source_name="inbox",
        date=local_date(item.captured_at),
        status=item.state,
    )


def row_from_source(source: TrackedFile) -> ResultRow:
    """An ingested file (a row of ``service.sources``): its Document memory."""
    path = source.path
    passages = source.passages
    return ResultRow(
        key=str(source.document_id),
        node_id=str(source.document_id),
        type="Document",
        title=source_name(path),
        snippet=f"{passages} passage{'s' if passages != 1 else ''} · {path}",
        source_name=source_name(path),
        date=local_date(source.updated_at),
    )


def row_meta(row: ResultRow) -> str:
    """The muted line under a row: how many of its sections matched, its type, source and
    date, after the awaiting-review mark."""
    count = len(row.sections)
    matched = f"{count} matching section{'s' if count != 1 else ''}" if count else ""
    source = row.source_name
    if PurePath(source).stem == row.title or source.casefold() == row.shown_type.casefold():
        source = ""  # the title or the type again ("Inbox · inbox") says nothing more
    parts = (
        AWAITING_REVIEW if row.awaiting_review else "",
        matched,
        row.shown_type,
        source,
        row.date,
    )
    return " · ".join(part for part in parts if part)


# -- the model ---------------------------------------------------------------------------------

_Index = QModelIndex | QPersistentModelIndex
_TOP = 0  # the internal id of a top-level row; a section's is its row's number plus one


class ResultsModel(QAbstractItemModel):
    """Rows and, under a row, the sections of it that matched."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[ResultRow] = []

    def set_rows(self, rows: Sequence[ResultRow]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def clear(self) -> None:
        self.set_rows([])

    def rows(self) -> list[ResultRow]:
        return list(self._rows)

    def row_at(self, index: _Index) -> ResultRow | None:
        if not index.isValid():
            return None
        if index.internalId() == _TOP:
            return self._rows[index.row()] if 0 <= index.row() < len(self._rows) else None
        owner = int(index.internalId()) - 1
        if not 0 <= owner < len(self._rows):
            return None
        sections = self._rows[owner].sections
        return sections[index.row()] if 0 <= index.row() < len(sections) else None

    def index_of(self, key: str) -> QModelIndex:
        """The index of the row (or section) with ``key``, or an invalid one."""
        for number, row in enumerate(self._rows):
            if row.key == key:
                return self.index(number, 0)
            for place, section in enumerate(row.sections):
                if section.key == key:
                    return self.index(place, 0, self.index(number, 0))
        return QModelIndex()

    def index(self, row: int, column: int = 0, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008 (Qt's default argument)
        if column != 0 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, 0, _TOP) if row < len(self._rows) else QModelIndex()
        if parent.internalId() != _TOP or not 0 <= parent.row() < len(self._rows):
            return QModelIndex()
        if row >= len(self._rows[parent.row()].sections):
            return QModelIndex()
        return self.createIndex(row, 0, parent.row() + 1)

    def parent(self, index: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid() or index.internalId() == _TOP:
            return QModelIndex()
        return self.createIndex(int(index.internalId()) - 1, 0, _TOP)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 (Qt's default argument)
        if not parent.isValid():
            return len(self._rows)
        if parent.internalId() == _TOP and 0 <= parent.row() < len(self._rows):
            return len(self._rows[parent.row()].sections)
        return 0

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 (Qt's default argument)
        return 1

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row_at(index)
        if row is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return row.title
        if role == Qt.ItemDataRole.DecorationRole:
            return None if row.is_section else type_icon(row.shown_type)
        if role in (Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.AccessibleTextRole):
            return row_description(row)
        if role == ROW_ROLE:
            return row
        if role == SNIPPET_HTML_ROLE:
            return highlighted_html(row.snippet, row.highlights)
        if role == NODE_ID_ROLE:
            return row.node_id
        return None


def row_description(row: ResultRow) -> str:
    """The row in words, as a tooltip and for a screen reader: matched words are said to be
    marked, since bold alone says it only to the eye."""
    if row.is_section:
        return f"Section {row.title}: {row.snippet}"
    waiting = f" ({AWAITING_REVIEW}: it may repeat another memory)" if row.awaiting_review else ""
    count = len(row.sections)
    parts = (
        f"{count} matching section{'s' if count != 1 else ''}" if count else "",
        f"from {row.source_name}"
        if row.source_name and PurePath(row.source_name).stem != row.title
        else "",
        row.date,
    )
    return f"{row.shown_type}: {row.title}{waiting}. " + ", ".join(p for p in parts if p)
