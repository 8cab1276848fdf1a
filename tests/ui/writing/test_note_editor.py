"""A note written in the window: saved once as a Note, each later save one new version that
keeps the note's links, [[ completing the names the vault knows, and a preview in Markdown."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

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
    assert editor.notice.isVisibleTo(editor) and editor.notice.text() == "Saved."

    note = service.get([first], scopes=scopes).nodes[0]
    assert (note.node.type, note.node.title) == ("Note", "Ferry times")
    assert note.node.attrs["tags"] == ["travel", "island"]
    linked = {edge.other_id for edge in note.edges if edge.direction == "out"}
    assert place.id in linked

    qtbot.keyClicks(editor.body, " On Sundays at 8:00.")
    assert not editor.notice.isVisibleTo(editor)  # changed since: not "Saved." any more
    second = _save(qtbot, editor)
    assert editor.notice.text() == "Saved."
    assert second != first
    chain = service.history(second, scopes=scopes).chain
    assert [entry.id for entry in chain] == [first, second]
    newest = service.get([second], scopes=scopes).nodes[0]
    assert newest.node.body.endswith("On Sundays at 8:00.")
    assert place.id in {edge.other_id for edge in newest.edges if edge.direction == "out"}
    assert newest.node.attrs["tags"] == ["travel", "island"]


def _names_shown(qtbot, editor: NoteEditor, first: str) -> None:
    """Wait until the vault's answer is in and the popup shows it, ``first`` chosen."""
    popup = editor.completer.popup()
    qtbot.waitUntil(
        lambda: popup.isVisible() and popup.currentIndex().data() == first, timeout=10_000
    )


# The completer's popup asks the offscreen platform for what only a real screen does.
@pytest.mark.qt_log_ignore("This plugin does not support")
@pytest.mark.parametrize("key", [Qt.Key.Key_Return, Qt.Key.Key_Tab])
def test_double_bracket_offers_names_and_enter_or_tab_takes_the_first(
    qtbot, open_session: Session, key: Qt.Key
) -> None:
    service = open_session.service
    for title in ("Advanced Queries", "Queries", "Harbour Lane"):
        service.write("Topic", title)
    editor = _shown(qtbot, NoteEditor(open_session))
    editor.body.setFocus()
    qtbot.keyClicks(editor.body, "Inspired by [[quer")
    _names_shown(qtbot, editor, "Queries")
    assert editor.names.stringList() == ["Queries", "Advanced Queries"]
    qtbot.keyClick(editor.completer.popup(), key)  # the popup has the keyboard while it shows
    assert editor.body.toPlainText() == "Inspired by [[Queries]]"
    assert not editor.completer.popup().isVisible()


@pytest.mark.qt_log_ignore("This plugin does not support")
def test_down_then_enter_takes_the_next_name_and_esc_keeps_the_text(
    qtbot, open_session: Session
) -> None:
    for title in ("Advanced Queries", "Queries"):
        open_session.service.write("Topic", title)
    editor = _shown(qtbot, NoteEditor(open_session))
    editor.body.setFocus()
    qtbot.keyClicks(editor.body, "[[quer")
    _names_shown(qtbot, editor, "Queries")
    popup = editor.completer.popup()
    qtbot.keyClick(popup, Qt.Key.Key_Escape)
    assert not popup.isVisible() and editor.body.toPlainText() == "[[quer"
    qtbot.keyClicks(editor.body, "i")
    _names_shown(qtbot, editor, "Queries")
    qtbot.keyClick(popup, Qt.Key.Key_Down)
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert editor.body.toPlainText() == "[[Advanced Queries]]"


@pytest.mark.qt_log_ignore("This plugin does not support")
def test_the_names_follow_the_newest_typing(qtbot, open_session: Session) -> None:
    for title in ("Harbour Lane", "Lantern festival"):
        open_session.service.write("Topic", title)
    editor = _shown(qtbot, NoteEditor(open_session))
    editor.body.setPlainText("[[har")
    editor.body.moveCursor(QTextCursor.MoveOperation.End)
    editor.complete_now()  # its answer comes after the next question: it is dropped
    editor.body.setPlainText("[[fest")
    editor.body.moveCursor(QTextCursor.MoveOperation.End)
    editor.complete_now()
    _names_shown(qtbot, editor, "Lantern festival")
    qtbot.wait(200)  # any answer still on its way has come
    assert editor.names.stringList() == ["Lantern festival"]
    # A name no longer typed (the [[ closed) shows nothing.
    qtbot.keyClicks(editor.body, "]]")
    assert not editor.completer.popup().isVisible()


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
