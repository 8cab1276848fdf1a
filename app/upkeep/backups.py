"""Backup, restore and the check of a copy (``cairn backup``, ``restore``, ``verify-restore``).

A copy passes when SQLCipher and SQLite find every page sound, it holds the sentinel every
vault is created with (``cairn.storage.sentinel``: without it the file is not a Cairn vault
restored whole), and its receipt chain is intact, and, given the head and count exported from
the vault (``cairn receipts export``), the chain still passes through that head. Backup and
restore both check the copy they wrote before it takes its name, so the destination never holds
a copy that failed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from cairn.app.errors import InvalidRequest
from cairn.app.process import diagnostic_log
from cairn.app.upkeep import receipts
from cairn.storage import vault_copies
from cairn.storage.connection import Connection
from cairn.storage.errors import CopyRejected, TargetExists, VaultCorrupt, VaultError
from cairn.storage.keys import VaultKey
from cairn.storage.vault import Vault

BACKUP_SUFFIX = ".cairn"


@dataclass(frozen=True)
class CopyReport:
    """What the checks of one copy found; ``problems`` says each failure in a sentence."""

    path: str
    integrity_problems: list[str]
    sentinel: bool | None  # None: the file was too damaged to look
    receipts: receipts.ChainReport | None
    expected: tuple[str, int] | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def whole(self) -> bool:
        """Sound pages and the sentinel: the file is a Cairn vault copied whole, whatever its
        receipt chain says (a copy carries the vault's chain as it is)."""
        return not self.integrity_problems and self.sentinel is True

    @property
    def problems(self) -> list[str]:
        out = []
        if self.integrity_problems:
            more = len(self.integrity_problems) - 1
            extra = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
            out.append(
                f"The file is damaged: {self.integrity_problems[0]}{extra}. "
                "Do not restore it; use another backup."
            )
        if self.sentinel is False:
            out.append(
                "It lacks the sentinel every Cairn vault is created with, so it is not a "
                "Cairn vault copied whole (a partial copy, or another database)."
            )
        if self.receipts is not None and not self.receipts.ok:
            out.append(f"Its receipt chain is not intact: {self.receipts.problem}.")
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.path,
            "ok": self.ok,
            "integrity_problems": self.integrity_problems,
            "sentinel": self.sentinel,
            "receipts": None if self.receipts is None else self.receipts.as_dict(),
            "expected": None
            if self.expected is None
            else {"head": self.expected[0], "count": self.expected[1]},
            "problems": self.problems,
        }


@dataclass(frozen=True)
class CopyResult:
    """A backup or restore that was written, checked and put in place."""

    path: str
    size: int
    report: CopyReport
    replaced: str | None = None  # a restore over a vault: where the old file was kept
    # Temporary files that killed runs had left beside the destination, removed by this one.
    removed_partials: tuple[str, ...] = ()
    removed_bytes: int = 0

    def as_dict(self) -> dict[str, Any]:
        chain = self.report.receipts
        return {
            "path": self.path,
            "bytes": self.size,
            "verified": self.report.ok,
            "problems": self.report.problems,
            "receipts": None if chain is None else {"count": chain.count, "head": chain.head},
            "replaced": self.replaced,
            "removed_partials": list(self.removed_partials),
        }


def check_copy(conn: Connection, path: Path, expected: tuple[str, int] | None = None) -> CopyReport:
    """The checks of a copy open read-only on ``conn`` (see ``storage.backup.open_copy``)."""
    damage = vault_copies.integrity_problems(conn)
    try:
        whole, rows = vault_copies.contents(conn, path)
    except VaultError as exc:  # too damaged to read on: the integrity check said why
        return CopyReport(str(path), damage or [str(exc)], None, None, expected)
    chain = receipts.audit(rows) if expected is None else receipts.verify_against(rows, *expected)
    return CopyReport(str(path), damage, whole, chain, expected)


def require_copy(path: Path) -> Path:
    """``path`` if a file is there; checked before a passphrase is asked for."""
    path = Path(path).expanduser()
    if not (path.exists() or path.is_symlink()):
        raise VaultError(path, f"There is no file at {path}; check the path.")
    return path


def check_restore_target(src: Path, dest: Path, *, overwrite: bool) -> None:
    """What refuses a restore before any work (and before the passphrase is asked for)."""
    src, dest = require_copy(src), Path(dest).expanduser()
    if _same_file(src, dest):
        raise InvalidRequest(f"{src} and {dest} are the same file; restore to another path.")
    if (dest.exists() or dest.is_symlink()) and not overwrite:
        raise TargetExists(dest)


def verify_copy(
    path: Path, passphrase: str, *, head: str | None = None, count: int | None = None
) -> CopyReport:
    """Open a backup (or a restored vault) with its passphrase, read-only, and check it."""
    expected = receipts.exported(head, count)
    key = vault_copies.key_for(require_copy(path), passphrase)
    try:
        return _check_file(Path(path), key, expected)
    finally:
        key.wipe()


def backup(vault: Vault, dest: Path, *, overwrite: bool = False) -> CopyResult:
    """A consistent encrypted copy of the open vault at ``dest`` (a file, or a folder to put a
    dated one in), checked before it takes its name; it opens with the vault's passphrase."""
    with diagnostic_log.timed("backup") as counts:  # how long, how big: never where
        result = _backup(vault, dest, overwrite)
        counts["bytes"] = result.size
    return result


def _backup(vault: Vault, dest: Path, overwrite: bool) -> CopyResult:
    dest = Path(dest).expanduser()
    stale_names = None
    if dest.is_dir():
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        dest = dest / f"{vault.path.stem}-{stamp}{BACKUP_SUFFIX}"
        # Each backup into a folder has a name of its own, so a killed one's temporary file
        # would never be its successor's: clean up those of every dated name of this vault.
        stale_names = re.escape(vault.path.stem) + r"-\d{8}-\d{6}" + re.escape(BACKUP_SUFFIX)
    if _same_file(dest, vault.path):
        raise InvalidRequest(f"{dest} is the vault itself; back it up to another path.")
    with vault_copies.staged(dest, overwrite=overwrite, stale_names=stale_names) as stage:
        vault_copies.copy_vault(vault, stage)
        # A vault whose receipt chain is broken is still backed up (what it holds is worth
        # keeping); the result's report says so.
        report = _check_staged(stage, vault_copies.key_of(vault), chain_required=False)
    return CopyResult(str(dest), dest.stat().st_size, report, **_removed(stage))


def restore(src: Path, dest: Path, passphrase: str, *, overwrite: bool = False) -> CopyResult:
    """Put a checked copy of the backup ``src`` at ``dest``. An existing ``dest`` is replaced
    only with ``overwrite``, only once the copy passed, and is kept under a new name."""
    src, dest = Path(src).expanduser(), Path(dest).expanduser()
    check_restore_target(src, dest, overwrite=overwrite)  # before a key derivation's cost
    key = vault_copies.key_for(src, passphrase)
    try:
        report = _check_file(src, key)
        if not report.ok:
            raise CopyRejected(src, report.problems)
        with vault_copies.staged(dest, overwrite=overwrite, keep_replaced=True) as stage:
            vault_copies.copy_file(src, key, stage)
            _check_staged(stage, VaultKey(key.raw_bytes(), key.salt), chain_required=True)
    finally:
        key.wipe()
    replaced = None if stage.replaced is None else str(stage.replaced)
    return CopyResult(str(dest), dest.stat().st_size, report, replaced, **_removed(stage))


def _removed(stage: vault_copies.Staged) -> dict[str, Any]:
    return {
        "removed_partials": tuple(str(path) for path in stage.removed),
        "removed_bytes": stage.removed_bytes,
    }


def _check_staged(stage: vault_copies.Staged, key: VaultKey, *, chain_required: bool) -> CopyReport:
    """The copy just written, checked under its final name in messages; wipes ``key``."""
    try:
        report = _check_file(stage.path, key, shown_as=stage.dest)
    finally:
        key.wipe()
    if not (report.ok if chain_required else report.whole):
        raise CopyRejected(stage.dest, report.problems)
    return report


def _check_file(
    path: Path,
    key: VaultKey,
    expected: tuple[str, int] | None = None,
    *,
    shown_as: Path | None = None,
) -> CopyReport:
    shown = shown_as or path
    try:
        with vault_copies.open_copy(path, key) as conn:
            return check_copy(conn, shown, expected)
    except VaultCorrupt as exc:  # damaged where even opening it reads (its first page, schema)
        return CopyReport(str(shown), [exc.detail], None, None, expected)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and a.samefile(b)
    except OSError:
        return False
