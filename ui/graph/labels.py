"""The titles the graph view writes beside their nodes, at any number of nodes.

The worker measures every title and works out, by ``label_rule``, the zoom from which each is
written (its reveal zoom): at a zoom, the titles shown are those revealed at or below it, which
never overlap, the most important won where two compete, and zooming in adds more. On the UI
thread, choosing them is a binary search in the sorted reveal zooms and a vectorised test
against the area being painted: microseconds, whatever the zoom or the number of nodes.

Each title is drawn from a small image in a halo of the background colour, so the lines behind
it do not cross its letters. Rendering one costs about 0.1 ms, so the worker renders the first
``PRERENDERED`` to be revealed (those a zoomed-out view shows) and the rest are rendered when
first painted, a zoom step's new titles at a time, and kept in a bounded cache.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QTransform
from PySide6.QtWidgets import QWidget

from cairn.app.api import ViewGraph
from cairn.ui.graph.label_rule import importance, reveal_zooms

Floats = npt.NDArray[np.float64]
Nodes = npt.NDArray[np.int64]

LABEL_CHARS = 28
GAP_PX = 4.0  # room kept between two titles, so they read as two
SHIFT_PX = 4.0  # from the edge of a node to the start of its title
HALO_PX = 2.0  # how far the background colour reaches around each letter
PRERENDERED = 400  # titles rendered in the worker, the first to be revealed
CACHED = 3_000  # title images kept on the UI thread (about 16 KB each)
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
    """The titles of one picture, measured, with the zoom from which each is written."""

    texts: list[str]  # each node's title, elided
    widths: npt.NDArray[np.float64]  # each title's room, the gap included
    height: float  # the titles' room, the gap included
    ascent: float
    style: LabelStyle
    shift: float  # screen pixels from a node's centre to its title's left edge
    baseline: float  # screen pixels from a node's centre down to its title's baseline
    order: npt.NDArray[np.int64]  # node indexes, most important first
    reveal: npt.NDArray[np.float64]  # each node's reveal zoom (inf: on hover only)
    images: OrderedDict[int, QImage] = field(default_factory=OrderedDict)
    _by_reveal: npt.NDArray[np.int64] = field(init=False)
    _sorted: npt.NDArray[np.float64] = field(init=False)
    # The font and its metrics for titles rendered later, made on the UI thread where they
    # are used (a font's engine is cached per thread).
    _fonts: tuple[QFont, QFontMetricsF] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.set_reveal(self.order, self.reveal)

    def set_reveal(self, order: npt.NDArray[np.int64], reveal: npt.NDArray[np.float64]) -> None:
        """Take a new order of importance and its reveal zooms (a memory opened: those near
        it come first)."""
        self.order, self.reveal = order, reveal
        self._by_reveal = np.asarray(np.argsort(reveal, kind="stable"), dtype=np.int64)
        self._sorted = reveal[self._by_reveal]

    def shown(self, zoom: float) -> npt.NDArray[np.int64]:
        """The nodes whose titles are written at ``zoom``, the first revealed first."""
        return self._by_reveal[: int(np.searchsorted(self._sorted, zoom, side="right"))]

    def origins(self, screen: Floats) -> Floats:
        """Where titles start (their baseline's left end) for nodes at ``screen`` points, on
        whole pixels so each image is copied, not resampled."""
        origins: Floats = np.round(screen + np.array([self.shift, self.baseline]))
        return origins

    def rooms(self, nodes: Nodes, origins: Floats) -> Floats:
        """The room each title takes (left, top, right, bottom; the gap included): what the
        rule keeps apart, and what a repaint must meet for a title to be drawn again."""
        top = origins[:, 1] - self.ascent - GAP_PX / 2
        rooms: Floats = np.column_stack(
            (origins[:, 0], top, origins[:, 0] + self.widths[nodes], top + self.height)
        )
        return rooms

    def image(self, index: int) -> QImage:
        """Node ``index``'s title in its halo, rendered once and kept while it is in use."""
        image = self.images.get(index)
        if image is None:
            image = render(self.texts[index], *self._font_here(), self.style)
            self.images[index] = image
            if len(self.images) > CACHED:
                self.images.popitem(last=False)
        else:
            self.images.move_to_end(index)
        return image

    def image_at(self, origin: QPointF) -> QPointF:
        """Where a title's image goes for a title starting at ``origin``."""
        return QPointF(origin.x() - HALO_PX, origin.y() - self.ascent - HALO_PX)

    def inked(self, index: int) -> QRectF:
        """The box node ``index``'s letters cover, from the start of its baseline."""
        return self._font_here()[1].boundingRect(self.texts[index])

    def _font_here(self) -> tuple[QFont, QFontMetricsF]:
        if self._fonts is None:
            font = self.style.qfont()
            self._fonts = (font, QFontMetricsF(font))
        return self._fonts


def measure(
    view: ViewGraph,
    points: npt.NDArray[np.float64],
    node_px: float,
    style: LabelStyle,
    zooms: tuple[float, float],
    focus: int | None = None,
) -> Labels:
    """Measure every title and find each one's reveal zoom within ``zooms`` (the view's
    farthest and closest), ``focus`` (the memory opened) first, else the centre of a
    neighbourhood (in the worker)."""
    font = style.qfont()
    metrics = QFontMetricsF(font)
    texts = [elided(title) for title in view.titles]
    widths = np.array([metrics.horizontalAdvance(text) + GAP_PX for text in texts])
    height = metrics.height() + GAP_PX
    order, reveal = rank(view, points, widths, height, zooms, focus)
    labels = Labels(
        texts=texts,
        widths=widths,
        height=height,
        ascent=metrics.ascent(),
        style=style,
        shift=node_px / 2 + SHIFT_PX,
        baseline=metrics.ascent() / 2,
        order=order,
        reveal=reveal,
    )
    for index in labels.shown(math.inf)[:PRERENDERED].tolist():
        labels.images[index] = render(texts[index], font, metrics, style)
    return labels


def rank(
    view: ViewGraph,
    points: npt.NDArray[np.float64],
    widths: npt.NDArray[np.float64],
    height: float,
    zooms: tuple[float, float],
    focus: int | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The order of importance and the reveal zooms, around ``focus`` (else the root)."""
    if focus is None and view.root is not None:
        focus = view.index_of(view.root)
    opened_up = [view.index_of(node_id) for node_id in view.expanded]
    order = importance(
        len(view.ids),
        view.edges,
        view.titles,
        focus=focus,
        opened_up=[index for index in opened_up if index is not None],
    )
    return order, reveal_zooms(points, widths, height, order, *zooms)


def paint_titles(
    painter: QPainter,
    labels: Labels,
    points: npt.NDArray[np.float64],
    exposed: QRectF,
    first: int | None,
) -> list[tuple[int, QRectF]]:
    """Write the titles shown at the painter's zoom that meet ``exposed`` (in scene units),
    and ``first`` (the memory opened) whatever its reveal zoom, before any it would cover.
    Returns each title written with its letters' box in screen pixels."""
    transform = painter.worldTransform()
    nodes = labels.shown(transform.m11())
    if first is not None:
        nodes = np.concatenate(([first], nodes[nodes != first])).astype(np.int64)
    if not len(nodes):
        return []
    origins = labels.origins(_to_screen(transform, points[nodes]))
    rooms = labels.rooms(nodes, origins)
    if first is not None:  # the opened memory's title goes first: none it would cover
        head = rooms[0]
        apart = (
            (rooms[:, 2] <= head[0])
            | (rooms[:, 0] >= head[2])
            | (rooms[:, 3] <= head[1])
            | (rooms[:, 1] >= head[3])
        )
        apart[0] = True
        nodes, origins, rooms = nodes[apart], origins[apart], rooms[apart]
    area = transform.mapRect(exposed)
    meets = (
        (rooms[:, 2] >= area.left())
        & (rooms[:, 0] <= area.right())
        & (rooms[:, 3] >= area.top())
        & (rooms[:, 1] <= area.bottom())
    )
    painter.save()
    painter.resetTransform()
    drawn = []
    for index, (x, y) in zip(nodes[meets].tolist(), origins[meets].tolist(), strict=True):
        origin = QPointF(x, y)
        painter.drawImage(labels.image_at(origin), labels.image(index))
        drawn.append((index, labels.inked(index).translated(origin)))
    painter.restore()
    return drawn


def _to_screen(transform: QTransform, points: Floats) -> Floats:
    """Scene points to screen pixels (the view scales and moves, never turns)."""
    scale = np.array([transform.m11(), transform.m22()])
    screen: Floats = points * scale + np.array([transform.dx(), transform.dy()])
    return screen


def render(text: str, font: QFont, metrics: QFontMetricsF, style: LabelStyle) -> QImage:
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
