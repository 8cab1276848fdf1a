"""Python's cyclic garbage collector runs on the UI thread only, driven by a timer.

Left alone, the collector runs on whichever thread happens to allocate when its counters fill
up: often a worker. PySide destroys a widget tree (a ``deleteLater``, a closed dialog) on the UI
thread partly without holding the GIL, so a worker's collection can walk a wrapper whose C++
object is half-destroyed: a segmentation fault inside the collector (seen in gdb: the worker in
``visit_decref`` under shiboken's traverse, the UI thread in ``QWidget::~QWidget`` waiting for
the GIL; about one run in two of the settings and unlock tests). With automatic collection off
and the same generational thresholds checked by a timer on the UI thread, a collection can no
longer interleave with a destruction. pyqtgraph ships the same remedy
(``pyqtgraph/util/garbage_collector.py``). Reference counting, which frees almost everything,
is untouched.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

# Often enough that each collection has little to look at: with automatic collection off, a
# busy worker (an ingest) would otherwise pile up a young generation that takes long to scan.
CHECK_INTERVAL_MS = 100
_installed: list[UiThreadGarbageCollector] = []


class UiThreadGarbageCollector(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        gc.disable()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.check)
        self.timer.start(CHECK_INTERVAL_MS)

    def check(self) -> None:
        """Collect the generations whose counters passed their thresholds, as the
        interpreter would have, but here."""
        young, middle, old = gc.get_count()
        if young > self.thresholds[0]:
            gc.collect(0)
            if middle > self.thresholds[1]:
                gc.collect(1)
                if old > self.thresholds[2]:
                    gc.collect(2)
                    # What survived a full collection is long-lived (modules, the window, the
                    # vault's caches): set it aside, so later full collections on the UI thread
                    # scan only what is new and stay short.
                    gc.freeze()


def install(app: QCoreApplication) -> UiThreadGarbageCollector:
    """Turn automatic collection off and collect on ``app``'s thread from now on (once)."""
    if not _installed:
        gc.collect()
        gc.freeze()  # what exists at start lives as long as the app: never scan it again
        _installed.append(UiThreadGarbageCollector(app))
    return _installed[0]
