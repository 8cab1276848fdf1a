"""A note written in the window: saved once as a Note, each later save one new version that
keeps the note's links, [[ completing the names the vault knows, and a preview in Markdown."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from cairn.ui.base.session import Session
from cairn.ui.writing.note_editor import NoteEditor, parse_tags


def _shown(qtbot, editor: NoteEditor) -> NoteEditor:
    """Shown and active, as the window shows it: its shortcuts work only then."""
    qtbot.addWidget(editor)
    with qtbot.waitActive(editor):
        editor.show()
        editor.activateWindow()
    return editor


def _save(qtbot, editor: NoteEditor) -> str:
    with qtbot.waitSignal(editor.saved, timeout=15_000) as saved:
        qtbot.keyClick(editor.body, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    return saved.args[0]


def test_parse_tags_takes_commas_spaces_and_hashes() -> None:
    assert parse_tags("ferry, #travel  plans,ferry") == ["ferry", "travel", "plans"]
    assert parse_tags("  ") == []


# Typing "[[Harbour Lane" opens the completer's popup once the names are in (when depends on
# the worker): the popup asks the offscreen platform for what only a real screen does.
@pytest.mark.qt_log_ignore("This plugin does not support")
def test_a_new_note_is_saved_once_then_as_versions_that_keep_links(
    qtbot, open_session: Session
) -> None:
    service = open_session.service
    scopes = service.scopes()
    place = service.write("Place", "Harbour Lane", "Where the ferry leaves.").node
    editor = _shown(qtbot, NoteEditor(open_session))
    assert not editor.save_button.isEnabled()  # nothing to save yet
    qtbot.keyClicks(editor.title, "Ferry times")
    qtbot.keyClicks(editor.tags, "travel, #island")
    qtbot.keyClicks(editor.body, "The first ferry leaves at 7:10 from [[Harbour Lane]].")
    assert editor.dirty
    first = _save(qtbot, editor)
    assert not editor.dirty and not editor.save_button.isEnabled()  # no version per keystroke

    note = service.get([first], scopes=scopes).nodes[0]
    assert (note.node.type, note.node.title) == ("Note", "Ferry times")
    assert note.node.attrs["tags"] == ["travel", "island"]
    linked = {edge.other_id for edge in note.edges if edge.direction == "out"}
    assert place.id in linked

    qtbot.keyClicks(editor.body, " On Sundays at 8:00.")
    second = _save(qtbot, editor)
    assert second != first
    chain = service.history(second, scopes=scopes).chain
    assert [entry.id for entry in chain] == [first, second]
    newest = service.get([second], scopes=scopes).nodes[0]
    assert newest.node.body.endswith("On Sundays at 8:00.")
    assert place.id in {edge.other_id for edge in newest.edges if edge.direction == "out"}
    assert newest.node.attrs["tags"] == ["travel", "island"]


# The completer's popup asks the offscreen platform for what only a real screen does.
@pytest.mark.qt_log_ignore("This plugin does not support")
def test_double_bracket_completes_a_known_name(qtbot, open_session: Session) -> None:
    open_session.service.write("Person", "Marguerite Okafor", "Runs the bakery.")
    editor = NoteEditor(open_session)
    qtbot.addWidget(editor)
    editor.show()
    qtbot.waitUntil(lambda: "Marguerite Okafor" in editor.names.stringList(), timeout=10_000)
    qtbot.keyClicks(editor.body, "Bread from [[marg")
    popup = editor.completer.popup()
    qtbot.waitUntil(popup.isVisible)
    assert editor.completer.currentCompletion() == "Marguerite Okafor"
    editor.insert_link(editor.completer.currentCompletion())
    assert editor.body.toPlainText() == "Bread from [[Marguerite Okafor]]"


def test_the_preview_renders_markdown(qtbot, open_session: Session) -> None:
    editor = NoteEditor(open_session)
    qtbot.addWidget(editor)
    editor.body.setPlainText("# Plan\n\n**bold** step")
    editor.tabs.setCurrentWidget(editor.preview)
    shown = editor.preview.toPlainText()
    assert "Plan" in shown and "bold step" in shown and "**" not in shown and "#" not in shown


def test_a_failed_save_keeps_the_text_and_says_so(
    qtbot, open_session: Session, session_vault
) -> None:
    editor = NoteEditor(open_session)
    qtbot.addWidget(editor)
    qtbot.keyClicks(editor.title, "Kept")
    qtbot.keyClicks(editor.body, "text that must survive")
    session_vault.close()
    editor.save()
    qtbot.waitUntil(lambda: editor.notice.isVisibleTo(editor), timeout=10_000)
    assert "try Save again" in editor.notice.text()
    assert editor.body.toPlainText() == "text that must survive" and editor.dirty
    assert editor.save_button.isEnabled()


def test_locking_clears_the_editor(qtbot, open_session: Session) -> None:
    editor = NoteEditor(open_session)
    qtbot.addWidget(editor)
    qtbot.keyClicks(editor.title, "Secret")
    qtbot.keyClicks(editor.body, "not yet saved")
    open_session.lock()
    assert editor.body.toPlainText() == "" and editor.title.text() == ""
    assert editor.result() == NoteEditor.DialogCode.Rejected
