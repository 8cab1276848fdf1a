"""An ingest runs below the programs a person is using: it yields the cores.

Reading, embedding and writing a long document keeps both cores of a small machine busy for
minutes. At the same priority, a `cairn add` or an edit in the window beside it waits for the
CPU, not for the vault: with a 1,200-page PDF being read, adds took up to 1.8 s more at the
95th percentile, and 0.06 s with the ingest niced (``bench.writes_during_ingest``). The
window's ingest child and ``cairn ingest`` / ``cairn watch run`` lower themselves; the
extraction worker and the programs it runs (Tesseract) inherit it.
"""

from __future__ import annotations

import contextlib
import os

NICENESS = 10  # how far below the person's programs an ingest runs


def lower_priority() -> None:
    """This process, and what it starts, yields the CPU to other programs (where the platform
    has ``nice``; a priority already lower stays)."""
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            current = os.nice(0)
            if current < NICENESS:
                os.nice(NICENESS - current)
