"""What an export that never finished left behind, found and removed the next time Cairn runs.

An export writes plaintext into a hidden staging folder beside DEST (``destination``) and
renames it when whole. A process killed on the way (``kill -9``, a crash, a power cut) runs no
clean-up, and the person, who saw the export fail, has no reason to look for a hidden folder
of decrypted memories, often in a synced one. So before the first byte is written, the
staging folder's path is recorded here, in the data folder (owner-only), in an entry the
exporting process holds an ``flock`` on until it is done. The kernel drops that lock when the
process dies however it dies: an entry whose lock can be taken belongs to an export that is
over, and its staging folder, if it is still there, is removed. A running export's lock cannot
be taken, so two programs (the window exporting while a command starts) never disturb each
other.

Every ``cairn`` command and the window sweep at start (``sweep``) and tell the person what was
removed. The entry holds a path, never memory text.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cairn.storage.vault_copies import sync_folder

FOLDER = "exports-in-progress"  # in the data folder
ENTRY_SUFFIX = ".json"
_WRITING_SUFFIX = ".new"
# Only a folder named the way ``destination`` names a staging folder is ever removed.
STAGING_NAME = re.compile(r"^\..+\.partial-[0-9a-f]{12}$")


@dataclass(frozen=True)
class Swept:
    """One interrupted export's staging folder: removed, or why it could not be."""

    path: str
    files: int
    bytes: int
    error: str | None = None

    def sentence(self) -> str:
        if self.error is not None:
            return (
                f"An export that did not finish left plaintext files in {self.path}, and "
                f"Cairn could not remove them ({self.error}). Delete that folder yourself."
            )
        size = (
            f"{self.bytes / 1_000_000:.1f} MB"
            if self.bytes >= 1_000_000
            else f"{max(1, round(self.bytes / 1000))} kB"
        )
        return (
            f"Removed the plaintext files an export left when it did not finish: {self.path} "
            f"({self.files:,} files, {size}). Nothing in the vault was touched; export again "
            "if you still want the copy."
        )


class ExportLedger:
    """The staging folders of exports in progress, one locked entry each, in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @contextmanager
    def holding(self, staging: Path) -> Iterator[None]:
        """Record ``staging`` (before it exists) and hold the record for the block: the
        caller creates, fills and renames or removes it inside. Raises ``OSError`` when the
        record cannot be written (a full disk): then nothing may be written at all."""
        self._make_folder()
        name = secrets.token_hex(8)
        writing = self.folder / f"{name}{_WRITING_SUFFIX}"
        descriptor = os.open(writing, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        entry = self.folder / f"{name}{ENTRY_SUFFIX}"
        try:
            # Locked before it has its name, so a sweep never sees it unlocked while alive.
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            os.write(descriptor, json.dumps({"staging": str(staging)}).encode())
            os.fsync(descriptor)
            writing.rename(entry)
            sync_folder(self.folder)  # the record is on the disk before the first byte
        except BaseException:
            writing.unlink(missing_ok=True)
            os.close(descriptor)
            raise
        try:
            yield
        finally:
            # Kept while the folder is still there (a clean-up that failed): the next sweep
            # tries again, and says so if it cannot.
            if not staging.exists():
                entry.unlink(missing_ok=True)
            os.close(descriptor)

    def sweep(self) -> list[Swept]:
        """Remove what every export that is over left behind; what was removed, or why not."""
        try:
            paths = sorted(self.folder.iterdir())
        except OSError:
            return []  # none yet, or an unreadable data folder (`cairn doctor` names it)
        swept = []
        for path in paths:
            name = path.name
            if name.endswith(ENTRY_SUFFIX):
                found = self._sweep_entry(path)
                if found is not None:
                    swept.append(found)
            elif name.endswith(_WRITING_SUFFIX):
                self._drop_if_unlocked(path)  # died before its record was whole: no staging yet
        return swept

    def _sweep_entry(self, entry: Path) -> Swept | None:
        try:
            descriptor = os.open(entry, os.O_RDONLY)
        except OSError:
            return None  # gone meanwhile: its export finished
        try:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return None  # its export is still running
            try:
                staging = Path(json.loads(os.read(descriptor, 1 << 16))["staging"])
            except (ValueError, KeyError, TypeError):
                entry.unlink(missing_ok=True)  # not one this module wrote: nothing to follow
                return None
            found = _remove_staging(staging)
            if found is None or found.error is None:
                entry.unlink(missing_ok=True)
            return found
        finally:
            os.close(descriptor)

    @staticmethod
    def _drop_if_unlocked(path: Path) -> None:
        try:
            descriptor = os.open(path, os.O_RDONLY)
        except OSError:
            return
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            path.unlink(missing_ok=True)
        except BlockingIOError:
            pass
        finally:
            os.close(descriptor)

    def _make_folder(self) -> None:
        if not self.folder.is_dir():
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.folder.chmod(0o700)


def _remove_staging(staging: Path) -> Swept | None:
    """Remove one staging folder; None when there is none (the export finished, or died
    before making it)."""
    if not STAGING_NAME.match(staging.name) or staging.is_symlink() or not staging.is_dir():
        return None
    files = size = 0
    for root, _folders, names in os.walk(staging):
        for name in names:
            files += 1
            with contextlib.suppress(OSError):
                size += (Path(root) / name).lstat().st_size
    try:
        shutil.rmtree(staging)
    except OSError as exc:
        return Swept(str(staging), files, size, exc.strerror or str(exc))
    return Swept(str(staging), files, size)
