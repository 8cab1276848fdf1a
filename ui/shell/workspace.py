"""The workspace of an unlocked vault: the library on the left, search in the middle, the
detail pane on the right, and docks for ingest, review and the graph. The workspace is a
QMainWindow of its own inside the window's stack, so its docks go away with it when the window
shows the unlock screen. The three columns sit in a stack of their own (``center``), where the
welcome panel takes their place while a vault is empty.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from cairn.ui.base.session import Session
from cairn.ui.detail.pane import DetailPane
from cairn.ui.graph.view import GraphView
from cairn.ui.ingest.panel import IngestPanel
from cairn.ui.review.panel import ReviewPanel
from cairn.ui.search.library import LibrarySidebar
from cairn.ui.search.panel import SearchPanel

# Tabbed together below the three columns: the columns keep the window's full width, which
# search and the detail pane need more than a side dock would leave them.
DOCKS = {"review": "Review", "graph": "Graph", "ingest": "Ingest"}
DOCK_HEIGHT = 280
DOCK_SHARE = 0.4  # of the workspace's height at most, the first time
SPLITTER_SIZES = (220, 540, 520)


@dataclass
class Workspace:
    window: QMainWindow
    splitter: QSplitter
    library: LibrarySidebar
    search: SearchPanel
    detail: DetailPane
    ingest: IngestPanel
    review: ReviewPanel
    graph: GraphView
    docks: dict[str, QDockWidget]
    center: QStackedWidget  # the columns (the splitter), or the welcome panel in their place

    @property
    def panels(self) -> dict[str, QWidget]:
        """Every panel by name, columns first."""
        return {
            "library": self.library,
            "search": self.search,
            "detail": self.detail,
            "ingest": self.ingest,
            "review": self.review,
            "graph": self.graph,
        }


def _scrolling(panel: QWidget) -> QScrollArea:
    """A dock's panel in a scroll area: a dock smaller than its panel's minimum scrolls
    instead of forcing the whole window wider or taller than a small screen."""
    area = QScrollArea()
    area.setWidgetResizable(True)  # fills the dock whenever the dock is big enough
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(panel)
    return area


def build_workspace(session: Session, parent: QWidget | None = None) -> Workspace:
    window = QMainWindow(parent)
    # A nested main window is a plain widget of the stack, not a top-level window.
    window.setWindowFlags(Qt.WindowType.Widget)
    window.setDockNestingEnabled(True)
    library, search, detail = LibrarySidebar(session), SearchPanel(session), DetailPane(session)
    ingest, review, graph = IngestPanel(session), ReviewPanel(session), GraphView(session)

    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.setObjectName("workspaceSplitter")
    splitter.setChildrenCollapsible(False)
    for column in (library, search, detail):
        splitter.addWidget(column)
    splitter.setStretchFactor(1, 1)
    splitter.setStretchFactor(2, 1)
    splitter.setSizes(list(SPLITTER_SIZES))
    center = QStackedWidget()
    center.setObjectName("workspaceCenter")
    center.addWidget(splitter)
    window.setCentralWidget(center)

    docked: dict[str, QWidget] = {"review": review, "graph": graph, "ingest": ingest}
    docks: dict[str, QDockWidget] = {}
    for name, title in DOCKS.items():
        dock = QDockWidget(title, window)
        dock.setObjectName(f"{name}Dock")
        dock.setWidget(_scrolling(docked[name]))
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        docks[name] = dock
    window.tabifyDockWidget(docks["review"], docks["graph"])
    window.tabifyDockWidget(docks["review"], docks["ingest"])
    docks["review"].raise_()
    workspace = Workspace(
        window, splitter, library, search, detail, ingest, review, graph, docks, center
    )
    for name, panel in workspace.panels.items():
        panel.setObjectName(panel.objectName() or f"{name}Panel")
    return workspace


def size_docks(workspace: Workspace) -> None:
    """The first layout's dock height; needs the workspace on screen (a hidden main window
    has no height to share out yet). On a small screen (a laptop at 200 %) the docks take
    their share of the height, not their usual height, so the columns keep room to show."""
    dock = workspace.docks["review"]
    height = min(DOCK_HEIGHT, int(workspace.window.height() * DOCK_SHARE))
    workspace.window.resizeDocks([dock], [height], Qt.Orientation.Vertical)
