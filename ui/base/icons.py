"""Small icons for memory types, drawn with QPainter so the app ships no image files.

Each type gets a rounded tile with two letters of its own (Pe a person, Pl a place, Pr a
project), in the type's colour: the same colour the graph gives it (``type_colours.py``).
The letters tell the types apart where the colour cannot (the colours alone are a code, and
one letter would be the same for a person, a place and a project). The library's shelves that
are not a type (All, Inbox, Archive, Review) get letters of their own on a neutral grey. A type
a pack names that this module has never heard of gets its first two letters, and the colour
the graph gives it.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap

from cairn.ui.base.type_colours import NEUTRAL, type_colour

BADGES = {
    "Person": "Pe", "Organization": "Or", "Place": "Pl", "Project": "Pr", "Topic": "To",
    "Event": "Ev", "Note": "No", "Fact": "Fa", "Preference": "Pf", "Commitment": "Co",
    "Document": "Do", "Passage": "Pa",
}  # fmt: skip
SHELF_BADGES = {"All": "Al", "Inbox": "In", "Archive": "Ar", "Review": "Rv"}
ICON_SIZES = (16, 20, 24, 32, 48)
# Two letters across the tile: smaller than one letter was, still bold.
LETTERS_SCALE = 0.52


def badge_text(name: str) -> str:
    """The letters on the badge of a type (or a shelf of the library)."""
    known = BADGES.get(name) or SHELF_BADGES.get(name)
    if known:
        return known
    letters = [char for char in name if char.isalnum()][:2]
    return "".join(letters).capitalize() or "?"


def badge_colour(name: str) -> QColor:
    """The tile's colour: the type's (as in the graph), grey for a shelf that is no type."""
    return QColor(NEUTRAL if name in SHELF_BADGES else type_colour(name))


def letters_colour(tile: QColor) -> QColor:
    """White or near-black, whichever stands out more on ``tile`` (by WCAG contrast): the
    palette has light colours (yellow, pink, pale teal) as well as dark ones."""

    def luminance(colour: QColor) -> float:
        def linear(channel: float) -> float:
            return channel / 12.92 if channel <= 0.03928 else ((channel + 0.055) / 1.055) ** 2.4

        return (
            0.2126 * linear(colour.redF())
            + 0.7152 * linear(colour.greenF())
            + 0.0722 * linear(colour.blueF())
        )

    dark = QColor("#1a1a1a")
    against_white = 1.05 / (luminance(tile) + 0.05)
    against_dark = (luminance(tile) + 0.05) / (luminance(dark) + 0.05)
    return QColor("white") if against_white >= against_dark else dark


@cache
def type_icon(type_name: str) -> QIcon:
    """The icon of a memory type (or a library shelf), at the sizes list views and labels ask
    for (cached: a result list asks for the same few icons on every repaint)."""
    icon = QIcon()
    for size in ICON_SIZES:
        icon.addPixmap(_draw_tile(badge_text(type_name), badge_colour(type_name), size))
    return icon


def _draw_tile(letters: str, colour: QColor, size: int) -> QPixmap:
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    inset = size * 0.03
    tile = QRectF(inset, inset, size - 2 * inset, size - 2 * inset)
    painter.drawRoundedRect(tile, size * 0.22, size * 0.22)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(6, round(size * LETTERS_SCALE)))
    painter.setFont(font)
    painter.setPen(letters_colour(colour))
    painter.drawText(tile, Qt.AlignmentFlag.AlignCenter, letters)
    painter.end()
    return pixmap
