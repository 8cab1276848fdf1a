"""How a result row is drawn: the type's icon, the title in bold, the snippet with the words
that matched in bold (at most two lines, Markdown already shown as text by the engine), and,
small and muted, how many sections matched, the type, the source file and the date. A section
under its note is drawn narrower: its place (a heading, a page, a time) and its snippet.

Heights follow the font, so a larger text size or a 150 % screen never cuts a line.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QPainter,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from cairn.ui.base.icons import type_icon
from cairn.ui.rows.results_model import ROW_ROLE, SNIPPET_HTML_ROLE, ResultRow, row_meta

ICON_PX = 24
PADDING_PX = 6
SNIPPET_LINES = 2
SECTION_SNIPPET_LINES = 2

_Index = QModelIndex | QPersistentModelIndex


class ResultDelegate(QStyledItemDelegate):
    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        line = option.fontMetrics.height()
        row = index.data(ROW_ROLE)
        if isinstance(row, ResultRow) and row.is_section:
            lines = 1 + (SECTION_SNIPPET_LINES if row.snippet else 0)
            return QSize(200, line * lines + 2 * PADDING_PX)
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
        rect = option.rect.adjusted(PADDING_PX, PADDING_PX, -PADDING_PX, -PADDING_PX)
        line = option.fontMetrics.height()
        if row.is_section:
            left = rect.left()
        else:
            type_icon(row.shown_type).paint(
                painter, QRect(rect.left(), rect.top(), ICON_PX, ICON_PX)
            )
            left = rect.left() + ICON_PX + PADDING_PX
        width = max(rect.right() - left, 10)

        title_font = QFont(option.font)
        title_font.setBold(not row.is_section)
        title_font.setItalic(row.is_section)
        painter.setFont(title_font)
        painter.setPen(option.palette.color(text_role))
        title = painter.fontMetrics().elidedText(row.title, Qt.TextElideMode.ElideRight, width)
        painter.drawText(QRect(left, rect.top(), width, line), 0, title)

        snippet_top = rect.top() + line + 2
        lines = SECTION_SNIPPET_LINES if row.is_section else SNIPPET_LINES
        _draw_snippet(painter, option, index, QRect(left, snippet_top, width, line), lines)
        if not row.is_section:
            meta_font = QFont(option.font)
            meta_font.setPointSizeF(max(option.font.pointSizeF() * 0.9, 6.0))
            painter.setFont(meta_font)
            painter.setPen(_muted_colour(option.palette, selected))
            meta_top = snippet_top + line * SNIPPET_LINES + 2
            meta = painter.fontMetrics().elidedText(
                row_meta(row), Qt.TextElideMode.ElideRight, width
            )
            painter.drawText(QRect(left, meta_top, width, line), 0, meta)
        painter.restore()


def _draw_snippet(
    painter: QPainter,
    option: QStyleOptionViewItem,
    index: _Index,
    first_line: QRect,
    lines: int,
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
    context.clip = QRectF(0, 0, first_line.width(), first_line.height() * lines)
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
