"""What an ingest run will do, decided before anything is read: the files under the given paths,
each hashed and compared with what the vault already keeps.

- ``new``: never seen; ``changed``: seen with other bytes (it will replace the old version,
  which stays as history); ``unchanged``: skipped; ``retry``: it failed last time (a missing
  tool may have been installed since); ``duplicate``: the same bytes are already kept under
  another path; ``unsupported``: no extractor reads it (skipped inside a folder, a failure when
  named on its own); ``other_scope``: already kept in another scope (a file lives in one).
- ``unreadable``: a file (or a folder, ``kind`` "folder") that cannot be read: no permission,
  gone since it was listed, a symbolic link that loops or leads nowhere, a disk error. It fails
  alone with its reason (``problem``); the rest of the run goes on.
- ``moved``: the same bytes the vault keeps for a file that is no longer where it was (renamed
  or moved, by hand, by a notes app or a ``git pull``): the memory follows the file, with its
  links and history, instead of a second one being made.
- In a notes folder (Obsidian, Logseq, Foam, Markdown with ``[[links]]``), a stylesheet or
  script (``publish.css``, ``publish.js``, a theme) is the look of the published site, not a
  note: ``unsupported`` like any file Cairn does not read. Hidden folders (``.obsidian/``,
  ``.foam/``, ``.git/``) are never walked.
- ``removed``: files the vault keeps from a folder being ingested that are no longer there. They
  are reported and marked missing; their memories are never deleted.

A watched folder's run (``changed``) looks only at the paths its watcher saw change below the
folder, not at the whole folder: the others are taken as unchanged, and a deleted or moved
file is still found by the check of the folder's known files against the disk.

Paths are ``Path`` objects that open the file (a name that is not UTF-8 holds surrogates, PEP
383); what the vault keys, shows and reports is their readable form (``ingest.file_names``).

The plan is in the order the run reads: by what reading costs, as each format declares it
(``ingest.format_declaration.Cost``), text first, then PDFs, pictures (OCR) and recordings
(transcription); within a kind by path. So the notes of a folder are searchable while its
scans and recordings are still being read, and the same files are always read in one order.

A dry run is exactly this plan, shown.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat as stat_kinds
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cairn.app.ingestion.extraction import cost_of, kind_of
from cairn.ingest import notes_folder
from cairn.ingest.file_names import on_disk, readable
from cairn.storage import source_rows
from cairn.storage.connection import Connection
from cairn.storage.rows import SourceRow
from cairn.storage.vault import Vault

HASH_CHUNK = 1 << 20
# Folders that hold tools' own files, never a person's notes.
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})
ACTIONS_TO_READ = ("new", "changed", "retry")
# A notes folder's web files: the published site's look and behaviour, never a person's notes.
SITE_SUFFIXES = frozenset({".css", ".scss", ".sass", ".less", ".js", ".mjs", ".cjs", ".map"})
FOLDER = "folder"  # the kind of an unreadable folder's entry, and its media type in sources


@dataclass(frozen=True)
class PlannedFile:
    path: Path
    root: Path | None  # the folder it was found in; None when it was named itself
    size: int
    mtime_ns: int
    sha256: str | None  # None for an unsupported file (never read)
    action: str
    kind: str | None
    previous: SourceRow | None = None  # its row in sources, if any
    same_as: SourceRow | None = None  # the row already holding these bytes
    problem: str | None = None  # why it cannot be read (action "unreadable")

    @property
    def to_read(self) -> bool:
        return self.action in ACTIONS_TO_READ

    @property
    def source(self) -> str:
        """The path as the vault keeps and shows it."""
        return readable(self.path)

    @property
    def name(self) -> str:
        return readable(self.path.name)


@dataclass
class Plan:
    files: list[PlannedFile] = field(default_factory=list)
    roots: list[Path] = field(default_factory=list)  # the folders given
    folders: set[str] = field(default_factory=set)  # every folder listed, in readable form
    removed: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)

    @property
    def bytes_to_read(self) -> int:
        return sum(f.size for f in self.files if f.to_read)

    def counts(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for planned in self.files:
            found[planned.action] = found.get(planned.action, 0) + 1
        return found


def make_plan(
    vault: Vault,
    paths: Sequence[Path],
    scope: str,
    hashed: Callable[[Path, int, int], None] | None = None,
    changed: Sequence[Path] | None = None,
) -> Plan:
    """Walk ``paths``, hash each file (``hashed(path, done, total)`` after each) and compare
    with what ``scope`` keeps. Nothing a file or folder does (no permission, a loop, vanishing)
    raises: it becomes an ``unreadable`` entry of the plan. With ``changed``, only those paths
    below a folder of ``paths`` are looked at (a watcher's batch)."""
    plan = Plan()
    moved_from: set[str] = set()  # the old paths of files found moved, claimed once each
    found: dict[Path, Path | None] = {}
    problems: dict[Path, tuple[Path | None, str, str | None]] = {}  # path: root, why, kind
    for given in paths:
        try:
            path = Path(given).expanduser().resolve()
        except (OSError, RuntimeError) as exc:  # 3.11 raises RuntimeError on a link loop
            path = Path(given).expanduser().absolute()
            problems[path] = (None, _why(path, exc), None)
            continue
        if path.is_dir():
            if path in plan.roots:
                continue
            plan.roots.append(path)
            listed = (
                _walk(path, plan.folders)
                if changed is None
                else _walk_changed(path, changed, plan.folders)
            )
            for file, problem in listed:
                if problem is None:
                    found[file] = found.get(file) or path  # found in a folder: its links count
                else:
                    problems.setdefault(file, (path, *problem))
        elif path.is_file():
            found.setdefault(path, None)
        elif os.path.lexists(path):
            problems[path] = (None, _not_a_file(path), None)
        else:
            plan.not_found.append(readable(path))
    notes_roots = {root for root in plan.roots if notes_folder.detect(root) is not None}
    unique = sorted(found.items(), key=lambda item: readable(item[0]))
    shown = {readable(path) for path in found}
    with vault.read() as conn:
        previous = source_rows.by_paths(conn, sorted(shown | {readable(path) for path in problems}))
        for done, (path, root) in enumerate(unique, start=1):
            site_file = root in notes_roots and path.suffix.lower() in SITE_SUFFIXES
            plan.files.append(
                _planned(
                    conn, path, root, previous.get(readable(path)), scope, moved_from, site_file
                )
            )
            if hashed is not None:
                hashed(path, done, len(unique))
        for path, (root, why, kind) in sorted(problems.items(), key=lambda i: readable(i[0])):
            plan.files.append(_unreadable(path, root, why, kind, previous.get(readable(path))))
        for root in plan.roots:
            for row in source_rows.listed(
                conn, states=("ingested", "duplicate"), under=readable(root) + os.sep, scope=scope
            ):
                if (
                    row["path"] not in shown
                    and row["path"] not in moved_from
                    and not on_disk(row["path"], row["path_bytes"]).exists()
                ):
                    plan.removed.append(row["path"])
    # A stable sort: each kind keeps the order by path it was listed in above.
    plan.files.sort(key=lambda planned: cost_of(planned.kind))
    return plan


def _unreadable(
    path: Path, root: Path | None, why: str, kind: str | None, previous: SourceRow | None
) -> PlannedFile:
    return PlannedFile(path, root, 0, 0, None, "unreadable", kind, previous, problem=why)


def _planned(
    conn: Connection,
    path: Path,
    root: Path | None,
    previous: SourceRow | None,
    scope: str,
    moved_from: set[str],
    site_file: bool = False,
) -> PlannedFile:
    try:
        stat = path.stat()
    except OSError as exc:  # gone, or its folder closed, since it was listed
        return _unreadable(path, root, _why(path, exc), None, previous)
    kind = None if site_file else kind_of(path)
    if kind is None:
        return PlannedFile(path, root, stat.st_size, stat.st_mtime_ns, None, "unsupported", None)
    if previous is not None and previous["scope"] != scope:
        # A file is kept in one scope; reading it into a second would make two of it.
        return PlannedFile(
            path, root, stat.st_size, stat.st_mtime_ns, None, "other_scope", kind, previous
        )
    try:
        digest = file_hash(path)
    except OSError as exc:
        return _unreadable(path, root, _why(path, exc), kind, previous)
    if previous is not None and previous["sha256"] == digest:
        action = "retry" if previous["state"] == "failed" else "unchanged"
        if previous["state"] == "missing":
            action = "unchanged"  # back where it was
        return PlannedFile(
            path, root, stat.st_size, stat.st_mtime_ns, digest, action, kind, previous
        )
    if previous is None or not previous["document_id"] or previous["state"] == "duplicate":
        gone = _moved_here(conn, digest, scope, moved_from)
        if gone is not None:
            return PlannedFile(
                path, root, stat.st_size, stat.st_mtime_ns, digest, "moved", kind, previous, gone
            )
    same = source_rows.ingested_with_hash(conn, digest, scope)
    if same is not None and same["path"] != readable(path):
        return PlannedFile(
            path, root, stat.st_size, stat.st_mtime_ns, digest, "duplicate", kind, previous, same
        )
    action = "new"
    if previous is not None and previous["document_id"] and previous["state"] != "duplicate":
        action = "changed"
    elif previous is not None and previous["state"] == "failed":
        action = "retry"
    return PlannedFile(path, root, stat.st_size, stat.st_mtime_ns, digest, action, kind, previous)


def _moved_here(
    conn: Connection, digest: str, scope: str, moved_from: set[str]
) -> SourceRow | None:
    """The row of a kept file with these bytes that is gone from where it was: this file is
    that one, moved. Each old path is claimed once (a second copy is a duplicate)."""
    for row in source_rows.documents_with_hash(conn, digest, scope):
        if row["path"] in moved_from or on_disk(row["path"], row["path_bytes"]).exists():
            continue
        moved_from.add(row["path"])
        return row
    return None


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _walk(root: Path, folders: set[str]) -> Iterator[tuple[Path, tuple[str, str | None] | None]]:
    """Files below ``root`` in a stable order, without hidden entries, tool folders, or a
    Logseq graph's own ``logseq/`` folder (settings and backup copies of pages). Each comes
    with None, or (why, kind) when it cannot be read: a folder that cannot be listed, a link
    that loops or leads nowhere. Pipes, sockets and devices are not a person's files: skipped.
    Every folder listed is added to ``folders``."""
    failed: list[OSError] = []
    for folder, dirs, files in os.walk(root, onerror=failed.append, followlinks=False):
        here = Path(folder)
        folders.add(readable(here))
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in SKIPPED_DIRS
            and not (d == "logseq" and (here / d / "config.edn").exists())
        )
        for name in sorted(files):
            if name.startswith("."):
                continue
            path = here / name
            try:
                if stat_kinds.S_ISREG(path.stat().st_mode):
                    yield path, None
            except OSError as exc:  # a link that loops or leads nowhere, or a vanished file
                yield path, (_why(path, exc), None)
        while failed:  # os.walk reports a folder it cannot list before it goes on
            error = failed.pop()
            folder_path = Path(error.filename) if error.filename else here
            yield folder_path, (_why(folder_path, error, folder=True), FOLDER)
    while failed:
        error = failed.pop()
        folder_path = Path(error.filename) if error.filename else root
        yield folder_path, (_why(folder_path, error, folder=True), FOLDER)


def _walk_changed(
    root: Path, changed: Sequence[Path], folders: set[str]
) -> Iterator[tuple[Path, tuple[str, str | None] | None]]:
    """What ``_walk`` would list of the ``changed`` paths below ``root``: a file, or a folder
    (created or moved in) walked whole. A path no longer there is left to the plan's check of
    the folder's known files against the disk."""
    seen: set[Path] = set()
    for given in sorted(set(changed)):
        path = Path(given)
        try:
            relative = path.relative_to(root)
        except ValueError:
            continue  # below another folder of the run
        if not _listed(root, relative):
            continue
        if path.is_dir() and not path.is_symlink():
            for found, problem in _walk(path, folders):
                if found not in seen:
                    seen.add(found)
                    yield found, problem
            continue
        try:
            regular = stat_kinds.S_ISREG(path.stat().st_mode)
        except FileNotFoundError:
            continue
        except OSError as exc:
            seen.add(path)
            yield path, (_why(path, exc), None)
            continue
        if regular and path not in seen:
            seen.add(path)
            yield path, None


def _listed(root: Path, relative: Path) -> bool:
    """Whether ``_walk`` from ``root`` would reach ``relative``: no hidden part, no tool
    folder, not inside a Logseq graph's own ``logseq/`` folder."""
    here = root
    for part in relative.parts:
        if part.startswith(".") or part in SKIPPED_DIRS:
            return False
        if part == "logseq" and (here / part / "config.edn").exists():
            return False
        here = here / part
    return True


def _why(path: Path, error: BaseException, *, folder: bool = False) -> str:
    """What went wrong with ``path``, in words a person can act on."""
    name = readable(path.name) or readable(path)
    what = "The folder" if folder else "It"
    code = getattr(error, "errno", None)
    if isinstance(error, RuntimeError) or code == errno.ELOOP:
        return (
            f"{name} is a symbolic link that leads back to itself (a loop). Point the link at "
            "a real file or folder, or remove it."
        )
    if code in (errno.EACCES, errno.EPERM):
        fix = "chmod u+rx" if folder else "chmod u+r"
        return (
            f"{name}: permission denied. {what} is not readable by your user; give it read "
            f"access ({fix}) and add it again."
        )
    if code == errno.ENOENT:
        if path.is_symlink():
            return f"{name} is a symbolic link to something that is not there; fix or remove it."
        return f"{name} is no longer there (moved or deleted while Cairn was reading the folder)."
    if code == errno.EIO:
        return (
            f"{name}: the disk reported an error while reading it. Copy what you can to "
            "another disk and add the copy."
        )
    reason = getattr(error, "strerror", None) or str(error)
    return f"{name} could not be read ({reason})."


def _not_a_file(path: Path) -> str:
    return f"{readable(path.name)} is not a regular file or folder (a pipe, socket or device)."
