"""The window's question about other programs' writes (``OutsideChanges``) on a real vault: a
single write is announced at once, a program that keeps writing is announced now and then and
once more when it stops, and a question about a vault locked meanwhile is dropped."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from cairn.app.embedding.model import MiniLMEmbedder
from cairn.ui.base.session import Session
from cairn.ui.shell.outside_changes import OutsideChanges
from tests.conftest import open_service

POLL_MS = 100
BUSY_REFRESH_MS = 1_500
WRITING_S = 2.5


def test_a_program_that_keeps_writing_is_announced_now_and_then(
    qtbot: Any, open_session: Session, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    outside = OutsideChanges(open_session, interval_ms=POLL_MS, busy_refresh_ms=BUSY_REFRESH_MS)
    noticed: list[float] = []
    outside.noticed.connect(lambda: noticed.append(time.monotonic()))
    assert open_session.path is not None
    writes: list[float] = []

    with open_service(open_session.path, embedder) as other:

        def keep_writing() -> None:
            end = time.monotonic() + WRITING_S
            number = 0
            while time.monotonic() < end:
                other.service.write("Note", f"Line {number}", f"Meter reading {number * 17}.")
                writes.append(time.monotonic())
                number += 1

        writer = threading.Thread(target=keep_writing)
        writer.start()
        qtbot.waitUntil(lambda: not writer.is_alive(), timeout=30_000)
        writer.join()
        qtbot.waitUntil(lambda: bool(noticed) and noticed[-1] > writes[-1], timeout=5_000)

    # About 25 questions saw a change; at its first, after the pause, and when it stopped.
    assert len(writes) > 10
    assert 2 <= len(noticed) <= 4, noticed
    assert noticed[0] - writes[0] < 1.0  # the first write was not held back
    outside.stop()
    assert outside.wait_for_question()


def test_an_answer_about_a_vault_locked_meanwhile_is_dropped(
    qtbot: Any, open_session: Session, embedder: MiniLMEmbedder
) -> None:
    outside = OutsideChanges(open_session, interval_ms=60_000)
    changed: list[bool] = []
    open_session.changed.connect(lambda: changed.append(True))
    assert open_session.path is not None
    with open_service(open_session.path, embedder) as other:
        other.service.write("Note", "Gas meter", "Reading 4711 on the first of the month.")
    outside.poll()  # asked, and locked before the answer is handled
    open_session.lock()
    assert outside.wait_for_question()
    qtbot.wait(100)  # the answer's signal is delivered on the UI thread
    assert changed == [] and not outside.polling
