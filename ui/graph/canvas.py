"""The drawing surface of the graph view: zoom (wheel, keys), pan (drag), a label on hover,
and which node a click or double-click landed on.

A fitted picture stays fitted: when the view changes size (the window resized, a pane dragged
wider) the picture is fitted again, unless the person zoomed or panned by hand since the last
fit; then their view is theirs until they ask for Fit (Ctrl+0) again.

It shows one ``Picture`` at a time as a single ``GraphItem``; swapping pictures is one
``removeItem``/``addItem``, however many nodes there are. The node under the mouse comes from
the picture's grid index, not from Qt's item lookup (there is only one item).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QMouseEvent, QPainter, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import QFrame, QGraphicsScene, QGraphicsView, QWidget

from cairn.ui.base.keys import GRAPH_FIT, GRAPH_ZOOM_IN, GRAPH_ZOOM_OUT
from cairn.ui.graph.scene import (
    HIT_RADIUS_PX,
    MAX_PIXELS_PER_UNIT,
    MIN_PIXELS_PER_UNIT,
    GraphItem,
    HoverLabel,
    Picture,
    RingItem,
    node_width,
)

CLICK_SLOP_PX = 4  # a press and release closer than this is a click, not a drag
ZOOM_STEP = 1.25


class GraphCanvas(QGraphicsView):
    node_clicked = Signal(int)
    node_double_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setMouseTracking(True)
        self.viewport().setMouseTracking(True)
        self.setAccessibleName("Graph")
        self.setAccessibleDescription(
            "Memories as points and their links as lines. Click a memory to open it, "
            f"double-click to show its neighbours. Zoom in: {GRAPH_ZOOM_IN.shown}; zoom out: "
            f"{GRAPH_ZOOM_OUT.shown}; fit: {GRAPH_FIT.shown}."
        )
        self.picture: Picture | None = None
        self.item: GraphItem | None = None
        self.hovered: int | None = None
        self.fitted = True  # no zoom or pan by hand since the last fit: a resize fits again
        self._press: QPoint | None = None
        self._label = HoverLabel()
        self._label.setVisible(False)
        self.scene().addItem(self._label)
        self._hover_ring = RingItem(6, 1.5, self.palette().text().color())
        self._opened_ring = RingItem(8, 2.5, QColor("#e15759"))
        self._marks: list[RingItem] = []
        for ring in (self._hover_ring, self._opened_ring):
            ring.setVisible(False)
            self.scene().addItem(ring)
        # A scroll bar dragged or stepped (arrow keys, page keys) is a pan by hand; a scroll
        # bar moved by fitting or resizing is not, and triggers no action.
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):
            bar.actionTriggered.connect(self._moved_by_hand)

    # -- the picture ---------------------------------------------------------------------------

    def set_picture(self, picture: Picture, *, fit: bool) -> None:
        """Show ``picture`` instead of the current one; ``fit`` zooms to show all of it."""
        self.clear_picture()
        self.picture = picture
        self.item = GraphItem(picture)
        self.scene().addItem(self.item)
        self.scene().setSceneRect(picture.bounds)
        radius = node_width(picture.count) / 2 + 3
        for ring in (self._hover_ring, self._opened_ring):
            ring.setRect(-radius - 1, -radius - 1, 2 * radius + 2, 2 * radius + 2)
        if fit:
            self.fit()

    def clear_picture(self) -> None:
        """Take the picture (and every title on it) off the screen."""
        if self.item is not None:
            self.scene().removeItem(self.item)
        self.item = self.picture = self.hovered = None
        self._label.setVisible(False)
        self._label.text = ""
        for ring in (self._hover_ring, self._opened_ring):
            ring.setVisible(False)
        self.set_marks([])

    def set_marks(self, indexes: list[int]) -> None:
        """Ring these nodes (the ego root and the nodes opened up)."""
        for ring in self._marks:
            self.scene().removeItem(ring)
        self._marks = []
        if self.picture is None:
            return
        radius = node_width(self.picture.count) / 2 + 3
        for index in indexes:
            ring = RingItem(radius, 2.0, self.palette().text().color())
            ring.setPos(self.node_point(index))
            self.scene().addItem(ring)
            self._marks.append(ring)

    def set_opened(self, index: int | None) -> None:
        """Ring node ``index`` (the memory opened by a click) and write its title first."""
        self._opened_ring.setVisible(index is not None and self.picture is not None)
        if index is not None and self.picture is not None:
            self._opened_ring.setPos(self.node_point(index))
        if self.item is not None:
            self.item.set_first(index)

    def node_point(self, index: int) -> QPointF:
        assert self.picture is not None
        return self.picture.points_at(index)

    def drawn_labels(self) -> list[tuple[int, QRectF]]:
        """The titles the last paint wrote: (node, its text's box in viewport pixels)."""
        return [] if self.item is None else list(self.item.drawn_labels)

    # -- zoom ----------------------------------------------------------------------------------

    def fit(self) -> None:
        """Show the whole picture, and keep it whole when the view's size changes."""
        self.fitted = True
        if self.picture is not None and not self.picture.bounds.isEmpty():
            self.fitInView(self.picture.bounds, Qt.AspectRatioMode.KeepAspectRatio)

    def zoom(self, factor: float) -> None:
        """Zoom by ``factor`` (the person's wheel or keys: the view is theirs from now on)."""
        self._moved_by_hand()
        scale = self.transform().m11()
        factor = max(MIN_PIXELS_PER_UNIT / scale, min(factor, MAX_PIXELS_PER_UNIT / scale))
        self.scale(factor, factor)

    def _moved_by_hand(self, *_: object) -> None:
        self.fitted = False

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.fitted:
            self.fit()

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom(ZOOM_STEP**steps)
        event.accept()

    # -- the mouse -----------------------------------------------------------------------------

    def node_at(self, position: QPoint) -> int | None:
        """The node under a viewport position, if one is within ``HIT_RADIUS_PX``."""
        if self.picture is None:
            return None
        point = self.mapToScene(position)
        radius = HIT_RADIUS_PX / max(self.transform().m11(), 1e-9)
        return self.picture.index.nearest(point.x(), point.y(), radius)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._press = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        press, self._press = self._press, None
        at = event.position().toPoint()
        if press is None or event.button() != Qt.MouseButton.LeftButton:
            return
        if (at - press).manhattanLength() > CLICK_SLOP_PX:
            self._moved_by_hand()  # a drag: the picture was panned
            return
        index = self.node_at(at)
        if index is not None:
            self.node_clicked.emit(index)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        index = self.node_at(event.position().toPoint())
        if index is not None and event.button() == Qt.MouseButton.LeftButton:
            self.node_double_clicked.emit(index)
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        super().mouseMoveEvent(event)
        if event.buttons() == Qt.MouseButton.NoButton:
            self.hover(self.node_at(event.position().toPoint()))

    def leaveEvent(self, event: object) -> None:
        self.hover(None)

    def hover(self, index: int | None) -> None:
        """Show the title of node ``index`` next to it (None hides it)."""
        if index == self.hovered:
            return
        self.hovered = index
        if index is None or self.picture is None:
            self._label.setVisible(False)
            self._hover_ring.setVisible(False)
            self.viewport().unsetCursor()
            return
        view = self.picture.view
        text = f"{view.titles[index]}  ·  {view.types[index]}"
        if view.ids[index] in view.awaiting:
            text += "  ·  awaiting review"
        point = self.node_point(index)
        self._label.show_text(text, point, QFontMetrics(self.font()))
        self._hover_ring.setPos(point)
        self._hover_ring.setVisible(True)
        self.viewport().setCursor(Qt.CursorShape.PointingHandCursor)
