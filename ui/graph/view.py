"""The graph view: the neighbourhood of the open memory, or the whole vault coloured by
community, with filters by type and by kind of link.

Reading, laying out and preparing the picture all happen in a worker
(``graph_scene.prepare``), one preparation at a time with the newest request next; the UI
thread only swaps the finished picture in. Each request carries a number, and an answer to an
older request (the person clicked on, or locked the vault) is dropped. Filter changes wait a
moment (``REQUEST_DELAY_MS``) so ticking three boxes lays out once. While the view is hidden
(a tab behind another), refreshes after writes and unlocking wait until it is shown.

Clicking a node asks for it in the detail pane (``open_requested``) and puts the titles of the
memories near it first (worked out in a worker: ``scene.relabel``); double-clicking opens up
its neighbours too. ``show_ego`` is what the main window calls when a memory is opened.

The Types and Links lists stay open while several boxes are ticked (``filters``); the legend
says in words what each colour, shape and line means (``legend``).
"""

from __future__ import annotations

import time

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import (
    EGO_DEPTH,
    LAYERS,
    OVERVIEW_NODE_CAP,
    SECTION,
    MemoryService,
    TooManyNodes,
)
from cairn.ui.base.keys import GRAPH_FIT, GRAPH_ZOOM_IN, GRAPH_ZOOM_OUT
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session
from cairn.ui.base.type_colours import colour_word, type_colour
from cairn.ui.graph.canvas import ZOOM_STEP, GraphCanvas
from cairn.ui.graph.colours import LAYER_COLOURS, LAYER_NAMES, edge_words, shape_of
from cairn.ui.graph.filters import FilterButton
from cairn.ui.graph.labels import Floats, LabelStyle, Nodes
from cairn.ui.graph.legend import legend_html, line_icon, shape_icon
from cairn.ui.graph.scene import Picture, Request, prepare, relabel
from cairn.ui.memory.memory_menu import MemoryMenu, memory_menu

REQUEST_DELAY_MS = 200
EGO_HINT = "Open a memory to see what it is linked to, or look at the whole vault."
HOW_TO = "Click a memory to open it; double-click to show its neighbours too."


class GraphView(QWidget):
    open_requested = Signal(str)
    picture_shown = Signal()  # a new picture, a too-many message or an error is on screen

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.root: str | None = None
        self.expanded: tuple[str, ...] = ()
        self.picture: Picture | None = None
        self.last_handoff_ms = 0.0  # UI-thread time of the last picture swap
        self.node_cap = OVERVIEW_NODE_CAP  # the overview's, documented in app/graphview/data.py
        self._generation = 0
        self._shown_request: Request | None = None
        self._opened_here: str | None = None
        self._waiting = False  # an automatic refresh is due once the view is visible
        self._delayed_is_automatic = False
        self._running = False  # a preparation is in its worker
        self._queued: tuple[MemoryService, Request, int] | None = None
        self._edge_kinds: dict[str, list[str]] = {}  # the pack's edge types, by layer
        self._relabels = 0  # clicks whose titles' order was asked for
        self._delay = QTimer(self, singleShot=True, interval=REQUEST_DELAY_MS)
        self._delay.timeout.connect(lambda: self.refresh(when_visible=self._delayed_is_automatic))
        self._build()
        session.unlocked.connect(self._on_unlocked)
        session.locked.connect(self._on_locked)
        session.changed.connect(self._changed)
        if session.service is not None:
            self._on_unlocked(session.service)

    # -- building ------------------------------------------------------------------------------

    def _build(self) -> None:
        self.canvas = GraphCanvas(self)
        self.canvas.node_clicked.connect(self._clicked)
        self.canvas.node_double_clicked.connect(self._double_clicked)
        self.canvas.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.canvas.customContextMenuRequested.connect(self.node_menu_at)
        self.ego_button = _tool_button("Neighbourhood", "The open memory and what it is linked to")
        self.overview_button = _tool_button(
            "Whole vault", "Every memory, coloured by the group it belongs to"
        )
        modes = QButtonGroup(self)
        modes.setExclusive(True)
        for button in (self.ego_button, self.overview_button):
            button.setCheckable(True)
            modes.addButton(button)
        self.ego_button.setChecked(True)
        for button in (self.ego_button, self.overview_button):
            button.toggled.connect(self._mode_toggled)
        self.depth_box = QSpinBox()
        self.depth_box.setRange(1, 4)
        self.depth_box.setValue(EGO_DEPTH)
        self.depth_box.setPrefix("Steps: ")
        self.depth_box.setToolTip("How many links away from the open memory to reach")
        self.depth_box.setAccessibleName("Steps from the open memory")
        self.depth_box.valueChanged.connect(self._later)
        self.types_filter = FilterButton("Types", "types", "Which kinds of memory to show")
        self.types_filter.checklist.changed.connect(self._later)
        self.links_filter = FilterButton(
            "Links", "links", "Which kinds of link to show, by the colour they are drawn in"
        )
        self.links_filter.checklist.changed.connect(self._later)
        self._fill_links({})
        self.linked_only_box = QCheckBox("Only linked")
        self.linked_only_box.setToolTip("Leave out memories without a shown link")
        self.linked_only_box.setAccessibleName("Show only linked memories")
        self.linked_only_box.toggled.connect(self._later)
        fit = _tool_button("Fit", "Show the whole picture (Ctrl+0)")
        fit.clicked.connect(self.canvas.fit)
        self.legend_button = _tool_button("Legend", "Show what the colours, shapes and lines mean")
        self.legend_button.setCheckable(True)
        self.legend_button.setChecked(True)
        # A tool bar, so that a narrow view tucks the controls that do not fit behind its »
        # button instead of forcing the whole window wider.
        controls = QToolBar("Graph controls")
        controls.setAccessibleName("Graph controls")
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        for widget in (
            self.ego_button,
            self.overview_button,
            self.depth_box,
            self.types_filter,
            self.links_filter,
            self.linked_only_box,
            spacer,
            fit,
            self.legend_button,
        ):
            controls.addWidget(widget)
        self.status_label = QLabel(EGO_HINT)
        self.status_label.setWordWrap(True)
        self.status_label.setAccessibleName("What the graph shows")
        self.legend_label = QLabel()
        self.legend_label.setTextFormat(Qt.TextFormat.RichText)
        self.legend_label.setWordWrap(True)
        self.legend_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.legend_label.setAccessibleName("Graph legend")
        self.legend = QScrollArea()
        self.legend.setWidget(self.legend_label)
        self.legend.setWidgetResizable(True)
        self.legend.setFrameShape(QFrame.Shape.NoFrame)
        self.legend.setMinimumWidth(150)
        self.legend.setMaximumWidth(260)
        self.legend_button.toggled.connect(self.legend.setVisible)
        body = QHBoxLayout()
        body.addWidget(self.canvas, 1)
        body.addWidget(self.legend)
        layout = QVBoxLayout(self)
        layout.addWidget(controls)
        layout.addWidget(self.status_label)
        layout.addLayout(body, 1)
        for entry, action in (
            (GRAPH_ZOOM_IN, lambda: self.canvas.zoom(ZOOM_STEP)),
            (GRAPH_ZOOM_OUT, lambda: self.canvas.zoom(1 / ZOOM_STEP)),
            (GRAPH_FIT, lambda: self.canvas.fit()),
        ):
            for keys in entry.sequences():
                shortcut = QShortcut(keys, self)
                shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                shortcut.activated.connect(action)
        self._sync_controls()

    def _fill_types(self, service: MemoryService) -> None:
        names = list(service.node_types())
        icons = [shape_icon(type_colour(name), shape_of(name)) for name in names]
        tips = [
            f"Drawn as a {colour_word(type_colour(name))} {shape_of(name)} in a neighbourhood"
            for name in names
        ]
        self.types_filter.checklist.set_items(names, icons=icons, tips=tips)
        kinds: dict[str, list[str]] = {layer: [] for layer in LAYERS}
        for name, spec in service.pack_rules().edge_types.items():
            kinds.setdefault(spec.layer, []).append(name)
        self._fill_links(kinds)

    def _fill_links(self, kinds: dict[str, list[str]]) -> None:
        """One box per layer of links, named with its colour in words, the pack's edge types
        it holds in its tip."""
        self._edge_kinds = kinds
        texts, tips = [], []
        for layer in LAYERS:
            colour = colour_word(LAYER_COLOURS[layer])
            texts.append(f"{LAYER_NAMES[layer]} ({colour})")
            named = ", ".join(edge_words(name) for name in kinds.get(layer, ()))
            tips.append(f"{colour.capitalize()} lines" + (f": {named}" if named else ""))
        icons = [line_icon(LAYER_COLOURS[layer]) for layer in LAYERS]
        self.links_filter.checklist.set_items(list(LAYERS), texts, icons, tips)

    @property
    def type_boxes(self) -> dict[str, QCheckBox]:
        return self.types_filter.checklist.boxes

    @property
    def layer_boxes(self) -> dict[str, QCheckBox]:
        return self.links_filter.checklist.boxes

    # -- what others call ----------------------------------------------------------------------

    @property
    def mode(self) -> str:
        return "overview" if self.overview_button.isChecked() else "ego"

    def show_ego(self, node_id: str) -> None:
        """Centre the view on ``node_id`` (the memory just opened) and its neighbours."""
        if node_id == self._opened_here:
            return  # our own click, echoed back: keep the view as it is
        self.root, self.expanded = node_id, ()
        self.ego_button.setChecked(True)  # no request from the toggle: we make it next
        self.refresh()

    def show_overview(self) -> None:
        self.overview_button.setChecked(True)
        self.refresh()

    def node_count(self) -> int:
        """How many memories the picture on screen shows (0 when none)."""
        return 0 if self.picture is None else self.picture.count

    def refresh(self, *, when_visible: bool = False) -> None:
        """Ask for the picture the controls describe. ``when_visible``: only if the view is on
        screen, else once it is (what a background change asks for; a hidden tab should not
        lay out the whole vault after every write)."""
        self._delay.stop()
        service = self.session.service
        if service is None:
            return
        if when_visible and not self.isVisible():
            self._waiting = True
            return
        self._waiting = False
        request = self._request()
        self._generation += 1
        if request is None:
            self._show_nothing(EGO_HINT)
            return
        self.status_label.setText("Laying out…")
        self._queued = (service, request, self._generation)
        if not self._running:
            self._start_queued()

    def _start_queued(self) -> None:
        """One preparation at a time, the newest request next: a layout cannot be stopped
        half-way, and two of a 20,000-node vault at once would each take twice as long."""
        if self._queued is None:
            return
        service, request, generation = self._queued
        self._queued, self._running = None, True

        def done(result: object) -> None:
            self._running = False
            self._arrived(generation, request, result)
            self._start_queued()

        def failed(message: str) -> None:
            self._running = False
            self._failed(generation, message)
            self._start_queued()

        call_in_worker(self, prepare, service, request, on_done=done, on_failed=failed)

    # -- requests and answers ------------------------------------------------------------------

    def _request(self) -> Request | None:
        if self.mode == "ego" and self.root is None:
            return None
        types, layers = self.types_filter.checklist, self.links_filter.checklist
        return Request(
            mode=self.mode,
            root=self.root if self.mode == "ego" else None,
            depth=self.depth_box.value(),
            node_types=None if types.all_checked() else tuple(types.checked()),
            edge_layers=None if layers.all_checked() else tuple(layers.checked()),
            linked_only=self.linked_only_box.isChecked() and self.mode == "overview",
            expanded=self.expanded if self.mode == "ego" else (),
            cap=self.node_cap,
            viewport=self._viewport_pixels(),
            labels=LabelStyle.of(self.canvas.viewport()),
        )

    def _viewport_pixels(self) -> tuple[int, int]:
        size = self.canvas.viewport().size() * self.canvas.devicePixelRatioF()
        return max(size.width(), 200), max(size.height(), 150)

    def _arrived(self, generation: int, request: Request, result: object) -> None:
        if generation != self._generation:
            return  # an older request's answer
        started = time.perf_counter()
        if isinstance(result, TooManyNodes):
            self._show_nothing(result.message)
        elif isinstance(result, Picture):
            previous = self._shown_request
            # The same place seen again (an expansion, a filter, a refresh) keeps the zoom.
            same_place = previous is not None and (previous.mode, previous.root) == (
                request.mode,
                request.root,
            )
            self.picture, self._shown_request = result, request
            self.canvas.set_picture(result, fit=not same_place)
            view = result.view
            marks = [view.index_of(node_id) for node_id in (view.root, *view.expanded) if node_id]
            self.canvas.set_marks([index for index in marks if index is not None])
            self._show_legend(result)
            self.status_label.setText(self._summary(result))
        self.last_handoff_ms = (time.perf_counter() - started) * 1000
        self.picture_shown.emit()

    def _failed(self, generation: int, message: str) -> None:
        if generation == self._generation:
            self._show_nothing(message)
            self.picture_shown.emit()

    def _summary(self, picture: Picture) -> str:
        view = picture.view
        # Said as the status bar counts: the sections of documents apart from the memories.
        sections = sum(1 for kind in view.types if kind == SECTION)
        memories = len(view.ids) - sections
        words = f"{memories:,} memories"
        if sections:
            words += f" and {sections:,} sections of documents"
        words += f", {len(view.edges):,} links."
        if view.truncated:
            words += " Only the nearest 500 are shown; open one further out to go on."
        return f"{words} {HOW_TO}"

    def _show_legend(self, picture: Picture) -> None:
        self.legend_label.setText(
            legend_html(
                picture.view.kind, picture.legend, picture.links, self._edge_kinds, picture.shapes
            )
        )

    def _show_nothing(self, message: str) -> None:
        self.picture, self._shown_request = None, None
        self.canvas.clear_picture()
        self.legend_label.clear()
        self.status_label.setText(message)

    # -- the person's gestures -----------------------------------------------------------------

    def _clicked(self, index: int) -> None:
        if self.picture is None:
            return
        node_id = self.picture.view.ids[index]
        self.canvas.set_opened(index)
        self._relabel(self.picture, index)
        # The main window answers by calling show_ego with this id, within this emit: that
        # echo must not re-centre the view on what was only opened.
        self._opened_here = node_id
        self.open_requested.emit(node_id)
        self._opened_here = None

    def node_menu(self, index: int | None) -> MemoryMenu | None:
        """The memory menu (open, open file, copy link, link to, archive, forget) of a node
        of the picture shown."""
        if self.picture is None or index is None:
            return None
        menu = memory_menu(self.session, self.picture.view.ids[index], self)
        menu.open_requested.connect(self.open_requested)
        return menu

    def node_menu_at(self, position: QPoint) -> None:
        menu = self.node_menu(self.canvas.node_at(position))
        if menu is not None:
            menu.popup(self.canvas.viewport().mapToGlobal(position))

    def _relabel(self, picture: Picture, focus: int) -> None:
        """Put the titles of the memories near ``focus`` first (worked out in a worker); only
        the answer to the latest click on the picture still shown is taken."""
        self._relabels += 1
        asked = self._relabels

        def done(result: tuple[Nodes, Floats]) -> None:
            if asked == self._relabels and self.picture is picture and self.canvas.item:
                self.canvas.item.set_reveal(*result)

        call_in_worker(
            self, relabel, picture, focus, on_done=done, on_failed=self.status_label.setText
        )

    def _double_clicked(self, index: int) -> None:
        if self.picture is None:
            return
        node_id = self.picture.view.ids[index]
        if self.mode == "overview" or self.root is None:
            self.show_ego(node_id)
        elif node_id != self.root and node_id not in self.expanded:
            self.expanded = (*self.expanded, node_id)
            self.refresh()

    def _mode_toggled(self, checked: bool) -> None:
        if checked:
            self._sync_controls()
            self._later()

    def _sync_controls(self) -> None:
        self.depth_box.setEnabled(self.mode == "ego")
        self.linked_only_box.setEnabled(self.mode == "overview")

    def _later(self, *_: object) -> None:
        """A control changed: ask again in a moment (ticking three boxes lays out once)."""
        if self.session.is_open:
            self._delayed_is_automatic = False
            self._delay.start()

    def _changed(self) -> None:
        """Memories were written: refresh what is shown, when it is shown."""
        showing = self.picture is not None or self.root is not None or self.mode == "overview"
        if self.session.is_open and showing:
            self._delayed_is_automatic = self._delayed_is_automatic or not self._delay.isActive()
            self._delay.start()

    # -- the session ---------------------------------------------------------------------------

    def _on_unlocked(self, service: MemoryService) -> None:
        self._on_locked()
        self._fill_types(service)
        self.refresh(when_visible=True)

    def _on_locked(self) -> None:
        """Forget everything shown: no title may stay on screen after the vault is locked."""
        self._generation += 1
        self._delay.stop()
        self._queued = None
        self.root, self.expanded, self._opened_here = None, (), None
        for listed in (self.types_filter, self.links_filter):
            listed.menu_.close()  # a list left open would float over the unlock screen
        self._show_nothing(EGO_HINT)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._waiting:
            self.refresh(when_visible=True)


def _tool_button(text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAccessibleName(text)
    button.setAccessibleDescription(tip)
    return button
