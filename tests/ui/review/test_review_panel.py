"""The review panel with the real vault and embedder: a possible duplicate (kept, awaiting
review) is shown side by side and settled by Keep both or Merge (read back through the
service), a label conflict is dismissed, stubs worth describing are listed and open, empty
sections say so, an error is a sentence, and locking clears the screen."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QScrollArea

from cairn.app.service import MemoryService
from cairn.ui.base.session import Session
from cairn.ui.review.panel import ReviewPanel
from tests.app.dedup.test_review_queue import KEY, KEY_REWORDED

ALL = ["personal"]
WAIT_MS = 15_000


@pytest.fixture
def service(open_session: Session) -> MemoryService:
    assert open_session.service is not None
    return open_session.service


def _panel(qtbot, session: Session) -> ReviewPanel:
    panel = ReviewPanel(session)
    qtbot.addWidget(panel)
    return panel


def _wait_for_counts(qtbot, panel: ReviewPanel, **expected: int) -> None:
    def matches() -> bool:
        counts = panel.section_counts()
        return not panel.is_loading and all(counts.get(k) == v for k, v in expected.items())

    qtbot.waitUntil(matches, timeout=WAIT_MS)


def _pending_pair(service: MemoryService) -> str:
    first = service.write("Note", *KEY, source="notes/keys.txt")
    second = service.write("Note", *KEY_REWORDED)
    assert first.outcome == "inserted"
    assert second.outcome == "pending", second.matched
    assert second.verdict is not None
    return second.verdict


def test_a_pending_duplicate_is_shown_side_by_side_and_keep_both_settles_it(
    qtbot, open_session: Session, service: MemoryService
) -> None:
    item_id = _pending_pair(service)
    panel = _panel(qtbot, open_session)
    _wait_for_counts(qtbot, panel, duplicate=1, label_conflict=0, stubs=0)
    assert panel.select(f"item:{item_id}")

    view = panel.compare
    assert view.headline.text() == "Possibly the same memory"
    assert view.new.heading.text() == "New" and view.kept.heading.text() == "Already kept"
    assert (view.new.title.text(), view.kept.title.text()) == ("Hidden key", "Spare key")
    assert view.new.text.toPlainText() == KEY_REWORDED[1]
    assert view.kept.text.toPlainText() == KEY[1]
    assert view.new.kind.text().startswith("Note · active")  # kept, and searchable meanwhile
    assert view.kept.kind.text().startswith("Note · active")
    assert view.kept.source.text() == "From notes/keys.txt"
    assert view.new.source.text() == "Written in Cairn"
    [item] = service.pending(scopes=ALL)
    assert view.why.text().startswith(f"Similar ({item.score:.2f})")  # the gate's reason
    assert panel.keep_both_button.text() == "Keep both"

    with qtbot.waitSignal(view.open_requested) as opened:
        view.kept.open_button.click()
    assert opened.args == [item.other.id]

    with qtbot.waitSignal(open_session.changed, timeout=WAIT_MS):
        panel.keep_both_button.click()
    assert service.pending(scopes=ALL) == []
    assert "Kept both" in panel.status_text
    _wait_for_counts(qtbot, panel, duplicate=0)
    # Back on the emptied section, which says so in words.
    assert "No possible duplicates wait for you" in panel.shown_text


def test_merge_folds_the_new_memory_into_the_kept_one(
    qtbot, open_session: Session, service: MemoryService
) -> None:
    item_id = _pending_pair(service)
    [item] = service.pending(scopes=ALL, kinds=["duplicate"])
    panel = _panel(qtbot, open_session)
    _wait_for_counts(qtbot, panel, duplicate=1)
    assert panel.select(f"item:{item_id}")
    with qtbot.waitSignal(open_session.changed, timeout=WAIT_MS):
        panel.merge_button.click()
    assert service.pending(scopes=ALL) == []
    assert "Merged into “Spare key”" in panel.status_text
    kept = service.get([item.node.id], scopes=ALL).nodes[0]
    assert kept.node.id == item.other.id  # the new id now finds the kept memory
    assert kept.requested_as == item.node.id
    _wait_for_counts(qtbot, panel, duplicate=0)


def test_a_label_conflict_is_kept_as_different_things(
    qtbot, open_session: Session, service: MemoryService
) -> None:
    service.write("Person", "Jordan")
    service.write("Place", "Jordan")
    [item] = service.pending(scopes=ALL)
    panel = _panel(qtbot, open_session)
    _wait_for_counts(qtbot, panel, duplicate=0, label_conflict=1)
    # The first entry that waits is shown without asking.
    assert panel.compare.headline.text() == "The same name for two different kinds of thing"
    assert panel.keep_both_button.text() == "Different things"
    with qtbot.waitSignal(open_session.changed, timeout=WAIT_MS):
        panel.keep_both_button.click()
    assert service.pending(scopes=ALL) == []
    got = service.get([item.node.id, item.other.id], scopes=ALL)
    assert [d.node.status for d in got.nodes] == ["active", "active"]
    _wait_for_counts(qtbot, panel, label_conflict=0)


def test_a_name_linked_three_times_is_listed_to_describe(
    qtbot, open_session: Session, service: MemoryService
) -> None:
    notes = [
        ("Boat repairs", "Sanded the hull before [[Harbour Festival]] so it looks decent."),
        ("Stall rota", "Mia takes the morning shift at the [[Harbour Festival]] stall."),
        ("Lanterns", "Ordered forty paper lanterns for the [[Harbour Festival]] parade."),
    ]
    for title, body in notes:
        assert service.write("Note", title, body).outcome == "inserted"
    stub = service.briefing(scopes=ALL).stubs_to_enrich[0]
    panel = _panel(qtbot, open_session)
    _wait_for_counts(qtbot, panel, stubs=1)
    assert panel.select(f"stub:{stub.id}")
    assert "Harbour Festival" in panel.shown_text
    assert "3 links point to it" in panel.shown_text
    with qtbot.waitSignal(panel.open_requested) as opened:
        panel.describe_button.click()
    assert opened.args == [stub.id]


def test_a_found_name_that_is_no_name_is_put_away_in_one_step(
    qtbot, open_session: Session, service: MemoryService
) -> None:
    """A name recognised in three notes (no [[link]]) is listed; Not a name archives it, and a
    later note naming it makes no new one."""
    for title, body in (
        ("Plan", "We tried the Velvet Orbit method for the garden beds."),
        ("Beds", "The beds look better after the Velvet Orbit method."),
        ("Again", "Another round of the Velvet Orbit method on Sunday."),
    ):
        assert service.write("Note", title, body).outcome == "inserted"
    (stub,) = service.briefing(scopes=ALL).stubs_to_enrich
    assert stub.title == "Velvet Orbit"
    panel = _panel(qtbot, open_session)
    _wait_for_counts(qtbot, panel, stubs=1)
    assert panel.select(f"stub:{stub.id}")
    assert "Not a name" in panel.shown_text
    panel.not_a_name_button.click()
    _wait_for_counts(qtbot, panel, stubs=0)
    assert service.get([stub.id], scopes=ALL).nodes[0].node.status == "archived"
    later = service.write("Note", "Later", "No more Velvet Orbit method this year.").node
    assert later is not None
    (detail,) = service.get([later.id], scopes=ALL).nodes
    assert not [e for e in detail.edges if e.type == "mentions"]


def test_a_short_dock_shows_a_short_page_without_scrolling_it(
    qtbot, open_session: Session, service: MemoryService
) -> None:
    """The page of a name to describe asks for its own height, not that of the two memories
    side by side hidden behind it: in a dock a few lines high it shows whole."""
    for title in ("Boat repairs", "Stall rota", "Lanterns"):
        service.write("Note", title, f"{title} for the [[Harbour Festival]] this summer.")
    stub = service.briefing(scopes=ALL).stubs_to_enrich[0]
    service.write("Note", *KEY)
    service.write("Note", *KEY_REWORDED)  # a pair to compare: the tallest page
    panel = _panel(qtbot, open_session)
    panel.resize(760, 170)
    panel.show()
    _wait_for_counts(qtbot, panel, stubs=1, duplicate=1)
    assert panel.select(f"stub:{stub.id}")
    page_scroll = panel.describe_button.parentWidget().parentWidget()
    while not isinstance(page_scroll, QScrollArea):
        page_scroll = page_scroll.parentWidget()
    qtbot.waitUntil(lambda: page_scroll.verticalScrollBar().maximum() == 0)
    assert panel.minimumSizeHint().height() <= 170


def test_empty_sections_say_so_in_words(qtbot, open_session: Session) -> None:
    panel = _panel(qtbot, open_session)
    _wait_for_counts(qtbot, panel, duplicate=0, label_conflict=0, revive_candidate=0, stubs=0)
    assert panel.select("section:duplicate")
    assert "No possible duplicates wait for you" in panel.shown_text
    assert panel.select("section:stubs")
    assert "No name needs describing" in panel.shown_text
    assert panel.select("section:retention")
    assert "Nothing has faded" in panel.shown_text


def test_a_decision_that_cannot_be_made_is_a_sentence_and_locking_clears(
    qtbot, open_session: Session, service: MemoryService
) -> None:
    item_id = _pending_pair(service)
    panel = _panel(qtbot, open_session)
    _wait_for_counts(qtbot, panel, duplicate=1)
    assert panel.select(f"item:{item_id}")
    service.resolve_duplicate(item_id, "distinct", scopes=ALL)  # settled elsewhere meanwhile
    panel.merge_button.click()
    qtbot.waitUntil(lambda: "That did not work" in panel.status_text, timeout=WAIT_MS)
    assert "already settled" in panel.status_text
    _wait_for_counts(qtbot, panel, duplicate=0)  # and the list is read again

    counts: list[int] = []
    panel.counts_changed.connect(counts.append)
    open_session.lock()
    assert counts == [0]
    assert panel.compare.new.text.toPlainText() == ""
    assert panel.compare.kept.title.text() == ""
    assert panel.section_counts() == {"stubs": 0, "retention": 0}
    assert panel.status_text == ""
