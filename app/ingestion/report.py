"""What an ingest run tells its caller: progress events while it runs, a cancel token the caller
may set from any thread, and the report at the end (per file: what was planned, what happened,
and for a failure the reason).

The events say what is really happening, file by file, as it happens: which file is read, how
far its reader is (pages, seconds of a recording), which is prepared for search or saved, and
each file's outcome once it is final (``settled``), so a window shows a file added when it is
added, not when the run ends; ``stored`` says memories were committed since the last event, so
the window can show them while the run goes on.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

# What came of a file (``FileOutcome.state``); a dry run's files are ``planned``.
FileState = Literal[
    "ingested",
    "replaced",
    "unchanged",
    "duplicate",
    "moved",
    "skipped",
    "failed",
    "cancelled",
    "planned",
]


@dataclass
class FileOutcome:
    path: str
    action: str  # what the plan said: new, changed, unchanged, retry, duplicate, moved, ...
    state: str  # ingested, replaced, unchanged, duplicate, moved, skipped, failed, cancelled...
    document_id: str | None = None
    passages: int = 0
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    size: int = 0
    moved_from: str | None = None  # a file that moved: where the vault knew it before

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (None, [])}


@dataclass(frozen=True)
class IngestProgress:
    """One event of a run. ``stage``: scanning (a file hashed), reading (the run takes the
    file ``current``: once per file), file_progress (a file's reader tells how far it is,
    perhaps while another file is being saved), embedding (``current`` prepared for search),
    writing (saving: ``current``, or None for the files waiting in a batch), linking, done."""

    stage: str
    files_done: int
    files_total: int
    bytes_done: int  # of the files read, and the share read so far of those being read
    bytes_total: int
    current: str | None = None
    # ``current``'s own progress in ``unit`` ("page", "second", "passage"); 0 of 0: untold.
    done_units: float = 0.0
    total_units: float = 0.0
    unit: str = ""
    seconds_left: float | None = None  # the run's time left, once it can be told honestly
    settled: tuple[FileOutcome, ...] = ()  # files whose outcome is final since the last event
    stored: bool = False  # memories were committed since the last event


class ProgressSink(Protocol):
    def __call__(self, progress: IngestProgress) -> None: ...


class CancelToken:
    """Set from any thread; the run stops at once: the file being read is let go (its reader
    is stopped), what was read is saved, and what was committed is kept."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


@dataclass
class IngestReport:
    files: list[FileOutcome] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    dry_run: bool = False
    cancelled: bool = False
    links: int = 0
    mentions: int = 0
    stubs: int = 0
    pending_review: int = 0

    def counts(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for outcome in self.files:
            found[outcome.state] = found.get(outcome.state, 0) + 1
        return found

    def count(self, state: FileState) -> int:
        """How many files came to ``state``."""
        return sum(1 for outcome in self.files if outcome.state == state)

    @property
    def failed(self) -> list[FileOutcome]:
        return [f for f in self.files if f.state == "failed"]

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "cancelled": self.cancelled,
            "counts": self.counts(),
            "files": [f.as_dict() for f in self.files],
            "removed": self.removed,
            "not_found": self.not_found,
            "links": self.links,
            "mentions": self.mentions,
            "stubs": self.stubs,
            "pending_review": self.pending_review,
        }
