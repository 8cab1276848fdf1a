"""What an ingest run tells its caller: progress events while it runs, a cancel token the caller
may set from any thread, and the report at the end (per file: what was planned, what happened,
and for a failure the reason)."""

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


@dataclass(frozen=True)
class IngestProgress:
    stage: str  # scanning, reading, embedding, writing, linking, done
    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int
    current: str | None = None


class ProgressSink(Protocol):
    def __call__(self, progress: IngestProgress) -> None: ...


class CancelToken:
    """Set from any thread; the run stops before the next file and keeps what it committed."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


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
