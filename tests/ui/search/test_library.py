"""The library sidebar on a real vault: its counts are the service's, picking an entry sets
the search filter, and the counts follow writes."""

from __future__ import annotations

from typing import Any

from cairn.app.models import SHELVED_STATUSES, SearchFilter
from cairn.ui.base.session import Session
from cairn.ui.search.library import COMMON_TYPES, FILTER_ROLE, LibrarySidebar, filter_key

WAIT_MS = 5000


def seed(session: Session) -> None:
    service = session.service
    assert service is not None
    service.write("Note", "Garden plan", "Plant tomatoes and basil along the south fence.")
    service.write("Note", "Bike repair", "The rear brake cable of the blue bike is frayed.")
    fact = service.write("Fact", "Library card", "The library card expires in March.")
    service.write("Project", "Kitchen renovation", "New cupboards and a tiled floor.")
    service.inbox_capture("Buy stamps")
    assert fact.id is not None
    service.archive(fact.id, scopes=service.scopes())


def expected_counts(session: Session) -> dict[str, int]:
    service = session.service
    assert service is not None
    scopes = service.scopes()
    stats = service.stats(scopes=scopes)
    by_type, by_status = stats.shelves, stats.nodes_by_status
    counts = {
        "all": sum(by_status.get(status, 0) for status in SHELVED_STATUSES),
        "inbox": len(service.inbox_list(scopes=scopes)),
        "archive": by_status.get("archived", 0),
        "review": len(service.pending(scopes=scopes)),
    }
    for name in service.node_types():
        if name != "Passage" and (by_type.get(name, 0) or name in COMMON_TYPES):
            counts[f"type:{name}"] = by_type.get(name, 0)
    return counts


def make_sidebar(qtbot: Any, session: Session) -> LibrarySidebar:
    sidebar = LibrarySidebar(session)
    qtbot.addWidget(sidebar)
    qtbot.waitUntil(lambda: bool(sidebar.counts()), timeout=WAIT_MS)
    return sidebar


def test_counts_match_the_service(qtbot: Any, open_session: Session) -> None:
    seed(open_session)
    sidebar = make_sidebar(qtbot, open_session)
    counts = sidebar.counts()
    assert counts == expected_counts(open_session)
    assert counts["all"] == 3 and counts["inbox"] == 1 and counts["archive"] == 1
    assert counts["type:Project"] == 1  # listed because there is one
    assert counts["type:Fact"] == 0  # the one fact is archived: the Archive counts it
    assert "type:Place" not in counts  # none, and not an everyday type
    labels = [sidebar.tree.topLevelItem(n).text(0) for n in range(sidebar.tree.topLevelItemCount())]
    assert labels[:2] == ["All", "Inbox"] and labels[-2:] == ["Archive", "Review"]
    assert "People" in labels and "Notes" in labels


def test_picking_an_entry_sets_the_filter(qtbot: Any, open_session: Session) -> None:
    seed(open_session)
    sidebar = make_sidebar(qtbot, open_session)
    items = {
        filter_key(sidebar.tree.topLevelItem(n).data(0, FILTER_ROLE)): sidebar.tree.topLevelItem(n)
        for n in range(sidebar.tree.topLevelItemCount())
    }
    with qtbot.waitSignal(sidebar.filter_changed, timeout=WAIT_MS) as changed:
        sidebar.tree.setCurrentItem(items["type:Note"])
    assert changed.args == [SearchFilter("type", "Note")]
    with qtbot.waitSignal(sidebar.filter_changed, timeout=WAIT_MS) as changed:
        sidebar.select(SearchFilter("archive"))
    assert changed.args == [SearchFilter("archive")]


def test_counts_follow_writes_and_lock_clears_them(qtbot: Any, open_session: Session) -> None:
    seed(open_session)
    sidebar = make_sidebar(qtbot, open_session)
    sidebar.select(SearchFilter("type", "Note"))
    service = open_session.service
    assert service is not None
    service.write("Place", "Lisbon", "Capital of Portugal, on the Tagus.")
    service.write("Note", "Pasta recipe", "Boil the water, salt it, then add the pasta.")
    open_session.changed.emit()
    qtbot.waitUntil(lambda: sidebar.counts().get("type:Place") == 1, timeout=WAIT_MS)
    assert sidebar.counts() == expected_counts(open_session)
    current = sidebar.tree.currentItem()
    assert current is not None and current.text(0) == "Notes"  # the pick survives a refresh

    open_session.lock()
    assert sidebar.counts() == {}
    assert sidebar.tree.topLevelItemCount() == 0
