"""Small icons for memory types, drawn with QPainter so the app ships no image files.

Each type gets a rounded tile with its initial; the tile's colour says the type's family
(people and places, things you wrote, files), which is what the eye sorts a result list by.
A pack may name types this module has never heard of: they get the family colour, or grey.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap

# A picture, not a themed surface: the colours are fixed on purpose and chosen to read on both
# light and dark backgrounds, with white initials.
FAMILY_COLOURS = {
    "entity": "#3d7ea6",  # people, organisations, places, projects, topics
    "memory": "#5e8c4a",  # notes, facts, events, preferences, commitments
    "document": "#9a6b3f",  # files and their passages
}
TYPE_COLOURS = {
    "Person": "#3d7ea6",
    "Organization": "#34689a",
    "Place": "#2f8a86",
    "Project": "#6a5ea8",
    "Topic": "#4d6f8f",
    "Note": "#5e8c4a",
    "Fact": "#7a8a2e",
    "Event": "#b0703a",
    "Preference": "#a0577a",
    "Commitment": "#b24d4d",
    "Document": "#9a6b3f",
    "Passage": "#8a7a5a",
}
UNKNOWN_COLOUR = "#7d8a93"
ICON_SIZES = (16, 20, 24, 32, 48)


def type_colour(type_name: str, family: str | None = None) -> QColor:
    name = TYPE_COLOURS.get(type_name) or FAMILY_COLOURS.get(family or "") or UNKNOWN_COLOUR
    return QColor(name)


@cache
def type_icon(type_name: str, family: str | None = None) -> QIcon:
    """The icon of a memory type, at the sizes list views and labels ask for (cached: a
    result list asks for the same few icons on every repaint)."""
    icon = QIcon()
    for size in ICON_SIZES:
        icon.addPixmap(_draw_tile(type_name, type_colour(type_name, family), size))
    return icon


def _draw_tile(type_name: str, colour: QColor, size: int) -> QPixmap:
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    inset = size * 0.06
    tile = QRectF(inset, inset, size - 2 * inset, size - 2 * inset)
    painter.drawRoundedRect(tile, size * 0.22, size * 0.22)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(7, round(size * 0.58)))
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(tile, Qt.AlignmentFlag.AlignCenter, (type_name[:1] or "?").upper())
    painter.end()
    return pixmap
