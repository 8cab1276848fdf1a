"""A note shown as a note, on a real vault: its whole text rendered from Markdown with the
search's words marked (and said in words), its sections listed and reached from it, a section
opened showing its note; a PDF's pages listed and opened on their own, and not edited."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cairn.app.api import IngestRequest
from cairn.ui.base.session import Session
from cairn.ui.detail.pane import DetailPane
from cairn.ui.writing.note_editor import NoteEditor
from tests.app.ingest_files import pdf_bytes, write
from tests.ui.detail.test_detail_pane import make_pane, show
from tests.ui.search.test_result_groups import KILN

WAIT_MS = 10_000


def _ingested(session: Session, tmp_path: Path) -> dict[str, str]:
    folder = write(
        tmp_path / "notes",
        {"Kiln log.md": KILN, "invoice.pdf": pdf_bytes([["Kiln shelves."], ["Total 120 euros."]])},
    )
    service = session.service
    assert service is not None
    service.ingest(IngestRequest.of([folder]))
    scopes = service.scopes()
    kiln = next(n for n in service.list_memories(scopes=scopes, shelf="Note"))
    invoice = next(n for n in service.list_memories(scopes=scopes, shelf="Document"))
    cooling = next(
        s for s in service.sections(kiln.id, scopes=scopes) if s.title.endswith("Cooling")
    )
    pages = service.sections(invoice.id, scopes=scopes)
    return {"kiln": kiln.id, "invoice": invoice.id, "cooling": cooling.id, "page2": pages[1].id}


def test_a_note_is_its_text_rendered_with_the_search_words_marked(
    qtbot: Any, open_session: Session, tmp_path: Path
) -> None:
    ids = _ingested(open_session, tmp_path)
    pane = make_pane(qtbot, open_session)
    pane.mark_query("glaze crazed")
    show(qtbot, pane, ids["kiln"])
    text = pane.text_view.toPlainText()
    assert "Glaze firing" in text and "the celadon glaze crazed" in text
    assert "##" not in text and "**" not in text and "`" not in text  # rendered, not raw
    assert pane.text_view.marks == 5  # "glaze" four times, "crazed" once
    assert pane.marks_label.text() == "5 places marked for “crazed”, “glaze”"
    assert pane.sections_list.labels()[-3:] == ["Bisque firing", "Glaze firing", "Cooling"]
    assert not any("part_of" in label or "part of" in label for label in pane.links_list.labels())
    attributes = pane.attrs_label.text()
    assert "sha256" not in attributes.lower() and "media type" not in attributes.lower()


def test_a_section_opened_shows_its_note_at_that_section(
    qtbot: Any, open_session: Session, tmp_path: Path
) -> None:
    ids = _ingested(open_session, tmp_path)
    pane = make_pane(qtbot, open_session)
    pane.resize(520, 260)  # small enough that the last section needs scrolling to
    show(qtbot, pane, ids["cooling"])
    assert pane.current_node_id == ids["kiln"]
    qtbot.waitUntil(lambda: pane._scroll.verticalScrollBar().value() > 0, timeout=WAIT_MS)
    # The shade where the section begins is said in words too, above the text.
    said = "Opened at the section “Cooling”, shaded where it begins."
    assert pane.marks_label.text() == said and pane.marks_label.isVisible()
    show(qtbot, pane, ids["invoice"])  # another memory: nothing opened at a section
    assert "Opened at" not in pane.marks_label.text()


def test_a_pdf_lists_its_pages_opens_them_alone_and_is_not_edited(
    qtbot: Any, open_session: Session, tmp_path: Path
) -> None:
    ids = _ingested(open_session, tmp_path)
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, ids["invoice"])
    assert pane.sections_list.labels() == ["p. 1", "p. 2"]
    # Its words, read from it, page by page: the Document itself keeps none.
    shown = pane.text_view.toPlainText()
    assert shown.index("[p. 1]") < shown.index("Kiln shelves.") < shown.index("[p. 2]")
    assert "Total 120 euros." in shown
    assert not pane.edit_button.isEnabled()
    assert "kept as it was read" in pane.edit_button.toolTip()
    with qtbot.waitSignal(pane.open_requested, timeout=WAIT_MS) as opened:
        pane.open_section(ids["page2"])
    assert opened.args == [ids["page2"]]


def test_edit_on_a_typed_note_opens_the_note_editor(qtbot: Any, open_session: Session) -> None:
    service = open_session.service
    assert service is not None
    note = service.write("Note", "Glaze recipe", "# Celadon\n\n- 40% feldspar\n- 30% silica")
    pane: DetailPane = make_pane(qtbot, open_session)
    show(qtbot, pane, str(note.id))
    assert "Celadon" in pane.text_view.toPlainText() and "#" not in pane.text_view.toPlainText()
    editor = pane.edit_current()
    assert isinstance(editor, NoteEditor)
    qtbot.addWidget(editor)
    assert editor.body.toPlainText().startswith("# Celadon") and not editor.about.isVisible()


def test_a_link_in_the_text_opens_the_memory_it_names(qtbot: Any, open_session: Session) -> None:
    from PySide6.QtCore import QUrl

    from cairn.app.api import link_target

    service = open_session.service
    assert service is not None
    ada = service.write("Person", "Ada Brook", "Sailing instructor.").node
    text = "Ask [[Ada Brook]] about the course.\nid:: 6018fb3e-6bb0-4ab5-9b94-fd0f0a4f4f1a\n"
    note = service.write("Note", "Course", text).node
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, str(note.id))
    shown = pane.text_view.toPlainText()
    assert "Ask Ada Brook about the course." in shown and "id::" not in shown and "[[" not in shown
    html = pane.text_view.document().toHtml()
    assert "cairn-link:Ada%20Brook" in html
    with qtbot.waitSignal(pane.open_requested, timeout=WAIT_MS) as opened:
        pane.text_view.anchorClicked.emit(QUrl("cairn-link:Ada%20Brook"))
    assert opened.args == [ada.id]
    assert link_target("cairn-link:Nowhere%20Land") == "Nowhere Land"
    pane.text_view.anchorClicked.emit(QUrl("cairn-link:Nowhere%20Land"))
    said = "No memory is called “Nowhere Land”"
    qtbot.waitUntil(lambda: said in pane.notice.text(), timeout=WAIT_MS)


def test_places_shared_by_sections_are_told_apart_and_seconds_are_a_clock() -> None:
    from cairn.app.api import Node
    from cairn.ui.detail.parts import attrs_html, section_entries

    def page(number: int, text: str) -> Node:
        return Node(
            id=f"p{number}{text[:3]}",
            type="Passage",
            title=f"scan — p. {number}",
            body=text,
            attrs={},
            status="active",
            scope="personal",
            source=None,
            locator=None,
            valid_from=None,
            valid_to=None,
            recorded_at="2026-01-01T00:00:00+00:00",
            updated_at="2026-01-01T00:00:00+00:00",
            importance=0.5,
            stability=1.0,
            last_access=None,
            access_count=0,
            retention_label=None,
        )

    entries = section_entries([page(1, "a"), page(2, "bbb"), page(2, "ccc")], "scan")
    assert [e.label for e in entries] == ["p. 1", "p. 2", "p. 2, part 2"]
    shown = attrs_html({"duration_s": 671.0, "pages": 4})
    assert "Duration" in shown and "11:11" in shown and "Duration s" not in shown
