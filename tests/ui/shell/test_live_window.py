"""A window a person lives in: what another program writes shows without a lock, and the
unlock screen says why the vault locked.

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

from cairn.app.embedding.model import MiniLMEmbedder
from cairn.ui.search.panel import SearchPanel
from cairn.ui.shell.main_window import MainWindow
from tests.conftest import PASSPHRASE, open_service

ARRIVAL_MS = 5_000  # what another program wrote shows within about two seconds
CLI_TIMEOUT_MS = 120_000  # the command loads its own model
OPEN_TIMEOUT_MS = 60_000
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


def _unlock(qtbot: Any, window: MainWindow, passphrase: str = PASSPHRASE) -> None:
    window.unlock_screen.passphrase.setText(passphrase)
    with qtbot.waitSignal(window.session.unlocked, timeout=OPEN_TIMEOUT_MS):
        window.unlock_screen.unlock_button.click()


def test_a_note_added_by_cairn_add_shows_in_the_open_window(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    search, library = window.workspace.search, window.workspace.library
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


def test_idle_time_locks_and_the_unlock_screen_says_so(qtbot: Any, window: MainWindow) -> None:
    window.autolock.set_interval_ms(1_000)
    with qtbot.waitSignal(window.session.locked, timeout=5_000):
        pass
    notice = window.unlock_screen.lock_notice
    assert notice.isVisible() and notice.text() == "Locked after 1 second without use"
    _unlock(qtbot, window)
    assert not notice.isVisible()
