"""Search as you type: the field at the top of the window and the list of what it finds.

Typing restarts a short timer (``DEBOUNCE_MS``); when it fires, the query runs in a worker and
its results replace the list. Every query carries a generation number: results that arrive
after a newer query was started are dropped, so a slow early query can never overwrite what
the person is looking at. With an empty field the list shows what the library sidebar picked
(the newest memories, the inbox, the review queue...) through ``listing.fetch_listing``.

The list has one row per memory; a note or document that matched in several places shows how
many, and its sections open under it (Right, or its arrow), each opening the memory at that
place. A query that is near nothing says so, and shows the nearest only when asked.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QMimeData, QModelIndex, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import SearchFilter
from cairn.ui.base.memory_drag import DragSource, memory_mime
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session
from cairn.ui.memory.memory_menu import MemoryMenu, memory_menu
from cairn.ui.rows.result_delegate import ResultDelegate
from cairn.ui.rows.results_model import (
    NODE_ID_ROLE,
    ROW_ROLE,
    ResultRow,
    ResultsModel,
    type_plural,
)
from cairn.ui.search.listing import NOTHING_YET, Listing, fetch_listing, normalized_filter

__all__ = ["NOTHING_YET", "SearchPanel", "SearchView"]

# Long enough to skip the letters of a word typed quickly, short enough to feel live.
DEBOUNCE_MS = 150


@dataclass(frozen=True)
class SearchView:
    """What the panel showed, to show again after an unlock: the field's text, the filter,
    and the key of the selected row (None when none was)."""

    query: str
    filter: SearchFilter
    selected: str | None


class SearchPanel(QWidget):
    open_requested = Signal(str)  # a node id
    inbox_item_activated = Signal(str)  # an inbox capture that is not a memory yet
    results_shown = Signal(str)  # the query whose results are now on screen
    search_all_requested = Signal()  # the person wants every shelf searched, not just one

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._filter = normalized_filter(None)
        self._generation = 0
        self.shown_query: str | None = None  # None while nothing is listed
        self._awaiting_vectors = False
        self._select_when_shown: str | None = None  # a row to select in the next listing
        self._nearest: list[ResultRow] = []  # a query near nothing: its rows, shown on request

        self.search_field = QLineEdit()
        self.search_field.setPlaceholderText("Search your memories (Ctrl+K)")
        self.search_field.setClearButtonEnabled(True)
        self.search_field.setAccessibleName("Search your memories")
        self.search_field.setAccessibleDescription(
            "Results appear below as you type, found by meaning and by words. Esc clears."
        )
        self.search_field.installEventFilter(self)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.model = ResultsModel(self)
        self.results_view = QTreeView()
        self.results_view.setModel(self.model)
        self.results_view.setItemDelegate(ResultDelegate(self.results_view))
        self.results_view.setHeaderHidden(True)
        self.results_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.results_view.setExpandsOnDoubleClick(False)  # a double click opens the memory
        self.results_view.setAccessibleName("Results")
        self.results_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.results_view.customContextMenuRequested.connect(self._menu_at)
        # A row dragged out is its memory as text, or as a [[link]] in a Markdown editor.
        DragSource(self.results_view.viewport(), self._mime_at)
        self.results_view.setAccessibleDescription(
            "One row per memory; a note's matching sections open under it with Right."
        )
        self.empty_label = QLabel()
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.show_nearest_button = QPushButton("Show the nearest anyway")
        self.show_nearest_button.setAccessibleName("Show the nearest memories anyway")
        self.show_nearest_button.clicked.connect(self.show_nearest)
        empty = QWidget()
        empty_column = QVBoxLayout(empty)
        empty_column.addStretch(1)
        empty_column.addWidget(self.empty_label)
        empty_column.addWidget(self.show_nearest_button, 0, Qt.AlignmentFlag.AlignHCenter)
        empty_column.addStretch(1)
        self._empty_page = empty
        self._stack = QStackedWidget()
        self._stack.addWidget(self.results_view)
        self._stack.addWidget(empty)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search_field)
        # A search narrowed to one shelf says so, with the way back to every shelf.
        self.narrowed_label = QLabel()
        self.narrowed_label.setWordWrap(True)
        self.search_all_button = QPushButton("Search all memories")
        self.search_all_button.setAccessibleName("Search all memories, not just this shelf")
        self.search_all_button.clicked.connect(self.search_all_requested)
        narrowed = QHBoxLayout()
        narrowed.setContentsMargins(0, 0, 0, 0)
        narrowed.addWidget(self.narrowed_label, 1)
        narrowed.addWidget(self.search_all_button)
        self._narrowed = QWidget()
        self._narrowed.setLayout(narrowed)
        self._narrowed.setVisible(False)
        layout.addWidget(self._narrowed)
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
        self._narrowed.setVisible(False)
        self.empty_label.clear()
        self._nearest = []
        self.show_nearest_button.setVisible(False)
        self._stack.setCurrentWidget(self._empty_page)
        self.shown_query = None

    def show_nearest(self) -> None:
        """A query near nothing: show the nearest memories after all, said to be not close."""
        if not self._nearest:
            return
        self.model.set_rows(self._nearest)
        self._nearest = []
        self.heading.setVisible(True)
        self._stack.setCurrentWidget(self.results_view)

    # -- showing ------------------------------------------------------------------------------

    def _show(self, generation: int, listing: Listing) -> None:
        if generation != self._generation:
            return  # a newer query was started after this one: its results are stale
        current = self.results_view.currentIndex().data(ROW_ROLE)
        wanted = current.key if isinstance(current, ResultRow) else self._select_when_shown
        far = listing.nothing_close
        self._nearest = list(listing.rows) if far else []
        self.model.set_rows([] if far else listing.rows)
        found = wanted is not None and self._reselect(wanted)
        if found or not listing.awaiting_vectors:
            # Answered from the words alone while the vectors load, a restored row may be
            # among the matches by meaning that join in a moment: it waits for those.
            self._select_when_shown = None
        heading = " ".join(part for part in (listing.heading, *listing.notes) if part)
        self.heading.setText(heading)
        self._say_narrowed(listing.query)
        shown = bool(listing.rows) and not far
        self.heading.setVisible(bool(heading) and shown)
        self.empty_label.setText(listing.empty_text)
        self.show_nearest_button.setVisible(far)
        self._stack.setCurrentWidget(self.results_view if shown else self._empty_page)
        self.shown_query = listing.query
        self._awaiting_vectors = listing.awaiting_vectors
        self.results_shown.emit(listing.query)

    def _say_narrowed(self, query: str) -> None:
        """A query searched within one shelf (the library's choice) says which."""
        kind, shelf = self._filter.kind, self._filter.type
        if not query or kind == "all":
            self._narrowed.setVisible(False)
            return
        where = {
            "inbox": "the inbox",
            "review": "what waits for review",
            "archive": "the archive",
        }.get(kind) or type_plural(str(shelf)).lower()
        self.narrowed_label.setText(f"Searching {where} only.")
        self._narrowed.setVisible(True)

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
        self.show_nearest_button.setVisible(False)
        self._stack.setCurrentWidget(self._empty_page)

    def _reselect(self, key: str) -> bool:
        """Keep the selected row selected when the list is refreshed under it; False when
        the list no longer has it."""
        index = self.model.index_of(key)
        if not index.isValid():
            return False
        selection = self.results_view.selectionModel()
        selection.blockSignals(True)  # re-selecting is not asking to open it again
        if index.parent().isValid():
            self.results_view.expand(index.parent())
        self.results_view.setCurrentIndex(index)
        selection.blockSignals(False)
        return True

    # -- a row's menu and drag ----------------------------------------------------------------

    def row_menu(self, index: QModelIndex) -> MemoryMenu | None:
        """The memory's context menu (open, open file, copy link, link to, archive, forget)
        for a row; an inbox capture has none (open it to sort it)."""
        row = self.model.row_at(index)
        if row is None or not row.node_id:
            return None
        menu = memory_menu(self._session, row.node_id, self)
        menu.open_requested.connect(self.open_requested)
        return menu

    def _menu_at(self, position: QPoint) -> None:
        menu = self.row_menu(self.results_view.indexAt(position))
        if menu is not None:
            menu.popup(self.results_view.viewport().mapToGlobal(position))

    def _mime_at(self, position: QPoint) -> QMimeData | None:
        row = self.model.row_at(self.results_view.indexAt(position))
        if row is None or not row.node_id:
            return None
        return memory_mime(row.node_id, row.title, row.snippet)

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
        self._open_index(index if index.isValid() else self.model.index(0, 0))

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
            self.results_view.setCurrentIndex(self.model.index(0, 0))
