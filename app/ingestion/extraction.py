"""Which extractor reads a file, and a worker process that runs it within a budget.

Extractors are plain functions in ``ingest/``, each beside the ``Format`` that says which files
it reads. Here a file's suffix picks one from their registry (``ingest/formats.py``), and the
worker runs it in a child process: a file that hangs a parser or balloons in memory (a crafted
PDF, an enormous scan) is stopped by ending that process, and the app, the vault and the rest
of the batch carry on. The budget is per file: time grows with the file's size (a two-hour recording
takes longer than a memo), memory is the worker's resident size, read from ``/proc`` where the
platform has it (elsewhere only the time budget applies). Text travels between the processes
through a pipe, never through a file. Recordings are not read whole: the transcriber streams
the file and decodes it a window at a time, and is told the time budget, so a recording too
long for its budget is refused before it is decoded rather than stopped hours later. A reader
tells how far it is (pages, seconds of a recording) as it goes: the worker passes that up the
same pipe, a few times a second at most, so a long file shows its own progress.

A file that cannot be read fails with a sentence, whatever went wrong in the worker: a reader's
own ``ExtractionError``, or the worker's words for what no reader caught (nesting deeper than
Python recurses, a reader's bug, whose trace goes to Cairn's log, ``app/process/diagnostic_log.py``,
which the sentence names: ``ingest/failures.py``). The worker ends with the process that
started it (``ingest/lifetime.py``): a parent killed while a file is read leaves no reader
running and nothing printed.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.app.process import diagnostic_log, privacy
from cairn.ingest import failures, formats, lifetime
from cairn.ingest.document import ExtractedDocument, ExtractionError
from cairn.ingest.file_names import on_disk, readable
from cairn.ingest.format_declaration import Cost, Format, Progress, Reading, Unit

if TYPE_CHECKING:
    from cairn.ingest.audio_settings import WhisperSettings
    from cairn.ingest.ocr import OcrSettings

# Seconds of work allowed per MiB of file, on top of BASE_SECONDS, by the format's name.
# Transcription runs at about a third of real time here and a minute of compressed audio is
# about a MiB; OCR of a scanned page takes a few seconds and a page is a few hundred KiB.
BASE_SECONDS = 120.0
SECONDS_PER_MIB = {"audio": 60.0, "image": 60.0, "pdf": 30.0, "email": 30.0, "mailbox": 30.0}
DEFAULT_SECONDS_PER_MIB = 10.0
DEFAULT_MEMORY_MIB = 3072
POLL_SECONDS = 0.05
# A reader's progress goes up the pipe at most this often: a PDF's text layers run at hundreds
# of pages a second, and a person reads a row's words a few times a second at most.
PROGRESS_SECONDS = 0.25


def format_of(path: Path) -> Format | None:
    """The format that reads ``path``, by its suffix; None: Cairn does not read it."""
    return formats.registry().by_name(path.name)


def kind_of(path: Path) -> str | None:
    """The name of the format that reads ``path`` ("pdf"), or None."""
    format_ = format_of(path)
    return format_.name if format_ is not None else None


def cost_of(kind: str | None) -> Cost:
    """What reading a file of this kind costs, as its format declares (text when unknown)."""
    format_ = formats.registry().named(kind) if kind is not None else None
    return format_.cost if format_ is not None else Cost.TEXT


def unit_of(kind: str | None) -> Unit:
    """What the reader of this kind counts its progress in ("page", "second", or "")."""
    format_ = formats.registry().named(kind) if kind is not None else None
    return format_.unit if format_ is not None else ""


def source_path(source: str) -> Path:
    """The path that opens a memory's source file. A name that is not UTF-8 is kept in its
    readable form (each odd byte as ``\\xNN``); this turns it back into the name's bytes."""
    return on_disk(source)


@dataclass(frozen=True)
class ExtractionSettings:
    """What the extractors need from the app; plain values, so it crosses to the worker."""

    data_dir: str | None = None  # where the joined Whisper model is kept
    ocr_languages: tuple[str, ...] = ("eng",)
    whisper_model_dir: str | None = None  # a folder the user chose instead of the bundled model
    time_scale: float = 1.0  # multiplies the time budget
    memory_mib: int = DEFAULT_MEMORY_MIB
    audio_window_s: float | None = None  # seconds transcribed at a time; None: the default

    def time_budget(self, kind: str, size: int) -> float:
        per_mib = SECONDS_PER_MIB.get(kind, DEFAULT_SECONDS_PER_MIB)
        return (BASE_SECONDS + per_mib * size / 2**20) * self.time_scale


def extract_file(
    path: Path, settings: ExtractionSettings, progress: Progress | None = None
) -> ExtractedDocument:
    """Read ``path`` with the extractor for its type (in this process); ``progress`` is told
    how far the reader is, in its format's unit."""
    format_ = format_of(path)
    name = readable(path.name)  # extractors title and name files with it: text, never bytes
    if format_ is None:
        raise ExtractionError(
            f"Cairn does not read {path.suffix or 'extension-less'} files yet: "
            "convert it to PDF, text or an image and add that."
        )
    registry = formats.registry()
    reading = Reading(
        ocr=functools.partial(_ocr_settings, settings),
        whisper=functools.partial(_whisper_settings, settings),
        attachment=_read_attachment,
        progress=progress,
    )
    try:
        if format_.read_stream is not None:  # recordings and mailboxes: read as they stream
            with path.open("rb") as stream:
                return registry.read_stream(format_, stream, name, reading)
        data = path.read_bytes()
    except OSError as exc:
        raise ExtractionError(f"{name} could not be read ({exc.strerror}).") from None
    return registry.read(format_, data, name, reading)


# What an e-mail's attachments are read as. Pictures and recordings are left out: OCR and
# transcription of every photo in a mailbox would spend the whole file's time budget; and a
# PDF keeps its text layer only (no OCR settings in its ``Reading``).
ATTACHMENT_KINDS = frozenset({"text", "html", "docx", "odt", "epub", "pdf", "code"})


def _read_attachment(data: bytes, name: str) -> ExtractedDocument | None:
    format_ = formats.registry().by_name(name)
    if format_ is None or format_.name not in ATTACHMENT_KINDS:
        return None
    return formats.registry().read(format_, data, name, Reading())


# Not languages to read text in: Tesseract's orientation and script detection data.
NOT_LANGUAGES = frozenset({"osd", "equ"})


def installed_ocr_languages() -> list[str]:
    """The Tesseract language packs on this machine, sorted (runs the program, about a tenth
    of a second); ``ExtractionError`` saying what to install when there is no Tesseract."""
    from cairn.ingest import ocr

    _, names = ocr.installed()
    return sorted(names - NOT_LANGUAGES)


def _ocr_settings(settings: ExtractionSettings) -> OcrSettings:
    from cairn.ingest.ocr import OcrSettings

    return OcrSettings(languages=settings.ocr_languages)


def _whisper_settings(settings: ExtractionSettings) -> WhisperSettings:
    from cairn.ingest.audio_settings import DEFAULT_WINDOW_S, TimeBudget, WhisperSettings

    return WhisperSettings(
        model_dir=Path(settings.whisper_model_dir) if settings.whisper_model_dir else None,
        data_dir=Path(settings.data_dir) if settings.data_dir else None,
        # time_budget's own terms for audio, so the transcriber can tell, before decoding, a
        # recording that cannot be read in the time this worker will give it.
        time_budget=TimeBudget(
            base_s=BASE_SECONDS * settings.time_scale,
            per_mib_s=SECONDS_PER_MIB["audio"] * settings.time_scale,
        ),
        window_s=settings.audio_window_s or DEFAULT_WINDOW_S,
    )


class Stopped(Exception):
    """The person cancelled while a file was being read."""


def _serve(connection: Any, settings: ExtractionSettings) -> None:
    """The extraction worker's entry point and loop: read a path, answer with a document or
    the reason it failed. A parent that is gone ends it, at once where the kernel can tell
    (``lifetime``), else at its next word on the pipe: quietly either way."""
    lifetime.end_with_parent()
    privacy.protect()  # what it reads is plaintext: no core of it (process_privacy)
    # Ctrl+C reaches the whole process group; the app decides whether to stop, not the worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A reader's bug leaves its frames in the data folder's log (``ingest/failures.py``).
    diagnostic_log.start(settings.data_dir, "extraction worker")
    while True:
        try:
            path = connection.recv()
        except lifetime.PARENT_GONE:
            return
        if path is None:
            return
        try:
            answer = _answer(Path(path), settings, _Told(connection))
            connection.send_bytes(answer)
        except lifetime.PARENT_GONE:
            return


class _Told:
    """A reader's progress, sent up the pipe as ``("progress", done, total)``: the first
    word at once, then at most every ``PROGRESS_SECONDS``."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection
        self._last: float | None = None

    def __call__(self, done: float, total: float) -> None:
        now = time.monotonic()
        if self._last is not None and now - self._last < PROGRESS_SECONDS:
            return
        self._last = now
        self._connection.send(("progress", float(done), float(total)))


def _answer(path: Path, settings: ExtractionSettings, progress: Progress) -> memoryview:
    """The worker's answer for one file, pickled: ``("ok", document)``, or ``("failed", a
    sentence)``, never an exception's name. Pickled here, so that what cannot be sent fails
    as the file's reason too."""
    name = readable(path.name)
    try:
        return ForkingPickler.dumps(("ok", extract_file(path, settings, progress)))
    except ExtractionError as exc:
        reason = str(exc)
    except MemoryError:
        reason = f"{name}: {failures.NEEDS_MEMORY}"
    except RecursionError:  # a reader that does not catch it itself (see ``failures``)
        reason = (
            f"{name} is nested more deeply than Cairn reads (structures inside structures, "
            "hundreds of levels down): no ordinary file is built like that, so it is damaged "
            "or made to stop readers. Save it again from the program that made it, or leave "
            "it out."
        )
    except lifetime.PARENT_GONE:  # progress sent to a parent that has gone: the worker ends
        raise
    except Exception as exc:  # a reader's own bug on a file nobody foresaw: that file fails
        format_ = format_of(path)
        reader = f"Cairn's {format_.label if format_ is not None else 'file'} reader"
        failures.trace(exc, reader)
        reason = (
            f"{name} could not be read: {reader} stopped on something in it that it did not "
            "expect. That is a fault in Cairn, not in what you did. Save the file again from "
            "the program that made it and add it again; if it still fails, please report it"
            f"{diagnostic_log.with_the_log(settings.data_dir)}."
        )
    return ForkingPickler.dumps(("failed", reason))


class ExtractionWorker:
    """One child process reading one file at a time; restarted after a file it had to stop.
    Models (Whisper) stay loaded in it between files."""

    def __init__(self, settings: ExtractionSettings) -> None:
        self._settings = settings
        # spawn, not fork: the parent holds threads and an open vault a fork would copy.
        self._context = multiprocessing.get_context("spawn")
        self._process: Any = None
        self._connection: Any = None
        self._started_by: threading.Thread | None = None

    def extract(
        self,
        path: Path,
        should_stop: Callable[[], bool] = lambda: False,
        progress: Progress | None = None,
    ) -> ExtractedDocument:
        """``path`` read in the worker; ``progress`` (called on this thread) is told how far
        the reader is, in its format's unit."""
        kind = kind_of(path) or "text"
        name = readable(path.name)
        try:
            size = path.stat().st_size
        except OSError:
            raise ExtractionError(
                f"{name} is no longer there (moved or deleted while Cairn was reading the folder)."
            ) from None
        budget = self._settings.time_budget(kind, size)
        if should_stop():  # before a worker is started for nothing (a cancelled run)
            raise Stopped
        self._ensure_started()
        try:
            self._connection.send(str(path))
        except OSError:  # it ended between two files: a fresh one reads this one
            self._stop()
            self._ensure_started()
            self._connection.send(str(path))
        status, payload = self._answer(name, budget, should_stop, progress)
        if status != "ok":
            raise ExtractionError(f"{name}: {payload}" if name not in payload else payload)
        document: ExtractedDocument = payload
        return document

    def _answer(
        self,
        name: str,
        budget: float,
        should_stop: Callable[[], bool],
        progress: Progress | None,
    ) -> tuple[str, Any]:
        """The worker's answer for the file it was sent, its progress passed on meanwhile;
        a Stop, the worker's end, or a file past its time or memory budget raises."""
        started = time.monotonic()
        # The checks come before each wait, the first included, and a wait ends by the
        # budget's end: a child quicker than one poll still meets a Stop or a budget.
        while True:
            if should_stop():
                self._stop()
                raise Stopped
            if not self._process.is_alive():
                code = self._process.exitcode
                self._stop()
                raise ExtractionError(
                    f"{name} stopped the reader (exit code {code}); the file may be damaged."
                )
            if time.monotonic() - started > budget:
                self._stop()
                raise ExtractionError(
                    f"{name} took longer than {budget:.0f} s to read and was stopped. "
                    "Split it into smaller files and add those."
                )
            rss = _resident_mib(self._process.pid)
            if rss is not None and rss > self._settings.memory_mib:
                self._stop()
                raise ExtractionError(
                    f"{name} needed more than {self._settings.memory_mib} MiB of memory "
                    "to read and was stopped. Split it into smaller files and add those."
                )
            if not self._connection.poll(
                max(0.0, min(POLL_SECONDS, started + budget - time.monotonic()))
            ):
                continue
            try:
                message = self._connection.recv()
            except (EOFError, OSError):
                self._stop()
                raise ExtractionError(
                    f"{name} stopped the reader; the file may be damaged."
                ) from None
            if message[0] != "progress":
                status, payload = message
                return status, payload
            if progress is not None:
                progress(message[1], message[2])

    def close(self) -> None:
        if self._process is None or self._connection is None:
            return
        try:
            self._connection.send(None)
            self._process.join(timeout=5)
        except (OSError, BrokenPipeError):
            pass
        self._stop()

    def _ensure_started(self) -> None:
        # The worker ends with the thread that started it (``lifetime``): a worker started by
        # a thread that has ended since is gone, or about to be.
        if (
            self._process is not None
            and self._process.is_alive()
            and self._started_by is not None
            and self._started_by.is_alive()
        ):
            return
        self._stop()
        parent, child = self._context.Pipe()
        self._process = self._context.Process(
            target=_serve, args=(child, self._settings), name="cairn-extract", daemon=True
        )
        self._started_by = threading.current_thread()
        self._process.start()
        child.close()
        self._connection = parent

    def _stop(self) -> None:
        if self._process is not None:
            if self._process.is_alive():
                self._process.kill()
            self._process.join(timeout=5)
        if self._connection is not None:
            self._connection.close()
        self._process = None
        self._connection = None


def _resident_mib(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:  # noqa: PTH123 - a /proc read
            resident_pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / 2**20
