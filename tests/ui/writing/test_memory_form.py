"""The form for a new memory of any kind the pack names, and for editing one: fields by the
attributes' kinds, the pack's status words, required attributes, what a save came to in words,
edits as new versions (people too), and nothing left on screen once the vault locks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.ingestion.request import IngestRequest
from cairn.app.packs import Pack
from cairn.ui.base.session import Session
from cairn.ui.writing.attribute_fields import DateField, FlagField, ListField, StatusField
from cairn.ui.writing.editors import open_editor
from cairn.ui.writing.kinds import form_types
from cairn.ui.writing.memory_form import MemoryForm
from cairn.ui.writing.note_editor import NoteEditor
from tests.conftest import PASSPHRASE
from tests.ui.mnemonics import literal_ampersands

SAVE_MS = 15_000
CTRL = Qt.KeyboardModifier.ControlModifier


def _shown(qtbot: Any, form: MemoryForm) -> MemoryForm:
    """Shown and active, as the window shows it: its shortcuts work only then."""
    qtbot.addWidget(form)
    with qtbot.waitActive(form):
        form.show()
        form.activateWindow()
    return form


def _type_into(qtbot: Any, form: MemoryForm, name: str, text: str) -> None:
    field = form.fields[name]
    field.setFocus()
    qtbot.keyClicks(field.focusProxy(), text)


def _save(qtbot: Any, form: MemoryForm) -> str:
    with qtbot.waitSignal(form.saved, timeout=SAVE_MS) as saved:
        qtbot.keyClick(form.title, Qt.Key.Key_S, CTRL)
    return str(saved.args[0])


def _node(session: Session, node_id: str) -> Any:
    service = session.service
    return service.get([node_id], scopes=service.scopes()).nodes[0].node


def test_the_form_offers_every_kind_a_person_writes_by_hand(open_session: Session) -> None:
    kinds = form_types(open_session.service.node_types())
    assert kinds[:6] == ["Fact", "Person", "Place", "Project", "Commitment", "Event"]
    assert sorted(kinds[6:]) == ["Organization", "Preference", "Topic"]
    assert "Note" not in kinds and "Document" not in kinds and "Passage" not in kinds


def test_a_person_with_an_email_and_a_birthday_is_read_back_by_kind(
    qtbot: Any, open_session: Session
) -> None:
    form = _shown(qtbot, MemoryForm(open_session, type_name="Person"))
    assert literal_ampersands(form) == []
    assert isinstance(form.fields["birthday"], DateField)
    assert isinstance(form.fields["aliases"], ListField)
    qtbot.keyClicks(form.title, "Ada Lindqvist")
    qtbot.keyClicks(form.body, "Repairs boats at the harbour.")
    _type_into(qtbot, form, "email", "ada@kade.example")
    _type_into(qtbot, form, "birthday", "1984-06-02")
    _type_into(qtbot, form, "aliases", "Ada, A. L., Ada")
    assert form.fields["aliases"].hint.text() == "2 values: Ada · A. L."
    assert "1984" in form.fields["birthday"].hint.text()  # the date said back in words
    node_id = _save(qtbot, form)

    node = _node(open_session, node_id)
    assert (node.type, node.title, node.body) == (
        "Person",
        "Ada Lindqvist",
        "Repairs boats at the harbour.",
    )
    assert node.attrs == {
        "email": "ada@kade.example",
        "birthday": "1984-06-02",
        "aliases": ["Ada", "A. L."],
    }
    assert form.notice.text() == "Stored as a new person."
    assert form.open_button.isVisible() and form.editing
    with qtbot.waitSignal(form.open_requested) as opened:
        qtbot.mouseClick(form.open_button, Qt.MouseButton.LeftButton)
    assert opened.args == [node_id]


def test_a_wrong_date_is_refused_in_a_sentence_and_the_text_stays(
    qtbot: Any, open_session: Session
) -> None:
    service = open_session.service
    form = _shown(qtbot, MemoryForm(open_session, type_name="Event"))
    qtbot.keyClicks(form.title, "Harbour festival")
    _type_into(qtbot, form, "date", "2025-02-30")
    assert form.fields["date"].hint.text() == "Not a date yet: YYYY-MM-DD."
    qtbot.keyClick(form.title, Qt.Key.Key_S, CTRL)
    assert "Date is a date: write it as 2024-03-01" in form.notice.text()
    assert form.fields["date"].focusProxy().hasFocus()
    assert service.list_memories(scopes=service.scopes(), types=["Event"]) == []
    assert form.title.text() == "Harbour festival"


def test_a_projects_status_is_chosen_from_the_packs_words(
    qtbot: Any, open_session: Session
) -> None:
    form = _shown(qtbot, MemoryForm(open_session, type_name="Project"))
    status = form.fields["status"]
    assert isinstance(status, StatusField)
    assert "status_note" not in form.fields  # the status field holds the person's own words
    combo = status.focusProxy()
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "planned",
        "active",
        "paused",
        "done",
    ]
    qtbot.keyClicks(form.title, "Garden shed")
    status.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Down)  # the first word
    qtbot.keyClick(combo, Qt.Key.Key_Down)  # the next one
    assert combo.currentText() == "active"
    node = _node(open_session, _save(qtbot, form))
    assert node.attrs == {"status": "active"}

    # A word of the pack's synonyms is said back, and stored as what it means.
    other = _shown(qtbot, MemoryForm(open_session, type_name="Project"))
    qtbot.keyClicks(other.title, "Boat repair")
    _type_into(qtbot, other, "status", "on hold")
    assert other.fields["status"].hint.text() == "Means “paused”."
    assert _node(open_session, _save(qtbot, other)).attrs == {"status": "paused"}

    # A word of the person's own is kept as the status note.
    own = _shown(qtbot, MemoryForm(open_session, type_name="Project"))
    qtbot.keyClicks(own.title, "Attic")
    _type_into(qtbot, own, "status", "waiting for spring")
    assert "Your own words" in own.fields["status"].hint.text()
    assert _node(open_session, _save(qtbot, own)).attrs == {"status_note": "waiting for spring"}


REQUIRED_PACK = """
[pack]
name = "clinic"
version = 1

[types.Person]
family = "entity"
attrs.phone = { kind = "string" }

[types.Medicine]
family = "memory"
description = "A medicine someone takes."
attrs.dose = { kind = "string", required = true, description = "How much, how often." }
attrs.refills = { kind = "number" }

[edges.relates_to]
layer = "semantic"
directed = false
rules = [["*", "*"]]
"""


@pytest.fixture
def clinic_session(qtbot: Any, tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[Session]:
    """A session on a vault of a pack whose Medicine has a required dose."""
    vault = compose.new_vault(
        tmp_path / "clinic.cairn", PASSPHRASE, pack=Pack.from_toml(REQUIRED_PACK, "clinic")
    )
    session = Session()
    session.service, session.path = compose.service_for(vault, embedder), tmp_path / "c.cairn"
    yield session
    session.lock()


def test_a_required_attribute_is_refused_until_filled(qtbot: Any, clinic_session: Session) -> None:
    service = clinic_session.service
    assert form_types(service.node_types()) == ["Person", "Medicine"]
    form = _shown(qtbot, MemoryForm(clinic_session, type_name="Medicine"))
    label = form._form.labelForField(form.fields["dose"])
    assert label.text() == "&Dose (required):" and label.toolTip() == "How much, how often."
    dose = form.fields["dose"].focusProxy()
    assert dose.accessibleName() == "Dose"
    assert dose.accessibleDescription() == "Required. How much, how often."
    qtbot.keyClicks(form.title, "Iron tablets")
    _type_into(qtbot, form, "refills", "2")
    qtbot.keyClick(form.title, Qt.Key.Key_S, CTRL)
    assert form.notice.text() == "Fill in dose: a medicine needs it."
    assert dose.hasFocus()
    assert service.list_memories(scopes=service.scopes(), types=["Medicine"]) == []

    qtbot.keyClicks(dose, "one a day")
    node = _node(clinic_session, _save(qtbot, form))
    assert node.attrs == {"dose": "one a day", "refills": 2}


def test_an_edit_of_a_fact_is_a_new_version_with_the_new_value(
    qtbot: Any, open_session: Session
) -> None:
    service = open_session.service
    fact = service.write(
        "Fact", "Flat rent", "The rent of the flat.", attrs={"value": "900", "confidence": 0.9}
    ).node
    form = open_editor(open_session, fact)
    assert isinstance(form, MemoryForm) and form.editing and not form.kind.isEnabled()
    _shown(qtbot, form)
    assert form.fields["value"].text() == "900" and form.fields["confidence"].text() == "0.9"
    assert not form.save_button.isEnabled()  # nothing changed yet
    form.fields["value"].focusProxy().selectAll()
    _type_into(qtbot, form, "value", "950")
    new_id = _save(qtbot, form)

    chain = service.history(new_id, scopes=service.scopes()).chain
    assert [entry.id for entry in chain] == [fact.id, new_id]
    assert chain[0].attrs["value"] == "900" and chain[1].attrs["value"] == "950"
    assert "value: [-900-] {+950+}" in (chain[1].changes or "")
    assert _node(open_session, new_id).attrs == {"value": "950", "confidence": 0.9}
    assert form.notice.text().startswith("Saved as a new version")
    # The next save edits the newest version, not the one the form was opened on.
    _type_into(qtbot, form, "value", "0")
    third = _save(qtbot, form)
    assert [e.id for e in service.history(third, scopes=service.scopes()).chain][:2] == [
        fact.id,
        new_id,
    ]


def test_an_edit_of_a_person_keeps_the_old_number_findable(
    qtbot: Any, open_session: Session
) -> None:
    service = open_session.service
    person = service.write(
        "Person", "Bruno Keel", "Sailing instructor.", attrs={"phone": "0611 223 344"}
    ).node
    form = _shown(qtbot, open_editor(open_session, person))
    assert form.windowTitle() == "Bruno Keel"
    form.fields["phone"].focusProxy().clear()
    _type_into(qtbot, form, "phone", "0622 998 877")
    _type_into(qtbot, form, "occupation", "harbour master")
    new_id = _save(qtbot, form)

    assert _node(open_session, new_id).attrs == {
        "phone": "0622 998 877",
        "occupation": "harbour master",
    }
    found = service.search("0611 223 344", scopes=service.scopes(), include_history=True)
    assert (found.results[0].id, found.results[0].status) == (person.id, "superseded")
    history = service.history(new_id, scopes=service.scopes())
    assert history.chain[0].attrs == {"phone": "0611 223 344"}


def test_an_emptied_field_is_removed_by_the_edit(qtbot: Any, open_session: Session) -> None:
    service = open_session.service
    task = service.write(
        "Commitment", "Call the plumber", attrs={"due": "2025-05-01", "done": True}
    ).node
    form = _shown(qtbot, open_editor(open_session, task))
    assert isinstance(form.fields["done"], FlagField)
    form.fields["due"].focusProxy().clear()
    form.fields["done"].focusProxy().setChecked(False)
    new_id = _save(qtbot, form)
    assert _node(open_session, new_id).attrs == {"done": False}


def test_switching_kinds_keeps_what_both_have(qtbot: Any, open_session: Session) -> None:
    form = _shown(qtbot, MemoryForm(open_session, type_name="Fact"))
    qtbot.keyClicks(form.title, "Boat show")
    _type_into(qtbot, form, "tags", "sea, boats")
    form.kind.setCurrentIndex(form.kind.findData("Event"))
    assert set(form.fields) == {"date", "end", "location", "tags"}
    assert form.fields["tags"].text() == "sea, boats" and form.title.text() == "Boat show"
    assert form._form.labelForField(form.title).text() == "&Title:"
    form.kind.setCurrentIndex(form.kind.findData("Place"))
    assert form._form.labelForField(form.title).text() == "&Name:"  # an entity has a name
    assert form.windowTitle() == "• Boat show"


def test_what_a_save_came_to_is_said(qtbot: Any, open_session: Session) -> None:
    service = open_session.service
    kept = service.write("Person", "Marguerite Okafor", "Runs the bakery.").node
    form = _shown(qtbot, MemoryForm(open_session, type_name="Person"))
    qtbot.keyClicks(form.title, "Marguerite Okafor")
    _type_into(qtbot, form, "phone", "0644 100 200")
    assert _save(qtbot, form) == kept.id
    assert form.notice.text().startswith(
        "You have “Marguerite Okafor” already: what you wrote was added to that one"
    )
    assert _node(open_session, kept.id).attrs == {"phone": "0644 100 200"}

    # A name linked before it was described gets its description.
    note = service.write("Note", "Bread", "Rye bread from [[Tomas Berg]].").node
    stub_id = next(e.other_id for e in service.get([note.id], scopes=["personal"]).nodes[0].edges)
    stub = _node(open_session, stub_id)
    described = open_editor(open_session, stub)
    assert isinstance(described, MemoryForm) and not described.editing
    _shown(qtbot, described)
    assert described.title.text() == "Tomas Berg"
    described.kind.setCurrentIndex(described.kind.findData("Person"))
    qtbot.keyClicks(described.body, "The baker's apprentice.")
    assert _save(qtbot, described) == stub_id
    assert "was named in your memories before it had a description" in described.notice.text()
    assert _node(open_session, stub_id).type == "Person"


def test_a_likely_duplicate_held_back_can_be_saved_anyway(
    qtbot: Any, open_session: Session
) -> None:
    service = open_session.service
    service.change_setting("entity_mode", "block")
    service.write("Person", "Henrietta Vasquez", "Teaches violin.")
    form = _shown(qtbot, MemoryForm(open_session, type_name="Person"))
    qtbot.keyClicks(form.title, "Henrieta Vasquez")
    qtbot.keyClick(form.title, Qt.Key.Key_S, CTRL)
    qtbot.waitUntil(form.anyway_button.isVisible, timeout=SAVE_MS)
    assert form.notice.text().startswith("Not stored: it looks like “Henrietta Vasquez”")
    assert not form.editing
    with qtbot.waitSignal(form.saved, timeout=SAVE_MS) as saved:
        qtbot.mouseClick(form.anyway_button, Qt.MouseButton.LeftButton)
    assert _node(open_session, saved.args[0]).title == "Henrieta Vasquez"
    assert not form.anyway_button.isVisible()


def test_a_failed_save_keeps_the_text_and_says_so(
    qtbot: Any, open_session: Session, session_vault: Any
) -> None:
    form = _shown(qtbot, MemoryForm(open_session, type_name="Fact"))
    qtbot.keyClicks(form.title, "Locker code")
    _type_into(qtbot, form, "value", "4411")
    session_vault.close()
    form.save()
    qtbot.waitUntil(lambda: "try Save again" in form.notice.text(), timeout=SAVE_MS)
    assert form.fields["value"].text() == "4411" and form.dirty
    assert form.save_button.isEnabled()


def test_locking_clears_the_form(qtbot: Any, open_session: Session) -> None:
    form = _shown(qtbot, MemoryForm(open_session, type_name="Person"))
    qtbot.keyClicks(form.title, "Secret Person")
    _type_into(qtbot, form, "email", "secret@example.org")
    _save(qtbot, form)  # the notice names nothing, but a later one could: it goes too
    _type_into(qtbot, form, "phone", "0600")
    open_session.lock()
    assert form.title.text() == "" and form.body.toPlainText() == ""
    assert all(field.text() == "" for field in form.fields.values())
    assert form.notice.text() == "" and not form.isVisible()
    assert form.result() == MemoryForm.DialogCode.Rejected


def test_open_editor_opens_the_right_editor(qtbot: Any, open_session: Session) -> None:
    service = open_session.service
    note = service.write("Note", "Ferry times", "The first ferry leaves at 7:10.").node
    editor = open_editor(open_session, note)
    assert isinstance(editor, NoteEditor) and editor.node_id == note.id
    assert editor.isVisible() and editor.title.text() == "Ferry times"
    with qtbot.waitSignal(editor.destroyed):  # it goes once closed
        editor.close()
    place = service.write("Place", "Harbour Lane").node
    form = open_editor(open_session, place)
    qtbot.addWidget(form)
    assert isinstance(form, MemoryForm) and form.node_id == place.id
    assert form.windowTitle() == "Harbour Lane"
    # An older version is history: it is not edited.
    newer = service.revise(place.id, "Harbour Lane", "Where the ferry leaves.", scopes=["personal"])
    old = service.get([place.id], scopes=["personal"]).nodes[0].node
    assert old.status == "superseded" and len(newer.chain) == 2
    assert open_editor(open_session, old) is None


def test_a_file_opens_the_note_editor_if_it_is_a_note_and_nothing_if_not(
    qtbot: Any, open_session: Session, tmp_path: Path
) -> None:
    service = open_session.service
    (tmp_path / "garden.md").write_text("# Garden\n\nWater the beans early.\n")
    (tmp_path / "page.html").write_text("<html><body><p>Tram timetable.</p></body></html>")
    report = service.ingest(IngestRequest.of([tmp_path / "garden.md", tmp_path / "page.html"]))
    assert not report.failed
    documents = service.list_memories(scopes=service.scopes(), types=["Document"])
    by_type = {node.attrs.get("media_type"): node for node in documents}
    note_file = open_editor(open_session, by_type["text/markdown"])
    assert isinstance(note_file, NoteEditor)
    with qtbot.waitSignal(note_file.destroyed):
        note_file.close()
    assert open_editor(open_session, by_type["text/html"]) is None  # edited where it lives


def test_closing_with_unsaved_text_asks_first(qtbot: Any, open_session: Session) -> None:
    service = open_session.service
    form = _shown(qtbot, MemoryForm(open_session, type_name="Place"))
    qtbot.keyClicks(form.title, "Lighthouse")
    qtbot.keyClick(form.title, Qt.Key.Key_Escape)
    question = form.close_question
    assert question is not None and form.isVisible()
    assert question.text() == "This place has changes that are not saved."
    qtbot.mouseClick(question.button(QMessageBox.StandardButton.Discard), Qt.MouseButton.LeftButton)
    assert not form.isVisible() and form.close_question is None
    assert service.list_memories(scopes=service.scopes(), types=["Place"]) == []


def test_tab_goes_down_the_form_as_it_reads(qtbot: Any, open_session: Session) -> None:
    form = _shown(qtbot, MemoryForm(open_session, type_name="Person"))
    form.kind.setCurrentIndex(form.kind.findData("Event"))  # fields made anew: still in order
    qtbot.waitUntil(form.fields["tags"].isVisible)  # a layout shows new widgets a moment later
    form.title.setFocus()
    visited = []
    for _ in range(7):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        visited.append(QApplication.focusWidget())
    date, end = form.fields["date"], form.fields["end"]
    assert visited == [
        form.body,
        date.focusProxy(),
        date.pick_button,
        end.focusProxy(),
        end.pick_button,
        form.fields["location"].focusProxy(),
        form.fields["tags"].focusProxy(),
    ]


def test_a_likeness_is_said_with_the_memory_it_is_like(qtbot: Any, open_session: Session) -> None:
    service = open_session.service
    service.write("Fact", "Spare key", "The spare house key is under the blue flower pot.")
    alike = _shown(qtbot, MemoryForm(open_session, type_name="Fact"))
    qtbot.keyClicks(alike.title, "Hidden key")
    qtbot.keyClicks(alike.body, "A spare key to the house sits beneath the blue plant pot.")
    _save(qtbot, alike)
    assert alike.notice.text().startswith(
        "Stored, and marked awaiting review: it may repeat “Spare key”."
    )

    service.write("Fact", "The rent is 900 euros a month.")
    changed = _shown(qtbot, MemoryForm(open_session, type_name="Fact"))
    qtbot.keyClicks(changed.title, "The rent is 950 euros a month.")
    _save(qtbot, changed)
    said = changed.notice.text()
    assert said.startswith("Stored, and linked to “The rent is 900 euros a month.”")
    assert "It may contradict that one" in said

    again = _shown(qtbot, MemoryForm(open_session, type_name="Fact"))
    qtbot.keyClicks(again.title, "Spare key")
    qtbot.keyClicks(again.body, "The spare house key is under the blue flower pot.")
    kept = _save(qtbot, again)
    assert again.notice.text().startswith("You had this already: it was added to “Spare key”")
    assert again.node_id == kept  # the form now shows the memory it was added to
