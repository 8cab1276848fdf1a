"""Preparing a large graph for painting, in a worker: vector tiles and a preview image.

Painting 20,000 nodes and 50,000 edges takes about 150 ms, far too long for the UI thread to
spend on every zoom step. So the worker cuts the drawing into tiles, records each tile's edges
as a ``QPicture`` and keeps its nodes as points ready to draw (a zoomed-in view paints only the
tiles it shows), and renders the whole graph once into a preview image at twice the viewport's
size (a zoomed-out view draws that image: a few milliseconds).

No Python object is made per node or edge: points go into a ``QPolygonF``'s own memory through
numpy, and edges are drawn as point pairs in chunks, so the garbage collector has nothing new to
walk (its full passes over tens of thousands of objects froze the window for 100 ms here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import shiboken6
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPicture, QPolygonF

# Edges or nodes per draw call. A call holds the interpreter lock while Qt converts and paints
# (an antialiased preview: about 10 ms per 1,000 edges here), and the UI thread waits for it.
CHUNK = 512
TILES_PER_SIDE = 8
OVERSAMPLE = 2.0  # preview pixels per screen pixel when the whole graph fits the view
MAX_PREVIEW = 4_096  # pixels on the long side


def polygon_from(points: npt.NDArray[np.float64]) -> QPolygonF:
    """A QPolygonF holding ``points`` (n, 2), written straight into its memory."""
    polygon = QPolygonF()
    polygon.resize(len(points))
    if len(points):
        # data() is a pointer (a VoidPtr) at run time; the stubs call it a QPointF.
        address: Any = polygon.data()
        memory: Any = shiboken6.VoidPtr(address, len(points) * 16, True)  # type: ignore[call-arg]
        np.frombuffer(memory, dtype=np.float64).reshape(-1, 2)[:] = points
    return polygon


def node_pen(colour: str, width: float, *, square: bool = False) -> QPen:
    pen = QPen(QColor(colour))
    pen.setCosmetic(True)  # screen pixels, whatever the zoom
    pen.setWidthF(width)
    # A wide round-capped point is a disc, a square-capped one a square.
    pen.setCapStyle(Qt.PenCapStyle.SquareCap if square else Qt.PenCapStyle.RoundCap)
    return pen


def edge_pen(colour: str, alpha: int) -> QPen:
    qcolour = QColor(colour)
    qcolour.setAlpha(alpha)
    pen = QPen(qcolour)
    pen.setCosmetic(True)
    pen.setWidthF(1.0)
    return pen


def draw(
    painter: QPainter,
    points: npt.NDArray[np.float64],
    edge_groups: list[tuple[QPen, npt.NDArray[np.int64]]],
    node_groups: list[tuple[QPen, npt.NDArray[np.int64]]],
) -> None:
    """Edges (index pairs per pen), then nodes (indexes per pen) on top."""
    for pen, pairs in edge_groups:
        painter.setPen(pen)
        for start in range(0, len(pairs), CHUNK):
            chunk = pairs[start : start + CHUNK]
            ends = np.empty((2 * len(chunk), 2))
            ends[0::2], ends[1::2] = points[chunk[:, 0]], points[chunk[:, 1]]
            # Point pairs; the stubs know the list form only, Qt takes the polygon as it is.
            painter.drawLines(polygon_from(ends))  # type: ignore[call-overload]
    for pen, members in node_groups:
        painter.setPen(pen)
        for start in range(0, len(members), CHUNK):
            painter.drawPoints(polygon_from(points[members[start : start + CHUNK]]))


@dataclass(frozen=True)
class Tile:
    """One square of the drawing: its edges (replayed clipped to ``square``, since a long edge
    is recorded in every tile it crosses) and its nodes (each in one tile only, unclipped;
    ``reach`` is the square widened by a node's radius).

    The nodes are kept as points per pen and drawn as they are, not recorded: a QPicture
    replays a wide cosmetic point scaled by the zoom (a 7-pixel node drew 28 pixels wide at
    four times), while drawn directly it keeps its size in screen pixels."""

    square: QRectF
    reach: QRectF
    edges: QPicture | None
    nodes: list[tuple[QPen, QPolygonF]]

    def draw_nodes(self, painter: QPainter) -> None:
        for pen, points in self.nodes:
            painter.setPen(pen)
            painter.drawPoints(points)


def tiles(
    points: npt.NDArray[np.float64],
    edge_groups: list[tuple[QPen, npt.NDArray[np.int64]]],
    node_groups: list[tuple[QPen, npt.NDArray[np.int64]]],
    bounds: QRectF,
    *,
    per_side: int = TILES_PER_SIDE,
    antialiased: bool = False,
    pad: float = 0.0,
) -> list[Tile]:
    """The drawing cut into ``per_side``² recorded tiles. A node belongs to the tile it is in;
    an edge to every tile its bounding box touches (most edges are short: one tile), so the
    tiles whose squares meet a region hold every stroke drawn in it."""
    size = np.maximum(np.array([bounds.width(), bounds.height()]) / per_side, 1e-9)
    origin = np.array([bounds.left(), bounds.top()])

    def cell(xy: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
        cells: npt.NDArray[np.int64] = np.clip(
            np.floor((xy - origin) / size), 0, per_side - 1
        ).astype(np.int64)
        return cells

    node_cells = cell(points)
    node_tile = node_cells[:, 0] * per_side + node_cells[:, 1]
    edge_tiles = []
    for _, pairs in edge_groups:
        low = cell(np.minimum(points[pairs[:, 0]], points[pairs[:, 1]]))
        high = cell(np.maximum(points[pairs[:, 0]], points[pairs[:, 1]]))
        edge_tiles.append((low, high))
    recorded = []
    for tx in range(per_side):
        for ty in range(per_side):
            here = tx * per_side + ty
            tile_edges = [
                (pen, pairs[_touches(low, high, tx, ty)])
                for (pen, pairs), (low, high) in zip(edge_groups, edge_tiles, strict=True)
            ]
            nodes = [
                (pen, polygon_from(points[members[node_tile[members] == here]]))
                for pen, members in node_groups
            ]
            nodes = [(pen, polygon) for pen, polygon in nodes if not polygon.isEmpty()]
            edges = _recorded(points, tile_edges, antialiased)
            if edges is None and not nodes:
                continue
            left, top = origin + np.array([tx, ty]) * size
            square = QRectF(float(left), float(top), *size.tolist())
            recorded.append(Tile(square, square.adjusted(-pad, -pad, pad, pad), edges, nodes))
    return recorded


def _recorded(
    points: npt.NDArray[np.float64],
    edge_groups: list[tuple[QPen, npt.NDArray[np.int64]]],
    antialiased: bool,
) -> QPicture | None:
    if not any(len(p) for _, p in edge_groups):
        return None
    picture = QPicture()
    painter = QPainter(picture)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, antialiased)
    draw(painter, points, edge_groups, [])
    painter.end()
    return picture


def _touches(
    low: npt.NDArray[np.int64], high: npt.NDArray[np.int64], tx: int, ty: int
) -> npt.NDArray[np.bool_]:
    """Which edges' bounding boxes (as tile ranges) include tile (tx, ty)."""
    return (low[:, 0] <= tx) & (tx <= high[:, 0]) & (low[:, 1] <= ty) & (ty <= high[:, 1])


def preview(
    points: npt.NDArray[np.float64],
    edge_groups: list[tuple[QPen, npt.NDArray[np.int64]]],
    node_groups: list[tuple[QPen, npt.NDArray[np.int64]]],
    bounds: QRectF,
    viewport: QSize,
) -> tuple[QImage, float]:
    """The whole drawing as an image ``OVERSAMPLE`` times the size it has when it fits
    ``viewport``, and its scale (image pixels per scene unit)."""
    fit = min(viewport.width() / bounds.width(), viewport.height() / bounds.height())
    scale = min(fit * OVERSAMPLE, MAX_PREVIEW / max(bounds.width(), bounds.height()))
    image = QImage(
        max(int(bounds.width() * scale), 1),
        max(int(bounds.height() * scale), 1),
        QImage.Format.Format_ARGB32_Premultiplied,
    )
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.scale(scale, scale)
    painter.translate(-bounds.left(), -bounds.top())
    # Cosmetic widths are image pixels here: widen the nodes by the oversampling so they look
    # their usual size once the image is shown at the fitted zoom.
    wider = []
    for pen, members in node_groups:
        bigger = QPen(pen)
        bigger.setWidthF(pen.widthF() * scale / fit)
        wider.append((bigger, members))
    draw(painter, points, edge_groups, wider)
    painter.end()
    return image, scale
