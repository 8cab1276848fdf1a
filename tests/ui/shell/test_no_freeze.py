"""The window never freezes: while an ingest of corpus files and a graph layout run, the UI
thread keeps ticking (a timer on it ticks every 10 ms; the longest gap between ticks is the
longest stall a person could feel).

A freeze (work done on the UI thread) holds it for seconds, and this test catches that. The
100 ms target for a stall is a speed target, measured by ``make bench`` (the graph line's "UI
thread while GraphView prepares it", median of three runs): on this shared 2-core machine one
run's longest gap varies between 30 and 160 ms from run to run, at this commit as at earlier
ones, so a single timed run here would fail by chance."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QTimer

from cairn.ui.base.session import Session
from cairn.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.serial

TICK_MS = 10
MAX_STALL_S = 0.500  # a freeze, not a slow frame: the 100 ms target is make bench's
CORPUS_PARTS = (
    "06_pkm/foam_docs/docs/user/features",
    "05_documents/py-pdf_sample-files/004-pdflatex-4-pages",
    "05_documents/mammoth_docx",
)


class StallMeter:
    def __init__(self) -> None:
        self.longest = 0.0
        self.last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.longest = max(self.longest, now - self.last)
        self.last = now

    def start(self) -> None:
        self.last = time.perf_counter()
        self.timer.start()

    def stop(self) -> float:
        self.timer.stop()
        return self.longest


@pytest.mark.slow
def test_ingest_and_graph_layout_never_hold_the_ui_thread(
    qtbot: Any, open_session: Session, corpus: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "drop"
    folder.mkdir()
    for part in CORPUS_PARTS:
        shutil.copytree(corpus / part, folder / Path(part).name)
    service = open_session.service
    assert service is not None
    # Something for the graph to lay out from the start: a few hundred linked memories.
    hub = service.write("Project", "Garden").node
    assert hub is not None
    for number in range(300):
        note = service.write("Note", f"Garden note {number}", f"Row {number} of the beds.").node
        assert note is not None
        service.link(note.id, hub.id, "involves", scopes=service.scopes())

    # Windows of earlier tests wait for the event loop to delete them: not this window's work.
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    window = MainWindow(session=open_session)
    qtbot.addWidget(window)
    window.show()
    ingest = window.workspace.ingest
    graph = window.workspace.graph
    window.show_graph()
    meter = StallMeter()
    meter.start()
    with qtbot.waitSignal(ingest.finished, timeout=600_000):
        window.ingest_paths([str(folder)])
        with qtbot.waitSignal(graph.picture_shown, timeout=120_000):
            graph.show_overview()
        with qtbot.waitSignal(graph.picture_shown, timeout=120_000):
            graph.show_ego(hub.id)
    longest = meter.stop()
    print(f"longest UI-thread stall: {longest * 1000:.0f} ms")
    assert longest < MAX_STALL_S, f"the UI thread stalled for {longest * 1000:.0f} ms"
    open_session.lock()
