"""An ingest run in a process of its own, for the window.

An ingest is mostly Python between the native calls (planning, chunking, the dedup gate, the
batch writes), so in the window's process it competes with the UI thread for the interpreter
lock: on two cores the window stalled for 150-370 ms at a time. Here the run happens in a
spawned child that opens the same vault file with the same key (WAL: the window keeps reading,
and its vector index catches up with the child's rows at the next search). The window's process
only waits on a pipe.

The key, the paths and the progress travel through that pipe, never through a file. Cancelling
sends a word down the pipe and the child stops as ``CancelToken`` promises (a file being read
is let go, what was read is written). ``ApartRuns.stop_all`` (the vault is about to close)
cancels, waits a little, and then ends the child: a batch it had not committed is rolled back
by SQLite, and a rerun adds those files again (the vault keeps the run as unfinished, so the
window offers to resume it). The child ends the same way, at once, when the window's process
is killed (``ingest/lifetime.py``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from cairn.app.embedding.model import Embedder
from cairn.app.errors import CairnError
from cairn.app.ingestion.extraction import ExtractionSettings
from cairn.app.ingestion.priority import lower_priority
from cairn.app.ingestion.report import CancelToken, IngestReport, ProgressSink
from cairn.app.ingestion.request import IngestRequest
from cairn.app.process import diagnostic_log, privacy
from cairn.ingest import lifetime
from cairn.storage.vault import Vault

POLL_SECONDS = 0.1
# How long a child may take to exit after its report (closing the vault folds the log in).
EXIT_GRACE_SECONDS = 10.0
# How long closing the vault waits for a cancelled child to finish the batch it is writing
# before ending it; the lock waits this long at most (the batch is rolled back, and a rerun
# adds its files again).
STOP_GRACE_SECONDS = 2.0


class IngestStopped(CairnError):
    """The child ended without a report (it was killed, or crashed)."""


class IngestFailed(CairnError):
    """The run failed in the child with a message meant for the person."""


class IngestingService(Protocol):
    """What the child needs of the service it opens: a run, and a close when it is done."""

    def __enter__(self) -> IngestingService: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None: ...

    def ingest(
        self,
        request: IngestRequest,
        *,
        progress: ProgressSink | None,
        cancel: CancelToken | None,
    ) -> IngestReport: ...


# How the child builds its service on the vault it opened: handed down by the composition root
# (``compose.service_for``, pickled by reference), so this module need not import it.
ServiceFactory = Callable[[Vault, Embedder | None, ExtractionSettings], IngestingService]


@dataclass(frozen=True)
class Request:
    """What the child needs to do the run the window asked for. Plain values: it is pickled
    into the pipe."""

    open_service: ServiceFactory
    vault_path: str
    raw_key: bytes
    salt: bytes
    embedder: Embedder | None
    extraction: ExtractionSettings
    ingest: IngestRequest  # the run itself, as the window asked for it


class ApartRuns:
    """The runs one service has going in child processes, so that closing the vault stops
    them first."""

    def __init__(self, open_service: ServiceFactory) -> None:
        self._open_service = open_service
        self._lock = threading.Lock()
        self._running: set[_Child] = set()

    def run(
        self,
        vault: Vault,
        embedder: Embedder | None,
        extraction: ExtractionSettings,
        ingest: IngestRequest,
        *,
        progress: ProgressSink | None,
        cancel: CancelToken | None,
    ) -> IngestReport:
        raw_key, salt = vault.key_material()
        request = Request(
            self._open_service, str(vault.path), raw_key, salt, embedder, extraction, ingest
        )
        child = _Child(request)
        with self._lock:
            self._running.add(child)
        try:
            return child.wait(progress or (lambda _: None), cancel or CancelToken())
        finally:
            with self._lock:
                self._running.discard(child)

    def stop_all(self) -> None:
        with self._lock:
            running = list(self._running)
        for child in running:
            child.stop()


class _Child:
    def __init__(self, request: Request) -> None:
        # spawn, not fork: this process holds threads, Qt and an open vault.
        context = multiprocessing.get_context("spawn")
        self._pipe, child_end = context.Pipe()
        # Not a daemon: the child starts the extraction worker of its own, which a daemon may
        # not. If this process dies, the child reads the end of the pipe and stops by itself.
        self._process = context.Process(target=_serve, args=(child_end,), name="cairn-ingest")
        self._stopping = threading.Event()
        try:
            self._process.start()
        finally:
            child_end.close()
        self._send(("run", request))

    def wait(self, progress: ProgressSink, cancel: CancelToken) -> IngestReport:
        told_to_cancel = False
        try:
            while True:
                if (cancel.cancelled or self._stopping.is_set()) and not told_to_cancel:
                    told_to_cancel = self._send(("cancel",))
                if self._pipe.poll(POLL_SECONDS):
                    kind, payload = self._pipe.recv()
                    if kind == "progress":
                        progress(payload)
                    elif kind == "done":
                        report: IngestReport = payload
                        return report
                    elif kind == "failed":
                        raise IngestFailed(payload)
                    else:  # "bug"
                        raise RuntimeError(payload)
                elif not self._process.is_alive():
                    raise self._ended()
        except (EOFError, OSError):
            raise self._ended() from None
        finally:
            self._close()

    def stop(self) -> None:
        """Cancel, give the child time to finish the batch it is writing, then end it."""
        self._stopping.set()
        self._join_or_kill(STOP_GRACE_SECONDS)

    def _ended(self) -> IngestStopped:
        self._process.join(1)
        if self._stopping.is_set():
            return IngestStopped("The run was stopped because the vault was locked.")
        return IngestStopped(
            f"The reading process ended unexpectedly (exit code {self._process.exitcode}). "
            "Files saved before it ended are kept; add the rest again."
        )

    def _send(self, message: tuple[Any, ...]) -> bool:
        try:
            self._pipe.send(message)
        except (OSError, ValueError):
            return False
        return True

    def _close(self) -> None:
        self._pipe.close()
        self._join_or_kill(EXIT_GRACE_SECONDS)

    def _join_or_kill(self, grace: float) -> None:
        self._process.join(grace)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()


def _serve(pipe: Any) -> None:
    """The ingest child's entry point: open the vault, run the ingest, send progress and then
    the report. It ends with the window's process (``lifetime``): a batch it had not
    committed is rolled back by SQLite, as when the vault is closed under it."""
    lifetime.end_with_parent()
    privacy.protect()  # a spawned child is dumpable again: see process_privacy
    # Ctrl+C in a terminal reaches the whole process group; the parent decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Background work yields the cores to the window: on two cores the embedder's threads
    # otherwise slow a repaint of the window from tens of milliseconds to hundreds.
    lower_priority()
    try:
        kind, request = pipe.recv()
    except (EOFError, OSError):  # the parent is gone
        return
    assert kind == "run"
    diagnostic_log.start(request.extraction.data_dir, "ingest child")
    cancel = CancelToken()
    threading.Thread(target=_listen, args=(pipe, cancel), daemon=True).start()
    try:
        report = _ingest(request, pipe, cancel)
    except CairnError as error:
        _reply(pipe, ("failed", str(error)))
    except OSError as error:
        where = f" ({error.filename})" if error.filename else ""
        _reply(pipe, ("failed", f"{error.strerror or error}{where}"))
    except Exception as error:  # a bug: the parent reports it as one, its frames go to the log
        diagnostic_log.fault(error, "the ingest child")
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        _reply(pipe, ("bug", detail))
    else:
        _reply(pipe, ("done", report))


def _ingest(request: Request, pipe: Any, cancel: CancelToken) -> IngestReport:
    vault = Vault.open_with_key_material(Path(request.vault_path), request.raw_key, request.salt)
    try:
        service = request.open_service(vault, request.embedder, request.extraction)
    except BaseException:
        vault.close()
        raise
    with service:
        return service.ingest(
            request.ingest, progress=lambda event: _reply(pipe, ("progress", event)), cancel=cancel
        )


def _listen(pipe: Any, cancel: CancelToken) -> None:
    """Any word from the parent (or its end: the parent is gone) cancels the run."""
    with contextlib.suppress(EOFError, OSError):
        pipe.recv()
    cancel.cancel()


def _reply(pipe: Any, message: tuple[str, Any]) -> None:
    # The parent gone, the send fails; the listener has cancelled the run by then.
    with contextlib.suppress(OSError, ValueError):
        pipe.send(message)
