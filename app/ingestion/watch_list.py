"""The folders a person asked Cairn to watch: kept in the vault's settings (encrypted, and they
travel with the vault to another machine), each with the scope its files go to. Adding one
checks that it is a folder Cairn can read; a folder that later goes away stays listed (it may
be a disk that is not mounted) and the watcher says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.app.errors import InvalidRequest
from cairn.storage import records
from cairn.storage.connection import Connection

KEY = "watch.folders"


@dataclass(frozen=True)
class WatchedFolder:
    path: str  # absolute, as resolved when it was added
    scope: str

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "scope": self.scope}


def read(conn: Connection) -> list[WatchedFolder]:
    stored = records.get_setting(conn, KEY, [])
    return [WatchedFolder(str(item["path"]), str(item["scope"])) for item in stored]


def add(conn: Connection, given: str | Path, scope: str) -> list[WatchedFolder]:
    """Watch the folder ``given``; returns the list. A folder already watched, or inside or
    around one that is, is refused with what to do."""
    path = _absolute(given)
    problem = folder_problem(path)
    if problem is not None:
        raise InvalidRequest(problem)
    folders = read(conn)
    for folder in folders:
        watched = Path(folder.path)
        if watched == path:
            raise InvalidRequest(f"{path} is already watched (scope {folder.scope}).")
        if watched in path.parents:
            raise InvalidRequest(
                f"{path} is inside {watched}, which is already watched with everything in it."
            )
        if path in watched.parents:
            raise InvalidRequest(
                f"{watched} is already watched and is inside {path}: remove it first "
                f"(cairn watch remove {watched}), then add {path}."
            )
    folders.append(WatchedFolder(str(path), scope))
    _write(conn, folders)
    return folders


def remove(conn: Connection, given: str | Path) -> list[WatchedFolder]:
    """Stop watching ``given`` (its memories are kept); returns the list."""
    folders = read(conn)
    wanted = {str(given), str(_absolute(given))}
    kept = [f for f in folders if f.path not in wanted]
    if len(kept) == len(folders):
        listed = ", ".join(f.path for f in folders) or "none"
        raise InvalidRequest(f"{given} is not a watched folder; the watched folders: {listed}.")
    _write(conn, kept)
    return kept


def folder_problem(path: Path) -> str | None:
    """Why ``path`` cannot be watched now, in words a person can act on; None if it can."""
    if not path.exists():
        return (
            f"The folder {path} is not there (moved, deleted, or on a disk that is not "
            "mounted). Mount the disk, or remove it from the watched folders and add it where "
            "it is now."
        )
    if not path.is_dir():
        return f"{path} is a file, not a folder: watch the folder it is in, or add it once."
    if not os.access(path, os.R_OK | os.X_OK):
        return (
            f"The folder {path} is not readable by your user: give it read access "
            f"(chmod u+rx {path}), or remove it from the watched folders."
        )
    return None


def _absolute(given: str | Path) -> Path:
    return Path(given).expanduser().resolve()


def _write(conn: Connection, folders: list[WatchedFolder]) -> None:
    records.set_setting(conn, KEY, [f.as_dict() for f in folders])
