"""Child processes that end with the process that started them.

Cairn reads files in child processes: the extraction worker (``app/ingestion/extraction.py``),
the window's ingest run (``app/ingestion/process.py``), and the programs a reader runs
(Tesseract, jbig2dec). When the parent is killed (``kill -9``, a crash, the out-of-memory
killer) nothing tells its children: they would read on for minutes, then fail to answer on a
pipe nobody holds, with a traceback on the terminal. On Linux the kernel can signal a child
when its parent ends (``prctl(PR_SET_PDEATHSIG)``): SIGKILL here, so the child ends at once and
says nothing, whatever it is doing. That is safe for the vault: an ingest child writes in
transactions, and SQLite (WAL) leaves out any that was not committed when its writer ended; a
rerun adds those files again.

The kernel ties the signal to the *thread* that started the child, not to its process: each
child here is started from a thread that outlives its use (``ExtractionWorker`` starts a fresh
worker when the thread that started the last one has ended). Elsewhere than Linux, or should
the call fail, a child finds its parent gone at its next word on the pipe (``PARENT_GONE``) and
returns quietly.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

# What a pipe raises when the process at its other end is gone.
PARENT_GONE = (BrokenPipeError, ConnectionResetError, EOFError)
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
_KILL = int(signal.SIGKILL)

_prctl: Any = None


def end_with_parent() -> None:
    """The first call in a ``multiprocessing`` child's entry point: the kernel kills this
    process when its parent ends; if the parent has already ended (before the signal was
    set), this process ends now."""
    parent = multiprocessing.parent_process()
    if parent is None or not _set_parent_death_signal():
        return
    if os.getppid() != parent.pid:  # the parent went while this process was starting
        os._exit(0)


def programs_end_with_us() -> Callable[[], None] | None:
    """A ``preexec_fn`` for ``subprocess``: the program it starts is killed when the process
    that started it ends. None where the platform cannot (run the program without it)."""
    prctl = _libc_prctl()
    if prctl is None:
        return None

    def in_the_program() -> None:
        # Between fork and exec: only the call already looked up, nothing that may allocate or
        # take a lock another thread held at the fork.
        prctl(PR_SET_PDEATHSIG, _KILL, 0, 0, 0)

    return in_the_program


def _set_parent_death_signal() -> bool:
    prctl = _libc_prctl()
    return prctl is not None and prctl(PR_SET_PDEATHSIG, _KILL, 0, 0, 0) == 0


def _libc_prctl() -> Any:
    """The C library's ``prctl``, looked up once; None off Linux or where it cannot be found."""
    global _prctl
    if _prctl is None and sys.platform.startswith("linux"):
        try:
            prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            return None
        prctl.argtypes = [ctypes.c_int, *[ctypes.c_ulong] * 4]
        prctl.restype = ctypes.c_int
        _prctl = prctl
    return _prctl
