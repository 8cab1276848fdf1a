"""A window a person lives in: what another program writes shows without a lock, an unlock
brings the window back as it was, and the unlock screen says why the vault locked.

The other program is a real ``cairn add`` in a subprocess (its own process, connections and
model), or, where only "another connection" matters, a second service opened on the same file.
Arrival is waited for with a timeout of a few seconds; how fast it arrives is measured apart.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit

from cairn.app.api import SearchFilter
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.ui.ingest.panel import STOPPED_BY_LOCK
from cairn.ui.search.panel import SearchPanel
from cairn.ui.shell.main_window import LOCKED_BY_HAND, MainWindow
from tests.conftest import PASSPHRASE, open_service
from tests.ui.windows import PASSPHRASE as NEW_VAULT_PASSPHRASE

ARRIVAL_MS = 5_000  # what another program wrote shows within about two seconds
CLI_TIMEOUT_MS = 120_000  # the command loads its own model
OPEN_TIMEOUT_MS = 60_000
INGEST_TIMEOUT_MS = 60_000
SEED_TITLE = "Seed order for spring"


def _titles(search: SearchPanel) -> list[str]:
    return [row.title for row in search.model.rows()]


def _cairn_add(qtbot: Any, vault: Path, title: str, body: str) -> None:
    """``cairn add`` in a process of its own, while the window's event loop goes on."""
    command = Path(sys.executable).parent / "cairn"
    env = {**os.environ, "CAIRN_VAULT": str(vault), "CAIRN_PASSPHRASE": PASSPHRASE}
    process = subprocess.Popen(
        [str(command), "add", "--type", "Note", "--title", title, "--body", body],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    qtbot.waitUntil(lambda: process.poll() is not None, timeout=CLI_TIMEOUT_MS)
    out, err = process.communicate()
    assert process.returncode == 0, out + err


def _texts_on_screen(window: MainWindow) -> str:
    """Every text the unlock screen, the title and the status bar show."""
    screen = window.unlock_screen
    texts = [window.windowTitle(), window.statusBar().currentMessage()]
    texts += [label.text() for label in screen.findChildren(QLabel) if label.isVisible()]
    texts += [field.text() for field in screen.findChildren(QLineEdit)]
    for box in screen.findChildren(QComboBox):
        texts += [box.itemText(i) for i in range(box.count())]
    texts += [label.text() for label in window.statusBar().findChildren(QLabel)]
    return "\n".join(texts)


def _unlock(qtbot: Any, window: MainWindow, passphrase: str = PASSPHRASE) -> None:
    window.unlock_screen.passphrase.setText(passphrase)
    with qtbot.waitSignal(window.session.unlocked, timeout=OPEN_TIMEOUT_MS):
        window.unlock_screen.unlock_button.click()


def test_a_walk_another_programs_note_then_lock_and_unlock(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    workspace = window.workspace
    search, library, detail, ingest = (
        workspace.search,
        workspace.library,
        workspace.detail,
        workspace.ingest,
    )
    service = window.session.service
    service.write("Note", "Dentist appointment", "Tuesday at nine; bring the insurance card.")
    service.write("Fact", "Car insurance renewal", "The policy renews on the first of March.")
    window.session.changed.emit()
    qtbot.waitUntil(lambda: window.counts_label.text().startswith("2 memories"))
    # A search for words no memory holds: only the meaning can bring the note below.
    search.search_field.setText("vegetable garden")
    qtbot.waitUntil(lambda: search.shown_query == "vegetable garden")
    assert SEED_TITLE not in _titles(search)

    _cairn_add(qtbot, window.session.path, SEED_TITLE, "Tomatoes, basil and chili to sow in April.")
    qtbot.waitUntil(lambda: _titles(search)[:1] == [SEED_TITLE], timeout=ARRIVAL_MS)
    qtbot.waitUntil(lambda: window.counts_label.text().startswith("3 memories"), timeout=ARRIVAL_MS)
    qtbot.waitUntil(lambda: library.counts().get("type:Note") == 2, timeout=ARRIVAL_MS)

    # The notes only; the seed note selected and open; a file added.
    library.select(SearchFilter("type", "Note"))
    qtbot.waitUntil(lambda: sorted(_titles(search)) == ["Dentist appointment", SEED_TITLE])
    with qtbot.waitSignal(detail.loaded, timeout=10_000):
        search.results_view.setCurrentIndex(search.model.index(_titles(search).index(SEED_TITLE)))
    seed = detail.current_node_id
    assert seed is not None and search.view().selected == seed
    note = tmp_path / "drop" / "kiln.md"
    note.parent.mkdir()
    note.write_text("# Kiln\n\nThe pottery kiln needs cone 6 for the stoneware glaze.\n")
    with qtbot.waitSignal(ingest.finished, timeout=INGEST_TIMEOUT_MS):
        window.ingest_paths([str(note)])
    summary, files, counts = ingest.summary_text, ingest.file_rows(), ingest.counts_text
    assert summary.startswith("1 file added") and list(files.values()) == [("done", "1 passage")]

    window.activateWindow()
    with qtbot.waitSignal(window.session.locked, timeout=5_000):
        qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    screen = window.unlock_screen
    assert screen.lock_notice.isVisible() and screen.lock_notice.text() == LOCKED_BY_HAND
    shown = _texts_on_screen(window)
    for private in (SEED_TITLE, "Dentist", "vegetable", "kiln", "Tomatoes", "1 file added"):
        assert private not in shown
    # The panels forgot it all; only the window's memory of itself holds it while locked.
    assert search.search_field.text() == "" and ingest.summary_text == ""
    assert detail.current_node_id is None and not window.outside_changes.polling

    _unlock(qtbot, window)
    assert not screen.lock_notice.isVisible()
    assert window.outside_changes.polling
    qtbot.waitUntil(lambda: search.view().selected == seed, timeout=10_000)
    assert search.search_field.text() == "vegetable garden"
    assert search.current_filter == SearchFilter("type", "Note")
    assert sorted(_titles(search)) == ["Dentist appointment", SEED_TITLE]
    qtbot.waitUntil(lambda: library.counts().get("type:Note") == 2)
    current = library.tree.currentItem()
    assert current is not None and current.text(0) == "Notes"
    qtbot.waitUntil(lambda: detail.current_node_id == seed, timeout=10_000)
    assert detail.title_label.text() == SEED_TITLE
    assert workspace.graph.root == seed
    assert ingest.summary_text == summary and ingest.file_rows() == files
    assert ingest.counts_text == counts and counts.startswith("1 of 1 files done")
    assert window.resume.kept is None


def test_another_vault_opened_after_the_lock_starts_clean(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    workspace = window.workspace
    written = window.session.service.write("Note", "Pharmacy hours", "Opens at eight.")
    window.session.changed.emit()
    workspace.search.search_field.setText("pharmacy")
    qtbot.waitUntil(lambda: _titles(workspace.search) == ["Pharmacy hours"])
    with qtbot.waitSignal(workspace.detail.loaded, timeout=10_000):
        window.open_node(written.node.id)
    window.lock()
    assert window.resume.kept is not None

    screen = window.unlock_screen
    screen.show_create()
    screen.location.setText(str(tmp_path / "other.cairn"))
    screen.new_passphrase.first.setText(NEW_VAULT_PASSPHRASE)
    screen.new_passphrase.second.setText(NEW_VAULT_PASSPHRASE)
    with qtbot.waitSignal(window.session.unlocked, timeout=OPEN_TIMEOUT_MS):
        screen.create_button.click()
    assert window.resume.kept is None
    qtbot.waitUntil(lambda: workspace.search.shown_query == "")
    assert workspace.search.search_field.text() == ""
    assert workspace.search.current_filter == SearchFilter()
    assert workspace.detail.wanted_node_id is None
    assert workspace.ingest.summary_text == ""


def test_idle_time_locks_and_the_unlock_screen_says_so(qtbot: Any, window: MainWindow) -> None:
    window.autolock.set_interval_ms(1_000)
    with qtbot.waitSignal(window.session.locked, timeout=5_000):
        pass
    notice = window.unlock_screen.lock_notice
    assert notice.isVisible() and notice.text() == "Locked after 1 second without use"
    _unlock(qtbot, window)
    assert not notice.isVisible()


def test_its_own_writes_are_no_news_another_connections_are(
    qtbot: Any, window: MainWindow, embedder: MiniLMEmbedder
) -> None:
    noticed: list[bool] = []
    window.outside_changes.noticed.connect(lambda: noticed.append(True))
    service = window.session.service
    for number in range(3):
        service.write("Note", f"Shelf {number}", f"Box {number} holds the winter clothes.")
        window.session.changed.emit()  # as the panels announce their writes
    qtbot.wait(2_500)  # two questions and more
    assert noticed == []

    with open_service(window.session.path, embedder) as other:
        other.service.write("Note", "Spare key", "Under the blue flower pot.")
        qtbot.waitUntil(lambda: noticed != [], timeout=ARRIVAL_MS)
    qtbot.waitUntil(lambda: "Spare key" in _titles(window.workspace.search), timeout=ARRIVAL_MS)


def test_polling_stops_while_locked_and_when_the_window_closes(
    qtbot: Any, window: MainWindow
) -> None:
    outside = window.outside_changes
    assert outside.polling
    window.lock()
    assert not outside.polling
    outside.poll()  # asked by hand while locked: nothing to ask
    assert outside.wait_for_question()
    _unlock(qtbot, window)
    assert outside.polling
    window.close()
    assert not outside.polling and window.session.service is None
    assert outside.wait_for_question()


def test_a_run_the_lock_stopped_says_so_after_the_unlock(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    folder = tmp_path / "letters"
    folder.mkdir()
    for number in range(40):
        (folder / f"letter-{number:02d}.md").write_text(
            f"# Letter {number}\n\nThe allotment committee meets on day {number} of the season.\n"
        )
    ingest = window.workspace.ingest
    with qtbot.waitSignal(ingest.progressed, timeout=INGEST_TIMEOUT_MS):
        window.ingest_paths([str(folder)])
    assert ingest.is_running
    window.lock()
    assert window.resume.kept is not None and window.resume.kept.ingest.interrupted
    _unlock(qtbot, window)
    assert ingest.summary_text == STOPPED_BY_LOCK
    assert ingest.file_rows() == {}  # the stopped run's files were never reported
