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
          │    └── VaultDamaged     (opening read a page that fails its HMAC, the key is right)
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
    """No page of the file opens with the key (see ``cairn.storage.damage``); ``only_page``:
    the file has a single page, so a wrong passphrase and a damaged page look alike."""

    def __init__(self, path: Path | str, *, only_page: bool = False) -> None:
        if only_page:
            message = (
                f"Wrong passphrase for {path}, or the file is damaged: it has a single page, "
                "so no other page can tell the two apart. Check the passphrase and try again; "
                "if you are sure it is right, restore the vault from a backup with "
                "`cairn restore`."
            )
        else:
            message = (
                f"Wrong passphrase for {path}: no page of the file opens with it. Check the "
                "passphrase and try again. If you are sure of it, the file is not a Cairn "
                "vault or its first 16 bytes (the salt every page's key is made with) are "
                "damaged, which looks the same; a backup restores the vault (`cairn restore`)."
            )
        super().__init__(path, message)
        self.only_page = only_page


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
            f"{path} is damaged ({detail}). Restore it from a backup with "
            f"`cairn restore BACKUP {path} --force`, which keeps this file beside it.",
        )
        self.detail = detail


class VaultDamaged(VaultCorrupt):
    """SQLCipher would not open the file, but one of its pages authenticates with the key: the
    passphrase is right and the file is damaged (see ``cairn.storage.damage``)."""

    def __init__(self, path: Path | str, detail: str) -> None:
        VaultError.__init__(
            self,
            path,
            f"{path} is damaged: {detail}. Restore the vault from a backup with "
            f"`cairn restore BACKUP {path} --force`, which keeps this file beside it; "
            "a damaged file is often a failing disk, so check that too.",
        )
        self.detail = detail


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
