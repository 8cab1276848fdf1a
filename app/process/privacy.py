"""No core dump of a Cairn process: what a crash would write holds decrypted memory.

A process with the vault open has memories, search queries, the derived key and often
``CAIRN_PASSPHRASE`` in its memory. A crash (a segfault in a C library, an abort) makes the
kernel write all of it to a core file: into the working folder, or into a system-wide store
(systemd-coredump, apport) that keeps it for days. So every Cairn process (the command line,
the window, the graph server, the ingest and extraction workers, the community worker) calls
``protect`` first:

- ``RLIMIT_CORE`` 0 (the soft limit, the one the kernel applies): the kernel writes no core
  file, and every program Cairn starts (Tesseract, jbig2dec, a spawned worker) inherits the
  limit; systemd-coredump and apport honour it too and keep no core. The hard limit is left
  as it was, so a shell the person starts afterwards from the same terminal is not changed
  for good.
- ``PR_SET_DUMPABLE`` 0 (Linux, through ``prctl``): the kernel dumps nothing whatever the
  limit or ``core_pattern`` says, and other processes of the same user cannot attach a
  debugger or read ``/proc/PID/mem`` or ``environ``. ``exec`` makes a process dumpable again,
  so each spawned Python worker calls ``protect`` itself.

Elsewhere only the limit applies (macOS honours it; Windows has no core files, and its error
reporting is the system's setting). Swap is not prevented: locking every page of a Python
process in memory is not possible within the limits a desktop allows; ``cairn doctor`` says
whether this machine swaps and whether the swap is encrypted.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import resource
import sys
from dataclasses import dataclass
from pathlib import Path

PR_GET_DUMPABLE = 3  # <linux/prctl.h>
PR_SET_DUMPABLE = 4


@dataclass(frozen=True)
class Protection:
    """What holds in this process: the core size limit the kernel applies (the soft one) and
    whether the kernel would dump it (None where the platform cannot say)."""

    core_limit: int
    dumpable: bool | None

    @property
    def complete(self) -> bool:
        return self.core_limit == 0 and self.dumpable is not True


def protect() -> Protection:
    """Turn core dumps off for this process and what it starts; returns what now holds."""
    # A limit that cannot be lowered is reported by ``current`` (and the doctor).
    with contextlib.suppress(ValueError, OSError):
        hard = resource.getrlimit(resource.RLIMIT_CORE)[1]
        resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
    libc = _libc()
    if libc is not None:
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    return current()


def current() -> Protection:
    soft = resource.getrlimit(resource.RLIMIT_CORE)[0]
    libc = _libc()
    dumpable = None if libc is None else bool(libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0))
    return Protection(int(soft), dumpable)


@dataclass(frozen=True)
class Swap:
    """The machine's swap areas, and those not on an encrypted device."""

    areas: list[str]
    unencrypted: list[str]


def swap() -> Swap | None:
    """Linux's swap areas (``/proc/swaps``); None where there is no such file."""
    try:
        lines = Path("/proc/swaps").read_text().splitlines()[1:]
    except OSError:
        return None
    areas = [line.split()[0] for line in lines if line.strip()]
    return Swap(areas, [area for area in areas if not _encrypted_swap(area)])


def _encrypted_swap(area: str) -> bool:
    """A dm-crypt device (or zram, which never leaves memory) holds no plaintext on disk."""
    path = Path(area)
    if path.name.startswith("zram"):
        return True
    try:
        device = path.resolve().name  # /dev/mapper/x -> dm-N
        uuid = Path(f"/sys/block/{device}/dm/uuid").read_text()
    except OSError:
        return False
    return uuid.startswith("CRYPT-")


@functools.cache
def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        # The running program's own symbols, libc's among them: no search for the library
        # (``ctypes.util.find_library`` would start a process to find it).
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl  # noqa: B018  (present on every Linux libc)
    except (OSError, AttributeError):
        return None
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                           ctypes.c_ulong]  # fmt: skip
    libc.prctl.restype = ctypes.c_int
    return libc
