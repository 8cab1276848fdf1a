"""The diagnostic log: a small file in the data folder that helps fix a bug and never holds a
memory.

``cairn.log`` (with ``cairn.log.1`` and ``cairn.log.2`` once it has grown past
``MAX_BYTES``), mode 0600 in the 0700 data folder, written by every Cairn process: the
command line, the window, the ingest child and the extraction worker. It keeps three things:

- **faults**: a bug's traceback, as its frames (file, line, function) and the exception's
  type. Never its message, nor a chained one's: a message may quote what the code was
  working on (a title, a query, a line of a file), and so may the values of a frame's
  variables, which are never captured. An ``OSError`` adds its error code's name (ENOENT),
  never its file name;
- **timings** of the long operations (``OPERATIONS``): how long, and how many (``timed``);
- **versions**, the first line each process writes: Cairn, Python, SQLCipher, Qt in the
  window, the operating system.

What goes in is only what Cairn's own code logs under the ``cairn`` logger (libraries'
loggers do not reach the file), and every call passes numbers, the names of code (modules,
readers, operations) or this module's tracebacks: never a memory's text, a query, a title or
a file's name. ``tests/app/test_no_memory_in_logs.py`` and ``test_no_plaintext_spill.py``
hunt a marker in it after real sessions.

The file is opened when the first record arrives, so a command that logs nothing (``cairn
doctor``) creates no file and no folder. Several processes append to it (``O_APPEND``); one
that finds the file rotated by another reopens it before it writes.
"""

from __future__ import annotations

import errno
import logging
import logging.handlers
import os
import platform
import re
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

FILE_NAME = "cairn.log"
MAX_BYTES = 512 * 1024  # a few thousand faults or timings: months of ordinary use
BACKUPS = 2
LOGGER = "cairn"
# The operations ``timed`` may name: nothing else can become a timing's words.
OPERATIONS = frozenset({"ingest", "export", "import", "backup", "reindex", "open", "vector load"})
_COUNT_NAME = re.compile(r"[a-z][a-z_]{0,31}")
_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"

log = logging.getLogger(LOGGER)
_hooks_installed = False
_hooks_lock = threading.Lock()


def path_in(data_dir: Path | str) -> Path:
    """Where the log of the data folder ``data_dir`` is."""
    return Path(data_dir) / FILE_NAME


def start(data_dir: Path | str | None, role: str, *, qt: str | None = None) -> Path | None:
    """Write this process's ``cairn`` records to the log of ``data_dir`` (none: to nothing
    but what Python does without a handler). ``role`` names the process ("cli", "window",
    "ingest child", "extraction worker"); ``qt`` is the window's Qt version. Called again
    with another folder (a test's), it moves there. Also logs, from now on, what no code
    caught: on the main thread and on any other."""
    stop()
    if data_dir is None:
        return None
    handler = _LogFile(path_in(data_dir), role, qt)
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    _install_hooks()
    return handler.path


def stop() -> None:
    """Close the log file of this process (a test's end; nothing is lost: records are
    written as they come)."""
    for handler in [h for h in log.handlers if isinstance(h, _LogFile)]:
        log.removeHandler(handler)
        handler.close()


def current() -> Path | None:
    """The log file this process writes to, if any."""
    for handler in log.handlers:
        if isinstance(handler, _LogFile):
            return handler.path
    return None


def with_the_log(data_dir: Path | str | None = None) -> str:
    """What follows "please report this": the log to send with it (of ``data_dir``, else the
    one this process writes), as a clause that starts with a comma; "" when there is none."""
    path = current() if data_dir is None else path_in(data_dir)
    if path is None:
        return ""
    return f", with Cairn's log {path} (it holds where the fault happened, never a memory)"


def fault(error: BaseException, where: str) -> None:
    """Record a bug: ``where`` names the code that met it ("a window worker"), and the
    traceback is told as ``traceback_of`` tells it. Told in the record's words, not handed
    over as the exception: any other handler (Python's last resort on stderr, which a desktop
    session may keep in its journal) would print the exception's message."""
    log.error("a fault in %s\n%s", where, traceback_of(error))


@contextmanager
def timed(operation: str) -> Iterator[dict[str, int | float]]:
    """Time ``operation`` (one of ``OPERATIONS``); the caller puts counts in the dictionary
    it is given (``counts["files"] = 12``): lowercase names, numbers only."""
    if operation not in OPERATIONS:
        raise ValueError(f"not an operation the log may name: {operation!r}")
    counts: dict[str, int | float] = {}
    began = time.perf_counter()
    try:
        yield counts
    except BaseException as error:
        log.info(
            "%s stopped by %s after %.2f s%s",
            operation,
            _type_name(error),
            time.perf_counter() - began,
            _counts(counts),
        )
        raise
    log.info("%s took %.2f s%s", operation, time.perf_counter() - began, _counts(counts))


def traceback_of(error: BaseException) -> str:
    """A traceback with nothing of what the code worked on: for each exception of the chain
    (causes first, as Python prints them), its frames and its type, no message."""
    chain: list[tuple[BaseException, str]] = []
    seen: set[int] = set()
    step: BaseException | None = error
    link = ""
    while step is not None and id(step) not in seen:
        seen.add(id(step))
        chain.append((step, link))
        if step.__cause__ is not None:
            step, link = step.__cause__, "It was the direct cause of what follows."
        elif step.__context__ is not None and not step.__suppress_context__:
            step, link = step.__context__, "What follows happened while handling it."
        else:
            step = None
    lines: list[str] = []
    for exc, how in reversed(chain):
        lines.append("Traceback (messages left out: they may quote a memory):")
        lines.extend(_frames(exc.__traceback__))
        lines.append(_type_name(exc))
        if how:
            lines.append(how)
    return "\n".join(lines)


def versions(role: str, qt: str | None = None) -> str:
    parts = [
        f"Cairn {_cairn_version()}",
        f"Python {platform.python_version()}",
        f"SQLCipher {_sqlcipher_version()}",
    ]
    if qt:
        parts.append(f"Qt {qt}")
    parts.append(platform.platform())
    return f"{role} started: " + ", ".join(parts)


# -- the file ---------------------------------------------------------------------------------


class _Formatter(logging.Formatter):
    """A record's words and, for a fault, ``traceback_of``: never the traceback another
    handler may have cached on the record (``exc_text``), which holds the messages."""

    def format(self, record: logging.LogRecord) -> str:
        record.message = record.getMessage()
        record.asctime = self.formatTime(record, self.datefmt)
        text = self.formatMessage(record)
        if record.exc_info and record.exc_info[1] is not None:
            text += "\n" + traceback_of(record.exc_info[1])
        if record.stack_info:
            text += "\n" + self.formatStack(record.stack_info)
        return text


class _LogFile(logging.handlers.RotatingFileHandler):
    """The rotating file, created 0600 (and its folder 0700) with the first record; before
    it writes, the versions of this process."""

    def __init__(self, path: Path, role: str, qt: str | None) -> None:
        super().__init__(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, delay=True)
        self.path = Path(self.baseFilename)  # absolute, as the handler keeps it
        self._header: str | None = versions(role, qt)
        self.setFormatter(_Formatter(_FORMAT))
        self.setLevel(logging.INFO)

    def _open(self) -> Any:
        folder = self.path.parent
        if not folder.is_dir():
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            folder.chmod(0o700)  # mkdir's mode is narrowed by the umask
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(self.baseFilename, flags | getattr(os, "O_CLOEXEC", 0), 0o600)
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)  # a file made before, or by hand, is made owner-only too
        return os.fdopen(fd, "a", encoding="utf-8", errors="backslashreplace")

    def emit(self, record: logging.LogRecord) -> None:
        if self.stream is not None and self._rotated_elsewhere(self.stream):
            self.stream.close()
            self.stream = None  # reopened by the write below
        if self._header is not None:
            header, self._header = self._header, None
            super().emit(_record(header, record.created))
        super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        """A log that cannot be written (a full disk) is not worth a word: never the
        record's words on stderr, as logging's default does."""

    def _rotated_elsewhere(self, stream: Any) -> bool:
        """Another Cairn process renamed the file to ``.1``: this one must write to the new."""
        try:
            named = self.path.stat()
        except OSError:
            return True
        held = os.fstat(stream.fileno())
        return (named.st_dev, named.st_ino) != (held.st_dev, held.st_ino)


def _record(message: str, created: float) -> logging.LogRecord:
    record = log.makeRecord(LOGGER, logging.INFO, __file__, 0, "%s", (message,), None)
    record.created, record.msecs = created, (created % 1) * 1000
    return record


# -- what no code caught ----------------------------------------------------------------------


def _install_hooks() -> None:
    """Uncaught exceptions (a Qt slot's, a thread's) are faults too; Python's own hooks
    still print them after."""
    global _hooks_installed
    with _hooks_lock:
        if _hooks_installed:
            return
        _hooks_installed = True
    previous = sys.excepthook

    def on_uncaught(
        kind: type[BaseException], error: BaseException, trace: TracebackType | None
    ) -> None:
        if not isinstance(error, KeyboardInterrupt):
            fault(error, "code that did not catch it")
        previous(kind, error, trace)

    sys.excepthook = on_uncaught
    previous_thread = threading.excepthook

    def on_thread(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None and not isinstance(args.exc_value, SystemExit):
            fault(args.exc_value, "a thread that did not catch it")
        previous_thread(args)

    threading.excepthook = on_thread


# -- helpers ----------------------------------------------------------------------------------


def _frames(trace: TracebackType | None) -> list[str]:
    return [
        f'  File "{frame.filename}", line {frame.lineno}, in {frame.name}'
        for frame in traceback.extract_tb(trace)
    ]


def _type_name(error: BaseException) -> str:
    kind = type(error)
    name = (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )
    if isinstance(error, OSError) and isinstance(error.errno, int):
        name += f" [{errno.errorcode.get(error.errno, error.errno)}]"
    if isinstance(error, BaseExceptionGroup):
        name += f" (a group of {len(error.exceptions)})"
    return name


def _counts(counts: dict[str, int | float]) -> str:
    shown = [
        f"{name}={value:g}" if isinstance(value, float) else f"{name}={value}"
        for name, value in sorted(counts.items())
        if _COUNT_NAME.fullmatch(name) and isinstance(value, (int, float))
    ]
    return f" ({', '.join(shown)})" if shown else ""


def _cairn_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("cairn")
    except metadata.PackageNotFoundError:  # a bundle without the distribution's metadata
        return "unknown"


def _sqlcipher_version() -> str:
    from cairn.storage import diagnostics

    try:
        return diagnostics.cipher_facts().version
    except Exception:  # the doctor says what is wrong with the driver; here it is a fact
        return "unknown"
