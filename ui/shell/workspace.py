"""The workspace of an unlocked vault: two tabs on the left, Search (the library beside the
results) and Graph, the detail pane on the right, and docks for review and ingest below. The
workspace is a QMainWindow of its own inside the window's stack, so its docks go away with it
when the window shows the unlock screen.

The graph has a tab of its own, as wide as the library and the results together, beside the
detail pane: a memory clicked in the graph is read at its side, and the graph follows whatever
the detail pane opens. (A window of its own would hide behind this one on a single screen and
need its own lock, shortcuts and drops.)

The columns sit in a stack of their own (``center``), where the welcome panel takes their
place while a vault is empty.

The docks start closed: a new vault has nothing to review and no files being added, and the
columns need the room, most of all on a small screen. A dock comes forward when there is
something for it (``bring_forward``): files are being added, a run waits to be resumed, or the
person asks for Review (in the library, from the status bar's count, or View › Review). The
first time one opens it takes its usual height, or its share of a small window.

The layout is kept across runs: the columns' widths, which tab was in front, and the docks.
A layout saved before the graph had its tab (three columns in one splitter, the graph a dock)
is read too: its columns' shares become the new ones, and the old graph dock is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QByteArray, QChildEvent, QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTabBar,
    QTabWidget,
    QWidget,
)

from cairn.ui.base.preferences import Preferences
from cairn.ui.base.session import Session
from cairn.ui.detail.pane import DetailPane
from cairn.ui.graph.view import GraphView
from cairn.ui.ingest.panel import IngestPanel
from cairn.ui.review.panel import ReviewPanel
from cairn.ui.search.library import LibrarySidebar
from cairn.ui.search.panel import SearchPanel

# Tabbed together below the columns: the columns keep the window's full width, which the
# graph, search and the detail pane need more than a side dock would leave them.
DOCKS = {"review": "Review", "ingest": "Ingest"}
DOCK_TABS_NAME = "Review and Ingest tabs"
DOCK_HEIGHT = 280
DOCK_SHARE = 0.4  # of the workspace's height at most, the first time
COLUMN_SIZES = (760, 520)  # the tabs (library and results, or the graph), the detail pane
SEARCH_SIZES = (220, 540)  # the library, the results
TABS = ("search", "graph")


@dataclass
class Workspace:
    window: QMainWindow
    splitter: QSplitter  # the tabs | the detail pane
    search_splitter: QSplitter  # the library | the results, in the Search tab
    tabs: QTabWidget
    library: LibrarySidebar
    search: SearchPanel
    detail: DetailPane
    ingest: IngestPanel
    review: ReviewPanel
    graph: GraphView
    docks: dict[str, QDockWidget]
    center: QStackedWidget  # the columns (the splitter), or the welcome panel in their place
    docks_sized: bool = False  # the docks' height was given, or restored from the last run

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

    def show_tab(self, name: str) -> None:
        """Bring the Search or the Graph tab to the front."""
        self.tabs.setCurrentIndex(TABS.index(name))

    @property
    def current_tab(self) -> str:
        return TABS[self.tabs.currentIndex()]


class _DockTabsNamer(QObject):
    """Names the tab bar Qt makes for the docks tabbed together (and any it makes anew when
    they are moved), so a screen reader says what the tabs are."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ChildPolished and isinstance(event, QChildEvent):
            child = event.child()
            if isinstance(child, QTabBar) and not child.accessibleName():
                child.setAccessibleName(DOCK_TABS_NAME)
        return False


def _scrolling(panel: QWidget) -> QScrollArea:
    """A dock's panel in a scroll area: a dock smaller than its panel's minimum scrolls
    instead of forcing the whole window wider or taller than a small screen."""
    area = QScrollArea()
    area.setWidgetResizable(True)  # fills the dock whenever the dock is big enough
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(panel)
    return area


def _splitter(name: str, widgets: tuple[QWidget, ...], sizes: tuple[int, ...]) -> QSplitter:
    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.setObjectName(name)
    splitter.setChildrenCollapsible(False)
    for widget in widgets:
        splitter.addWidget(widget)
    splitter.setStretchFactor(len(widgets) - 1, 1)
    splitter.setSizes(list(sizes))
    return splitter


def build_workspace(session: Session, parent: QWidget | None = None) -> Workspace:
    window = QMainWindow(parent)
    # A nested main window is a plain widget of the stack, not a top-level window.
    window.setWindowFlags(Qt.WindowType.Widget)
    window.setDockNestingEnabled(True)
    window.installEventFilter(_DockTabsNamer(window))
    library, search, detail = LibrarySidebar(session), SearchPanel(session), DetailPane(session)
    ingest, review, graph = IngestPanel(session), ReviewPanel(session), GraphView(session)

    search_splitter = _splitter("searchSplitter", (library, search), SEARCH_SIZES)
    tabs = QTabWidget()
    tabs.setObjectName("workspaceTabs")
    tabs.setDocumentMode(True)
    tabs.addTab(search_splitter, "&Search")
    tabs.addTab(graph, "&Graph")
    tabs.setTabToolTip(0, "Find memories by meaning and by words (Ctrl+K)")
    tabs.setTabToolTip(1, "The open memory and what it is linked to, or the whole vault (Ctrl+G)")
    tabs.setAccessibleName("Search or graph")
    tabs.tabBar().setAccessibleName("Search and Graph tabs")
    splitter = _splitter("workspaceSplitter", (tabs, detail), COLUMN_SIZES)
    splitter.setStretchFactor(0, 1)
    center = QStackedWidget()
    center.setObjectName("workspaceCenter")
    center.addWidget(splitter)
    window.setCentralWidget(center)

    docked: dict[str, QWidget] = {"review": review, "ingest": ingest}
    docks: dict[str, QDockWidget] = {}
    for name, title in DOCKS.items():
        dock = QDockWidget(title, window)
        dock.setObjectName(f"{name}Dock")
        dock.setWidget(_scrolling(docked[name]))
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        docks[name] = dock
    window.tabifyDockWidget(docks["review"], docks["ingest"])
    docks["review"].raise_()
    for dock in docks.values():
        dock.hide()  # until there is something for it; a saved layout may show it again
    workspace = Workspace(
        window,
        splitter,
        search_splitter,
        tabs,
        library,
        search,
        detail,
        ingest,
        review,
        graph,
        docks,
        center,
    )
    for name, panel in workspace.panels.items():
        panel.setObjectName(panel.objectName() or f"{name}Panel")
    for dock in docks.values():
        dock.visibilityChanged.connect(lambda shown: _size_once(workspace) if shown else None)
    return workspace


def bring_forward(workspace: Workspace, name: str) -> None:
    """Open the dock ``name`` ("review" or "ingest") in front of the other: there is
    something in it to see, or the person asked for it."""
    dock = workspace.docks[name]
    dock.show()
    dock.raise_()


def _size_once(workspace: Workspace) -> None:
    """The first dock opened, when no layout gave the docks a height: its usual height (it
    is laid out once the window has shown it)."""
    if workspace.docks_sized:
        return
    workspace.docks_sized = True
    QTimer.singleShot(0, workspace.window, lambda: size_docks(workspace))


def size_docks(workspace: Workspace) -> None:
    """The first layout's dock height; needs the workspace on screen (a hidden main window
    has no height to share out yet). On a small screen (a laptop at 200 %) the docks take
    their share of the height, not their usual height, so the columns keep room to show."""
    dock = workspace.docks["review"]
    height = min(DOCK_HEIGHT, int(workspace.window.height() * DOCK_SHARE))
    workspace.window.resizeDocks([dock], [height], Qt.Orientation.Vertical)


def restore_layout(workspace: Workspace, preferences: Preferences, width: int) -> bool:
    """Put back the columns, the tab in front and the docks of the last run, in a window
    ``width`` pixels wide; True if the docks were laid out (else the first unlock sizes
    them)."""
    columns = preferences.layout("columns")
    if columns is not None:
        workspace.splitter.restoreState(columns)
        inner = preferences.layout("search_columns")
        if inner is not None:
            workspace.search_splitter.restoreState(inner)
    else:
        _take_three_columns(workspace, preferences.layout("splitter"), width)
    tab = preferences.layout("tab")
    if tab is not None and bytes(tab.data()).decode(errors="replace") in TABS:
        workspace.show_tab(bytes(tab.data()).decode())
    docks = preferences.layout("docks")
    # A saved graph dock has no dock to go to any more: Qt leaves it out and restores the rest.
    workspace.docks_sized = docks is not None and workspace.window.restoreState(docks)
    return workspace.docks_sized


def save_layout(workspace: Workspace, preferences: Preferences) -> None:
    preferences.set_layout("columns", workspace.splitter.saveState())
    preferences.set_layout("search_columns", workspace.search_splitter.saveState())
    preferences.set_layout("tab", QByteArray(workspace.current_tab.encode()))
    preferences.set_layout("docks", workspace.window.saveState())


def _take_three_columns(workspace: Workspace, state: QByteArray | None, width: int) -> None:
    """The shares of a layout saved as three columns (library, results, detail pane), before
    the graph had its tab: read through a splitter of three (which scales them to its own
    size), then shared out anew over the window's ``width``."""
    if state is None:
        return
    three = QSplitter(Qt.Orientation.Horizontal)
    for _ in range(3):
        three.addWidget(QWidget())
    if not three.restoreState(state):
        return
    library, results, detail = three.sizes()
    three.deleteLater()
    total = library + results + detail
    if min(library, results, detail) <= 0:
        return
    workspace.splitter.setSizes([(library + results) * width // total, detail * width // total])
    tabs = (library + results) * width // total
    workspace.search_splitter.setSizes(
        [library * tabs // (library + results), results * tabs // (library + results)]
    )
