"""What the graph's colours and shapes mean, in words: the legend beside the picture.

Nodes: in a neighbourhood each type with its colour and shape; in the whole-vault view each of
the largest groups, named after its most linked memory. Links: each layer shown, with its colour
said in words and the pack's edge types it holds written out ("grey lines: people & things —
involves, mentions, part of…"), so a line's colour is never a code to look up.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap

from cairn.app.api import ViewGraph
from cairn.ui.base.type_colours import PALETTE, colour_word, type_colour
from cairn.ui.graph.colours import (
    LAYER_COLOURS,
    LAYER_NAMES,
    LONE,
    SHAPE_MARKS,
    SQUARE,
    edge_words,
    shape_of,
)
from cairn.ui.graph.labels import elided

LEGEND_GROUPS = 8


@dataclass(frozen=True)
class LegendRow:
    colour: str
    shape: str  # colours.SQUARE or colours.CIRCLE
    words: str


def colour_nodes(view: ViewGraph) -> tuple[list[str], list[LegendRow]]:
    """Each node's colour and the legend's rows for them: by type in a neighbourhood, by
    community in the overview (in the worker)."""
    if view.communities is None:
        colours = [type_colour(name) for name in view.types]
        rows = [
            LegendRow(type_colour(name), shape_of(name), name) for name in sorted(set(view.types))
        ]
        return colours, rows
    sizes = np.bincount(view.communities) if len(view.communities) else np.zeros(0, int)
    colours = [
        LONE if sizes[group] == 1 else PALETTE[group % len(PALETTE)]
        for group in view.communities.tolist()
    ]
    degree = np.zeros(len(view.ids), dtype=np.int64)
    if len(view.edges):
        degree = np.bincount(view.edges.ravel(), minlength=len(view.ids))
    rows = []
    for group in range(min(LEGEND_GROUPS, int((sizes > 1).sum()))):
        members = np.flatnonzero(view.communities == group)
        centre = int(members[np.argmax(degree[members])])
        words = f"{sizes[group]:,} around “{elided(view.titles[centre])}”"
        rows.append(LegendRow(PALETTE[group % len(PALETTE)], "", words))
    lone = int((sizes == 1).sum())
    if lone:
        rows.append(LegendRow(LONE, "", f"{lone:,} without links"))
    return colours, rows


def links_by_layer(view: ViewGraph) -> dict[str, int]:
    """How many links of each layer the picture draws, in the layers' order."""
    counts = Counter(view.edge_layers)
    return {layer: counts[layer] for layer in LAYER_COLOURS if counts[layer]}


def legend_html(
    kind: str,
    rows: Sequence[LegendRow],
    layers: Mapping[str, int],
    edge_kinds: Mapping[str, Sequence[str]],
    shapes: Sequence[str] = (),
) -> str:
    """The legend as rich text: the nodes' rows, their shapes (the overview's colours are
    groups, so the shapes say which memories are files), then each layer of links drawn, its
    colour in words and the edge types it holds (``edge_kinds``, by layer, from the pack)."""
    title = "Groups" if kind == "overview" else "Types"
    parts = [f"<b>{title}</b>"]
    for row in rows:
        mark = SHAPE_MARKS.get(row.shape, "●")
        words = html.escape(row.words)
        parts.append(f"{_swatch(row.colour, mark)} {words} <i>({colour_word(row.colour)})</i>")
    if kind == "overview" and shapes:
        parts.append("<b>Shapes</b>")
        if "square" in shapes:
            parts.append("■ a file or a passage of one")
        if "circle" in shapes:
            parts.append("● any other memory")
    if layers:
        parts.append("<b>Links</b>")
    for layer, count in layers.items():
        colour = LAYER_COLOURS[layer]
        kinds = ", ".join(edge_words(name) for name in edge_kinds.get(layer, ()))
        name = html.escape(LAYER_NAMES[layer].lower())
        line = f"{_swatch(colour, '━━')} {colour_word(colour)} lines: {name} ({count:,})"
        if kinds:
            line += f"<br>&nbsp;&nbsp;&nbsp;&nbsp;<small>{html.escape(kinds)}</small>"
        parts.append(line)
    return "<br>".join(parts)


def _swatch(colour: str, mark: str) -> str:
    return f'<span style="color:{colour}">{mark}</span>'


def line_icon(colour: str, size: int = 16) -> QIcon:
    """A short thick line in ``colour``: a filter's box drawn like the links it shows."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    pen = QPen(QColor(colour))
    pen.setWidthF(size / 5)
    painter.setPen(pen)
    painter.drawLine(QPointF(1, size / 2), QPointF(size - 1, size / 2))
    painter.end()
    return QIcon(pixmap)


def shape_icon(colour: str, shape: str, size: int = 16) -> QIcon:
    """A node as the graph draws it: a square or a disc in ``colour``."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(colour))
    side = size * 0.6
    box = QRectF((size - side) / 2, (size - side) / 2, side, side)
    if shape == SQUARE:
        painter.drawRect(box)
    else:
        painter.drawEllipse(box)
    painter.end()
    return QIcon(pixmap)
