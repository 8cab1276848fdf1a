"""The library sidebar: All, Inbox, one entry per memory type, Archive and Review, each with
how many it holds. Picking one restricts the search list (``filter_changed``).

Counts come from one worker call (``fetch_counts``) when the vault opens and again, coalesced,
after every write (``session.changed``): a burst of writes during an ingest costs one count,
not hundreds. A type is listed when the vault holds some of it, or when it is one of the
everyday types a person looks for even before they have any.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHeaderView, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from cairn.app.api import VISIBLE_STATUSES, MemoryService, SearchFilter
from cairn.ui.base.icons import type_icon
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session
from cairn.ui.search.results_model import type_plural

COMMON_TYPES = ("Note", "Fact", "Person", "Document")
FAMILY_ORDER = {"memory": 0, "entity": 1, "document": 2}
REFRESH_DELAY_MS = 300  # writes come in bursts (an ingest): count once after the burst
FILTER_ROLE = Qt.ItemDataRole.UserRole + 1


@dataclass(frozen=True)
class LibraryCounts:
    all: int
    inbox: int
    archive: int
    review: int
    by_type: dict[str, int] = field(default_factory=dict)
    types: list[str] = field(default_factory=list)  # the types to list, in order


def fetch_counts(service: MemoryService) -> LibraryCounts:
    """Every count the sidebar shows, read in one go. Runs in a worker."""
    scopes = service.scopes()
    stats = service.stats(scopes=scopes)
    by_type, by_status = stats.nodes_by_type, stats.nodes_by_status
    node_types = service.node_types()
    listed = [name for name in node_types if by_type.get(name, 0) > 0 or name in COMMON_TYPES]
    listed.sort(key=lambda name: (FAMILY_ORDER.get(node_types[name].family, 3), name))
    return LibraryCounts(
        all=sum(by_status.get(status, 0) for status in VISIBLE_STATUSES),
        inbox=len(service.inbox_list(scopes=scopes)),
        archive=by_status.get("archived", 0),
        review=len(service.pending(scopes=scopes)),
        by_type=dict(by_type),
        types=listed,
    )


def filter_key(wanted: SearchFilter) -> str:
    """A filter as a short key: "all", "inbox", "archive", "review" or "type:Note"."""
    return wanted.key


class LibrarySidebar(QWidget):
    filter_changed = Signal(object)  # a SearchFilter, as SearchPanel.set_filter takes

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._generation = 0
        self._counts: dict[str, int] = {}
        self._selected = SearchFilter()

        self.tree = QTreeWidget()
        self.tree.setColumnCount(2)
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree)

        self._refresh_later = QTimer(self)
        self._refresh_later.setSingleShot(True)
        self._refresh_later.setInterval(REFRESH_DELAY_MS)
        self._refresh_later.timeout.connect(self.refresh)
        self.tree.currentItemChanged.connect(self._current_changed)
        session.unlocked.connect(self.refresh)
        session.locked.connect(self.clear)
        session.changed.connect(self._refresh_later.start)
        if session.is_open:
            self.refresh()

    # -- public -------------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        """What each entry shows, by ``filter_key`` ("all", "type:Note", ...)."""
        return dict(self._counts)

    def select(self, chosen: SearchFilter) -> None:
        """Pick an entry as if clicked (emits ``filter_changed`` when it changes)."""
        item = self._item_for(filter_key(chosen))
        if item is not None:
            self.tree.setCurrentItem(item)
        elif filter_key(chosen) != filter_key(self._selected):
            # Not listed yet (the counts are on their way): kept for the rebuild, and said now.
            self._selected = chosen
            self.filter_changed.emit(chosen)

    def restore(self, chosen: SearchFilter) -> None:
        """Pick ``chosen`` again after an unlock, without announcing it (the search panel
        restores its own filter); the counts' rebuild falls back to All if it is gone."""
        self._selected = chosen
        item = self._item_for(filter_key(chosen))
        if item is not None:
            self.tree.blockSignals(True)
            self.tree.setCurrentItem(item)
            self.tree.blockSignals(False)

    def refresh(self) -> None:
        self._refresh_later.stop()
        service = self._session.service
        if service is None:
            return
        self._generation += 1
        generation = self._generation
        call_in_worker(
            self,
            fetch_counts,
            service,
            on_done=lambda counts: self._show(generation, counts),
            on_failed=lambda text: self._failed(generation, text),
        )

    def clear(self) -> None:
        self._generation += 1
        self._refresh_later.stop()
        self.tree.blockSignals(True)
        self.tree.clear()
        self.tree.blockSignals(False)
        self._counts = {}
        self._selected = SearchFilter()  # the next vault starts with everything
        self.setToolTip("")

    # -- showing ------------------------------------------------------------------------------

    def _show(self, generation: int, counts: LibraryCounts) -> None:
        if generation != self._generation:
            return
        entries: list[tuple[str, SearchFilter, int]] = [
            ("All", SearchFilter("all"), counts.all),
            ("Inbox", SearchFilter("inbox"), counts.inbox),
        ]
        entries += [
            (type_plural(name), SearchFilter("type", name), counts.by_type.get(name, 0))
            for name in counts.types
        ]
        entries += [
            ("Archive", SearchFilter("archive"), counts.archive),
            ("Review", SearchFilter("review"), counts.review),
        ]
        # Rebuilding must not look like a click: the current filter stays, unannounced.
        self.tree.blockSignals(True)
        self.tree.clear()
        self._counts = {}
        items: list[QTreeWidgetItem] = []
        for label, wanted, count in entries:
            item = QTreeWidgetItem([label, str(count)])
            item.setIcon(0, type_icon(wanted.type or label))
            item.setData(0, FILTER_ROLE, wanted)
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            item.setToolTip(0, _tooltip(label, wanted, count))
            self.tree.addTopLevelItem(item)
            items.append(item)
            self._counts[filter_key(wanted)] = count
        current = self._item_for(filter_key(self._selected))
        gone = current is None  # the chosen type has no memories left: back to All
        self.tree.setCurrentItem(current or items[0])
        self.tree.blockSignals(False)
        self.setToolTip("")
        if gone:
            self._selected = SearchFilter()
            self.filter_changed.emit(self._selected)

    def _failed(self, generation: int, text: str) -> None:
        if generation == self._generation:
            self.setToolTip(f"The counts could not be read: {text}")

    def _item_for(self, key: str) -> QTreeWidgetItem | None:
        for number in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(number)
            if item is not None and filter_key(item.data(0, FILTER_ROLE)) == key:
                return item
        return None

    def _current_changed(self, current: QTreeWidgetItem | None, _previous: object) -> None:
        if current is None:
            return
        wanted: SearchFilter = current.data(0, FILTER_ROLE)
        if filter_key(wanted) == filter_key(self._selected):
            return
        self._selected = wanted
        self.filter_changed.emit(wanted)


def _tooltip(label: str, wanted: SearchFilter, count: int) -> str:
    kind = wanted.kind
    if kind == "inbox":
        return f"{count} capture(s) waiting to be sorted"
    if kind == "archive":
        return f"{count} archived memories, hidden from ordinary search"
    if kind == "review":
        return f"{count} decision(s) waiting for you"
    if kind == "type":
        return f"{count} {label.lower()}, counting older versions and archived ones"
    return f"{count} memories"
