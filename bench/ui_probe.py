"""The window's search on one built vault, in a fresh process (``python -m bench.ui_probe``,
spec on stdin; offscreen Qt).

Measured per query: from the moment the search starts (the typing pause has passed; the pause
itself is ``search_panel.DEBOUNCE_MS``) until its results are painted in the list: the worker
call, the hand-over to the UI thread, filling the model and one repaint of the list. The query
is embedded at the real model's cost (``ModelCostEmbedder``), since a person's search pays it.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, QTimer  # (after the platform is chosen)
from PySide6.QtWidgets import QApplication

from bench.embedders import ModelCostEmbedder
from bench.measure import answer_spec, summary
from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.ui.base import ui_thread_gc
from cairn.ui.base.session import Session
from cairn.ui.search import panel as search_panel

WARMUP = 10
TIMEOUT_MS = 10_000


def probe(spec: dict[str, Any]) -> dict[str, Any]:
    app = QApplication.instance() or QApplication([])
    ui_thread_gc.install(app)  # type: ignore[arg-type]
    embedder = ModelCostEmbedder(MiniLMEmbedder())
    service = compose.open_vault(Path(spec["path"]), spec["passphrase"], embedder=embedder)
    session = Session()
    session.service, session.path = service, Path(spec["path"])
    panel = search_panel.SearchPanel(session)
    panel.resize(700, 800)
    panel.show()
    queries: list[str] = spec["queries"]
    for query in queries[:WARMUP]:
        _search(panel, query)
    times = [_search(panel, query) for query in queries]
    shown = len(panel.model.rows())
    session.lock()
    print(f"    window searched {len(queries)} queries", file=sys.stderr, flush=True)
    return {
        "on_screen": summary(times),
        "debounce_ms": search_panel.DEBOUNCE_MS,
        "rows_last": shown,
    }


def _search(panel: search_panel.SearchPanel, query: str) -> float:
    """Seconds from starting ``query`` to its results painted in the list."""
    loop = QEventLoop()
    panel.results_shown.connect(loop.quit)
    give_up = QTimer()
    give_up.setSingleShot(True)
    give_up.timeout.connect(loop.quit)
    give_up.start(TIMEOUT_MS)
    panel.search_field.blockSignals(True)  # the typing pause is not part of this measure
    panel.search_field.setText(query)
    panel.search_field.blockSignals(False)
    start = time.perf_counter()
    panel.refresh()
    loop.exec()
    panel.results_view.viewport().repaint()
    elapsed = time.perf_counter() - start
    give_up.stop()
    panel.results_shown.disconnect(loop.quit)
    if panel.shown_query != query:
        raise RuntimeError(f"no results for {query!r} within {TIMEOUT_MS} ms")
    return elapsed


if __name__ == "__main__":
    answer_spec(probe)
