"""What the graph view paints, prepared in a worker and handed to the UI thread in one step.

A 20,000-node overview as 20,000 QGraphicsItems would take seconds to add to a scene and more
to paint. Instead ``build_picture`` (run in the worker) records the drawing (``graph_tiles``)
and a grid index for finding the node under the mouse, and one ``GraphItem`` paints it all.
Node sizes and edge widths are cosmetic (screen pixels), so zooming in spreads the nodes apart
instead of blowing them up. Hover and selection rings are small items of their own, so moving
them repaints only a few pixels. The titles are measured in the worker too (``labels``), each
with the zoom from which it fits among the more important ones; at each zoom only those are
written, whatever the number of nodes.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QImage, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from cairn.app.api import OVERVIEW_NODE_CAP, MemoryService, TooManyNodes, ViewGraph
from cairn.ui.graph.colours import LAYER_COLOURS, SQUARE, shape_of
from cairn.ui.graph.labels import Labels, LabelStyle, measure, paint_titles, rank
from cairn.ui.graph.legend import LegendRow, colour_nodes, links_by_layer
from cairn.ui.graph.tiles import TILES_PER_SIDE, Tile, edge_pen, node_pen, preview, tiles

SCENE_UNIT = 40.0  # scene pixels per layout unit (about one node's room)
ALIAS_LIMIT = 5_000  # above this many nodes, vectors are drawn without antialiasing (3x faster)
PREVIEW_FROM = 3_000  # nodes; from here a preview image stands in for the vectors when zoomed out
SMALL_PICTURE = 150  # nodes; up to this many are drawn at their largest
HIT_RADIUS_PX = 8.0  # how close the mouse must come to a node, in screen pixels
# Scene scale bounds (screen pixels per scene unit): from a whole galaxy to a few nodes.
MIN_PIXELS_PER_UNIT = 0.002
MAX_PIXELS_PER_UNIT = 8.0
ZOOMS = (MIN_PIXELS_PER_UNIT, MAX_PIXELS_PER_UNIT)


class NodeIndex:
    """Nodes sorted by grid cell, so the node under the mouse is found among a few neighbours
    (a binary search per grid column) rather than among all of them."""

    def __init__(self, points: npt.NDArray[np.float64], cell: float) -> None:
        self.points = points
        self.cell = max(cell, 1e-6)
        cells = np.floor(points / self.cell).astype(np.int64)
        self._origin = cells.min(axis=0) if len(points) else np.zeros(2, dtype=np.int64)
        self._rows = int(np.ptp(cells[:, 1]) + 1) if len(points) else 1
        keys = self._key(cells)
        self._order = np.argsort(keys, kind="stable")
        self._keys = keys[self._order]

    def _key(self, cells: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        shifted = cells - self._origin
        return np.asarray(shifted[..., 0] * self._rows + shifted[..., 1], dtype=np.int64)

    def nearest(self, x: float, y: float, radius: float) -> int | None:
        """The index of the node nearest (x, y) within ``radius``, if any."""
        if not len(self.points):
            return None
        reach = math.ceil(radius / self.cell)
        if reach > 16:  # a radius spanning many cells: a plain scan is quicker
            candidates = np.arange(len(self.points))
        else:
            cx, cy = math.floor(x / self.cell), math.floor(y / self.cell)
            low_y = min(max(cy - reach - int(self._origin[1]), 0), self._rows - 1)
            high_y = min(max(cy + reach - int(self._origin[1]), 0), self._rows - 1)
            spans = []
            for column in range(cx - reach, cx + reach + 1):
                base = (column - int(self._origin[0])) * self._rows
                start, stop = np.searchsorted(self._keys, [base + low_y, base + high_y + 1])
                spans.append(self._order[start:stop])
            candidates = np.concatenate(spans) if spans else np.zeros(0, dtype=np.int64)
        if not len(candidates):
            return None
        gaps = np.hypot(self.points[candidates, 0] - x, self.points[candidates, 1] - y)
        best = int(np.argmin(gaps))
        return int(candidates[best]) if gaps[best] <= radius else None


@dataclass
class Picture:
    """Everything ``GraphItem`` paints, built off the UI thread."""

    view: ViewGraph
    points: npt.NDArray[np.float64]  # scene coordinates, (n, 2)
    colours: list[str]  # each node's colour
    index: NodeIndex
    bounds: QRectF
    legend: list[LegendRow]  # what the colours (and shapes) mean
    tiles: list[Tile]  # the recorded vector drawing, by area
    labels: Labels | None = None  # the titles, measured, each with its reveal zoom
    preview: QImage | None = None  # the whole graph, for zoomed-out views of large ones
    preview_scale: float = 0.0  # preview pixels per scene unit
    antialiased: bool = True  # False for a graph so large that smooth edges cost too much
    links: dict[str, int] = field(default_factory=dict)  # links drawn, by layer
    shapes: tuple[str, ...] = ()  # the node shapes drawn

    @property
    def count(self) -> int:
        return len(self.view.ids)

    def points_at(self, index: int) -> QPointF:
        x, y = self.points[index].tolist()
        return QPointF(x, y)


def node_width(count: int) -> float:
    """Node size in screen pixels: smaller when there are many."""
    return 12.0 if count <= SMALL_PICTURE else 7.0 if count <= 2_000 else 4.0


def build_picture(
    view: ViewGraph, viewport: QSize | None = None, style: LabelStyle | None = None
) -> Picture:
    """Turn a laid-out graph into recorded drawings (run in the worker). ``viewport``, the
    canvas size in device pixels, sizes the preview image of a large graph; ``style`` is how
    the titles look (the default font, black on white, if None)."""
    count = len(view.ids)
    raw = view.positions if count else np.zeros((0, 2))
    points = (raw - (raw.min(axis=0) if count else 0.0)) * SCENE_UNIT
    colours, legend = colour_nodes(view)
    shapes = [shape_of(name) for name in view.types]
    width = node_width(count)
    node_groups = _node_groups(colours, shapes, width)
    alpha = 150 if count <= 2_000 else 70
    layers = np.asarray(view.edge_layers, dtype=object)
    edge_groups = [
        (edge_pen(colour, alpha), view.edges[layers == layer])
        for layer, colour in LAYER_COLOURS.items()
        if len(view.edges) and (layers == layer).any()
    ]
    bounds = QRectF()
    if count:
        low, high = points.min(axis=0), points.max(axis=0)
        bounds = QRectF(QPointF(*low.tolist()), QPointF(*high.tolist()))
    margin = SCENE_UNIT * 2
    bounds = bounds.adjusted(-margin, -margin, margin, margin)
    large = count >= PREVIEW_FROM
    recorded = tiles(
        points,
        edge_groups,
        node_groups,
        bounds,
        per_side=TILES_PER_SIDE if large else 1,
        antialiased=count <= ALIAS_LIMIT,
        pad=SCENE_UNIT,
    )
    image, scale = None, 0.0
    if large and viewport is not None and not viewport.isEmpty():
        image, scale = preview(points, edge_groups, node_groups, bounds, viewport)
    return Picture(
        view=view,
        points=points,
        colours=colours,
        index=NodeIndex(points, SCENE_UNIT),
        bounds=bounds,
        legend=legend,
        tiles=recorded,
        labels=measure(view, points, width, style or LabelStyle(), ZOOMS),
        preview=image,
        preview_scale=scale,
        antialiased=count <= ALIAS_LIMIT,
        links=links_by_layer(view),
        shapes=tuple(sorted(set(shapes))),
    )


def _node_groups(
    colours: list[str], shapes: list[str], width: float
) -> list[tuple[QPen, npt.NDArray[np.int64]]]:
    """The nodes by pen: one per colour and shape (a file's memories are squares, a little
    smaller so they weigh the same to the eye)."""
    keys = np.array([f"{shape} {colour}" for colour, shape in zip(colours, shapes, strict=True)])
    groups = []
    for key in dict.fromkeys(keys.tolist()):
        shape, colour = key.split(" ")
        square = shape == SQUARE
        pen = node_pen(colour, width * 0.85 if square else width, square=square)
        groups.append((pen, np.flatnonzero(keys == key)))
    return groups


def relabel(
    picture: Picture, focus: int | None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The titles' order and reveal zooms around ``focus``, the memory just opened (in a
    worker: for a whole vault it takes a moment)."""
    labels = picture.labels
    assert labels is not None
    return rank(picture.view, picture.points, labels.widths, labels.height, ZOOMS, focus)


class GraphItem(QGraphicsItem):
    """Paints a whole ``Picture``: zoomed out, the preview image of a large graph; closer in,
    the recorded tiles that meet the exposed area (edges first, then nodes on top); and the
    titles that fit at the zoom."""

    def __init__(self, picture: Picture) -> None:
        super().__init__()
        self.picture = picture
        self.first: int | None = None  # the node opened by a click: its title goes first
        # The titles the last paint wrote and their text's box in screen pixels (all of those
        # placed, after a full repaint).
        self.drawn_labels: list[tuple[int, QRectF]] = []
        # The exposed rectangle tells paint which tiles to replay. (A device-coordinate cache
        # would hand paint the whole item at every zoom: 90 ms instead of 2 at six times.)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)

    def boundingRect(self) -> QRectF:
        return self.picture.bounds

    def set_first(self, index: int | None) -> None:
        """Put node ``index``'s title before every other (None: by importance only)."""
        if index != self.first:
            self.first = index
            self.update()

    def set_reveal(self, order: npt.NDArray[np.int64], reveal: npt.NDArray[np.float64]) -> None:
        """Take the titles' new order and reveal zooms (see ``relabel``) and write them."""
        if self.picture.labels is not None:
            self.picture.labels.set_reveal(order, reveal)
            self.update()

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        picture = self.picture
        zoom = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        if picture.preview is not None and zoom <= picture.preview_scale:
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
            painter.drawImage(picture.bounds, picture.preview)
        else:
            exposed = option.exposedRect  # the tiles outside it cost nothing
            clip = len(picture.tiles) > 1
            for tile in picture.tiles:
                if tile.edges is not None and tile.square.intersects(exposed):
                    painter.save()
                    if clip:
                        painter.setClipRect(tile.square, Qt.ClipOperation.IntersectClip)
                    painter.drawPicture(0, 0, tile.edges)
                    painter.restore()
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, picture.antialiased)
            for tile in picture.tiles:  # nodes on top of every edge
                if tile.nodes and tile.reach.intersects(exposed):
                    tile.draw_nodes(painter)
            painter.restore()
        if picture.labels is not None:
            # Titles in screen pixels, so they stay readable at any zoom; only those meeting
            # the exposed area are copied (a hover repaints a few pixels).
            self.drawn_labels = paint_titles(
                painter, picture.labels, picture.points, option.exposedRect, self.first
            )


class RingItem(QGraphicsEllipseItem):
    """A circle around one node (the hovered, the opened, the root), the same size at any
    zoom; its own small item, so moving it repaints only where it was and where it goes."""

    def __init__(self, radius: float, width: float, colour: QColor) -> None:
        super().__init__(-radius, -radius, 2 * radius, 2 * radius)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        pen = QPen(colour)
        pen.setWidthF(width)
        self.setPen(pen)
        self.setZValue(5)


class HoverLabel(QGraphicsItem):
    """The title of the node under the mouse, in a tooltip-like box that keeps its size at any
    zoom (``ItemIgnoresTransformations``)."""

    PADDING = 4.0

    def __init__(self) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        self.setZValue(10)
        self.text = ""
        self._box = QRectF()

    def show_text(self, text: str, at: QPointF, metrics: QFontMetrics) -> None:
        self.prepareGeometryChange()
        self.text = text
        size = metrics.boundingRect(text).size()
        pad = self.PADDING
        self._box = QRectF(10, -size.height() - 10, size.width() + 2 * pad, size.height() + 2 * pad)
        self.setPos(at)
        self.setVisible(True)

    def boundingRect(self) -> QRectF:
        return self._box.adjusted(-1, -1, 1, 1)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        palette = option.palette
        painter.setPen(QPen(palette.color(QPalette.ColorRole.ToolTipText)))
        painter.setBrush(palette.color(QPalette.ColorRole.ToolTipBase))
        painter.drawRoundedRect(self._box, 3, 3)
        painter.drawText(
            self._box.adjusted(self.PADDING, self.PADDING, -self.PADDING, -self.PADDING),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            self.text,
        )


@dataclass(frozen=True)
class Request:
    """What the graph view asks for: one neighbourhood or the whole vault, and its filters."""

    mode: str  # "ego" or "overview"
    root: str | None
    depth: int
    node_types: tuple[str, ...] | None
    edge_layers: tuple[str, ...] | None
    linked_only: bool
    expanded: tuple[str, ...] = ()
    cap: int = OVERVIEW_NODE_CAP
    viewport: tuple[int, int] = (1200, 800)  # the canvas in device pixels: sizes the preview
    labels: LabelStyle = field(default_factory=LabelStyle)  # the canvas's font and colours


def prepare(service: MemoryService, request: Request) -> Picture | TooManyNodes:
    """Read, lay out and prepare the picture (in a worker)."""
    threading.current_thread()  # the vault's per-thread readers need a known thread
    scopes = service.scopes()
    if request.mode == "ego" and request.root is not None:
        view = service.graph_ego(
            request.root,
            scopes=scopes,
            depth=request.depth,
            node_types=request.node_types,
            edge_layers=request.edge_layers,
            expanded=request.expanded,
        )
    else:
        result = service.graph_overview(
            scopes=scopes,
            node_types=request.node_types,
            edge_layers=request.edge_layers,
            linked_only=request.linked_only,
            cap=request.cap,
        )
        if isinstance(result, TooManyNodes):
            return result
        view = result
    return build_picture(view, QSize(*request.viewport), request.labels)
