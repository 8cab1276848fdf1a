"""Where an export goes: a new folder, owner-only, that takes its name only once complete.

The rule a person is told: DEST is a folder that does not exist yet (or an empty one). Cairn
writes into a hidden sibling, ``.<name>.partial-<hex>`` (0700), each file created 0600 from the
start (``O_EXCL``: nothing is ever overwritten), and renames it to DEST when the last byte is
written. A full disk, a permission error or a cancel removes the sibling: what is at DEST is
either a whole export or nothing. A process killed mid-way leaves only the ``.partial-`` folder,
and the ledger (``leftovers``) has its path from before it was made: the next run of Cairn
removes it and says so.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO

from cairn.app.errors import InvalidRequest
from cairn.app.portability.leftovers import ExportLedger

FOLDER_MODE = 0o700
FILE_MODE = 0o600


class ExportFailed(InvalidRequest):
    """The export could not be written (disk full, no permission...); nothing was left."""


def check_destination(dest: Path) -> Path:
    """``dest`` made absolute, or why it cannot take an export (before any reading starts)."""
    dest = dest.expanduser().absolute()
    if dest.exists() and not dest.is_dir():
        raise InvalidRequest(
            f"{dest} is a file. An export is a new folder: give the name of a folder that "
            "does not exist yet."
        )
    if dest.is_dir() and any(dest.iterdir()):
        raise InvalidRequest(
            f"{dest} already holds files. An export never writes over anything: pick a new "
            "folder name (it will be created)."
        )
    if not dest.parent.is_dir():
        raise InvalidRequest(f"The folder {dest.parent} does not exist; create it first.")
    return dest


@contextmanager
def staged_folder(dest: Path, ledger: ExportLedger) -> Iterator[Path]:
    """A private folder to write the export into; renamed to ``dest`` when the block ends
    without an error, removed with everything in it when it does not. Its path is in
    ``ledger`` before it exists and until it is renamed or removed."""
    dest = check_destination(dest)
    staging = dest.parent / f".{dest.name}.partial-{secrets.token_hex(6)}"
    with ExitStack() as held:
        try:
            held.enter_context(ledger.holding(staging))
            staging.mkdir(mode=FOLDER_MODE)
            staging.chmod(FOLDER_MODE)  # mkdir's mode is narrowed by the umask: set it exactly
        except OSError as exc:
            raise _failed(exc, dest) from exc
        try:
            yield staging
            if dest.is_dir():
                dest.rmdir()  # still empty (checked above): the complete export takes its place
            staging.rename(dest)
        except BaseException as exc:
            shutil.rmtree(staging, ignore_errors=True)
            if isinstance(exc, OSError):
                raise _failed(exc, dest) from exc
            raise


def private_file(path: Path) -> IO[str]:
    """A new text file, owner-only from its first byte; refuses one that exists."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    return os.fdopen(descriptor, "w", encoding="utf-8", newline="\n")


def _failed(exc: OSError, dest: Path) -> ExportFailed:
    reason = exc.strerror or str(exc)
    return ExportFailed(
        f"The export to {dest} could not be written ({reason}); nothing was left there and "
        "the vault is unchanged. Free some space or choose a folder you can write to, then "
        "export again."
    )
