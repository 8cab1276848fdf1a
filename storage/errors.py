"""Errors raised by the vault, and the root of every error Cairn raises on purpose.

The root lives here, in the lowest layer, so that storage, ingest and app can all raise under
one root without importing upwards. ``cairn.app.errors`` re-exports these and draws the whole
tree. Each error is a sentence a person can act on; ``str(error)`` is that sentence.

    CairnError
     └── VaultError                 (has .path)
          ├── VaultNotFound
          ├── VaultExists
          ├── NotAVault
          ├── WrongPassphrase
          ├── SchemaTooNew
          ├── VaultBusy
          ├── DiskFull
          ├── VaultCorrupt
          ├── VaultClosed
          ├── VaultUnreachable      (the file or its folder cannot be read or written)
          ├── RowRejected           (a trigger refused a row: pack validation)
          ├── TargetExists          (a backup or restore would replace a file unasked)
          ├── CopyFailed            (a backup or restore could not be written)
          └── CopyRejected          (a backup or restored copy failed its checks)
"""

from __future__ import annotations

from pathlib import Path


class CairnError(Exception):
    """Root of the errors Cairn raises knowingly; anything else is a bug."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class VaultError(CairnError):
    """A problem with one vault file."""

    def __init__(self, path: Path | str, message: str) -> None:
        super().__init__(message)
        self.path = Path(path)


class VaultNotFound(VaultError):
    def __init__(self, path: Path | str) -> None:
        super().__init__(path, f"No vault at {path}. Create one with `cairn init`.")


class VaultExists(VaultError):
    def __init__(self, path: Path | str) -> None:
        super().__init__(
            path, f"{path} already exists; choose another path or open it instead of creating it."
        )


class NotAVault(VaultError):
    def __init__(self, path: Path | str, why: str) -> None:
        super().__init__(path, f"{path} is not a Cairn vault ({why}).")


class WrongPassphrase(VaultError):
    def __init__(self, path: Path | str) -> None:
        super().__init__(
            path,
            f"Wrong passphrase for {path} (or the file is not a Cairn vault). "
            "Check the passphrase and try again.",
        )


class SchemaTooNew(VaultError):
    def __init__(self, path: Path | str, found: int, known: int) -> None:
        super().__init__(
            path,
            f"{path} was written by a newer Cairn (schema {found}; this program knows up to "
            f"{known}). Update Cairn to open it; the file was not changed.",
        )
        self.found = found
        self.known = known


class VaultBusy(VaultError):
    def __init__(self, path: Path | str) -> None:
        super().__init__(
            path,
            f"{path} is busy: another Cairn program is writing to it. "
            "Wait for it to finish, or close it, and try again.",
        )


class DiskFull(VaultError):
    def __init__(self, path: Path | str) -> None:
        super().__init__(
            path,
            f"The disk holding {path} is full. The last change was rolled back and nothing "
            "stored before it was lost; free some space and try again.",
        )


class VaultCorrupt(VaultError):
    def __init__(self, path: Path | str, detail: str) -> None:
        super().__init__(
            path,
            f"{path} is damaged ({detail}). Restore it from a backup; "
            "keep this file until you have checked the backup.",
        )


class VaultClosed(VaultError):
    def __init__(self, path: Path | str) -> None:
        super().__init__(path, f"{path} is locked or closed; unlock it again to continue.")


class VaultUnreachable(VaultError):
    def __init__(self, path: Path | str, detail: str) -> None:
        super().__init__(
            path,
            f"Cannot use {path} ({detail}). Check that the file and its folder exist and that "
            "you may read and write them.",
        )


class TargetExists(VaultError):
    def __init__(self, path: Path | str) -> None:
        super().__init__(
            path,
            f"{path} already exists and was left as it is; choose another path, "
            "or pass --force to replace it.",
        )


class CopyFailed(VaultError):
    """Writing a backup or restored copy failed; nothing half-written was left behind."""

    def __init__(self, path: Path | str, why: str) -> None:
        super().__init__(path, f"Could not write {path}: {why}. Nothing was left behind.")


class CopyRejected(VaultError):
    """A copy opened but failed its checks; ``problems`` says each failure in a sentence."""

    def __init__(self, path: Path | str, problems: list[str]) -> None:
        super().__init__(
            path, f"{path} did not pass its checks, so nothing was changed. " + " ".join(problems)
        )
        self.problems = problems


class RowRejected(VaultError):
    """A schema trigger or constraint refused a row; ``reason`` is the trigger's sentence."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(path, reason)
        self.reason = reason
