"""The window around the panels: the stack of unlock screen and workspace, locking, the layout
kept across runs, file drops, the status bar, and the wiring between panels."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QByteArray, QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QWidget,
)

from cairn.app.models import SearchFilter
from cairn.app.portability.leftovers import Swept
from cairn.storage.errors import VaultClosed
from cairn.ui.base.preferences import Preferences
from cairn.ui.base.session import Session
from cairn.ui.shell import main_window
from cairn.ui.shell.capture import QuickCaptureDialog
from cairn.ui.shell.main_window import MainWindow

INGEST_TIMEOUT_MS = 60_000
COPY = Qt.DropAction.CopyAction
LEFT_BUTTON = Qt.MouseButton.LeftButton
NO_KEYS = Qt.KeyboardModifier.NoModifier
# A shown top-level window tells the platform its minimum size; the offscreen platform of the
# tests cannot take that hint and says so. Nothing of Cairn's: every other warning still fails.
# The ``window`` fixture (the window on an open session) is in tests/ui/conftest.py.


def _file_mime(*paths: Path | str) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) if isinstance(p, Path) else QUrl(p) for p in paths])
    return mime


def _drag_enter(window: MainWindow, mime: QMimeData) -> QDragEnterEvent:
    enter = QDragEnterEvent(QPoint(5, 5), COPY, mime, LEFT_BUTTON, NO_KEYS)
    enter.ignore()
    QApplication.sendEvent(window, enter)
    return enter


def _drop(window: MainWindow, mime: QMimeData) -> QDropEvent:
    assert _drag_enter(window, mime).isAccepted()
    drop = QDropEvent(QPointF(5, 5), COPY, mime, LEFT_BUTTON, NO_KEYS)
    drop.ignore()
    QApplication.sendEvent(window, drop)
    return drop


def test_an_open_session_shows_the_workspace_with_counts(qtbot, window: MainWindow) -> None:
    assert window.stack.currentWidget() is window.workspace.window
    assert window.windowTitle() == "vault.cairn — Cairn"
    assert window.vault_label.text() == "vault.cairn"
    assert window.server_label.text() == "graph server: off"
    qtbot.waitUntil(lambda: window.counts_label.text().startswith("0 memories"))
    window.session.service.write("Note", "Pharmacy hours", "Opens at eight.")
    window.session.changed.emit()
    qtbot.waitUntil(lambda: window.counts_label.text().startswith("1 memories"))
    assert window.lock_action.isEnabled()


def test_ctrl_l_locks_closes_the_service_and_preselects_the_vault(
    qtbot, window: MainWindow
) -> None:
    service = window.session.service
    vault = window.session.path
    window.activateWindow()
    window.statusBar().showMessage("Adding files finished: 3 files added.")
    with qtbot.waitSignal(window.session.locked, timeout=5_000):
        qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert window.stack.currentWidget() is window.unlock_screen
    assert window.unlock_screen.lock_notice.text() == "Locked (Ctrl+L)"
    assert window.unlock_screen.lock_notice.isVisible()
    assert window.statusBar().currentMessage() == ""  # what it said of the vault went too
    assert window.session.service is None
    with pytest.raises(VaultClosed):
        service.scopes()
    assert window.unlock_screen.selected_vault() == vault
    assert window.unlock_screen.pages.currentIndex() == 0
    assert window.windowTitle() == "Cairn"
    assert window.counts_label.text() == ""
    assert not window.lock_action.isEnabled()
    assert not window.find_action.isEnabled()


def test_the_toolbar_shows_only_while_a_vault_is_open(qtbot, window: MainWindow) -> None:
    toolbar = window.menus.toolbar
    assert toolbar.isVisible()
    with qtbot.waitSignal(window.session.locked):
        window.lock()
    assert not toolbar.isVisible()  # not a row of greyed buttons over the unlock screen
    locked = MainWindow(Session(), Preferences())
    qtbot.addWidget(locked)
    locked.show()
    assert not locked.menus.toolbar.isVisible()


def test_idle_time_locks_the_window(qtbot, window: MainWindow) -> None:
    window.autolock.set_interval_ms(300)
    with qtbot.waitSignal(window.session.locked, timeout=5_000):
        pass
    assert window.stack.currentWidget() is window.unlock_screen


def test_settings_change_the_auto_lock_time(qtbot, window: MainWindow) -> None:
    dialog = window.open_settings()
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.memory_page.isEnabled())
    dialog.autolock_minutes.setValue(3)
    with qtbot.waitSignal(dialog.applied):
        dialog.apply(close=True)
    assert window.autolock.interval_ms == 3 * 60_000
    assert window.preferences.autolock_minutes() == 3


def test_ctrl_n_opens_quick_capture(qtbot, window: MainWindow) -> None:
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), QuickCaptureDialog))
    QApplication.activeModalWidget().reject()


def test_what_the_status_bar_says_of_a_capture_goes_after_a_while(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(main_window, "STATUS_MESSAGE_MS", 200)
    capture = window.quick_capture()
    assert capture is not None
    capture.text.setPlainText("Call the glazier about the shed window")
    with qtbot.waitSignal(capture.captured, timeout=10_000) as captured:
        capture.capture()
    assert window.statusBar().currentMessage() == "Captured to the inbox."
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == "", timeout=5_000)

    item = window.open_inbox_item(captured.args[0].id)
    assert item is not None
    qtbot.waitUntil(lambda: item.discard_button.isEnabled(), timeout=10_000)
    with qtbot.waitSignal(item.promoted, timeout=15_000):
        item.promote("Note")
    assert window.statusBar().currentMessage() == "Made a memory of the capture."
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == "", timeout=5_000)


def test_new_vault_asks_before_it_locks_then_offers_to_create_one(
    qtbot, window: MainWindow
) -> None:
    vault = window.session.path
    box = window.new_vault()
    assert box is not None and box.isVisible() and box.isModal()
    assert box.text() == "Lock this vault and create a new one?"
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert window.session.is_open  # asked, not done
    assert window.stack.currentWidget() is window.workspace.window

    box = window.new_vault()
    assert box is not None
    [create] = [b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.AcceptRole]
    with qtbot.waitSignal(window.session.locked):
        create.click()
    assert window.stack.currentWidget() is window.unlock_screen
    assert window.unlock_screen.pages.currentIndex() == 1
    assert not window.unlock_screen.lock_notice.isVisible()  # it locked for the new vault
    new_location = Path(window.unlock_screen.location.text())
    assert new_location != vault and not new_location.exists()
    assert window.new_vault() is None  # locked: nothing to ask, the page is there


def test_the_window_layout_comes_back_on_the_next_run(qtbot, open_session: Session) -> None:
    first = MainWindow(open_session, Preferences())
    qtbot.addWidget(first)
    first.show()
    qtbot.waitExposed(first)
    first.resize(720, 540)  # within the offscreen screen (800×600)
    first.workspace.splitter.setSizes([450, 250])
    first.workspace.search_splitter.setSizes([150, 300])
    qtbot.waitUntil(lambda: first.size().width() == 720)
    columns, size = first.workspace.splitter.sizes(), first.size()
    search_columns = first.workspace.search_splitter.sizes()
    first.show_graph()
    first.close()

    second = MainWindow(Session(), Preferences())
    qtbot.addWidget(second)
    assert second.size() == size
    assert size.width() == 720
    # The columns are laid out once the workspace is on screen (here without unlocking).
    second.show()
    second.stack.setCurrentWidget(second.workspace.window)
    qtbot.waitUntil(lambda: second.workspace.splitter.sizes() == columns)
    assert second.workspace.current_tab == "graph"
    second.workspace.show_tab("search")
    qtbot.waitUntil(lambda: second.workspace.search_splitter.sizes() == search_columns)


def _layout_of_three_columns(qtbot, sizes: list[int]) -> tuple[QByteArray, QByteArray, QByteArray]:
    """What a run before the graph had its tab saved: the window, three columns in one
    splitter, and the graph a dock tabbed with review and ingest."""
    old = QMainWindow()
    qtbot.addWidget(old)
    splitter = QSplitter()
    for _ in range(3):
        splitter.addWidget(QWidget())
    old.setCentralWidget(splitter)
    docks = []
    for name in ("review", "graph", "ingest"):
        dock = QDockWidget(name, old)
        dock.setObjectName(f"{name}Dock")
        old.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        docks.append(dock)
    old.tabifyDockWidget(docks[0], docks[1])
    old.tabifyDockWidget(docks[0], docks[2])
    old.resize(780, 560)
    old.show()
    qtbot.waitExposed(old)
    splitter.setSizes(sizes)
    return old.saveGeometry(), old.saveState(), splitter.saveState()


def test_a_layout_saved_with_three_columns_and_a_graph_dock_still_restores(
    qtbot, open_session: Session
) -> None:
    geometry, docks, columns = _layout_of_three_columns(qtbot, [200, 500, 300])
    preferences = Preferences()
    preferences.set_layout("window", geometry)
    preferences.set_layout("docks", docks)
    preferences.set_layout("splitter", columns)
    preferences.save_layout()

    window = MainWindow(open_session, Preferences())
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert window.workspace.docks_sized  # the old state's docks were taken, the graph's left out
    assert window.workspace.docks["review"].isVisible()
    assert not window.workspace.docks["review"].isFloating()
    tabs, detail = window.workspace.splitter.sizes()
    library, results = window.workspace.search_splitter.sizes()
    assert tabs / (tabs + detail) == pytest.approx(0.7, abs=0.05)
    assert library / (library + results) == pytest.approx(2 / 7, abs=0.05)
    assert window.workspace.current_tab == "search"
    window.close()


def test_ctrl_g_shows_the_graph_beside_the_detail_pane_and_ctrl_k_goes_back(
    qtbot, window: MainWindow
) -> None:
    workspace = window.workspace
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert workspace.current_tab == "graph"
    assert workspace.graph.isVisible() and workspace.detail.isVisible()
    assert not workspace.search.isVisible()
    # the graph has the room of the library and the results together
    assert workspace.graph.width() >= workspace.library.width() + workspace.search.width() - 40
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert workspace.current_tab == "search"
    qtbot.waitUntil(lambda: QApplication.focusWidget() is workspace.search.search_field)


def test_the_graph_follows_the_opened_memory_and_a_click_opens_one(
    qtbot, window: MainWindow
) -> None:
    service = window.session.service
    workspace = window.workspace
    person = service.write("Person", "Ada Lindqvist", "Beekeeper two doors down.").node
    note = service.write("Note", "Honey harvest", "Twelve jars from the summer frames.").node
    service.link(note.id, person.id, "involves", scopes=service.scopes())
    graph, detail = workspace.graph, workspace.detail
    with qtbot.waitSignal(detail.loaded, timeout=5_000):
        window.open_node(person.id)  # as from a search result
    assert graph.root == person.id
    window.show_graph()
    qtbot.waitUntil(lambda: graph.node_count() == 2, timeout=15_000)
    index = graph.picture.view.ids.index(note.id)
    at = graph.canvas.mapFromScene(graph.canvas.node_point(index))
    with qtbot.waitSignal(detail.loaded, timeout=5_000):
        qtbot.mouseClick(graph.canvas.viewport(), Qt.MouseButton.LeftButton, pos=at)
    assert detail.current_node_id == note.id
    assert graph.root == person.id  # the graph stays centred where it was


def test_dropping_a_file_adds_it_to_the_vault(qtbot, window: MainWindow, tmp_path: Path) -> None:
    ingest = window.workspace.ingest
    note = tmp_path / "drop" / "kiln.md"
    note.parent.mkdir()
    note.write_text("# Kiln\n\nThe pottery kiln needs cone 6 for the stoneware glaze.\n")
    with qtbot.waitSignal(ingest.finished, timeout=INGEST_TIMEOUT_MS):
        drop = _drop(window, _file_mime(note))
        assert drop.isAccepted()
        assert window.workspace.docks["ingest"].isVisible()
    service = window.session.service
    sources = service.sources(scopes=service.scopes())
    assert [Path(s.path).name for s in sources] == ["kiln.md"]
    assert "Adding files finished" in window.statusBar().currentMessage()


def test_a_dropped_web_link_is_refused_with_a_reason(window: MainWindow) -> None:
    drop = _drop(window, _file_mime("https://example.org/paper.pdf"))
    assert not drop.isAccepted()
    assert "only adds files from this computer" in window.statusBar().currentMessage()


def test_a_drop_of_files_and_a_web_link_adds_the_files_and_says_why_not_the_link(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    note = tmp_path / "mixed" / "glaze.md"
    note.parent.mkdir()
    note.write_text("# Glaze\n\nCeladon over the porcelain, fired at cone 10.\n")
    with qtbot.waitSignal(window.workspace.ingest.finished, timeout=INGEST_TIMEOUT_MS):
        drop = _drop(window, _file_mime(note, "https://example.org/kiln.pdf"))
        assert drop.isAccepted()
        message = window.statusBar().currentMessage()
        assert "https://example.org/kiln.pdf" in message and "being added" in message
    service = window.session.service
    assert [Path(s.path).name for s in service.sources(scopes=service.scopes())] == ["glaze.md"]


def test_drops_are_not_taken_while_locked(window: MainWindow, tmp_path: Path) -> None:
    window.lock()
    assert not _drag_enter(window, _file_mime(tmp_path)).isAccepted()


def test_open_requested_shows_the_memory_in_the_detail_pane(qtbot, window: MainWindow) -> None:
    detail, search = window.workspace.detail, window.workspace.search
    written = window.session.service.write("Note", "Pharmacy hours", "Opens at eight.")
    node_id = written.node.id
    with qtbot.waitSignal(detail.loaded, timeout=5_000):
        search.open_requested.emit(node_id)
    assert detail.current_node_id == node_id


def test_ctrl_k_puts_the_cursor_in_the_search_field(qtbot, window: MainWindow) -> None:
    search = window.workspace.search
    window.activateWindow()
    window.workspace.library.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is search.search_field)


def test_busy_text_and_notifications_reach_the_status_bar(window: MainWindow) -> None:
    window.set_busy("Reading 3 files…")
    assert window.busy_label.text() == "Reading 3 files…"
    assert window.busy_label.isVisible()
    window.set_busy(None)
    assert not window.busy_label.isVisible()
    window.notify("Vectors rebuilt", "Search by meaning is on.")
    assert window.statusBar().currentMessage() == "Vectors rebuilt: Search by meaning is on."


def test_every_panel_is_in_the_window(window: MainWindow) -> None:
    workspace = window.workspace
    columns = [workspace.splitter.widget(i) for i in range(workspace.splitter.count())]
    assert columns == [workspace.tabs, workspace.detail]
    search_tab = [workspace.search_splitter.widget(i) for i in range(2)]
    assert search_tab == [workspace.library, workspace.search]
    tabs = [workspace.tabs.widget(i) for i in range(workspace.tabs.count())]
    assert tabs == [workspace.search_splitter, workspace.graph]
    for name in ("review", "ingest"):
        scroll = workspace.docks[name].widget()
        assert scroll.widget() is workspace.panels[name]


def test_the_window_says_what_a_killed_export_left_and_cairn_removed(
    window: MainWindow,
) -> None:
    removed = Swept("/home/me/Sync/.notes.partial-0123456789ab", 9370, 159_000_000)
    stuck = Swept("/media/usb/.all.partial-ba9876543210", 3, 1200, "Read-only file system")
    box = window.tell_unfinished_exports([removed, stuck])
    assert box.isVisible()
    text = box.text()
    assert "Removed the plaintext files" in text and "9,370 files, 159.0 MB" in text
    assert "could not remove them (Read-only file system)" in text
    assert "Delete that folder yourself" in text
    box.close()


def test_a_search_within_one_shelf_says_so_and_goes_back_to_all(qtbot, window: MainWindow) -> None:
    service = window.session.service
    service.write("Note", "Ladder", "Borrow the long ladder from the garden club.")
    service.inbox_capture("ask about the ladder")
    window.session.changed.emit()
    library, search = window.workspace.library, window.workspace.search
    qtbot.waitUntil(lambda: library.counts().get("inbox") == 1, timeout=10_000)
    library.select(SearchFilter("inbox"))
    window.focus_search()
    search.search_field.setText("ladder")
    qtbot.waitUntil(lambda: search.shown_query == "ladder", timeout=10_000)
    assert search.narrowed_label.isVisibleTo(search)
    assert search.narrowed_label.text() == "Searching the inbox only."
    assert [row.title for row in search.model.rows()] == ["ask about the ladder"]
    qtbot.mouseClick(search.search_all_button, LEFT_BUTTON)
    qtbot.waitUntil(lambda: search.current_filter == SearchFilter(), timeout=10_000)
    qtbot.waitUntil(lambda: "Ladder" in [row.title for row in search.model.rows()], timeout=10_000)
    assert not search.narrowed_label.isVisibleTo(search)
