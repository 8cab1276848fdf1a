"""The workspace of an unlocked vault: the library on the left, search in the middle, the
detail pane on the right, and docks for ingest, review and the graph.

The panels come from their own modules, imported only here and only when the workspace is
built, so the window still opens while one of them is missing: its place shows a short note
instead. An error inside a panel module that does exist is not hidden. The workspace is a
QMainWindow of its own inside the window's stack, so its docks go away with it when the window
shows the unlock screen.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QLabel,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QWidget,
)

from cairn.ui.session import Session

# name -> (module, class): the panel contract's names (see each module).
PANELS = {
    "library": ("cairn.ui.library", "LibrarySidebar"),
    "search": ("cairn.ui.search_panel", "SearchPanel"),
    "detail": ("cairn.ui.detail_pane", "DetailPane"),
    "ingest": ("cairn.ui.ingest_panel", "IngestPanel"),
    "review": ("cairn.ui.review_panel", "ReviewPanel"),
    "graph": ("cairn.ui.graph_view", "GraphView"),
}
# Tabbed together below the three columns: the columns keep the window's full width, which
# search and the detail pane need more than a side dock would leave them.
DOCKS = {"review": "Review", "graph": "Graph", "ingest": "Ingest"}
DOCK_HEIGHT = 280
SPLITTER_SIZES = (220, 540, 520)


@dataclass
class Workspace:
    window: QMainWindow
    splitter: QSplitter
    panels: dict[str, QWidget]
    docks: dict[str, QDockWidget]
    missing: list[str] = field(default_factory=list)

    def panel(self, name: str) -> QWidget | None:
        """The real panel, or None while its module is missing (a placeholder stands in)."""
        return None if name in self.missing else self.panels[name]


def _load_panel(name: str, session: Session) -> QWidget | None:
    module_name, class_name = PANELS[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise  # the module is there but something it needs is not: a real error
        return None
    panel_class = getattr(module, class_name, None)
    if panel_class is None:
        return None
    panel: QWidget = panel_class(session)
    return panel


def _placeholder(name: str) -> QWidget:
    label = QLabel(f"{PANELS[name][1]}: coming")
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setEnabled(False)
    label.setObjectName(f"{name}Placeholder")
    return label


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
    panels: dict[str, QWidget] = {}
    missing: list[str] = []
    for name in PANELS:
        panel = _load_panel(name, session)
        if panel is None:
            missing.append(name)
            panel = _placeholder(name)
        panel.setObjectName(panel.objectName() or f"{name}Panel")
        panels[name] = panel

    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.setObjectName("workspaceSplitter")
    splitter.setChildrenCollapsible(False)
    for name in ("library", "search", "detail"):
        splitter.addWidget(panels[name])
    splitter.setStretchFactor(1, 1)
    splitter.setStretchFactor(2, 1)
    splitter.setSizes(list(SPLITTER_SIZES))
    window.setCentralWidget(splitter)

    docks: dict[str, QDockWidget] = {}
    for name, title in DOCKS.items():
        dock = QDockWidget(title, window)
        dock.setObjectName(f"{name}Dock")
        dock.setWidget(_scrolling(panels[name]))
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        docks[name] = dock
    window.tabifyDockWidget(docks["review"], docks["graph"])
    window.tabifyDockWidget(docks["review"], docks["ingest"])
    docks["review"].raise_()
    return Workspace(window, splitter, panels, docks, missing)


def size_docks(workspace: Workspace) -> None:
    """The first layout's dock height; needs the workspace on screen (a hidden main window
    has no height to share out yet)."""
    dock = workspace.docks["review"]
    workspace.window.resizeDocks([dock], [DOCK_HEIGHT], Qt.Orientation.Vertical)
