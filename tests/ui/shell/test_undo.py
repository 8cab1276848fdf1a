"""Edit › Undo and Redo in the real window on a real vault: an edit, a link, an archive and a
merge, each done in its panel, undone (the vault as before, read through the service) and
redone; a failed undo says why and leaves the stack as it was; forget is not on the stack."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from cairn.ui.memory.pickers import LinkDialog
from cairn.ui.shell.main_window import MainWindow
from tests.app.dedup.test_review_queue import KEY, KEY_REWORDED

WAIT_MS = 10_000
ALL = ["personal"]


def _service(window: MainWindow) -> Any:
    assert window.session.service is not None
    return window.session.service


def _shown(qtbot: Any, window: MainWindow, node_id: str) -> None:
    pane = window.workspace.detail
    with qtbot.waitSignal(pane.loaded, timeout=WAIT_MS):
        window.open_node(node_id)


def _done(qtbot: Any, window: MainWindow, start: Any) -> None:
    """Start an act of the detail pane and wait until it is recorded."""
    with qtbot.waitSignal(window.workspace.detail.action_done, timeout=WAIT_MS):
        start()


def _undo(qtbot: Any, window: MainWindow) -> None:
    with qtbot.waitSignal(window.undo_history.finished, timeout=WAIT_MS):
        window.undo_stack.undo()


def _redo(qtbot: Any, window: MainWindow) -> None:
    with qtbot.waitSignal(window.undo_history.finished, timeout=WAIT_MS):
        window.undo_stack.redo()


def _menu_undo_text(window: MainWindow) -> str:
    focused = QApplication.focusWidget()
    if focused is not None:
        focused.clearFocus()  # with no text field focused, Undo names the window's act
    window.edit_actions.refresh()
    return window.edit_actions.undo.text()


def test_an_edit_is_undone_and_redone(qtbot: Any, window: MainWindow) -> None:
    service = _service(window)
    old = service.write("Fact", "Club fee", "The yacht club fee is 120 euros a year.").node
    _shown(qtbot, window, old.id)
    pane = window.workspace.detail
    _done(qtbot, window, lambda: pane.save_edit("Club fee", "The club fee is 150 euros."))
    assert window.undo_stack.undoText() == "Edit “Club fee”"
    assert _menu_undo_text(window) == "&Undo Edit “Club fee”"
    new_id = service.history(old.id, scopes=ALL).chain[-1].id

    _undo(qtbot, window)
    got = service.get([old.id, new_id], scopes=ALL, use=False)
    assert [d.node.status for d in got.nodes] == ["active"] and got.missing == [new_id]
    assert len(service.history(old.id, scopes=ALL).chain) == 1
    qtbot.waitUntil(lambda: pane.current_node_id == old.id, timeout=WAIT_MS)
    assert "120 euros" in pane.text_view.toPlainText()

    _redo(qtbot, window)
    chain = service.history(old.id, scopes=ALL).chain
    assert [entry.status for entry in chain] == ["superseded", "active"]
    assert chain[-1].body == "The club fee is 150 euros."
    qtbot.waitUntil(lambda: pane.current_node_id == chain[-1].id, timeout=WAIT_MS)


def test_a_link_is_undone_and_redone(qtbot: Any, window: MainWindow) -> None:
    service = _service(window)
    fact = service.write("Fact", "Club fee", "The yacht club fee is 120 euros a year.").node
    ada = service.write("Person", "Ada Brook", "Treasurer of the yacht club.").node
    _shown(qtbot, window, fact.id)
    _done(qtbot, window, lambda: window.workspace.detail.link_to(ada.id, "involves"))
    assert window.undo_stack.undoText() == "Link to “Ada Brook”"

    def linked() -> bool:
        edges = service.get([fact.id], scopes=ALL, use=False).nodes[0].edges
        return any(e.other_id == ada.id and e.type == "involves" for e in edges)

    assert linked()
    _undo(qtbot, window)
    assert not linked()
    _redo(qtbot, window)
    assert linked()


def test_an_archive_is_undone_and_redone(qtbot: Any, window: MainWindow) -> None:
    service = _service(window)
    seeds = service.write("Note", "Seeds", "Tomato seeds from the market stall.").node
    _shown(qtbot, window, seeds.id)
    _done(qtbot, window, window.workspace.detail.archive_current)
    assert window.undo_stack.undoText() == "Archive “Seeds”"

    def status() -> str:
        return service.get([seeds.id], scopes=ALL, use=False).nodes[0].node.status

    assert status() == "archived"
    _undo(qtbot, window)
    assert status() == "active"
    _redo(qtbot, window)
    assert status() == "archived"


def test_a_merge_is_undone_and_redone(qtbot: Any, window: MainWindow) -> None:
    service = _service(window)
    kept = service.write("Note", *KEY).node
    folded = service.write("Note", *KEY_REWORDED)
    assert folded.outcome == "pending"
    panel = window.workspace.review
    window.session.changed.emit()  # as every write in the window announces itself
    qtbot.waitUntil(lambda: panel.section_counts().get("duplicate") == 1, timeout=WAIT_MS)
    assert panel.select(f"item:{folded.verdict}")
    with qtbot.waitSignal(window.session.changed, timeout=WAIT_MS):
        panel.merge_button.click()
    assert window.undo_stack.undoText() == "Merge “Hidden key” into “Spare key”"
    assert service.get([folded.node.id], scopes=ALL).nodes[0].node.id == kept.id

    _undo(qtbot, window)
    back = service.get([folded.node.id], scopes=ALL, use=False).nodes[0]
    assert (back.node.id, back.node.body) == (folded.node.id, KEY_REWORDED[1])
    assert service.get([kept.id], scopes=ALL, use=False).nodes[0].addenda == []
    assert [item.id for item in service.pending(scopes=ALL)] == [folded.verdict]
    qtbot.waitUntil(lambda: panel.section_counts().get("duplicate") == 1, timeout=WAIT_MS)

    _redo(qtbot, window)
    assert service.pending(scopes=ALL) == []
    assert service.get([folded.node.id], scopes=ALL).nodes[0].node.id == kept.id


def test_a_failed_undo_says_why_and_keeps_the_act_on_the_stack(
    qtbot: Any, window: MainWindow
) -> None:
    service = _service(window)
    seeds = service.write("Note", "Seeds", "Tomato seeds from the market stall.").node
    _shown(qtbot, window, seeds.id)
    _done(qtbot, window, window.workspace.detail.archive_current)
    service.forget(seeds.id, scopes=ALL)  # another way, behind the stack's back
    told: list[str] = []
    window.undo_history.failed.connect(told.append)
    _undo(qtbot, window)
    assert told and told[0].startswith("Could not undo Archive “Seeds”: ")
    assert window.undo_stack.canUndo() and window.undo_stack.undoText() == "Archive “Seeds”"


def test_forget_is_not_undoable_and_a_lock_empties_the_stack(
    qtbot: Any, window: MainWindow
) -> None:
    service = _service(window)
    seeds = service.write("Note", "Seeds", "Tomato seeds from the market stall.").node
    _shown(qtbot, window, seeds.id)
    pane = window.workspace.detail
    _done(qtbot, window, pane.archive_current)
    with qtbot.waitSignal(pane.node_forgotten, timeout=WAIT_MS):
        pane.forget_current(confirmed=True)
    assert window.undo_stack.count() == 1  # the archive; the forget is final
    window.session.lock()
    assert window.undo_stack.count() == 0


def test_a_note_saved_in_the_note_editor_is_undone_and_redone(
    qtbot: Any, window: MainWindow
) -> None:
    service = _service(window)
    old = service.write("Note", "Kiln", "Fire to cone 6.", attrs={"tags": ["pottery"]}).node
    _shown(qtbot, window, old.id)
    editor = window.workspace.detail.edit_current()
    assert editor is not None
    qtbot.addWidget(editor)
    editor.body.setPlainText("Fire to cone 5; cone 6 crazed the glaze.")
    with qtbot.waitSignal(editor.saved, timeout=WAIT_MS):
        editor.save()
    assert window.undo_stack.undoText() == "Edit “Kiln”"
    newer = service.history(old.id, scopes=ALL).chain[-1]
    _undo(qtbot, window)
    assert service.get([newer.id], scopes=ALL, use=False).missing == [newer.id]
    assert service.get([old.id], scopes=ALL, use=False).nodes[0].node.status == "active"
    _redo(qtbot, window)
    chain = service.history(old.id, scopes=ALL).chain
    assert chain[-1].body == "Fire to cone 5; cone 6 crazed the glaze."
    assert service.get([chain[-1].id], scopes=ALL).nodes[0].node.attrs["tags"] == ["pottery"]


def _pick(qtbot: Any, dialog: Any, words: str, title: str) -> None:
    """Search ``words`` in a picker and choose the row titled ``title``."""
    dialog.search_field.setText(words)
    dialog.search_now()
    qtbot.waitUntil(lambda: dialog.model.rowCount() > 0, timeout=WAIT_MS)
    rows = [dialog.model.row_at(dialog.model.index(r, 0)) for r in range(dialog.model.rowCount())]
    [row] = [r for r, found in enumerate(rows) if found.title == title]
    dialog.results_view.setCurrentIndex(dialog.model.index(row, 0))


def test_link_then_ctrl_z_takes_the_link_back(qtbot: Any, window: MainWindow) -> None:
    service = _service(window)
    fact = service.write("Fact", "Club fee", "The yacht club fee is 120 euros a year.").node
    ada = service.write("Person", "Ada Brook", "Treasurer of the yacht club.").node
    _shown(qtbot, window, fact.id)
    pane = window.workspace.detail
    window.activateWindow()
    qtbot.waitActive(window)
    pane.link_button.setFocus()
    qtbot.keyClick(pane.link_button, Qt.Key.Key_Space)  # Link… from the keyboard
    [dialog] = [d for d in pane.findChildren(LinkDialog) if d.isVisible()]
    assert dialog.isModal() and dialog.testAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    _pick(qtbot, dialog, "Ada Brook", "Ada Brook")
    with qtbot.waitSignals([pane.action_done, pane.loaded], timeout=WAIT_MS):
        qtbot.keyClick(dialog.results_view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not pane.findChildren(LinkDialog))  # used, then gone

    def linked() -> bool:
        edges = service.get([fact.id], scopes=ALL, use=False).nodes[0].edges
        return any(e.other_id == ada.id and e.type == "involves" for e in edges)

    assert linked()
    # The keyboard is back on Link…, not in the memory's read-only text, so Ctrl+Z is the
    # window's Undo, named for the link. (The window is active again once its dialog is
    # gone, as a window manager makes it; the offscreen platform needs telling.)
    qtbot.waitUntil(lambda: window.focusWidget() is pane.link_button, timeout=WAIT_MS)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is pane.link_button, timeout=WAIT_MS)
    assert window.edit_actions.undo.isEnabled()
    assert window.edit_actions.undo.text() == "&Undo Link to “Ada Brook”"
    with qtbot.waitSignal(window.undo_history.finished, timeout=WAIT_MS):
        qtbot.keyClick(pane.link_button, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert not linked()


def test_in_the_memorys_read_only_text_ctrl_z_undoes_the_archive(
    qtbot: Any, window: MainWindow
) -> None:
    service = _service(window)
    seeds = service.write("Note", "Seeds", "Tomato seeds from the market stall.").node
    _shown(qtbot, window, seeds.id)
    pane = window.workspace.detail
    _done(qtbot, window, pane.archive_current)
    window.activateWindow()
    qtbot.waitActive(window)
    pane.text_view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is pane.text_view)
    actions = window.edit_actions
    actions.refresh()
    assert actions.undo.isEnabled() and actions.undo.text() == "&Undo Archive “Seeds”"
    assert not actions.paste.isEnabled()  # nothing is typed into a memory's text here
    with qtbot.waitSignal(window.undo_history.finished, timeout=WAIT_MS):
        qtbot.keyClick(pane.text_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert service.get([seeds.id], scopes=ALL, use=False).nodes[0].node.status == "active"
    # Copy and Select All still act on the text.
    actions.select_all.trigger()
    actions.copy.trigger()
    assert "Tomato seeds" in QApplication.clipboard().text()
