"""The context menu of a memory in the real window (the detail pane's Links and Versions
lists), the library's shelf menu, and a memory dragged out: each entry exists and acts on the
real vault; a drag carries the memory as text, and dropped back on the window adds nothing."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication
from PySide6.QtWidgets import QDialogButtonBox, QMessageBox

from cairn.app.api import IngestRequest, SearchFilter
from cairn.ui.base.memory_drag import MARKDOWN_TYPE, dragged_id, wikilink
from cairn.ui.memory.memory_menu import MemoryMenu, memory_menu
from cairn.ui.shell.export_dialog import ExportDialog
from cairn.ui.shell.main_window import MainWindow
from cairn.ui.writing.note_editor import NoteEditor
from tests.app.ingest_files import write

WAIT_MS = 10_000
ALL = ["personal"]


def _seeded(qtbot: Any, window: MainWindow) -> dict[str, str]:
    service = window.session.service
    assert service is not None
    note = service.write("Note", "Sailing course", "Weekend course at the yacht club.").node
    ada = service.write("Person", "Ada Brook", "Sailing instructor at the club.").node
    fee = service.write("Fact", "Club fee", "The yacht club fee is 120 euros a year.").node
    service.link(note.id, ada.id, "involves", scopes=ALL)
    with qtbot.waitSignal(window.workspace.detail.loaded, timeout=WAIT_MS):
        window.open_node(note.id)
    return {"note": note.id, "ada": ada.id, "fee": fee.id}


def _menu(qtbot: Any, window: MainWindow, entries: Any, row: int = 0) -> MemoryMenu:
    menu = window.workspace.detail.entry_menu(entries, row)
    assert menu is not None
    with qtbot.waitSignal(menu.loaded, timeout=WAIT_MS):
        pass
    return menu


def _texts(menu: MemoryMenu) -> list[str]:
    return [a.text() for a in menu.actions() if a.isVisible() and not a.isSeparator()]


def test_a_links_menu_has_its_entries_and_they_act(qtbot: Any, window: MainWindow) -> None:
    ids = _seeded(qtbot, window)
    pane = window.workspace.detail
    menu = _menu(qtbot, window, pane.links_list)
    assert menu.node_id == ids["ada"]
    # No file behind a memory written by hand: no Open File.
    assert _texts(menu) == [
        "&Open",
        "Copy &Link",
        "Copy &ID",
        "Link &To…",
        "&Remove Link",  # the entry is a link: it can go
        "&Archive",
        "&Forget…",
    ]
    assert all(a.isEnabled() for a in menu.actions() if a.isVisible())

    menu.copy_link_action.trigger()
    assert QGuiApplication.clipboard().text() == "[[Ada Brook]]"
    menu.copy_id_action.trigger()
    assert QGuiApplication.clipboard().text() == ids["ada"]
    with qtbot.waitSignal(pane.loaded, timeout=WAIT_MS):
        menu.open_action.trigger()  # the pane's own open request: the window shows it
    assert pane.current_node_id == ids["ada"]


def test_remove_link_takes_that_link_away_and_undo_brings_it_back(
    qtbot: Any, window: MainWindow
) -> None:
    ids = _seeded(qtbot, window)
    service = window.session.service
    pane = window.workspace.detail
    service.link(ids["fee"], ids["note"], "references", scopes=ALL)
    with qtbot.waitSignal(pane.loaded, timeout=WAIT_MS):
        window.open_node(ids["note"])
    assert pane.links_list.labels() == [
        "→ involves: Ada Brook (person)",
        "← references: Club fee (fact)",
    ]

    def links_of_note() -> list[tuple[str, str, str]]:
        edges = service.get([ids["note"]], scopes=ALL, use=False).nodes[0].edges
        return sorted((e.type, e.direction, e.other_id) for e in edges)

    incoming = _menu(qtbot, window, pane.links_list, 1)  # a link into the note goes too
    with qtbot.waitSignals([window.session.changed, pane.loaded], timeout=WAIT_MS):
        incoming.remove_link_action.trigger()
    assert links_of_note() == [("involves", "out", ids["ada"])]
    assert window.undo_stack.undoText() == "Remove link to “Club fee”"
    assert service.get([ids["fee"]], scopes=ALL).nodes  # the memories stay; only the link goes

    outgoing = _menu(qtbot, window, pane.links_list, 0)
    with qtbot.waitSignal(window.session.changed, timeout=WAIT_MS):
        outgoing.remove_link_action.trigger()
    assert links_of_note() == []
    qtbot.waitUntil(lambda: pane.links_list.count() == 0, timeout=WAIT_MS)
    with qtbot.waitSignal(window.undo_history.finished, timeout=WAIT_MS):
        window.undo_stack.undo()
    assert links_of_note() == [("involves", "out", ids["ada"])]
    with qtbot.waitSignal(window.undo_history.finished, timeout=WAIT_MS):
        window.undo_stack.undo()
    assert links_of_note() == [("involves", "out", ids["ada"]), ("references", "in", ids["fee"])]
    with qtbot.waitSignal(window.undo_history.finished, timeout=WAIT_MS):
        window.undo_stack.redo()
    assert links_of_note() == [("involves", "out", ids["ada"])]
    # A version is not a link: its menu is the memory's, as everywhere else.
    with qtbot.waitSignal(pane.action_done, timeout=WAIT_MS):
        pane.save_edit("Sailing course", "Weekend course at the yacht club, in May.")
    qtbot.waitUntil(lambda: pane.history_list.count() == 2, timeout=WAIT_MS)
    assert "&Remove Link" not in _texts(_menu(qtbot, window, pane.history_list, 0))


def test_archive_from_the_menu_is_undoable(qtbot: Any, window: MainWindow) -> None:
    ids = _seeded(qtbot, window)
    service = window.session.service
    menu = _menu(qtbot, window, window.workspace.detail.links_list)
    with qtbot.waitSignal(window.session.changed, timeout=WAIT_MS):
        menu.archive_action.trigger()
    assert service.get([ids["ada"]], scopes=ALL).nodes[0].node.status == "archived"
    assert window.undo_stack.undoText() == "Archive “Ada Brook”"
    again = _menu(qtbot, window, window.workspace.detail.links_list)
    assert again.archive_action.text() == "Un&archive"


def test_link_to_from_the_menu_links_and_is_undoable(qtbot: Any, window: MainWindow) -> None:
    ids = _seeded(qtbot, window)
    service = window.session.service
    menu = _menu(qtbot, window, window.workspace.detail.links_list)
    dialog = menu.link_to()
    assert dialog is not None and dialog.isVisible()
    dialog.search_field.setText("yacht club fee")
    dialog.search_now()
    qtbot.waitUntil(lambda: dialog.model.rowCount() > 0, timeout=WAIT_MS)
    row = next(
        r
        for r in range(dialog.model.rowCount())
        if "Club fee" in dialog.model.row_at(dialog.model.index(r, 0)).title
    )
    dialog.results_view.setCurrentIndex(dialog.model.index(row, 0))
    involves = dialog.relation.findText("Club fee — involves → this person")
    assert involves >= 0
    dialog.relation.setCurrentIndex(involves)
    with qtbot.waitSignal(window.session.changed, timeout=WAIT_MS):
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    edges = service.get([ids["fee"]], scopes=ALL).nodes[0].edges
    assert [(e.type, e.other_id) for e in edges] == [("involves", ids["ada"])]
    assert window.undo_stack.undoText() == "Link to “Club fee”"


def test_forget_from_the_menu_asks_first(qtbot: Any, window: MainWindow) -> None:
    ids = _seeded(qtbot, window)
    service = window.session.service
    menu = _menu(qtbot, window, window.workspace.detail.links_list)
    box = menu.forget()
    assert box is not None and "Forget “Ada Brook” for good?" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert service.get([ids["ada"]], scopes=ALL).nodes  # cancelled: still there
    box = _menu(qtbot, window, window.workspace.detail.links_list).forget()
    assert box is not None
    [forget] = [
        b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole
    ]
    with qtbot.waitSignal(window.session.changed, timeout=WAIT_MS):
        forget.click()
    assert service.get([ids["ada"]], scopes=ALL).missing == [ids["ada"]]
    assert window.undo_stack.count() == 0  # forget stays final


def test_a_versions_menu_opens_an_older_version(qtbot: Any, window: MainWindow) -> None:
    ids = _seeded(qtbot, window)
    pane = window.workspace.detail
    with qtbot.waitSignal(pane.action_done, timeout=WAIT_MS):
        pane.save_edit("Sailing course", "Weekend course at the yacht club, in May.")
    qtbot.waitUntil(lambda: pane.history_list.count() == 2, timeout=WAIT_MS)
    older = _menu(qtbot, window, pane.history_list, 0)
    assert older.node_id == ids["note"]
    shown = _menu(qtbot, window, pane.history_list, 1)  # the version shown: itself
    assert shown.node_id == pane.current_node_id != ids["note"]


def test_the_library_shelf_menu(qtbot: Any, window: MainWindow) -> None:
    _seeded(qtbot, window)
    library = window.workspace.library
    qtbot.waitUntil(lambda: "type:Note" in library.counts(), timeout=WAIT_MS)
    notes = library._item_for("type:Note")
    assert notes is not None
    menu = library.shelf_menu(notes)
    texts = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert texts == ["&Show Notes", "&New Note…", "&Export…"]
    with qtbot.waitSignal(library.filter_changed, timeout=WAIT_MS) as shown:
        menu.actions()[0].trigger()
    assert shown.args == [SearchFilter("type", "Note")]
    menu.actions()[1].trigger()
    [editor] = [w for w in window.findChildren(NoteEditor) if w.isVisible()]
    editor.close()
    menu.actions()[-1].trigger()
    [dialog] = [w for w in window.findChildren(ExportDialog) if w.isVisible()]
    dialog.reject()
    people = library._item_for("type:Person")
    assert people is not None
    assert "&New Note…" not in [a.text() for a in library.shelf_menu(people).actions()]


def test_a_drag_carries_the_memory_as_text(qtbot: Any, window: MainWindow) -> None:
    ids = _seeded(qtbot, window)
    pane = window.workspace.detail
    mime = pane.drag_mime()
    assert mime is not None
    assert mime.text() == "Sailing course\n\nWeekend course at the yacht club."
    assert bytes(mime.data(MARKDOWN_TYPE).data()).decode() == "[[Sailing course]]"
    assert mime.html() == "<p>Sailing course</p>"
    assert dragged_id(mime) == ids["note"]
    link = pane.link_mime(0)
    assert link is not None
    assert link.text() == "Ada Brook\n\nSailing instructor at the club."
    assert dragged_id(link) == ids["ada"]
    assert wikilink("Plans [draft] | v2") == "[[Plans draft v2]]"


def test_a_drag_dropped_back_on_the_window_adds_nothing(
    qtbot: Any, window: MainWindow, tmp_path: Any
) -> None:
    _seeded(qtbot, window)
    mime = window.workspace.detail.drag_mime()
    assert mime is not None
    # Even with a file's address along (some desktops add one), it is not a file to add.
    mime.setUrls([tmp_path.as_uri()])
    copy, left = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton
    none = Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(QPoint(5, 5), copy, mime, left, none)
    enter.ignore()
    QGuiApplication.sendEvent(window, enter)
    assert not enter.isAccepted()
    drop = QDropEvent(QPointF(5, 5), copy, mime, left, none)
    drop.ignore()
    QGuiApplication.sendEvent(window, drop)
    assert not drop.isAccepted()
    assert not window.workspace.ingest.is_running


def test_a_memory_read_from_a_file_offers_open_file(
    qtbot: Any, window: MainWindow, tmp_path: Any
) -> None:
    service = window.session.service
    folder = write(tmp_path / "files", {"pharmacy.txt": "The pharmacy opens at eight."})
    service.ingest(IngestRequest.of([folder]))
    [doc] = service.list_memories(scopes=ALL, types=["Document"])
    # As the results list or the graph would attach it: the session, an id, the parent.
    menu = memory_menu(window.session, doc.id, window.workspace.search)
    with qtbot.waitSignal(menu.loaded, timeout=WAIT_MS):
        pass
    assert menu.open_file_action.isVisible() and menu.open_file_action.isEnabled()
    with qtbot.waitSignal(menu.open_requested, timeout=WAIT_MS) as asked:
        menu.open_action.trigger()
    assert asked.args == [doc.id]


def test_a_result_rows_menu_is_the_memorys_and_opens_it(qtbot: Any, window: MainWindow) -> None:
    ids = _seeded(qtbot, window)
    search = window.workspace.search
    window.focus_search()
    search.search_field.setText("yacht club fee")
    qtbot.waitUntil(lambda: search.shown_query == "yacht club fee", timeout=WAIT_MS)
    row = next(n for n, r in enumerate(search.model.rows()) if r.node_id == ids["fee"])
    index = search.model.index(row, 0)
    spot = search.results_view.visualRect(index).center()
    assert search.results_view.indexAt(spot) == index  # the row under the pointer
    menu = search.row_menu(index)
    assert menu is not None and menu.node_id == ids["fee"]
    with qtbot.waitSignal(menu.loaded, timeout=WAIT_MS):
        pass
    assert "Copy &Link" in _texts(menu) and "&Forget…" in _texts(menu)
    assert "&Remove Link" not in _texts(menu)  # a memory found, not a link
    with qtbot.waitSignal(window.workspace.detail.loaded, timeout=WAIT_MS):
        menu.open_action.trigger()
    assert window.workspace.detail.current_node_id == ids["fee"]
    mime = search._mime_at(spot)
    assert mime is not None and dragged_id(mime) == ids["fee"]


def test_a_graph_nodes_menu_is_the_memorys(qtbot: Any, window: MainWindow) -> None:
    ids = _seeded(qtbot, window)
    graph = window.workspace.graph
    window.show_graph()
    graph.show_ego(ids["note"])
    qtbot.waitUntil(lambda: graph.node_count() > 1, timeout=WAIT_MS * 3)
    canvas = graph.canvas
    index = graph.picture.view.ids.index(ids["ada"])
    assert canvas.node_at(canvas.mapFromScene(canvas.node_point(index))) == index
    menu = graph.node_menu(index)
    assert menu is not None and menu.node_id == ids["ada"]
    with qtbot.waitSignal(menu.loaded, timeout=WAIT_MS):
        pass
    assert "Link &To…" in _texts(menu) and "&Remove Link" not in _texts(menu)
    assert graph.node_menu(None) is None  # no node under the pointer: no menu
