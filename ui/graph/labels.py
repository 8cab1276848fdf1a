"""Which titles the graph view writes beside their nodes at a zoom, so that none covers another.

A title is drawn in screen pixels to the right of its node, while zooming in spreads the nodes
apart. Two titles therefore overlap below one zoom and never above it. The worker works out that
zoom for every pair (``Labels.apart``) and the order of importance (the centre of the view, the
nodes opened up, then the most linked). At a zoom, ``placed`` takes the titles in that order and
skips any that would cover one already taken: a few hundred microseconds for 150 titles, done
again only when the zoom changes. Zooming in, more of them fit; hovering shows any one in full.

The worker also renders each title once into a small image, in a halo of the background colour
so the lines behind it do not cross its letters: drawing that costs about 0.4 ms a title, too
much for the UI thread at every repaint, while copying the image costs microseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter
from PySide6.QtWidgets import QWidget

from cairn.app.api import ViewGraph

LABEL_CHARS = 28
GAP_PX = 4.0  # room kept between two titles, so they read as two
SHIFT_PX = 4.0  # from the edge of a node to the start of its title
HALO_PX = 2.0  # how far the background colour reaches around each letter
DIAGONAL = math.sqrt(0.5)
HALO_STEPS = (
    (-1.0, 0.0), (1.0, 0.0), (0.0, -1.0), (0.0, 1.0),
    (-DIAGONAL, -DIAGONAL), (DIAGONAL, -DIAGONAL), (-DIAGONAL, DIAGONAL), (DIAGONAL, DIAGONAL),
)  # fmt: skip


def elided(title: str) -> str:
    return title if len(title) <= LABEL_CHARS else title[: LABEL_CHARS - 1] + "…"


@dataclass(frozen=True)
class LabelStyle:
    """How titles look, as plain values a request can carry to the worker."""

    font: str = ""  # QFont.toString(); empty for the default font
    ink: str = "#000000"
    halo: str = "#ffffff"
    pixel_ratio: float = 1.0  # device pixels per screen pixel, for sharp images

    @classmethod
    def of(cls, widget: QWidget) -> LabelStyle:
        """The style ``widget`` (the canvas's viewport) draws in."""
        palette = widget.palette()
        return cls(
            font=widget.font().toString(),
            ink=palette.text().color().name(),
            halo=palette.base().color().name(),
            pixel_ratio=widget.devicePixelRatioF(),
        )

    def qfont(self) -> QFont:
        font = QFont()
        if self.font:
            font.fromString(self.font)
        return font


@dataclass
class Labels:
    """The titles of one picture, measured and rendered, and the zooms at which they stop
    overlapping."""

    texts: list[str]  # each node's title, elided
    images: list[QImage]  # each title in its halo
    inked: list[QRectF]  # the box each title's letters cover, from the start of its baseline
    widths: npt.NDArray[np.float64]  # each title's room, the gap included
    height: float  # the titles' room, the gap included
    ascent: float
    font: QFont
    shift: float  # screen pixels from a node's centre to its title's left edge
    baseline: float  # screen pixels from a node's centre down to its title's baseline
    order: npt.NDArray[np.int64]  # node indexes, most important first
    apart: npt.NDArray[np.float64]  # (n, n): the zoom from which titles i and j do not overlap

    def placed(self, zoom: float, first: int | None = None) -> list[int]:
        """The nodes whose titles are drawn at ``zoom`` (screen pixels per scene unit), most
        important first; ``first`` (the node opened by a click) goes before every other."""
        order = self.order
        if first is not None and 0 <= first < len(order):
            order = np.concatenate(([first], order[order != first]))
        blocked = self.apart > zoom
        free = np.ones(len(order), dtype=bool)
        chosen = []
        for index in order.tolist():
            if free[index]:
                chosen.append(index)
                free &= ~blocked[index]
        return chosen

    def origin(self, x: float, y: float) -> QPointF:
        """Where a title's text starts (its baseline's left end) for a node at screen point
        (x, y), on whole pixels so its image is copied, not resampled."""
        return QPointF(round(x + self.shift), round(y + self.baseline))

    def room(self, index: int, origin: QPointF) -> QRectF:
        """The room node ``index``'s title takes (the gap included): what placing keeps
        apart, and what a repaint must meet for the title to be drawn again."""
        top = origin.y() - self.ascent - GAP_PX / 2
        return QRectF(origin.x(), top, float(self.widths[index]), self.height)

    def image_at(self, origin: QPointF) -> QPointF:
        """Where a title's image goes for a title starting at ``origin``."""
        return QPointF(origin.x() - HALO_PX, origin.y() - self.ascent - HALO_PX)


def measure(
    view: ViewGraph, points: npt.NDArray[np.float64], node_px: float, style: LabelStyle
) -> Labels:
    """Measure and render every title, and find the zoom at which each pair stops overlapping
    (in the worker).

    Titles i and j (i left of j, or level with it) overlap at zoom s while s·|dx| < wᵢ and
    s·|dy| < h, so from s = min(wᵢ/|dx|, h/|dy|) on they are apart."""
    font = style.qfont()
    metrics = QFontMetricsF(font)
    texts = [elided(title) for title in view.titles]
    widths = np.array([metrics.horizontalAdvance(text) + GAP_PX for text in texts])
    height = metrics.height() + GAP_PX
    count = len(texts)
    apart = np.zeros((count, count))
    if count:
        dx = points[None, :, 0] - points[:, None, 0]  # x of j minus x of i
        dy = np.abs(points[None, :, 1] - points[:, None, 1])
        left_width = np.where(dx >= 0, widths[:, None], widths[None, :])
        across = _ratio(left_width, np.abs(dx))
        down = _ratio(np.full_like(dy, height), dy)
        apart = np.minimum(across, down)
        np.fill_diagonal(apart, 0.0)
    return Labels(
        texts=texts,
        images=[_rendered(text, font, metrics, style) for text in texts],
        inked=[metrics.boundingRect(text) for text in texts],
        widths=widths,
        height=height,
        ascent=metrics.ascent(),
        font=font,
        shift=node_px / 2 + SHIFT_PX,
        baseline=metrics.ascent() / 2,
        order=_importance(view),
        apart=apart,
    )


def _rendered(text: str, font: QFont, metrics: QFontMetricsF, style: LabelStyle) -> QImage:
    """``text`` in ``style.ink`` inside a halo of ``style.halo``, on a transparent image. The
    halo is the text drawn eight times around its place: a tenth of the time of stroking the
    letters' outlines, and drawn text is hinted the same as the title on top."""
    ratio = style.pixel_ratio
    width = metrics.horizontalAdvance(text) + 2 * HALO_PX + 1
    height = metrics.height() + 2 * HALO_PX
    image = QImage(
        max(math.ceil(width * ratio), 1),
        max(math.ceil(height * ratio), 1),
        QImage.Format.Format_ARGB32_Premultiplied,
    )
    image.setDevicePixelRatio(ratio)
    image.fill(Qt.GlobalColor.transparent)
    start = QPointF(HALO_PX, HALO_PX + metrics.ascent())
    painter = QPainter(image)
    painter.setFont(font)
    painter.setPen(QColor(style.halo))
    for dx, dy in HALO_STEPS:
        painter.drawText(start + QPointF(dx * HALO_PX, dy * HALO_PX), text)
    painter.setPen(QColor(style.ink))
    painter.drawText(start, text)
    painter.end()
    return image


def _ratio(
    top: npt.NDArray[np.float64], bottom: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """top / bottom, infinite where bottom is 0 (level nodes overlap at every zoom)."""
    out = np.full_like(top, np.inf)
    np.divide(top, bottom, out=out, where=bottom > 0)
    return out


def _importance(view: ViewGraph) -> npt.NDArray[np.int64]:
    """The centre of an ego view first, then the nodes opened up, then by links, then the
    shorter title (more likely to be read whole), then as laid out."""
    count = len(view.ids)
    degree = np.zeros(count, dtype=np.int64)
    if len(view.edges):
        degree = np.bincount(view.edges.ravel(), minlength=count)
    rank = np.full(count, 2, dtype=np.int64)
    for node_id in view.expanded:
        index = view.index_of(node_id)
        if index is not None:
            rank[index] = 1
    root = view.index_of(view.root) if view.root else None
    if root is not None:
        rank[root] = 0
    lengths = np.array([len(title) for title in view.titles], dtype=np.int64)
    # lexsort sorts by the last key first
    order = np.lexsort((np.arange(count), lengths, -degree, rank))
    return np.asarray(order, dtype=np.int64)
