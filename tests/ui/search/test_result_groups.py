"""Results a person can scan, on a real vault with a real notes folder: one row per memory, a
note's matching sections under it with their places, Markdown shown as text, no file
bookkeeping, the Notes shelf holding note files, and an honest "nothing close"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from cairn.app.api import IngestRequest, SearchFilter
from cairn.ui.base.session import Session
from cairn.ui.rows.results_model import ROW_ROLE, row_meta
from cairn.ui.search.panel import SearchPanel
from tests.app.ingest_files import pdf_bytes, write
from tests.ui.search.test_search_panel import WAIT_MS, make_panel

KILN = """# Kiln log

## Bisque firing

The **bisque** firing of the kiln reached cone 04 after nine hours.

## Glaze firing

The glaze firing of the kiln needs cone 6; the `celadon` glaze crazed last time.

## Cooling

Let the kiln cool for a full day before opening it, or the glaze cracks.
"""


def type_query(qtbot: Any, panel: SearchPanel, query: str) -> None:
    panel.search_field.clear()
    qtbot.keyClicks(panel.search_field, query)
    qtbot.waitUntil(lambda: panel.shown_query == query, timeout=WAIT_MS)


def _vault(session: Session, tmp_path: Path) -> None:
    folder = write(
        tmp_path / "notes",
        {
            "Kiln log.md": KILN,
            "scans/invoice.pdf": pdf_bytes([["Invoice for kiln shelves, 120 euros."]]),
        },
    )
    assert session.service is not None
    session.service.ingest(IngestRequest.of([folder]))
    session.service.write("Note", "Clay order", "Order ten bags of stoneware clay for the kiln.")


def test_a_note_is_one_row_with_its_sections_under_it(
    qtbot: Any, open_session: Session, tmp_path: Path
) -> None:
    _vault(open_session, tmp_path)
    panel = make_panel(qtbot, open_session)
    type_query(qtbot, panel, "kiln glaze firing cone")
    rows = panel.model.rows()
    titles = [row.title for row in rows]
    assert titles.count("Kiln log") == 1  # one row, not a row per section
    [kiln] = [row for row in rows if row.title == "Kiln log"]
    assert kiln.shown_type == "Note" and kiln.type == "Document"
    assert len(kiln.sections) >= 2
    assert row_meta(kiln).startswith(f"{len(kiln.sections)} matching sections · Note")
    places = [section.title for section in kiln.sections]
    assert "Glaze firing" in places  # its place, not "Kiln log — Glaze firing"
    order = ["Bisque firing", "Glaze firing", "Cooling"]  # as they stand in the note
    shown = [place for place in places if place in order]
    assert shown == sorted(shown, key=order.index)
    for row in [*rows, *kiln.sections]:
        assert "sha256" not in row.snippet and "media type" not in row.snippet
        assert "**" not in row.snippet and "`" not in row.snippet
        assert str(tmp_path) not in row.snippet
    # Its sections open under it, as a tree: Right expands, a section is a row of its own.
    index = panel.model.index(titles.index("Kiln log"), 0)
    panel.results_view.setCurrentIndex(index)
    panel.results_view.setFocus()
    qtbot.keyClick(panel.results_view, Qt.Key.Key_Right)
    assert panel.results_view.isExpanded(index)
    first = panel.model.index(0, 0, index).data(ROW_ROLE)
    assert first.is_section and first.node_id == kiln.sections[0].node_id


def test_a_section_opened_asks_for_that_section(
    qtbot: Any, open_session: Session, tmp_path: Path
) -> None:
    _vault(open_session, tmp_path)
    panel = make_panel(qtbot, open_session)
    type_query(qtbot, panel, "kiln cool for a full day")
    row = next(row for row in panel.model.rows() if row.title == "Kiln log")
    parent = panel.model.index(panel.model.rows().index(row), 0)
    panel.results_view.expand(parent)
    cooling = next(i for i, s in enumerate(row.sections) if s.title.endswith("Cooling"))
    with qtbot.waitSignal(panel.open_requested, timeout=WAIT_MS) as opened:
        panel.results_view.setCurrentIndex(panel.model.index(cooling, 0, parent))
    assert opened.args == [row.sections[cooling].node_id]


def test_the_notes_shelf_holds_note_files_and_documents_the_rest(
    qtbot: Any, open_session: Session, tmp_path: Path
) -> None:
    _vault(open_session, tmp_path)
    panel = make_panel(qtbot, open_session)
    panel.set_filter(SearchFilter("type", "Note"))
    qtbot.waitUntil(lambda: panel.heading.text() == "Your newest notes", timeout=WAIT_MS)
    assert sorted(row.title for row in panel.model.rows()) == ["Clay order", "Kiln log"]
    panel.set_filter(SearchFilter("type", "Document"))
    qtbot.waitUntil(lambda: panel.heading.text() == "Your newest documents", timeout=WAIT_MS)
    assert [row.title for row in panel.model.rows()] == ["invoice"]
    type_query(qtbot, panel, "kiln shelves invoice")
    assert [row.title for row in panel.model.rows()] == ["invoice"]


def test_a_query_near_nothing_says_so_and_shows_the_nearest_on_request(
    qtbot: Any, open_session: Session, tmp_path: Path
) -> None:
    _vault(open_session, tmp_path)
    panel = make_panel(qtbot, open_session)
    type_query(qtbot, panel, "qzxvw plorbt")
    assert panel.model.rowCount() == 0
    assert panel.empty_label.text().startswith("Nothing close to “qzxvw plorbt”")
    assert panel.show_nearest_button.isVisibleTo(panel)
    qtbot.mouseClick(panel.show_nearest_button, Qt.MouseButton.LeftButton)
    assert panel.model.rowCount() > 0 and panel.results_view.isVisibleTo(panel)
    assert panel.heading.text().startswith("Not close")
    type_query(qtbot, panel, "kiln")
    assert not panel.show_nearest_button.isVisibleTo(panel)
