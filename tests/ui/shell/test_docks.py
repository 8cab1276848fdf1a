"""The Review and Ingest docks start closed and come forward when there is something for them:
files being added, a run left to resume, the person asking for Review (the library's Review
shelf, the status bar's count, View › Review). The first one opened takes its share of the
window; closed or open, they come back on the next run as they were left."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from cairn.app.api import CancelToken, IngestRequest
from cairn.ui.base.preferences import Preferences
from cairn.ui.base.session import Session
from cairn.ui.search.library import FILTER_ROLE
from cairn.ui.shell.main_window import MainWindow
from cairn.ui.shell.workspace import DOCK_HEIGHT, DOCK_SHARE
from tests.app.dedup.test_review_queue import KEY, KEY_REWORDED

WAIT_MS = 15_000


def _shown(qtbot, session: Session) -> MainWindow:
    window = MainWindow(session, Preferences())
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_a_new_vault_opens_with_the_docks_closed(qtbot, window: MainWindow) -> None:
    workspace = window.workspace
    qtbot.wait(100)  # what the first unlock lays out later, it has by now
    assert not any(dock.isVisible() for dock in workspace.docks.values())
    # The columns have the workspace's whole height.
    assert workspace.center.height() >= workspace.window.height() - 4


def test_adding_files_brings_the_ingest_dock_forward_at_its_share(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    note = tmp_path / "pier.md"
    note.write_text("# Pier\n\nThe old pier was built in 1884.\n", encoding="utf-8")
    dock = window.workspace.docks["ingest"]
    with qtbot.waitSignal(window.workspace.ingest.finished, timeout=60_000):
        assert window.ingest_paths([str(note)])
        assert dock.isVisible()
    share = min(DOCK_HEIGHT, window.workspace.window.height() * DOCK_SHARE)
    qtbot.waitUntil(lambda: dock.height() <= share + 2)
    assert not window.workspace.docks["review"].isVisible()


def test_a_run_left_unfinished_brings_the_ingest_dock_forward(
    qtbot, open_session: Session, tmp_path: Path
) -> None:
    folder = tmp_path / "letters"
    folder.mkdir()
    for number in range(3):
        (folder / f"letter-{number}.md").write_text(f"Letter {number} about the pier.\n")
    stopped = CancelToken()
    stopped.cancel()  # stopped at once: nothing read, the run kept as unfinished
    service = open_session.service
    service.ingest(IngestRequest.of([folder]), cancel=stopped)
    assert service.unfinished_ingests()
    window = _shown(qtbot, open_session)
    dock = window.workspace.docks["ingest"]
    qtbot.waitUntil(dock.isVisible, timeout=WAIT_MS)
    assert window.workspace.ingest.resume_bar.isVisible()


def test_review_comes_forward_from_the_library_and_from_the_status_bar(
    qtbot, window: MainWindow
) -> None:
    service = window.session.service
    service.write("Note", *KEY)
    pending = service.write("Note", *KEY_REWORDED)
    assert pending.outcome == "pending"
    window.session.changed.emit()
    said = "Adding files finished: 14 files added. 1 near-copy waits for you in Review."
    window.statusBar().showMessage(said)  # as an ingest ends while the count changes
    button = window.status.review_button
    qtbot.waitUntil(button.isVisible, timeout=WAIT_MS)
    assert button.text() == "1 waiting for review"
    # Beside the message, not drawn over its words.
    assert button.geometry().left() > window.statusBar().fontMetrics().horizontalAdvance(said)
    dock = window.workspace.docks["review"]
    assert not dock.isVisible()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert dock.isVisible()

    dock.close()  # View › Review off, as its check says
    view_review = dock.toggleViewAction()
    assert not view_review.isChecked()
    tree = window.workspace.library.tree
    shelf = next(
        tree.topLevelItem(row)
        for row in range(tree.topLevelItemCount())
        if tree.topLevelItem(row).data(0, FILTER_ROLE).kind == "review"
    )
    tree.setCurrentItem(shelf)
    assert dock.isVisible() and view_review.isChecked()


def test_the_docks_come_back_as_they_were_left(qtbot, open_session: Session) -> None:
    first = _shown(qtbot, open_session)
    first.show_review()
    qtbot.waitUntil(first.workspace.docks["review"].isVisible)
    first.close()

    second = _shown(qtbot, Session())
    second.stack.setCurrentWidget(second.workspace.window)
    assert second.workspace.docks["review"].isVisible()
    assert not second.workspace.docks["ingest"].isVisible()
    assert second.workspace.docks_sized  # its height came with it
