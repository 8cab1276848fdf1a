"""The detail pane on a real vault: what it shows of a memory, following links and versions,
the actions (edit, supersede, link, archive, forget), and opening a source at its place."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from cairn.app.ingestion.request import IngestRequest
from cairn.ui.base.session import Session
from cairn.ui.detail.pane import DetailPane
from cairn.ui.memory.forget_question import forget_warning
from cairn.ui.memory.open_at import file_url, missing_file_text, plan_open
from cairn.ui.memory.pickers import (
    LinkDialog,
    MemoryPicker,
    allowed_links,
    likely_link,
    relation_words,
)
from cairn.ui.writing.memory_form import MemoryForm
from cairn.ui.writing.note_editor import NoteEditor
from tests.app.dedup.test_review_queue import KEY, KEY_REWORDED
from tests.app.ingest_files import pdf_bytes

WAIT_MS = 5000


def service_of(session: Session) -> Any:
    assert session.service is not None
    return session.service


def seed(session: Session) -> dict[str, str]:
    service = service_of(session)
    note = service.write(
        "Note",
        "Sailing course",
        "Weekend sailing course at the yacht club, with knots and capsizing drills.",
        attrs={"tags": ["sea", "sport"]},
    )
    person = service.write("Person", "Bruno Keel", "Sailing instructor.")
    fact = service.write("Fact", "Club fee", "The yacht club fee is 120 euros a year.")
    service.link(note.id, person.id, "involves", scopes=service.scopes())
    return {"note": str(note.id), "person": str(person.id), "fact": str(fact.id)}


def make_pane(qtbot: Any, session: Session) -> DetailPane:
    pane = DetailPane(session)
    qtbot.addWidget(pane)
    pane.resize(520, 800)
    pane.show()
    return pane


def show(qtbot: Any, pane: DetailPane, node_id: str) -> None:
    with qtbot.waitSignal(pane.loaded, timeout=WAIT_MS):
        pane.show_node(node_id)


def act(qtbot: Any, pane: DetailPane, start: Any, name: str) -> None:
    """Start an action and wait until it is done and the pane has reloaded."""
    done: list[str] = []
    pane.action_done.connect(done.append)
    with qtbot.waitSignals([pane.action_done, pane.loaded], timeout=WAIT_MS):
        start()
    pane.action_done.disconnect(done.append)
    assert done == [name]


def click_item(qtbot: Any, entries: Any, row: int) -> None:
    rect = entries.visualItemRect(entries.item(row))
    qtbot.mouseClick(entries.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_shows_body_attributes_links_and_history(qtbot: Any, open_session: Session) -> None:
    ids = seed(open_session)
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, ids["note"])
    assert pane.current_node_id == ids["note"]
    assert pane.title_label.text() == "Sailing course"
    assert "capsizing drills" in pane.text_view.toPlainText()
    assert "Note" in pane.meta_label.text()
    assert "Tags" in pane.attrs_label.text() and "sea, sport" in pane.attrs_label.text()
    links = pane.links_list.labels()
    assert links == ["→ involves: Bruno Keel (person)"]  # the badge's type, in words
    assert not pane.history_list.isVisible()  # one version: no history to show
    assert pane.edit_button.isEnabled() and pane.forget_button.isEnabled()

    # Following the link asks to open the person.
    with qtbot.waitSignal(pane.open_requested, timeout=WAIT_MS) as opened:
        click_item(qtbot, pane.links_list, 0)
    assert opened.args == [ids["person"]]

    # A person can be linked, forgotten, and edited: the pack keeps versions of one (pack 4).
    show(qtbot, pane, ids["person"])
    assert pane.links_list.labels() == ["← involves: Sailing course (note)"]
    assert pane.edit_button.isEnabled()


def test_edit_writes_a_new_version_and_keeps_the_old(qtbot: Any, open_session: Session) -> None:
    ids = seed(open_session)
    service = service_of(open_session)
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, ids["fact"])
    act(qtbot, pane, lambda: pane.save_edit("Club fee", "The club fee is 150 euros."), "edit")

    new_id = pane.current_node_id
    assert new_id is not None and new_id != ids["fact"]
    assert "150 euros" in pane.text_view.toPlainText()
    history = service.history(new_id, scopes=service.scopes())
    assert [entry.id for entry in history.chain] == [ids["fact"], new_id]
    assert history.chain[0].status == "superseded"
    assert pane.history_list.isVisible() and pane.history_list.count() == 2
    # Each version says what it changed from the one before, and all it said on hover.
    newest = pane.history_list.item(1)
    assert "[-120 euros a year.-] {+150 euros.+}" in newest.text().splitlines()[1]
    assert newest.toolTip() == "The club fee is 150 euros."

    # The older version is one click away, and says what it is.
    with qtbot.waitSignal(pane.open_requested, timeout=WAIT_MS) as opened:
        click_item(qtbot, pane.history_list, 0)
    assert opened.args == [ids["fact"]]
    show(qtbot, pane, ids["fact"])
    assert "superseded" in pane.meta_label.text()
    assert not pane.edit_button.isEnabled()

    # Through Edit: the fact's form, new words, Save; the pane shows the new version.
    show(qtbot, pane, new_id)
    form = pane.edit_current()
    assert isinstance(form, MemoryForm) and form.title.text() == "Club fee"
    qtbot.addWidget(form)
    form.body.setPlainText("The club fee is 160 euros.")
    with qtbot.waitSignal(pane.loaded, timeout=WAIT_MS):
        form.save()
    assert "160 euros" in pane.text_view.toPlainText()
    assert len(service.history(new_id, scopes=service.scopes()).chain) == 3


def test_an_edited_ingested_note_keeps_its_links(
    qtbot: Any, open_session: Session, tmp_path: Path
) -> None:
    """Edit and Save on a note read from a notes folder: the new version shows every link the
    old one had, the reading list's link to it among them."""
    service = service_of(open_session)
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "Reading list.md").write_text("Next: [[Harbour history]].\n", encoding="utf-8")
    (folder / "Harbour history.md").write_text(
        "The old pier was built in 1884. See [[Ferry times]].\n", encoding="utf-8"
    )
    (folder / "Ferry times.md").write_text("The ferry leaves at 7:40.\n", encoding="utf-8")
    service.ingest(IngestRequest.of([folder]))
    [note] = [
        n
        for n in service.list_memories(scopes=service.scopes(), types=["Document"])
        if n.title == "Harbour history"
    ]
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, note.id)
    before = set(pane.links_list.labels())
    assert "← references: Reading list (document)" in before
    assert "→ references: Ferry times (document)" in before

    editor = pane.edit_current()
    assert isinstance(editor, NoteEditor)
    assert "the file itself is not changed" in editor.about.text()
    assert editor.body.toPlainText().startswith("The old pier was built in 1884.")
    editor.body.setPlainText("The pier dates from 1884. See [[Ferry times]].")
    with qtbot.waitSignal(pane.loaded, timeout=WAIT_MS * 3):
        editor.save()
    assert pane.current_node_id != note.id
    assert pane.text_view.toPlainText().startswith("The pier dates from 1884.")
    assert (folder / "Harbour history.md").read_text(encoding="utf-8").startswith("The old pier")
    after = set(pane.links_list.labels())
    assert before <= after, before - after


def test_supersede_and_link_actions(qtbot: Any, open_session: Session) -> None:
    ids = seed(open_session)
    service = service_of(open_session)
    newer = service.write("Fact", "Club fee 2025", "From 2025 the yacht club fee is 140 euros.")
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, ids["fact"])
    act(qtbot, pane, lambda: pane.supersede_with(str(newer.id)), "supersede")
    assert pane.current_node_id == newer.id
    chain = service.history(ids["fact"], scopes=service.scopes()).chain
    assert [entry.id for entry in chain] == [ids["fact"], newer.id]

    act(qtbot, pane, lambda: pane.link_to(ids["note"], "relates_to"), "link")
    links = pane.links_list.labels()
    assert "— relates to: Sailing course (note)" in links

    # A link the pack does not allow fails with the service's sentence, in a message box.
    with qtbot.waitSignal(pane.loaded, timeout=WAIT_MS):
        pane.link_to(ids["person"], "works_at")
    qtbot.waitUntil(lambda: bool(pane.findChildren(QMessageBox)), timeout=WAIT_MS)
    box = pane.findChildren(QMessageBox)[0]
    assert box.text() == pane.last_error and box.text()
    box.close()


def test_archive_hides_from_search_and_unarchive_brings_back(
    qtbot: Any, open_session: Session
) -> None:
    ids = seed(open_session)
    service = service_of(open_session)
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, ids["note"])

    def found() -> bool:
        hits = service.search("sailing course", scopes=service.scopes(), limit=25).results
        return ids["note"] in [hit.id for hit in hits]

    assert found()
    changed: list[bool] = []
    open_session.changed.connect(lambda: changed.append(True))
    act(qtbot, pane, pane.archive_button.click, "archive")
    assert changed and not found()
    assert pane.archive_button.text() == "Unarchive"
    act(qtbot, pane, pane.archive_button.click, "unarchive")
    assert found() and pane.archive_button.text() == "Archive"


def test_forget_asks_first_then_removes(qtbot: Any, open_session: Session) -> None:
    ids = seed(open_session)
    service = service_of(open_session)
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, ids["note"])
    detail = service.get([ids["note"]], scopes=service.scopes()).nodes[0]
    warning = forget_warning(detail)
    assert "cannot be undone" in warning and "Sailing course" in warning

    def answer(box: QMessageBox | None, role: QMessageBox.ButtonRole) -> None:
        assert box is not None and box.isVisible() and box.text() == warning
        assert box.isModal()  # window-modal, opened without a nested event loop
        button = next(b for b in box.buttons() if box.buttonRole(b) == role)
        button.click()

    answer(pane.forget_current(), QMessageBox.ButtonRole.RejectRole)  # cancelled: nothing goes
    assert service.get([ids["note"]], scopes=service.scopes()).nodes
    qtbot.waitUntil(lambda: not pane.findChildren(QMessageBox))  # the question did not stay

    forgotten: list[str] = []
    pane.node_forgotten.connect(forgotten.append)
    with qtbot.waitSignal(pane.action_done, timeout=WAIT_MS):
        answer(pane.forget_current(), QMessageBox.ButtonRole.DestructiveRole)
    assert forgotten == [ids["note"]]
    assert service.get([ids["note"]], scopes=service.scopes()).missing == [ids["note"]]
    hits = service.search("sailing course", scopes=service.scopes(), limit=25).results
    assert ids["note"] not in [hit.id for hit in hits]
    assert pane.current_node_id is None and "Forgotten" in pane.empty_label.text()
    assert pane.title_label.text() == ""


def test_a_passage_opens_its_file_at_its_page(
    qtbot: Any, open_session: Session, tmp_path: Path
) -> None:
    service = service_of(open_session)
    pdf = tmp_path / "tide-tables.pdf"
    pdf.write_bytes(
        pdf_bytes([["Tide tables for the north harbour."], ["Spring tides peak in March."]])
    )
    report = service.ingest(IngestRequest.of([pdf]))
    assert not report.failed
    hits = service.search("spring tides march", scopes=service.scopes(), limit=5).results
    passage = next(hit for hit in hits if hit.type == "Passage")
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, passage.id)
    assert pane.source_label.text() == "From tide-tables.pdf, page 2"
    assert pane.open_button.text() == "Open at page 2" and pane.open_button.isVisible()

    pdf.unlink()  # the file is gone: the pane says so instead of failing quietly
    pane.open_button.click()
    assert pane.notice.text() == missing_file_text(pdf)
    assert "no longer there" in pane.notice.text()


def test_open_plans_a_page_or_a_time() -> None:
    def only(*installed: str) -> Any:
        return lambda name: f"/usr/bin/{name}" if name in installed else None

    pdf = plan_open("/docs/report.pdf", {"page": 12}, only("okular", "zathura"))
    assert (pdf.program, pdf.arguments) == ("/usr/bin/okular", ("--page", "12", "/docs/report.pdf"))
    assert pdf.where == "page 12" and pdf.at_place
    evince = plan_open("/docs/report.pdf", {"page": 3}, only("evince"))
    assert evince.arguments == ("--page-index=3", "/docs/report.pdf")
    zathura = plan_open("/docs/report.pdf", {"page": 3}, only("zathura"))
    assert zathura.arguments == ("--page=3", "/docs/report.pdf")
    qpdfview = plan_open("/docs/report.pdf", {"page": 3}, only("qpdfview"))
    assert qpdfview.arguments == ("/docs/report.pdf#3",)

    audio = plan_open("/rec/memo.mp3", {"start_s": 83.0, "end_s": 95.0}, only("vlc", "mpv"))
    assert (audio.program, audio.arguments) == ("/usr/bin/mpv", ("--start=83", "/rec/memo.mp3"))
    assert audio.where == "1:23"
    vlc = plan_open("/rec/memo.mp3", {"start_s": 83.5}, only("vlc"))
    assert vlc.arguments == ("--start-time=83.50", "/rec/memo.mp3")

    fallback = plan_open("/docs/report.pdf", {"page": 12}, only())
    assert fallback.program is None and fallback.where == "page 12" and not fallback.at_place
    whole = plan_open("/docs/notes.md", None, only("evince"))
    assert whole.program is None and whole.where == ""


def test_link_dialog_offers_only_what_the_pack_allows(qtbot: Any, open_session: Session) -> None:
    ids = seed(open_session)
    service = service_of(open_session)
    pack = service.pack_rules()
    options = allowed_links(pack, "Note", "Sailing course", "Person", "Bruno Keel")
    kinds = {(option.edge_type, option.outgoing) for option in options}
    assert ("involves", True) in kinds and ("mentions", True) in kinds
    assert ("works_at", True) not in kinds and "supersedes" not in {o.edge_type for o in options}

    dialog = LinkDialog(open_session, pack, ids["note"], "Note", "Sailing course")
    qtbot.addWidget(dialog)
    qtbot.keyClicks(dialog.search_field, "Bruno")
    qtbot.waitUntil(lambda: dialog.model.rowCount() > 0, timeout=WAIT_MS)
    assert ids["note"] not in [row.node_id for row in dialog.model.rows()]
    dialog.results_view.setCurrentIndex(dialog.model.index(0))
    chosen = dialog.chosen_link()
    assert chosen is not None
    row, option = chosen
    assert row.node_id == ids["person"] and option.edge_type in {o.edge_type for o in options}
    # The choice made first is the likely one, not the alphabetically first.
    assert (option.edge_type, option.outgoing) == ("involves", True)
    assert dialog.relation.currentText() == "this note — involves → Bruno Keel"
    assert dialog.relation.toolTip() == "Sailing course — involves → Bruno Keel"
    assert dialog.relation.accessibleName() == "How they are related"


def test_link_choices_are_short_with_the_direction_said_once(open_session: Session) -> None:
    pack = service_of(open_session).pack_rules()
    long_title = "Marta Lindqvist from the garden club lends me her ladder"
    fact_title = "The wifi password at the cabin is on the fridge"
    options = allowed_links(pack, "Fact", fact_title, "Person", long_title)
    labels = [option.label for option in options]
    assert "this fact — involves → Marta Lindqvist from the garden…" in labels
    assert "this fact — relates to — Marta Lindqvist from the garden…" in labels
    assert all(len(label) <= 72 for label in labels)
    assert all(label.count("→") + label.count("—") == 2 for label in labels)
    assert all(fact_title not in label for label in labels)  # said as "this fact"
    involves = next(o for o in options if o.edge_type == "involves")
    assert involves.sentence == f"{fact_title} — involves → {long_title}"

    def likely(this: str, other: str) -> tuple[str, bool, str]:
        choices = allowed_links(pack, this, "This", other, "Other")
        chosen = choices[likely_link(pack, choices, this, other)]
        return chosen.edge_type, chosen.outgoing, chosen.label

    assert likely("Fact", "Person") == ("involves", True, "this fact — involves → Other")
    assert likely("Person", "Organization")[:2] == ("works_at", True)
    assert likely("Person", "Person") == ("knows", True, "this person — knows — Other")
    assert likely("Person", "Project") == ("involves", False, "Other — involves → this person")
    assert likely("Note", "Note")[:2] == ("references", True)
    assert likely("Fact", "Fact")[:2] == ("references", True)  # a fact is not "involved"
    assert relation_words("part_of") == "is part of" and relation_words("mentions") == "mentions"


def test_replace_with_asks_in_a_dialog_that_goes_once_used(
    qtbot: Any, open_session: Session
) -> None:
    ids = seed(open_session)
    service = service_of(open_session)
    newer = service.write("Fact", "Club fee 2025", "From 2025 the yacht club fee is 140 euros.")
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, ids["fact"])
    picker = pane.supersede_current()
    assert picker is not None and picker.isVisible() and picker.isModal()
    qtbot.keyClicks(picker.search_field, "club fee 2025")
    picker.search_now()
    qtbot.waitUntil(lambda: picker.model.rowCount() > 0, timeout=WAIT_MS)
    rows = [picker.model.row_at(picker.model.index(r, 0)) for r in range(picker.model.rowCount())]
    picker.results_view.setCurrentIndex(
        picker.model.index([r.node_id for r in rows].index(newer.id), 0)
    )
    with qtbot.waitSignals([pane.action_done, pane.loaded], timeout=WAIT_MS):
        picker.accept()
    assert pane.current_node_id == newer.id
    qtbot.waitUntil(lambda: not pane.findChildren(MemoryPicker))  # deleted once closed
    picker = pane.supersede_current()
    assert picker is not None
    picker.reject()  # cancelled: nothing changes, and it goes too
    qtbot.waitUntil(lambda: not pane.findChildren(MemoryPicker))
    chain = service.history(ids["fact"], scopes=service.scopes()).chain
    assert [entry.id for entry in chain] == [ids["fact"], newer.id]


def test_lock_clears_the_pane(qtbot: Any, open_session: Session) -> None:
    ids = seed(open_session)
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, ids["note"])
    open_session.lock()
    assert pane.current_node_id is None
    assert pane.title_label.text() == "" and pane.text_view.toPlainText() == ""
    assert pane.links_list.count() == 0


def test_a_memory_awaiting_review_says_so_until_it_is_settled(
    qtbot: Any, open_session: Session
) -> None:
    service = service_of(open_session)
    first = service.write("Note", *KEY)
    second = service.write("Note", *KEY_REWORDED)
    assert second.outcome == "pending", second.matched
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, str(second.id))
    line = pane.review_label.text()
    assert line.startswith("Awaiting review: may repeat “Spare key” (similar (")
    assert "waiting for review" in line and "review panel" in line
    assert pane.review_label.isVisible()
    assert "active" not in pane.meta_label.text()  # an ordinary kept memory otherwise

    show(qtbot, pane, str(first.id))
    assert pane.review_label.text() == "" and not pane.review_label.isVisible()

    service.resolve_duplicate(second.verdict, "distinct", scopes=service.scopes())
    show(qtbot, pane, str(second.id))
    assert not pane.review_label.isVisible()
    assert pane.links_list.labels() == ["— relates to: Spare key (note)"]


def test_a_file_whose_name_is_not_utf8_opens_by_its_bytes(tmp_path: Path) -> None:
    real = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9.pdf"))
    real.write_bytes(b"%PDF-1.4\n")
    shown = str(tmp_path) + "/caf\\xe9.pdf"  # how the vault keeps and shows its source
    plan = plan_open(shown, {"page": 2}, lambda name: f"/usr/bin/{name}")
    assert plan.path == real and plan.path.exists()
    assert plan.program is None  # a viewer's command line would get other bytes
    assert file_url(plan.path).toEncoded().data().endswith(b"/caf%E9.pdf")
    assert file_url(Path("/docs/café.pdf")).toEncoded().data() == b"file:///docs/caf%C3%A9.pdf"
