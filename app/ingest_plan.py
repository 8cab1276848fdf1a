"""What an ingest run will do, decided before anything is read: the files under the given paths,
each hashed and compared with what the vault already keeps.

- ``new``: never seen; ``changed``: seen with other bytes (it will replace the old version,
  which stays as history); ``unchanged``: skipped; ``retry``: it failed last time (a missing
  tool may have been installed since); ``duplicate``: the same bytes are already kept under
  another path; ``unsupported``: no extractor reads it (skipped inside a folder, a failure when
  named on its own); ``other_scope``: already kept in another scope (a file lives in one).
- ``removed``: files the vault keeps from a folder being ingested that are no longer there. They
  are reported and marked missing; their memories are never deleted.

A dry run is exactly this plan, shown.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.app.extraction import kind_of
from cairn.storage import source_rows
from cairn.storage.vault import Vault

HASH_CHUNK = 1 << 20
# Folders that hold tools' own files, never a person's notes.
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})
ACTIONS_TO_READ = ("new", "changed", "retry")


@dataclass(frozen=True)
class PlannedFile:
    path: Path
    root: Path | None  # the folder it was found in; None when it was named itself
    size: int
    mtime_ns: int
    sha256: str | None  # None for an unsupported file (never read)
    action: str
    kind: str | None
    previous: dict[str, Any] | None = None  # its row in sources, if any
    same_as: dict[str, Any] | None = None  # the row already holding these bytes

    @property
    def to_read(self) -> bool:
        return self.action in ACTIONS_TO_READ


@dataclass
class Plan:
    files: list[PlannedFile] = field(default_factory=list)
    roots: list[Path] = field(default_factory=list)  # the folders given
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
) -> Plan:
    """Walk ``paths``, hash each file (``hashed(path, done, total)`` after each) and compare
    with what ``scope`` keeps."""
    plan = Plan()
    found: dict[Path, Path | None] = {}
    for given in paths:
        path = Path(given).expanduser().resolve()
        if path.is_dir():
            if path in plan.roots:
                continue
            plan.roots.append(path)
            for file in _walk(path):
                found[file] = found.get(file) or path  # found in a folder: its links count
        elif path.is_file():
            found.setdefault(path, None)
        else:
            plan.not_found.append(str(path))
    unique = sorted(found.items(), key=lambda item: str(item[0]))
    with vault.read() as conn:
        previous = source_rows.by_paths(conn, [str(path) for path, _ in unique])
        for done, (path, root) in enumerate(unique, start=1):
            plan.files.append(_planned(conn, path, root, previous.get(str(path)), scope, plan))
            if hashed is not None:
                hashed(path, done, len(unique))
        for root in plan.roots:
            for row in source_rows.listed(
                conn, states=("ingested", "duplicate"), under=str(root) + os.sep, scope=scope
            ):
                if Path(row["path"]) not in found and not Path(row["path"]).exists():
                    plan.removed.append(row["path"])
    return plan


def _planned(
    conn: Any,
    path: Path,
    root: Path | None,
    previous: dict[str, Any] | None,
    scope: str,
    plan: Plan,
) -> PlannedFile:
    try:
        stat = path.stat()
    except OSError:
        plan.not_found.append(str(path))
        return PlannedFile(path, root, 0, 0, None, "unsupported", None, previous)
    kind = kind_of(path)
    if kind is None:
        return PlannedFile(path, root, stat.st_size, stat.st_mtime_ns, None, "unsupported", None)
    if previous is not None and previous["scope"] != scope:
        # A file is kept in one scope; reading it into a second would make two of it.
        return PlannedFile(
            path, root, stat.st_size, stat.st_mtime_ns, None, "other_scope", kind, previous
        )
    digest = file_hash(path)
    if previous is not None and previous["sha256"] == digest:
        action = "retry" if previous["state"] == "failed" else "unchanged"
        if previous["state"] == "missing":
            action = "unchanged"  # back where it was
        return PlannedFile(
            path, root, stat.st_size, stat.st_mtime_ns, digest, action, kind, previous
        )
    same = source_rows.ingested_with_hash(conn, digest, scope)
    if same is not None and same["path"] != str(path):
        return PlannedFile(
            path, root, stat.st_size, stat.st_mtime_ns, digest, "duplicate", kind, previous, same
        )
    action = "new"
    if previous is not None and previous["document_id"] and previous["state"] != "duplicate":
        action = "changed"
    elif previous is not None and previous["state"] == "failed":
        action = "retry"
    return PlannedFile(path, root, stat.st_size, stat.st_mtime_ns, digest, action, kind, previous)


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _walk(root: Path) -> Iterator[Path]:
    """Files below ``root`` in a stable order, without hidden entries, tool folders, or a
    Logseq graph's own ``logseq/`` folder (settings and backup copies of pages)."""
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in SKIPPED_DIRS
            and not (d == "logseq" and (here / d / "config.edn").exists())
        )
        for name in sorted(files):
            if not name.startswith(".") and (here / name).is_file():
                yield here / name
