"""The review panel: what waits for the person, and the decisions that settle it.

The write path stores what it is sure of and asks about the rest (DESIGN §4): a possible
duplicate is kept and found by search at once, marked awaiting review until the person keeps
both or merges them; a name used for two
kinds of thing, or the name of an archived memory, waits to be confirmed or merged; a name many
memories link to without a description waits to be described. Each section shows its count and
says in plain words when nothing waits. The retention supervisor's proposals (short-lived memories
that faded unused) wait to be archived or kept.

Every read and decision runs in a worker; an error is shown in the panel as a sentence. After
a decision the panel emits ``session.changed``, which also makes it read the queue again. A
merge, and an archive of a proposal, are recorded for Edit › Undo (``session.undo_history``).

The panel fits a short dock: the list and the page beside it each scroll on their own, and an
entry wider than the list scrolls sideways rather than being cut off (the list first takes the
width of its widest entry, up to half the panel, at any text size).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import Proposal, ReviewItem, StubToEnrich
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session
from cairn.ui.review.compare import CompareView
from cairn.ui.review.queue import (
    ReviewQueue,
    archive_stub,
    load_queue,
    settle,
    settle_proposal,
)

# "section:<name>", "item:<id>", "stub:<id>" or "fade:<id>" (a retention proposal)
KEY_ROLE = Qt.ItemDataRole.UserRole
# Each section: its heading and what it says when nothing waits.
SECTIONS = {
    "duplicate": (
        "Possible duplicates",
        "No possible duplicates wait for you. When Cairn is unsure whether something new "
        "repeats a memory it keeps, it keeps the new one (search finds it, marked awaiting "
        "review) and asks here.",
    ),
    "label_conflict": (
        "Same name, different kind",
        "No name is used for two different kinds of thing.",
    ),
    "revive_candidate": (
        "Names of archived memories",
        "No new memory has the name of an archived one.",
    ),
    "stubs": (
        "Names to describe",
        "No name needs describing. A name that several memories link to but that has no "
        "description of its own shows up here.",
    ),
    "retention": (
        "Retention proposals",
        "Nothing has faded. Short-lived memories (where you parked, a lunch plan) that go "
        "unused for about a week are proposed here for archiving. Archiving hides a memory "
        "from search and can be undone; nothing is ever deleted on its own.",
    ),
}


class ReviewPanel(QWidget):
    open_requested = Signal(str)  # a node id to show in the detail pane
    counts_changed = Signal(int)  # decisions waiting (review items), for a badge

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._generation = 0  # a lock or a newer read makes older answers stale
        self._queue = ReviewQueue()
        self._selected_key: str | None = None
        self._loading = False
        # Several changes in a row (an ingest, a merge) make one read, not many.
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(50)
        self._refresh_timer.timeout.connect(self.refresh)
        self._build()
        session.unlocked.connect(self.refresh)
        session.changed.connect(self._refresh_timer.start)
        session.locked.connect(self._clear)
        if session.service is not None:
            self.refresh()

    def _build(self) -> None:
        self._tree = QTreeWidget()
        self._tree.setHeaderHidden(True)
        # Each entry whole, scrolled to sideways when the list is narrow, never cut short.
        self._tree.header().setStretchLastSection(False)
        self._tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self._tree.setAccessibleName("Waiting for review")
        self._tree.setAccessibleDescription(
            "Each kind of decision with how many wait; choose one to see it beside the list"
        )
        self._tree.currentItemChanged.connect(self._on_selected)
        self._tree.itemDoubleClicked.connect(self._open_entry)
        self._message = QLabel("")
        self._message.setWordWrap(True)
        self._message.setAlignment(Qt.AlignmentFlag.AlignTop)
        self._compare = CompareView()
        self._compare.open_requested.connect(self.open_requested)
        self.keep_both_button = QPushButton("Keep both")
        self.merge_button = QPushButton("Merge")
        self.keep_both_button.clicked.connect(self._keep_both)
        self.merge_button.clicked.connect(lambda: self._decide("merge"))
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.keep_both_button)
        buttons.addWidget(self.merge_button)
        compare_page = QWidget()
        compare_layout = QVBoxLayout(compare_page)
        compare_layout.addWidget(self._compare, 1)
        compare_layout.addLayout(buttons)
        self._stub_text = QLabel("")
        self._stub_text.setWordWrap(True)
        self._stub_text.setTextFormat(Qt.TextFormat.PlainText)
        self.describe_button = QPushButton("Open to describe")
        self.describe_button.clicked.connect(self._open_selected_stub)
        # A name found by its capitals may be no name at all: one step puts it away.
        self.not_a_name_button = QPushButton("Not a name")
        self.not_a_name_button.setAccessibleName("Not a name: archive this name")
        self.not_a_name_button.setToolTip(
            "Archive it: memories stop linking to it and it is not made again"
        )
        self.not_a_name_button.clicked.connect(self._archive_selected_stub)
        stub_buttons = QHBoxLayout()
        stub_buttons.addWidget(self.describe_button)
        stub_buttons.addWidget(self.not_a_name_button)
        stub_buttons.addStretch(1)
        stub_page = QWidget()
        stub_layout = QVBoxLayout(stub_page)
        stub_layout.addWidget(self._stub_text)
        stub_layout.addLayout(stub_buttons)
        stub_layout.addStretch(1)
        self._fade_text = QLabel("")
        self._fade_text.setWordWrap(True)
        self._fade_text.setTextFormat(Qt.TextFormat.PlainText)
        self.archive_button = QPushButton("Archive")
        self.archive_button.setToolTip("Hide it from search; Unarchive brings it back")
        self.keep_button = QPushButton("Keep")
        self.keep_button.setToolTip("It matters: stop treating it as short-lived")
        self.archive_button.clicked.connect(lambda: self._decide_proposal("archive"))
        self.keep_button.clicked.connect(lambda: self._decide_proposal("keep"))
        fade_buttons = QHBoxLayout()
        fade_buttons.addWidget(self.archive_button)
        fade_buttons.addWidget(self.keep_button)
        fade_buttons.addStretch(1)
        fade_page = QWidget()
        fade_layout = QVBoxLayout(fade_page)
        fade_layout.addWidget(self._fade_text)
        fade_layout.addLayout(fade_buttons)
        fade_layout.addStretch(1)
        self._status = QLabel("")  # what a decision did, or why it could not be done
        self._status.setWordWrap(True)
        self._status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # One page shown at a time. Not a stacked widget: it asks for the height of its
        # tallest page (two memories side by side), so a short page would scroll in a short
        # dock; a hidden page here asks for nothing.
        self._pages = [self._message, compare_page, stub_page, fade_page]
        self._page = 0
        right = QWidget()
        right_layout = QVBoxLayout(right)
        for page in self._pages:
            right_layout.addWidget(page, 1)
            page.setVisible(page is self._message)
        right_layout.addWidget(self._status)
        scrolled = QScrollArea()  # a short dock scrolls the page, not the whole panel
        scrolled.setWidgetResizable(True)
        scrolled.setFrameShape(QFrame.Shape.NoFrame)
        scrolled.setWidget(right)
        # Three lines of either side are enough to scroll through: the dock may be that short
        # on a small screen, and a taller minimum would make the dock scroll the panel too.
        for side in (self._tree, scrolled):
            side.setMinimumHeight(3 * self.fontMetrics().height())
        self._splitter = QSplitter()
        self._splitter.setChildrenCollapsible(False)
        self._splitter.addWidget(self._tree)
        self._splitter.addWidget(scrolled)
        self._splitter.setStretchFactor(1, 2)
        self._splitter.splitterMoved.connect(self._split_by_hand)
        self._list_width_by_hand = False
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self._splitter)

    def _show_page(self, index: int) -> None:
        """The page ``index`` beside the list (a section's words, two memories, a name to
        describe, a faded memory), the others hidden."""
        self._page = index
        for number, page in enumerate(self._pages):
            page.setVisible(number == index)

    def _split_by_hand(self) -> None:
        self._list_width_by_hand = True

    def _fit_list(self) -> None:
        """The list as wide as its widest entry (up to half the panel), unless the person
        moved the divider."""
        total = sum(self._splitter.sizes())
        if self._list_width_by_hand or total <= 0:
            return
        self._tree.resizeColumnToContents(0)
        frame = 2 * self._tree.frameWidth() + self._tree.verticalScrollBar().sizeHint().width()
        wanted = min(self._tree.sizeHintForColumn(0) + frame, total // 2)
        self._splitter.setSizes([wanted, total - wanted])

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # Settings › Appearance › Text size
            QTimer.singleShot(0, self, self._fit_list)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, self, self._fit_list)

    # -- what others call ---------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the queue again (in a worker)."""
        service = self._session.service
        if service is None:
            return
        self._generation += 1
        generation = self._generation
        self._loading = True
        call_in_worker(
            self,
            load_queue,
            service,
            on_done=lambda queue: self._show(generation, queue),
            on_failed=lambda message: self._failed(generation, message),
        )

    @property
    def is_loading(self) -> bool:
        return self._loading

    def section_counts(self) -> dict[str, int]:
        counts = {kind: len(found) for kind, found in self._queue.items.items()}
        counts["stubs"] = len(self._queue.stubs)
        counts["retention"] = len(self._queue.proposals)
        return counts

    def entry_keys(self) -> list[str]:
        """The key of every entry listed, in order (see ``select``)."""
        return [item.data(0, KEY_ROLE) for item in self._entries()]

    def select(self, key: str) -> bool:
        """Select ``item:<review item id>``, ``stub:<node id>`` or ``section:<name>``."""
        for item in self._entries():
            if item.data(0, KEY_ROLE) == key:
                self._tree.setCurrentItem(item)
                return True
        return False

    @property
    def status_text(self) -> str:
        return self._status.text()

    @property
    def shown_text(self) -> str:
        """The words of the page shown (a section's message, a stub's or a proposal's page)."""
        page = self._page
        return [self._message, self._message, self._stub_text, self._fade_text][page].text()

    @property
    def compare(self) -> CompareView:
        return self._compare

    # -- reading ------------------------------------------------------------------------------

    def _show(self, generation: int, queue: ReviewQueue) -> None:
        if generation != self._generation or self._session.service is None:
            return
        self._loading = False
        keep = self._selected_key
        kind = self._kind_of(keep)  # by the queue shown until now
        self._queue = queue
        self._tree.blockSignals(True)  # the selection is restored below, once
        self._tree.clear()
        for review_kind in ("duplicate", "label_conflict", "revive_candidate"):
            found = queue.items.get(review_kind, [])
            section = self._section(review_kind, len(found))
            for review in found:
                new, other = (side.title if side else "?" for side in (review.node, review.other))
                child = QTreeWidgetItem([f"{new}  ↔  {other}"])
                child.setData(0, KEY_ROLE, f"item:{review.id}")
                child.setToolTip(0, review.reason)
                section.addChild(child)
        section = self._section("stubs", len(queue.stubs))
        for stub in queue.stubs:
            child = QTreeWidgetItem([f"{stub.title}  ({stub.degree} links)"])
            child.setData(0, KEY_ROLE, f"stub:{stub.id}")
            section.addChild(child)
        section = self._section("retention", len(queue.proposals))
        for proposal in queue.proposals:
            child = QTreeWidgetItem([f"{proposal.title}  ({proposal.days_unused:.0f} days unused)"])
            child.setData(0, KEY_ROLE, f"fade:{proposal.id}")
            child.setToolTip(0, proposal.reason)
            section.addChild(child)
        self._tree.expandAll()
        self._tree.blockSignals(False)
        self._fit_list()
        if not (keep and self.select(keep)):
            self._select_next(kind)
        self.counts_changed.emit(queue.decisions)

    def _section(self, name: str, count: int | None) -> QTreeWidgetItem:
        heading = SECTIONS[name][0]
        item = QTreeWidgetItem([heading if count is None else f"{heading} ({count})"])
        item.setData(0, KEY_ROLE, f"section:{name}")
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        self._tree.addTopLevelItem(item)
        return item

    def _select_next(self, kind: str | None) -> None:
        """After a decision, the next item of the same section (working through a queue);
        else that section (it says it is empty); at first, the first entry that waits."""
        sections = [self._tree.topLevelItem(i) for i in range(self._tree.topLevelItemCount())]
        for section in sections:
            if section is None or kind not in (None, self._kind_of(section.data(0, KEY_ROLE))):
                continue
            first = section.child(0)
            if first is not None:
                self._tree.setCurrentItem(first)
                return
        if kind is not None:
            self.select(f"section:{kind}")
        elif sections and sections[0] is not None:
            self._tree.setCurrentItem(sections[0])

    def _kind_of(self, key: str | None) -> str | None:
        """The section a key belongs to (an item's by the last queue shown)."""
        if key is None:
            return None
        if key.startswith("section:"):
            return key.removeprefix("section:")
        if key.startswith("stub:"):
            return "stubs"
        if key.startswith("fade:"):
            return "retention"
        return self._review_kinds.get(key.removeprefix("item:"))

    def _failed(self, generation: int, message: str) -> None:
        if generation == self._generation:
            self._loading = False
            self._status.setText(f"The review queue could not be read: {message}")

    # -- showing one entry --------------------------------------------------------------------

    def _on_selected(self, current: QTreeWidgetItem | None, _previous: object) -> None:
        key = str(current.data(0, KEY_ROLE)) if current is not None else ""
        self._selected_key = key or None
        kind, _, ident = key.partition(":")
        if kind == "item" and (review := self._review(ident)) is not None:
            self._compare.show_item(review, self._queue.sources)
            duplicate = review.kind == "duplicate"
            self.keep_both_button.setText("Keep both" if duplicate else "Different things")
            self.merge_button.setText("Merge into the kept one")
            self._set_buttons(True)
            self._show_page(1)
        elif kind == "stub" and (stub := self._stub(ident)) is not None:
            self._stub_text.setText(
                f"{stub.title} ({stub.type}): {stub.degree} links point to it, but it "
                "has no description of its own yet. Open it and write what it is, or, if it "
                "is no name to you, put it away with Not a name."
            )
            self.not_a_name_button.setEnabled(True)
            self._show_page(2)
        elif kind == "fade" and (proposal := self._proposal(ident)) is not None:
            self._fade_text.setText(
                f"{proposal.title} ({proposal.type}, {proposal.scope}) is a short-lived memory "
                f"that has not been opened for {proposal.days_unused:.0f} days: "
                f"{proposal.reason}. Archive it to clear it from search, or keep it if it "
                "still matters."
            )
            self._set_fade_buttons(True)
            self._show_page(3)
        else:
            self._message.setText(self._section_words(ident))
            self._show_page(0)

    def _section_words(self, name: str) -> str:
        heading, empty = SECTIONS.get(name, ("", "Choose an entry on the left."))
        count = self.section_counts().get(name, 0)
        if not count:
            return empty
        return f"{heading}: {count} waiting. Choose one on the left to see it."

    def _review(self, item_id: str) -> ReviewItem | None:
        for found in self._queue.items.values():
            for review in found:
                if review.id == item_id:
                    return review
        return None

    @property
    def _review_kinds(self) -> dict[str, str]:
        return {r.id: kind for kind, found in self._queue.items.items() for r in found}

    def _proposal(self, node_id: str) -> Proposal | None:
        return next((p for p in self._queue.proposals if p.id == node_id), None)

    def _stub(self, node_id: str) -> StubToEnrich | None:
        return next((s for s in self._queue.stubs if s.id == node_id), None)

    def _open_entry(self, item: QTreeWidgetItem, _column: int) -> None:
        kind, _, ident = str(item.data(0, KEY_ROLE)).partition(":")
        if kind == "stub":
            self.open_requested.emit(ident)
        elif kind == "item" and (review := self._review(ident)) and review.node:
            self.open_requested.emit(review.node.id)

    def _open_selected_stub(self) -> None:
        kind, _, ident = (self._selected_key or "").partition(":")
        if kind == "stub":
            self.open_requested.emit(ident)

    def _archive_selected_stub(self) -> None:
        service = self._session.service
        kind, _, ident = (self._selected_key or "").partition(":")
        if service is None or kind != "stub":
            return
        self.not_a_name_button.setEnabled(False)
        self._status.setText("Saving your decision…")
        stub, history = self._stub(ident), self._session.undo_history

        def decided(words: str) -> None:
            if stub is not None and history is not None:
                history.record_archive(ident, stub.title, archived=True)
            self._decided(words)

        call_in_worker(
            self, archive_stub, service, ident, on_done=decided, on_failed=self._not_decided
        )

    # -- deciding -----------------------------------------------------------------------------

    def _keep_both(self) -> None:
        kind, _, ident = (self._selected_key or "").partition(":")
        review = self._review(ident) if kind == "item" else None
        if review is not None:
            self._decide("distinct" if review.kind == "duplicate" else "dismiss")

    def _decide(self, action: str) -> None:
        service = self._session.service
        kind, _, ident = (self._selected_key or "").partition(":")
        if service is None or kind != "item":
            return
        self._set_buttons(False)
        self._status.setText("Saving your decision…")
        review, history = self._review(ident), self._session.undo_history

        def decided(words: str) -> None:
            if action == "merge" and review is not None and history is not None:
                folded, kept = (side.title if side else "?" for side in (review.node, review.other))
                history.record_merge(ident, folded, kept)
            self._decided(words)

        call_in_worker(
            self, settle, service, ident, action, on_done=decided, on_failed=self._not_decided
        )

    def _decide_proposal(self, action: str) -> None:
        service = self._session.service
        kind, _, ident = (self._selected_key or "").partition(":")
        if service is None or kind != "fade":
            return
        self._set_fade_buttons(False)
        self._status.setText("Saving your decision…")
        proposal, history = self._proposal(ident), self._session.undo_history

        def decided(words: str) -> None:
            if action == "archive" and proposal is not None and history is not None:
                history.record_archive(ident, proposal.title, archived=True)
            self._decided(words)

        call_in_worker(
            self,
            settle_proposal,
            service,
            ident,
            action,
            on_done=decided,
            on_failed=self._not_decided,
        )

    def _set_fade_buttons(self, enabled: bool) -> None:
        self.archive_button.setEnabled(enabled)
        self.keep_button.setEnabled(enabled)

    def _decided(self, words: str) -> None:
        if self._session.service is None:
            return
        self._status.setText(words)
        self._session.changed.emit()  # the queue is read again through this, too

    def _not_decided(self, message: str) -> None:
        if self._session.service is None:
            return
        self._status.setText(f"That did not work: {message}")
        self._set_buttons(True)
        self._set_fade_buttons(True)
        self.not_a_name_button.setEnabled(True)
        self._refresh_timer.start()  # it may have been settled elsewhere meanwhile

    def _set_buttons(self, enabled: bool) -> None:
        self.keep_both_button.setEnabled(enabled)
        self.merge_button.setEnabled(enabled)

    # -- the session --------------------------------------------------------------------------

    def _entries(self) -> list[QTreeWidgetItem]:
        found: list[QTreeWidgetItem] = []
        for i in range(self._tree.topLevelItemCount()):
            section = self._tree.topLevelItem(i)
            if section is None:
                continue
            found.append(section)
            found += [c for j in range(section.childCount()) if (c := section.child(j))]
        return found

    def _clear(self) -> None:
        """Locked: no memory's text may stay on screen."""
        self._generation += 1
        self._loading = False
        self._refresh_timer.stop()
        self._queue = ReviewQueue()
        self._selected_key = None
        self._tree.blockSignals(True)
        self._tree.clear()
        self._tree.blockSignals(False)
        self._compare.clear()
        self._stub_text.setText("")
        self._fade_text.setText("")
        self._message.setText("")
        self._status.setText("")
        self._show_page(0)
        self.counts_changed.emit(0)
