"""The welcome panel of an empty vault, in the real window on a real vault: its choices each do
what they say, it goes away once the vault holds memories, and the sample vault is tried and
removed without anything of the person's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit, QMessageBox

from cairn.ui.base.preferences import Preferences
from cairn.ui.base.session import Session
from cairn.ui.search.panel import NOTHING_YET
from cairn.ui.shell.main_window import MainWindow
from cairn.ui.shell.welcome import LOOK_DELAY_MS
from cairn.ui.writing.note_editor import NoteEditor
from tests.conftest import PASSPHRASE

INGEST_MS = 60_000
WORK_MS = 30_000
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def window(new_window: MainWindow) -> MainWindow:
    """The window as it opens, the welcome and all."""
    return new_window


def _welcomed(qtbot: Any, window: MainWindow) -> None:
    """Wait for the look that decides the panel (the Help menu knows the sample then)."""
    qtbot.waitUntil(
        lambda: window.welcome.try_action.isEnabled() or window.welcome.remove_action.isEnabled(),
        timeout=WORK_MS,
    )


def _open_dialog(window: MainWindow) -> QFileDialog:
    [dialog] = [d for d in window.findChildren(QFileDialog) if d.isVisible()]
    return dialog


def _choose(qtbot: Any, dialog: QFileDialog, path: Path) -> None:
    """What a person does in the dialog: type ``path`` into its name field and press its
    Open/Choose button (a click in its list waits for the folder to be read)."""
    name_field = dialog.findChild(QLineEdit, "fileNameEdit")
    assert isinstance(name_field, QLineEdit)
    name_field.setText(str(path))
    dialog.accept()
    qtbot.waitUntil(lambda: not dialog.isVisible())


def _notes(tmp_path: Path) -> Path:
    folder = tmp_path / "garden-notes"
    folder.mkdir()
    (folder / "Compost.md").write_text("# Compost\n\nTurn the heap weekly. See [[Beans]].\n")
    (folder / "Beans.md").write_text("# Beans\n\nRunner beans climb the hazel poles.\n")
    return folder


def test_an_empty_vault_opens_on_the_welcome_with_each_choice_and_its_keys(
    qtbot: Any, window: MainWindow
) -> None:
    _welcomed(qtbot, window)
    welcome = window.welcome
    assert welcome.showing and window.workspace.center.currentWidget() is welcome.panel
    panel = welcome.panel
    shown = [button.text() for button in panel.choices]
    assert shown == [
        "Add a notes folder…    Ctrl+Shift+D",
        "Add files…    Ctrl+Shift+O",
        "Write a note    Ctrl+Shift+N",
        "&Try the sample vault    Alt+T",
    ]
    assert "drop files and folders anywhere" in panel.drop_line.text()
    assert panel.keep_watching.isChecked() and panel.keep_watching.accessibleName()
    assert all(button.accessibleName() for button in panel.choices)
    assert panel.remove_button.isHidden()
    assert welcome.try_action.isEnabled() and not welcome.remove_action.isEnabled()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is panel.folder_button)


def test_a_vault_with_memories_opens_on_the_columns(qtbot: Any, open_session: Session) -> None:
    assert open_session.service is not None
    open_session.service.write("Note", "Kiln schedule", "Fire the kiln to cone 6 on Friday.")
    main = MainWindow(open_session, Preferences())
    qtbot.addWidget(main)
    main.show()
    _welcomed(qtbot, main)
    assert not main.welcome.showing
    assert main.workspace.center.currentWidget() is main.workspace.splitter
    # Help › Welcome brings it, with the columns a click away.
    main.welcome.show_action.trigger()
    assert main.welcome.showing
    qtbot.mouseClick(main.welcome.panel.close_button, Qt.MouseButton.LeftButton)
    assert main.workspace.center.currentWidget() is main.workspace.splitter
    main.close()


def test_it_goes_away_once_the_vault_holds_memories_and_when_closed(
    qtbot: Any, window: MainWindow
) -> None:
    _welcomed(qtbot, window)
    assert window.welcome.showing
    window.session.service.write("Note", "Kiln schedule", "Fire the kiln to cone 6 on Friday.")
    window.session.changed.emit()
    qtbot.waitUntil(lambda: not window.welcome.showing, timeout=WORK_MS)
    # Ctrl+K goes to the search field, in the columns.
    window.welcome.show_action.trigger()
    assert window.welcome.showing
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert not window.welcome.showing
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.workspace.search.search_field)


def test_closed_it_stays_away_until_the_next_unlock(qtbot: Any, window: MainWindow) -> None:
    _welcomed(qtbot, window)
    qtbot.mouseClick(window.welcome.panel.close_button, Qt.MouseButton.LeftButton)
    assert not window.welcome.showing
    with qtbot.waitSignal(window.workspace.search.results_shown, timeout=WORK_MS):
        window.session.changed.emit()  # a look, as after any write
    qtbot.wait(LOOK_DELAY_MS * 2)
    assert not window.welcome.showing
    assert window.workspace.search.empty_label.text() == NOTHING_YET
    path = window.session.path
    assert path is not None
    window.lock()
    with qtbot.waitSignal(window.session.unlocked, timeout=WORK_MS):
        window.session.open(path, PASSPHRASE)
    qtbot.waitUntil(lambda: window.welcome.showing, timeout=WORK_MS)


def test_add_files_adds_the_files_chosen(qtbot: Any, window: MainWindow, tmp_path: Path) -> None:
    _welcomed(qtbot, window)
    note = tmp_path / "kiln.md"
    note.write_text("# Kiln\n\nThe pottery kiln needs cone 6 for the stoneware glaze.\n")
    qtbot.mouseClick(window.welcome.panel.files_button, Qt.MouseButton.LeftButton)
    dialog = _open_dialog(window)
    assert dialog.fileMode() == QFileDialog.FileMode.ExistingFiles
    with qtbot.waitSignal(window.workspace.ingest.finished, timeout=INGEST_MS):
        _choose(qtbot, dialog, note)
    service = window.session.service
    assert [Path(s.path).name for s in service.sources(scopes=service.scopes())] == ["kiln.md"]
    qtbot.waitUntil(lambda: not window.welcome.showing, timeout=WORK_MS)  # memories came


def test_add_a_notes_folder_adds_it_and_keeps_watching_it(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    _welcomed(qtbot, window)
    folder = _notes(tmp_path)
    panel = window.welcome.panel
    assert panel.keep_watching.isChecked()
    qtbot.mouseClick(panel.folder_button, Qt.MouseButton.LeftButton)
    dialog = _open_dialog(window)
    assert dialog.fileMode() == QFileDialog.FileMode.Directory
    with qtbot.waitSignal(window.workspace.ingest.finished, timeout=INGEST_MS) as finished:
        _choose(qtbot, dialog, folder)
    names = sorted(Path(f.path).name for f in finished.args[0].files)
    assert names == ["Beans.md", "Compost.md"]
    service = window.session.service
    assert [Path(f.path) for f in service.watched_folders()] == [folder]
    qtbot.waitUntil(lambda: not window.welcome.showing, timeout=WORK_MS)


def test_a_notes_folder_is_only_added_when_watching_is_unticked(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    _welcomed(qtbot, window)
    folder = _notes(tmp_path)
    panel = window.welcome.panel
    panel.keep_watching.setChecked(False)
    qtbot.mouseClick(panel.folder_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(window.workspace.ingest.finished, timeout=INGEST_MS) as finished:
        _choose(qtbot, _open_dialog(window), folder)
    assert len(finished.args[0].files) == 2
    assert window.session.service.watched_folders() == []


def test_write_a_note_opens_the_note_editor(qtbot: Any, window: MainWindow) -> None:
    _welcomed(qtbot, window)
    qtbot.mouseClick(window.welcome.panel.note_button, Qt.MouseButton.LeftButton)
    [editor] = [e for e in window.findChildren(NoteEditor) if e.isVisible()]
    assert editor.windowTitle() == "New note"
    editor.reject()


def test_the_keys_shown_do_what_the_buttons_do(qtbot: Any, window: MainWindow) -> None:
    _welcomed(qtbot, window)
    window.activateWindow()
    for key, mode in ((Qt.Key.Key_D, "Directory"), (Qt.Key.Key_O, "ExistingFiles")):
        qtbot.keyClick(window, key, CTRL_SHIFT)
        dialog = _open_dialog(window)
        assert dialog.fileMode() == getattr(QFileDialog.FileMode, mode)
        dialog.reject()
        qtbot.waitUntil(lambda d=dialog: not d.isVisible())
    qtbot.keyClick(window, Qt.Key.Key_N, CTRL_SHIFT)
    [editor] = [e for e in window.findChildren(NoteEditor) if e.isVisible()]
    editor.reject()
    window.activateWindow()
    with qtbot.waitSignal(window.welcome.sample_added, timeout=WORK_MS):
        qtbot.keyClick(window, Qt.Key.Key_T, Qt.KeyboardModifier.AltModifier)


def test_the_sample_is_shown_when_tried_and_the_welcome_returns_when_it_is_removed(
    qtbot: Any, window: MainWindow
) -> None:
    _welcomed(qtbot, window)
    welcome, workspace = window.welcome, window.workspace
    with qtbot.waitSignal(workspace.detail.loaded, timeout=WORK_MS):
        qtbot.mouseClick(welcome.panel.sample_button, Qt.MouseButton.LeftButton)
    # Its project in the detail pane and the graph; its memories in the list.
    assert not welcome.showing
    assert workspace.detail.title_label.text() == "Footbridge survey"
    assert "Added the sample" in window.statusBar().currentMessage()
    assert workspace.current_tab == "graph"  # the graph's tab in front, beside the detail
    qtbot.waitUntil(lambda: workspace.graph.node_count() > 5, timeout=WORK_MS)
    qtbot.waitUntil(lambda: len(workspace.search.model.rows()) >= 10, timeout=WORK_MS)
    assert "Ottilie Brask" in [row.title for row in workspace.search.model.rows()]
    qtbot.waitUntil(welcome.remove_action.isEnabled, timeout=WORK_MS)
    assert not welcome.try_action.isEnabled()

    welcome.show_action.trigger()
    qtbot.waitUntil(lambda: not welcome.panel.remove_button.isHidden(), timeout=WORK_MS)
    assert welcome.panel.sample_button.isHidden()
    qtbot.mouseClick(welcome.panel.remove_button, Qt.MouseButton.LeftButton)
    box = welcome.removal_question
    assert isinstance(box, QMessageBox) and box.isVisible()
    [remove] = [b for b in box.buttons() if b.text() == "Remove the sample"]
    qtbot.mouseClick(remove, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: "Removed the sample" in window.statusBar().currentMessage(), timeout=WORK_MS
    )
    service = window.session.service
    assert service.list_memories(scopes=service.scopes(), limit=5) == []
    # An empty vault again: the welcome is back, offering the sample.
    qtbot.waitUntil(lambda: not welcome.panel.sample_button.isHidden(), timeout=WORK_MS)
    assert welcome.showing and welcome.try_action.isEnabled()


def test_removing_the_sample_from_the_menu_keeps_the_persons_note(
    qtbot: Any, window: MainWindow
) -> None:
    _welcomed(qtbot, window)
    welcome = window.welcome
    with qtbot.waitSignal(window.workspace.detail.loaded, timeout=WORK_MS):
        welcome.try_action.trigger()
    assert window.workspace.detail.title_label.text() == "Footbridge survey"
    service = window.session.service
    text = "Ask [[Ottilie Brask]] about the kiln shelf."
    mine = service.write("Note", "Kiln shelf", text).node
    assert [e.other_title for e in service.get([mine.id], scopes=service.scopes()).nodes[0].edges]
    window.session.changed.emit()
    qtbot.waitUntil(welcome.remove_action.isEnabled, timeout=WORK_MS)
    welcome.remove_action.trigger()
    box = welcome.removal_question
    assert box is not None
    [cancel] = [b for b in box.buttons() if b.text() != "Remove the sample"]
    qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    assert service.sample_in_vault()  # Cancel forgets nothing
    welcome.remove_action.trigger()
    box = welcome.removal_question
    assert box is not None
    [remove] = [b for b in box.buttons() if b.text() == "Remove the sample"]
    qtbot.mouseClick(remove, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not service.sample_in_vault(), timeout=WORK_MS)
    # The sample's project, shown when it was tried, is no longer on screen.
    qtbot.waitUntil(lambda: window.workspace.detail.current_node_id is None, timeout=WORK_MS)
    assert window.workspace.detail.empty_label.text() == "Pick a memory to see it here."
    assert window.workspace.graph.mode == "overview"
    detail = service.get([mine.id], scopes=service.scopes()).nodes[0]
    assert (detail.node.title, detail.node.body, detail.edges) == ("Kiln shelf", text, [])
    qtbot.waitUntil(welcome.try_action.isEnabled, timeout=WORK_MS)
    assert not welcome.showing  # the vault still holds the person's note
