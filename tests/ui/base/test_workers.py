"""A bug in a window worker (``ui/base/workers.py``): the person reads a sentence that says so and
names the log; the log holds its frames and type, never its message."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from cairn.app import compose
from cairn.ui.base.workers import run_in_worker

MARKER = "BILBYCARDAMOM"


def _broken_search(query: str) -> None:
    raise LookupError(f"no answer for {query}")


def test_a_bug_in_a_worker_names_the_log_which_holds_its_traceback(qtbot: QtBot) -> None:
    log = compose.start_log("window")
    said: list[str] = []
    task = run_in_worker(_broken_search, MARKER, on_failed=said.append)
    qtbot.waitUntil(lambda: bool(said), timeout=5_000)
    del task
    (sentence,) = said
    assert sentence.startswith("Something went wrong inside Cairn (LookupError")
    assert f"please report this, with Cairn's log {log}" in sentence
    written = Path(log).read_text(encoding="utf-8")
    assert "window started: Cairn" in written
    assert "a fault in a window worker" in written
    assert "in _broken_search" in written and "LookupError" in written
    assert MARKER not in written
