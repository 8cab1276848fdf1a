"""Search as you type: the field at the top of the window and the list of what it finds.

Typing restarts a short timer (``DEBOUNCE_MS``); when it fires, the query runs in a worker and
its results replace the list. Every query carries a generation number: results that arrive
after a newer query was started are dropped, so a slow early query can never overwrite what
the person is looking at. With an empty field the list shows what the library sidebar picked
(the newest memories, the inbox, the review queue...) through ``fetch_listing``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QListView,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import FILTER_KINDS, MemoryService, Node, RecentItem, SearchFilter
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session
from cairn.ui.search.results_model import (
    NODE_ID_ROLE,
    ROW_ROLE,
    ResultDelegate,
    ResultRow,
    ResultsModel,
    row_from_brief,
    row_from_hit,
    row_from_inbox,
    row_from_review,
    type_plural,
)

# Long enough to skip the letters of a word typed quickly, short enough to feel live.
DEBOUNCE_MS = 150
RESULT_LIMIT = 25  # the service's maximum
NOTHING_YET = (
    "No memories yet: drop files here, write a note (Ctrl+Shift+N), or see Help › Welcome."
)


@dataclass(frozen=True)
class SearchView:
    """What the panel showed, to show again after an unlock: the field's text, the filter,
    and the key of the selected row (None when none was)."""

    query: str
    filter: SearchFilter
    selected: str | None


@dataclass(frozen=True)
class Listing:
    """What the list shows for one query and filter: rows, a heading above them, and the
    sentence shown instead of the list when there are no rows."""

    query: str
    rows: list[ResultRow]
    heading: str = ""
    empty_text: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    # Answered from the words alone while the vectors load: asked again once they have.
    awaiting_vectors: bool = False


def normalized_filter(value: SearchFilter | None) -> SearchFilter:
    """``value`` as the list uses it: a type only for the kind "type", which needs one."""
    wanted = value or SearchFilter()
    if wanted.kind not in FILTER_KINDS:
        raise ValueError(f"unknown filter kind {wanted.kind!r}")
    if wanted.kind != "type":
        return SearchFilter(wanted.kind)
    return wanted if wanted.type else SearchFilter()


def fetch_listing(service: MemoryService, query: str, wanted: SearchFilter) -> Listing:
    """The rows for ``query`` under the filter ``wanted``. Runs in a worker."""
    scopes = service.scopes()
    kind, type_name = wanted.kind, wanted.type
    if kind == "inbox":
        return _inbox(service, scopes, query)
    if kind == "review":
        return _review(service, scopes, query)
    if not query:
        return _browse(service, scopes, kind, type_name)
    response = service.search(
        query, scopes=scopes, limit=RESULT_LIMIT, include_archived=kind == "archive"
    )
    hits = response.results
    quoted = f"“{query}”"
    if kind == "archive":
        hits = [hit for hit in hits if hit.status == "archived"]
        empty = f"No archived memory matches {quoted}."
    elif kind == "type":
        hits = [hit for hit in hits if hit.type == type_name]
        empty = (
            f"No {type_plural(str(type_name)).lower()} among the best matches for {quoted}. "
            "Try more specific words, or look under All."
        )
    else:
        empty = f"Nothing matches {quoted}. Try other words, or look in the Archive."
    # Vector search is usable but this answer went without it: the index is still loading.
    awaiting = service.vector_search_ready and not response.vector_search
    if awaiting:
        empty = (
            f"No memory has the words {quoted}. Matches by meaning join in a moment, "
            "once the vectors have loaded."
        )
    rows = [row_from_hit(hit) for hit in hits]
    return Listing(query, rows, "", empty, response.notes, awaiting_vectors=awaiting)


def _browse(service: MemoryService, scopes: list[str], kind: str, type_name: str | None) -> Listing:
    """An empty query: the newest memories of the chosen kind."""
    if kind == "archive":
        archived = service.list_memories(scopes=scopes, statuses=["archived"], limit=RESULT_LIMIT)
        rows = [row_from_node(node) for node in archived]
        empty = "Nothing is archived. Archiving hides a memory from search without deleting it."
        return Listing("", rows, "Archived memories, newest first", empty)
    # The possible duplicates the person has not settled: shown among the rest, marked.
    pending = service.pending(scopes=scopes, kinds=["duplicate"])
    waiting = {item.node.id for item in pending if item.node is not None}
    if kind == "type":
        plural = type_plural(str(type_name)).lower()
        nodes = service.list_memories(scopes=scopes, types=[str(type_name)], limit=RESULT_LIMIT)
        rows = [row_from_node(node, node.id in waiting) for node in nodes]
        return Listing("", rows, f"Your newest {plural}", f"No {plural} yet.")
    newest = service.list_memories(scopes=scopes, limit=RESULT_LIMIT)
    rows = [row_from_node(node, node.id in waiting) for node in newest]
    return Listing("", rows, "Your newest memories", NOTHING_YET)


def row_from_node(node: Node, awaiting_review: bool = False) -> ResultRow:
    return row_from_brief(
        RecentItem(node.id, node.type, node.title, node.recorded_at, awaiting_review)
    )


def _inbox(service: MemoryService, scopes: list[str], query: str) -> Listing:
    rows = [row_from_inbox(item) for item in service.inbox_list(scopes=scopes)]
    if query:
        needle = query.casefold()
        rows = [r for r in rows if needle in r.title.casefold() or needle in r.snippet.casefold()]
        return Listing(query, rows, "", f"No capture in the inbox mentions “{query}”.")
    return Listing("", rows, "Inbox", "The inbox is empty. Press Ctrl+N to capture a thought.")


def _review(service: MemoryService, scopes: list[str], query: str) -> Listing:
    rows = [row_from_review(item) for item in service.pending(scopes=scopes)]
    if query:
        needle = query.casefold()
        rows = [r for r in rows if needle in r.title.casefold() or needle in r.snippet.casefold()]
        return Listing(query, rows, "", f"Nothing waiting for review mentions “{query}”.")
    return Listing("", rows, "Waiting for your decision", "Nothing is waiting for review.")


class SearchPanel(QWidget):
    open_requested = Signal(str)  # a node id
    inbox_item_activated = Signal(str)  # an inbox capture that is not a memory yet
    results_shown = Signal(str)  # the query whose results are now on screen

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._filter = normalized_filter(None)
        self._generation = 0
        self.shown_query: str | None = None  # None while nothing is listed
        self._awaiting_vectors = False
        self._select_when_shown: str | None = None  # a row to select in the next listing

        self.search_field = QLineEdit()
        self.search_field.setPlaceholderText("Search your memories (Ctrl+K)")
        self.search_field.setClearButtonEnabled(True)
        self.search_field.installEventFilter(self)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.model = ResultsModel(self)
        self.results_view = QListView()
        self.results_view.setModel(self.model)
        self.results_view.setItemDelegate(ResultDelegate(self.results_view))
        self.results_view.setUniformItemSizes(True)
        self.results_view.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.empty_label = QLabel()
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._stack = QStackedWidget()
        self._stack.addWidget(self.results_view)
        self._stack.addWidget(self.empty_label)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search_field)
        layout.addWidget(self.heading)
        layout.addWidget(self._stack, 1)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.refresh)
        self.search_field.textChanged.connect(self._debounce.start)
        self.search_field.textEdited.connect(self._forget_restored_row)
        self.search_field.returnPressed.connect(self._return_pressed)
        self.results_view.activated.connect(self._open_index)
        self.results_view.clicked.connect(self._open_index)
        self.results_view.selectionModel().currentChanged.connect(self._current_changed)

        session.unlocked.connect(self.refresh)
        session.vectors_loaded.connect(self._vectors_loaded)
        session.locked.connect(self.clear)
        # Writes come in bursts (an ingest): the list is refreshed once the burst pauses.
        session.changed.connect(self._debounce.start)
        self.clear()
        if session.is_open:
            self.refresh()

    # -- public -------------------------------------------------------------------------------

    def focus_search(self) -> None:
        """Ctrl+K: put the cursor in the search field, its text selected to type over."""
        self.search_field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_field.selectAll()

    def set_filter(self, wanted: SearchFilter) -> None:
        """Restrict the list to what ``wanted`` names."""
        self._filter = normalized_filter(wanted)
        self.refresh()

    @property
    def current_filter(self) -> SearchFilter:
        return self._filter

    def view(self) -> SearchView:
        """The field's text, the filter and the selected row, as ``restore`` takes them."""
        current = self.results_view.currentIndex().data(ROW_ROLE)
        selected = current.key if isinstance(current, ResultRow) else None
        return SearchView(self.search_field.text(), self._filter, selected)

    def restore(self, view: SearchView) -> None:
        """Show ``view`` again: its text in the field, its filter, and its row selected once
        the list is in (without opening it: the detail pane comes back on its own)."""
        self.search_field.blockSignals(True)  # one query for the restored text, not two
        self.search_field.setText(view.query)
        self.search_field.blockSignals(False)
        self._filter = normalized_filter(view.filter)
        self._select_when_shown = view.selected
        self.refresh()

    def refresh(self) -> None:
        """Run the field's query (or the filter's listing) now, in a worker."""
        self._debounce.stop()
        service = self._session.service
        if service is None:
            return
        self._generation += 1
        generation = self._generation
        query = self.search_field.text().strip()
        call_in_worker(
            self,
            fetch_listing,
            service,
            query,
            self._filter,
            on_done=lambda listing: self._show(generation, listing),
            on_failed=lambda text: self._failed(generation, text),
        )

    def clear(self) -> None:
        """Forget everything shown (the vault was locked); results still on their way are
        dropped when they arrive."""
        self._generation += 1
        self._debounce.stop()
        self._filter = normalized_filter(None)  # the next vault starts with everything
        self._select_when_shown = None
        self.search_field.blockSignals(True)
        self.search_field.clear()
        self.search_field.blockSignals(False)
        self.model.clear()
        self.heading.clear()
        self.heading.setVisible(False)
        self.empty_label.clear()
        self._stack.setCurrentWidget(self.empty_label)
        self.shown_query = None

    # -- showing ------------------------------------------------------------------------------

    def _show(self, generation: int, listing: Listing) -> None:
        if generation != self._generation:
            return  # a newer query was started after this one: its results are stale
        current = self.results_view.currentIndex().data(ROW_ROLE)
        wanted = current.key if isinstance(current, ResultRow) else self._select_when_shown
        self.model.set_rows(listing.rows)
        found = wanted is not None and self._reselect(wanted)
        if found or not listing.awaiting_vectors:
            # Answered from the words alone while the vectors load, a restored row may be
            # among the matches by meaning that join in a moment: it waits for those.
            self._select_when_shown = None
        heading = " ".join(part for part in (listing.heading, *listing.notes) if part)
        self.heading.setText(heading)
        self.heading.setVisible(bool(heading) and bool(listing.rows))
        self.empty_label.setText(listing.empty_text)
        self._stack.setCurrentWidget(self.results_view if listing.rows else self.empty_label)
        self.shown_query = listing.query
        self._awaiting_vectors = listing.awaiting_vectors
        self.results_shown.emit(listing.query)

    def _forget_restored_row(self) -> None:
        """The person typed: a row restored after the unlock is no longer what they want."""
        self._select_when_shown = None

    def _vectors_loaded(self) -> None:
        """The list answered from the words alone while the vectors loaded: ask again, so
        the matches by meaning join in (unless a newer search is already on its way)."""
        if self._awaiting_vectors and not self._debounce.isActive():
            self.refresh()

    def _failed(self, generation: int, text: str) -> None:
        if generation != self._generation:
            return
        self.model.clear()
        self.heading.setVisible(False)
        self.empty_label.setText(f"The search did not work: {text}")
        self._stack.setCurrentWidget(self.empty_label)

    def _reselect(self, key: str) -> bool:
        """Keep the selected row selected when the list is refreshed under it; False when
        the list no longer has it."""
        for number, row in enumerate(self.model.rows()):
            if row.key == key:
                selection = self.results_view.selectionModel()
                selection.blockSignals(True)  # re-selecting is not asking to open it again
                self.results_view.setCurrentIndex(self.model.index(number))
                selection.blockSignals(False)
                return True
        return False

    # -- opening ------------------------------------------------------------------------------

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        # A click also changes the current row, and ``clicked`` opens it: only keyboard moves
        # open from here, so one click does not open the same memory twice. A capture opens a
        # dialog that takes the keyboard, so moving through the inbox opens none: Enter does.
        if QGuiApplication.mouseButtons() == Qt.MouseButton.NoButton and current.data(NODE_ID_ROLE):
            self._open_index(current)

    def _open_index(self, index: QModelIndex) -> None:
        row = self.model.row_at(index)
        if row is None:
            return
        node_id = index.data(NODE_ID_ROLE)
        if node_id:
            self.open_requested.emit(node_id)
        else:
            self.inbox_item_activated.emit(row.key)

    def _return_pressed(self) -> None:
        if self._debounce.isActive():
            self.refresh()  # Enter while the timer waits: search now
            return
        index = self.results_view.currentIndex()
        self._open_index(index if index.isValid() else self.model.index(0))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Keys of the search field: Down moves into the results, as in a browser's address
        bar; Esc clears the search, and in an empty field moves to the results."""
        if (
            watched is self.search_field
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
        ):
            if event.key() == Qt.Key.Key_Down and self.model.rowCount() > 0:
                self._focus_results()
                return True
            if event.key() == Qt.Key.Key_Escape:
                self._escape()
                return True
        return super().eventFilter(watched, event)

    def _escape(self) -> None:
        if self.search_field.text():
            self.search_field.clear()  # the listing of the library's choice comes back
        elif self.model.rowCount() > 0:
            self._focus_results()

    def _focus_results(self) -> None:
        self.results_view.setFocus(Qt.FocusReason.TabFocusReason)
        if not self.results_view.currentIndex().isValid():
            self.results_view.setCurrentIndex(self.model.index(0))
