"""The rows of a result list and how one is drawn: type icon, title, a snippet with the words
that matched in bold, and the source file and date underneath.

Search hits, the briefing's recent memories, review items, inbox captures and ingested files
all become a ``ResultRow``, so the search panel and the pickers show every listing the same way
and a view never needs to know where its rows came from. Rows are made in the worker that
fetched them; the model only hands them to the view.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePath
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QPainter,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from cairn.app.api import InboxItem, RecentItem, ReviewItem, SearchHit, TrackedFile
from cairn.ui.base.icons import type_icon

ROW_ROLE = Qt.ItemDataRole.UserRole + 1  # the ResultRow itself
SNIPPET_HTML_ROLE = Qt.ItemDataRole.UserRole + 2  # the snippet as HTML, matches in <b>
NODE_ID_ROLE = Qt.ItemDataRole.UserRole + 3  # the memory to open, or None

ICON_PX = 24
PADDING_PX = 6
SNIPPET_LINES = 2
INBOX_TYPE = "Inbox"  # what an unsorted capture shows as its type


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
    """The muted line under a row: its type, source and date, after the awaiting-review mark."""
    parts = (AWAITING_REVIEW if row.awaiting_review else "", row.type, row.source_name, row.date)
    return " · ".join(part for part in parts if part)


# -- the model and its delegate -----------------------------------------------------------------

_Index = QModelIndex | QPersistentModelIndex


class ResultsModel(QAbstractListModel):
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
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        return self._rows[index.row()]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 (Qt's default argument)
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row_at(index)
        if row is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return row.title
        if role == Qt.ItemDataRole.DecorationRole:
            return type_icon(row.type)
        if role == Qt.ItemDataRole.ToolTipRole:
            waiting = f" ({AWAITING_REVIEW}: it may repeat another memory)"
            return f"{row.type}: {row.title}{waiting if row.awaiting_review else ''}"
        if role == ROW_ROLE:
            return row
        if role == SNIPPET_HTML_ROLE:
            return highlighted_html(row.snippet, row.highlights)
        if role == NODE_ID_ROLE:
            return row.node_id
        return None


class ResultDelegate(QStyledItemDelegate):
    """Three lines per row: the bold title, the snippet (matches in bold, at most two lines)
    and, small and muted, the source file and the date."""

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        line = option.fontMetrics.height()
        return QSize(200, line * (2 + SNIPPET_LINES) + 3 * PADDING_PX)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        row = index.data(ROW_ROLE)
        if not isinstance(row, ResultRow):
            super().paint(painter, option, index)
            return
        style = option.widget.style() if option.widget else None
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        painter.save()
        if style is not None:
            style.drawPrimitive(
                QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, option.widget
            )
        text_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        text_colour = option.palette.color(text_role)
        rect = option.rect.adjusted(PADDING_PX, PADDING_PX, -PADDING_PX, -PADDING_PX)
        type_icon(row.type).paint(painter, QRect(rect.left(), rect.top(), ICON_PX, ICON_PX))
        text_left = rect.left() + ICON_PX + PADDING_PX
        width = max(rect.right() - text_left, 10)
        line = option.fontMetrics.height()

        title_font = QFont(option.font)
        title_font.setBold(True)
        painter.setFont(title_font)
        painter.setPen(text_colour)
        title = painter.fontMetrics().elidedText(row.title, Qt.TextElideMode.ElideRight, width)
        painter.drawText(QRect(text_left, rect.top(), width, line), 0, title)

        snippet_top = rect.top() + line + 2
        self._draw_snippet(painter, option, index, QRect(text_left, snippet_top, width, line))

        meta = row_meta(row)
        meta_font = QFont(option.font)
        meta_font.setPointSizeF(max(option.font.pointSizeF() * 0.9, 6.0))
        painter.setFont(meta_font)
        painter.setPen(_muted_colour(option.palette, selected))
        meta_top = snippet_top + line * SNIPPET_LINES + 2
        meta = painter.fontMetrics().elidedText(meta, Qt.TextElideMode.ElideRight, width)
        painter.drawText(QRect(text_left, meta_top, width, line), 0, meta)
        painter.restore()

    def _draw_snippet(
        self, painter: QPainter, option: QStyleOptionViewItem, index: _Index, first_line: QRect
    ) -> None:
        document = QTextDocument()
        document.setDefaultFont(option.font)
        document.setDocumentMargin(0)
        document.setHtml(index.data(SNIPPET_HTML_ROLE) or "")
        document.setTextWidth(first_line.width())
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        context = QAbstractTextDocumentLayout.PaintContext()
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        context.palette.setColor(QPalette.ColorRole.Text, option.palette.color(role))
        # Only the first lines: a long snippet is cut, not allowed to spill into the next row.
        context.clip = QRectF(0, 0, first_line.width(), first_line.height() * SNIPPET_LINES)
        painter.save()
        painter.translate(first_line.topLeft())
        painter.setClipRect(context.clip)
        document.documentLayout().draw(painter, context)
        painter.restore()


def _muted_colour(palette: QPalette, selected: bool) -> QColor:
    """Secondary text: the disabled text colour, or the selection's text on a selected row."""
    if selected:
        return palette.color(QPalette.ColorRole.HighlightedText)
    return palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
