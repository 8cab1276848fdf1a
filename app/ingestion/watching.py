"""Watched folders while the vault is open: the operating system tells ``watchdog`` what
changed (inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on Windows), nothing is
polled. Changes are gathered until the folder has been quiet for ``quiet`` seconds (or for at
most ``max_wait`` seconds while they keep coming), then handed over as one batch per scope:
a ``git pull`` of a thousand files is one ingest run, not a thousand.

The watcher does not read a file itself: the caller runs the batch through the ingest pipeline
(``MemoryService.ingest`` with ``changed``), whose hash comparison decides what is new, changed,
moved or gone. Batches are handed over one at a time on the watcher's own thread; what changes
while one runs waits for the next. ``catch_up`` hands over each folder whole (at an unlock, for
what changed while the vault was locked: unchanged files are skipped by their hash).

When the list of folders changes, the window starts a new watcher before the old one stops,
and what the old one saw but had not handed over yet is carried into the new one
(``carry``): an edit saved just before or during the change is not left for the next unlock.
The vault's own files are never a change: a vault kept inside a watched folder (in Documents,
say) would otherwise start a run with each of its own writes.

A folder that is gone or unreadable, or that the system will not let Cairn watch (the inotify
limits), is reported through ``on_problem`` in words that say what to do; the other folders
are watched all the same. No Qt here: the window marshals the callbacks to its own thread.
"""

from __future__ import annotations

import errno
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from cairn.app.errors import CairnError
from cairn.app.ingestion.plan import SKIPPED_DIRS
from cairn.app.ingestion.watch_list import WatchedFolder, folder_problem
from cairn.app.process import diagnostic_log
from cairn.app.upkeep.backups import BACKUP_SUFFIX

QUIET_SECONDS = 1.5  # an editor's save, a sync client's burst: one run when they are done
# Changes that never stop still run at least this often. Not every few seconds: an editor that
# autosaves while the person types (Obsidian, every ~2 s) never leaves the folder quiet, and
# each run keeps a new version of the note as history forever. A save followed by a pause is
# still added within QUIET_SECONDS; a long copy is added in runs this far apart.
MAX_WAIT_SECONDS = 45.0
# Beside the vault: its journal files, the copy put aside by a restore, the dated backups.
VAULT_SIDECARS = r"(-wal|-shm|-journal|\.replaced-[-\d]+)?"
# What changes a file's bytes or where it is; opening and reading a file (ingest does) is not
# listened to, or every run would start the next.
EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileClosedEvent,
    FileMovedEvent,
    FileDeletedEvent,
    DirCreatedEvent,
    DirMovedEvent,
    DirDeletedEvent,
]
WATCH_LIMIT_HELP = (
    "the system's limit on watched folders is reached (fs.inotify.max_user_watches). Raise it: "
    "echo fs.inotify.max_user_watches=524288 | sudo tee /etc/sysctl.d/90-cairn-watch.conf "
    "&& sudo sysctl --system, then lock and unlock the vault; or watch fewer, smaller folders."
)
INSTANCE_LIMIT_HELP = (
    "the system's limit on programs watching files is reached (fs.inotify.max_user_instances). "
    "Close other programs that watch files, or raise it: echo "
    "fs.inotify.max_user_instances=1024 | sudo tee /etc/sysctl.d/90-cairn-watch.conf && sudo "
    "sysctl --system, then lock and unlock the vault."
)


@dataclass(frozen=True)
class WatchBatch:
    """One run's worth of changes in the folders of one scope."""

    scope: str
    folders: tuple[str, ...]
    changed: tuple[str, ...] | None  # None: the folders whole (a catch-up)


@dataclass(frozen=True)
class Leftover:
    """What a stopped watcher had seen but not handed over (see ``FolderWatcher.carry``)."""

    changed: frozenset[str] = frozenset()
    whole: tuple[str, ...] = ()  # folders whose catch-up was still to come


BatchSink = Callable[[WatchBatch], None]
ProblemSink = Callable[[str], None]


class FolderWatcher:
    def __init__(
        self,
        folders: Sequence[WatchedFolder],
        on_batch: BatchSink,
        on_problem: ProblemSink,
        *,
        quiet: float = QUIET_SECONDS,
        max_wait: float = MAX_WAIT_SECONDS,
        vault: Path | None = None,
    ) -> None:
        self._folders = list(folders)
        self._is_vault_file = _vault_files(vault)
        self._on_batch = on_batch
        self._on_problem = on_problem
        self._quiet = quiet
        self._max_wait = max_wait
        self._observer: BaseObserver | None = None
        self._watching: list[WatchedFolder] = []
        self._lock = threading.Condition()
        self._pending: set[str] = set()
        self._whole: list[WatchedFolder] = []  # folders to hand over whole (a catch-up)
        self._first = 0.0  # when the oldest pending change came
        self._last = 0.0  # when the newest did
        self._stopped = False
        self._thread = threading.Thread(target=self._batches, name="cairn-watch", daemon=True)

    @property
    def watching(self) -> list[WatchedFolder]:
        """The folders actually watched (not those that could not be)."""
        return list(self._watching)

    def start(self) -> None:
        """Watch every folder that can be; say why of each that cannot."""
        observer = Observer()
        observer.daemon = True
        observer.start()
        self._observer = observer
        handler = _Handler(self)
        for folder in self._folders:
            problem = folder_problem(Path(folder.path))
            if problem is None:
                try:
                    observer.schedule(handler, folder.path, recursive=True, event_filter=EVENTS)
                except OSError as exc:
                    problem = watch_problem(folder.path, exc)
            if problem is None:
                self._watching.append(folder)
            else:
                self._on_problem(problem)
        self._thread.start()

    def catch_up(self) -> None:
        """Hand over each watched folder whole, as the next batch."""
        with self._lock:
            self._whole = list(self._watching)
            self._lock.notify_all()

    def carry(self, leftover: Leftover) -> None:
        """Take over what a stopped watcher had not handed over, for the folders watched here
        (a folder no longer listed is let go)."""
        for path in leftover.changed:
            self._changed(path)
        watched = {folder.path: folder for folder in self._watching}
        whole = [watched[path] for path in leftover.whole if path in watched]
        if whole:
            with self._lock:
                self._whole += [f for f in whole if f not in self._whole]
                self._lock.notify_all()

    def stop(self) -> Leftover:
        """Stop watching; a batch being handed over finishes first (the caller's run may be
        stopped through its own cancel token). Returns what was seen and not handed over: a
        new watcher ``carry``-es it; at a lock it is let go (the next catch-up finds it by its
        hash)."""
        if self._observer is not None:  # first, so nothing comes in after the last look
            self._observer.stop()
            self._observer.join(timeout=10)
        with self._lock:
            self._stopped = True
            leftover = Leftover(frozenset(self._pending), tuple(f.path for f in self._whole))
            self._pending.clear()
            self._whole = []
            self._lock.notify_all()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=60)
        return leftover

    # -- events -------------------------------------------------------------------------------

    def _changed(self, path: str) -> None:
        folder = self._folder_of(path)
        if folder is None or not _may_hold_notes(Path(folder.path), Path(path)):
            return
        if self._is_vault_file(path):
            return
        now = time.monotonic()
        with self._lock:
            if not self._pending:
                self._first = now
            self._pending.add(path)
            self._last = now
            self._lock.notify_all()

    def _folder_gone(self, path: str) -> None:
        for folder in self._watching:
            if folder.path == path:
                self._on_problem(
                    f"The watched folder {path} was deleted or moved away; its memories are "
                    "kept. Remove it from the watched folders, or add it where it is now."
                )

    def _folder_of(self, path: str) -> WatchedFolder | None:
        for folder in self._watching:
            if path == folder.path or path.startswith(folder.path.rstrip("/") + "/"):
                return folder
        return None

    # -- batches ------------------------------------------------------------------------------

    def _batches(self) -> None:
        while True:
            with self._lock:
                while not self._stopped and not self._ready():
                    self._lock.wait(timeout=self._wait())
                if self._stopped:
                    return
                changed, self._pending = self._pending, set()
                whole, self._whole = self._whole, []
            for batch in _group(changed, whole, self._watching):
                try:
                    self._on_batch(batch)
                except Exception as exc:  # a failed run must not end the watching
                    if not isinstance(exc, (CairnError, OSError)):  # a bug: frames to the log
                        diagnostic_log.fault(exc, "the folder watcher")
                    self._on_problem(f"A watched folder's changes could not be added: {exc}")

    def _ready(self) -> bool:
        if self._whole:
            return True
        if not self._pending:
            return False
        now = time.monotonic()
        return now - self._last >= self._quiet or now - self._first >= self._max_wait

    def _wait(self) -> float | None:
        if not self._pending:
            return None
        now = time.monotonic()
        return max(0.01, min(self._last + self._quiet, self._first + self._max_wait) - now)


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: FolderWatcher) -> None:
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        src = _text(event.src_path)
        if isinstance(event, DirDeletedEvent):
            self._watcher._folder_gone(src)
        self._watcher._changed(src)
        if event.dest_path:
            self._watcher._changed(_text(event.dest_path))


def _group(
    changed: set[str], whole: list[WatchedFolder], folders: Sequence[WatchedFolder]
) -> list[WatchBatch]:
    """One batch per scope: the folders handed over whole first, then those with changes."""
    batches: list[WatchBatch] = []
    for scope in sorted({f.scope for f in whole}):
        batches.append(WatchBatch(scope, tuple(f.path for f in whole if f.scope == scope), None))
    caught_up = {f.path for f in whole}
    by_scope: dict[str, tuple[set[str], set[str]]] = {}
    for path in changed:
        for folder in folders:
            if folder.path in caught_up:
                continue
            if path == folder.path or path.startswith(folder.path.rstrip("/") + "/"):
                roots, paths = by_scope.setdefault(folder.scope, (set(), set()))
                roots.add(folder.path)
                paths.add(path)
                break
    for scope in sorted(by_scope):
        roots, paths = by_scope[scope]
        batches.append(WatchBatch(scope, tuple(sorted(roots)), tuple(sorted(paths))))
    return batches


def _may_hold_notes(root: Path, path: Path) -> bool:
    """A change inside a hidden or tool folder (``.git``, ``node_modules``) is not a person's
    file: a ``git pull`` rewrites hundreds of them, and ingest would skip them anyway."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return False
    return not any(part.startswith(".") or part in SKIPPED_DIRS for part in parts)


def _vault_files(vault: Path | None) -> Callable[[str], bool]:
    """Whether a path is the vault's own: the vault, its -wal, -shm and -journal, a copy a
    restore put aside, or a dated backup made into the vault's folder (``backups``)."""
    if vault is None:
        return lambda _: False
    vault = vault.expanduser().resolve()
    folder = str(vault.parent)
    name = re.escape(vault.name)
    dated = re.escape(vault.stem) + r"-\d{8}-\d{6}" + re.escape(BACKUP_SUFFIX)
    own = re.compile(f"(?:{name}|{dated}){VAULT_SIDECARS}")

    def is_vault_file(path: str) -> bool:
        head, _, tail = path.rpartition("/")
        return head == folder and own.fullmatch(tail) is not None

    return is_vault_file


def _text(path: bytes | str) -> str:
    return path.decode(errors="surrogateescape") if isinstance(path, bytes) else path


def watch_problem(path: str, error: OSError) -> str:
    """Why the system would not watch ``path``, and what to do."""
    if error.errno == errno.ENOSPC:
        return f"Cairn cannot watch {path}: {WATCH_LIMIT_HELP}"
    if error.errno == errno.EMFILE:
        return f"Cairn cannot watch {path}: {INSTANCE_LIMIT_HELP}"
    if error.errno in (errno.EACCES, errno.EPERM):
        return (
            f"Cairn cannot watch {path}: permission denied. Give your user read access "
            f"(chmod u+rx {path}), or remove it from the watched folders."
        )
    reason = error.strerror or str(error)
    return f"Cairn cannot watch {path} ({reason}); its changes are added at the next unlock."
