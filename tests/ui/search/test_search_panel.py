"""The search panel on a real vault: search as you type, stale results dropped, highlighted
snippets, filters from the library, empty states, opening a result."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from PySide6.QtCore import Qt, QThreadPool

from cairn.app.models import SearchFilter
from cairn.ui.base.session import Session
from cairn.ui.rows.results_model import (
    SNIPPET_HTML_ROLE,
    highlighted_html,
    row_meta,
    without_title,
)
from cairn.ui.search.panel import NOTHING_YET, SearchPanel
from tests.app.dedup.test_review_queue import KEY, KEY_REWORDED

WAIT_MS = 5000
# The offscreen platform says this of every window shown; it is about the platform, not Cairn.


def seed(session: Session) -> dict[str, str]:
    service = session.service
    assert service is not None
    written = {
        "note": service.write(
            "Note",
            "Harbour lantern repair",
            "We repaired the old lantern at the harbour on Tuesday.",
            attrs={"tags": ["boats"]},
        ),
        "fact": service.write(
            "Fact", "Harbour office hours", "The harbour office opens at seven in the morning."
        ),
        "person": service.write(
            "Person", "Alice Marsh", "Runs the harbour.", attrs={"occupation": "harbour master"}
        ),
        "violin": service.write(
            "Note", "Violin lessons", "Maya starts violin lessons on Thursday afternoons."
        ),
    }
    ids = {name: str(result.id) for name, result in written.items()}
    assert len(set(ids.values())) == len(ids)
    return ids


def make_panel(qtbot: Any, session: Session) -> SearchPanel:
    panel = SearchPanel(session)
    qtbot.addWidget(panel)
    panel.resize(480, 640)
    panel.show()
    qtbot.waitUntil(lambda: panel.shown_query == "", timeout=WAIT_MS)  # the first listing
    return panel


def type_query(qtbot: Any, panel: SearchPanel, query: str) -> None:
    qtbot.keyClicks(panel.search_field, query)
    qtbot.waitUntil(lambda: panel.shown_query == query, timeout=WAIT_MS)


def shown_ids(panel: SearchPanel) -> list[str | None]:
    return [row.node_id for row in panel.model.rows()]


def test_typing_searches_and_shows_highlighted_results(qtbot: Any, open_session: Session) -> None:
    ids = seed(open_session)
    panel = make_panel(qtbot, open_session)
    started = time.perf_counter()
    type_query(qtbot, panel, "harbour")
    # Debounce (150 ms) plus the search itself; generous for a shared machine.
    assert time.perf_counter() - started < 2.0
    shown = shown_ids(panel)
    assert {ids["note"], ids["fact"], ids["person"]} <= set(shown)
    note_row = shown.index(ids["note"])
    snippet_html = panel.model.index(note_row).data(SNIPPET_HTML_ROLE)
    assert "<b>harbour</b>" in snippet_html.casefold()
    row = panel.model.rows()[note_row]
    assert row.title == "Harbour lantern repair"
    assert row.type == "Note" and len(row.date) == 10
    assert not row.snippet.startswith("Harbour lantern repair\n")  # the title is not repeated


def test_only_the_latest_query_is_shown(
    qtbot: Any, open_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = seed(open_session)
    service = open_session.service
    assert service is not None
    real_search = service.search
    asked: list[str] = []

    def slow_first(query: str, **kwargs: Any) -> Any:
        asked.append(query)
        if query == "violin":
            time.sleep(0.4)  # this query's answer arrives after the later one's
        return real_search(query, **kwargs)

    monkeypatch.setattr(service, "search", slow_first)
    panel = make_panel(qtbot, open_session)
    panel.search_field.setText("violin")
    panel.refresh()
    panel.search_field.setText("harbour")
    panel.refresh()
    # Both run (in either order: two pool threads); only the later one's answer is shown.
    qtbot.waitUntil(lambda: sorted(asked) == ["harbour", "violin"], timeout=WAIT_MS)
    qtbot.waitUntil(lambda: panel.shown_query == "harbour", timeout=WAIT_MS)
    assert QThreadPool.globalInstance().waitForDone(WAIT_MS)
    qtbot.wait(50)  # let the late "violin" answer reach the event loop
    assert panel.shown_query == "harbour"
    assert ids["violin"] not in shown_ids(panel)[:1]
    assert ids["note"] in shown_ids(panel)

    # Typing quickly runs one search, for the whole word, not one per letter.
    asked.clear()
    panel.search_field.clear()
    type_query(qtbot, panel, "lantern")
    assert asked == ["lantern"]


def test_filter_by_type_lists_only_that_type(qtbot: Any, open_session: Session) -> None:
    ids = seed(open_session)
    panel = make_panel(qtbot, open_session)
    panel.set_filter(SearchFilter("type", "Fact"))
    qtbot.waitUntil(lambda: shown_ids(panel) == [ids["fact"]], timeout=WAIT_MS)
    type_query(qtbot, panel, "harbour")
    assert shown_ids(panel) == [ids["fact"]]
    assert {row.type for row in panel.model.rows()} == {"Fact"}

    panel.set_filter(SearchFilter("type", "Note"))
    qtbot.waitUntil(lambda: ids["fact"] not in shown_ids(panel), timeout=WAIT_MS)
    assert shown_ids(panel)[0] == ids["note"]
    assert {row.type for row in panel.model.rows()} == {"Note"}


def test_empty_query_lists_recent_memories_and_inbox(qtbot: Any, open_session: Session) -> None:
    ids = seed(open_session)
    service = open_session.service
    assert service is not None
    capture = service.inbox_capture("Call the plumber about the boiler")
    panel = make_panel(qtbot, open_session)
    assert ids["violin"] in shown_ids(panel)  # the newest memories, with no query
    assert panel.heading.text() == "Your newest memories"

    panel.set_filter(SearchFilter("inbox"))
    qtbot.waitUntil(lambda: [r.key for r in panel.model.rows()] == [capture.id], timeout=WAIT_MS)
    assert panel.model.rows()[0].title == "Call the plumber about the boiler"
    with qtbot.waitSignal(panel.inbox_item_activated, timeout=WAIT_MS) as activated:
        panel.results_view.activated.emit(panel.model.index(0))
    assert activated.args == [capture.id]

    panel.set_filter(SearchFilter("archive"))
    qtbot.waitUntil(lambda: panel.model.rowCount() == 0, timeout=WAIT_MS)
    assert "Nothing is archived" in panel.empty_label.text()


def test_empty_vault_says_how_to_begin(qtbot: Any, open_session: Session) -> None:
    panel = make_panel(qtbot, open_session)
    assert panel.empty_label.text() == NOTHING_YET
    assert panel.empty_label.isVisible()
    type_query(qtbot, panel, "anything")
    assert "Nothing matches “anything”" in panel.empty_label.text()


def test_clicking_a_result_asks_to_open_it(qtbot: Any, open_session: Session) -> None:
    ids = seed(open_session)
    panel = make_panel(qtbot, open_session)
    type_query(qtbot, panel, "violin")
    first = panel.model.index(0)
    assert panel.model.rows()[0].node_id == ids["violin"]
    rect = panel.results_view.visualRect(first)
    opened: list[str] = []
    panel.open_requested.connect(opened.append)
    qtbot.mouseClick(panel.results_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: opened == [ids["violin"]], timeout=WAIT_MS)
    qtbot.wait(50)
    assert opened == [ids["violin"]]  # once: the click, not also the selection it made

    # Moving with the keyboard opens each row as it becomes current.
    panel.results_view.setFocus()
    qtbot.keyClick(panel.results_view, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: len(opened) == 2, timeout=WAIT_MS)
    assert opened[1] == panel.model.rows()[1].node_id


def test_the_list_follows_writes(qtbot: Any, open_session: Session) -> None:
    ids = seed(open_session)
    service = open_session.service
    assert service is not None
    panel = make_panel(qtbot, open_session)
    type_query(qtbot, panel, "lantern")
    assert ids["note"] in shown_ids(panel)
    service.archive(ids["note"], scopes=service.scopes())
    open_session.changed.emit()
    qtbot.waitUntil(lambda: ids["note"] not in shown_ids(panel), timeout=WAIT_MS)

    panel.set_filter(SearchFilter("archive"))  # the archive finds it again
    qtbot.waitUntil(lambda: shown_ids(panel) == [ids["note"]], timeout=WAIT_MS)
    assert panel.model.rows()[0].status == "archived"


def test_lock_clears_what_was_shown(qtbot: Any, open_session: Session) -> None:
    seed(open_session)
    panel = make_panel(qtbot, open_session)
    type_query(qtbot, panel, "harbour")
    assert panel.model.rowCount() > 0
    open_session.lock()
    assert panel.model.rowCount() == 0
    assert panel.search_field.text() == ""
    assert panel.heading.text() == ""


def test_highlighting_is_escaped_html() -> None:
    assert highlighted_html("a <b> & c", [(6, 7)]) == "a &lt;b&gt; <b>&amp;</b> c"
    assert highlighted_html("one\ntwo", []) == "one · two"
    snippet, spans = without_title("Title\nbody word", [(0, 5), (11, 15)], "Title")
    assert snippet == "body word" and spans == [(5, 9)]


def test_a_memory_awaiting_review_is_listed_and_marked(qtbot: Any, open_session: Session) -> None:
    service = open_session.service
    assert service is not None
    first = service.write("Note", *KEY)
    second = service.write("Note", *KEY_REWORDED)
    assert second.outcome == "pending", second.matched
    panel = make_panel(qtbot, open_session)
    # The newest memories, with no query: the one awaiting review among them, marked.
    rows = {row.node_id: row for row in panel.model.rows()}
    assert rows[second.id].awaiting_review and not rows[first.id].awaiting_review

    type_query(qtbot, panel, "spare key house plant pot")
    rows = {row.node_id: row for row in panel.model.rows()}
    assert rows[second.id].awaiting_review and not rows[first.id].awaiting_review
    assert row_meta(rows[second.id]).startswith("awaiting review · Note · ")
    assert row_meta(rows[first.id]).startswith("Note · ")
    at = {row.node_id: i for i, row in enumerate(panel.model.rows())}
    tip = panel.model.index(at[second.id]).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("Note: Hidden key (awaiting review: it may repeat another memory). ")
    first_tip = panel.model.index(at[first.id]).data(Qt.ItemDataRole.ToolTipRole)
    assert first_tip.startswith("Note: Spare key. ") and "awaiting" not in first_tip


def test_the_words_answer_while_the_vectors_load_and_meaning_joins_after(
    qtbot: Any, tmp_path: Any, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window opens a vault with its vectors loading behind: a search lists the word
    matches at once and says that vector search is still loading; once the vectors are in,
    the list asks again by itself and the matches by meaning join."""
    from cairn.app import compose
    from cairn.storage.vault import Vault
    from tests.conftest import PASSPHRASE

    path = tmp_path / "vault.cairn"
    with compose.create_vault(path, PASSPHRASE, embedder=embedder) as made:
        made.write("Note", "Sourdough", "Flour, water, salt and a starter fed the night before.")
        made.write("Note", "Boiler", "The boiler in the cellar needs a new valve next winter.")
    gate = threading.Event()
    opens_reader = Vault.new_read_only_connection

    def held_reader(self: Vault, **options: Any) -> Any:
        gate.wait(timeout=30)
        return opens_reader(self, **options)

    monkeypatch.setattr(Vault, "new_read_only_connection", held_reader)
    session = Session()
    task = session.open(path, PASSPHRASE)
    qtbot.waitUntil(lambda: session.is_open, timeout=30_000)
    try:
        assert task is not None and session.service is not None
        assert session.service.vectors_loading
        panel = make_panel(qtbot, session)
        type_query(qtbot, panel, "sourdough")
        assert panel.model.rows()[0].title == "Sourdough"
        assert "still loading" in panel.heading.text()

        panel.search_field.clear()
        type_query(qtbot, panel, "bread baking")
        assert not panel.model.rows()
        assert "once the vectors have loaded" in panel.empty_label.text()

        with qtbot.waitSignal(session.vectors_loaded, timeout=30_000):
            gate.set()
        qtbot.waitUntil(lambda: bool(panel.model.rows()), timeout=WAIT_MS)
        assert panel.model.rows()[0].title == "Sourdough"
        assert "still loading" not in panel.heading.text()
    finally:
        gate.set()
        session.lock()
