"""Copies of a vault file: a consistent encrypted backup taken while the vault is open (and
written to by others), a copy of a backup for restoring, and a read-only look inside a copy.

A copy is made with SQLite's online backup API between two SQLCipher connections keyed alike:
every page is decrypted from the source and encrypted again for the copy, so no plaintext page
ever reaches the disk. The copy is keyed with the vault's raw key *and its salt*: SQLCipher keeps
the salt in the file's first 16 bytes, and the passphrase derives the raw key only with that
salt, so a copy with a salt of its own would not open with the passphrase.

Every copy is written under a temporary name in the destination's folder (owner-only, like the
vault), checked, and renamed into place only then: the destination never holds a half-written
or unchecked file, and any failure removes the temporary file. A run that is killed cannot
remove it, so each run first removes the temporary files that killed runs left (see
``remove_stale_partials``).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlcipher3

from cairn.storage import connection, records, sentinel
from cairn.storage.connection import Connection
from cairn.storage.errors import (
    CopyFailed,
    NotAVault,
    TargetExists,
    VaultError,
)
from cairn.storage.keys import VaultKey
from cairn.storage.rows import ReceiptRow
from cairn.storage.schema import check_not_newer
from cairn.storage.vault import Vault, _salt_of_existing

PARTIAL_SUFFIX = ".partial"
PARTIAL_TOKEN_BYTES = 6  # a temporary file is ``.NAME.<12 hex digits>.partial``
SIDECARS = ("-journal", "-wal", "-shm")
_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_REFUSED = {errno.EACCES, errno.EPERM, errno.EROFS}


@dataclass
class Staged:
    """A copy being written: ``path`` is the temporary file, ``dest`` where it goes; after a
    successful ``staged`` block, ``replaced`` is where the file it replaced was kept, if any."""

    path: Path
    dest: Path
    replaced: Path | None = None
    removed: list[Path] = field(default_factory=list)  # partials that killed runs left
    removed_bytes: int = 0


# -- keys and reading a copy ------------------------------------------------------------------


def key_for(path: Path, passphrase: str) -> VaultKey:
    """The raw key of the vault file at ``path`` (the same checks and errors as opening it)."""
    return VaultKey.derive(passphrase, _salt_of_existing(Path(path)))


def key_of(vault: Vault) -> VaultKey:
    """A copy of an open vault's key, to check a copy of it; the caller wipes it."""
    return VaultKey(*vault.key_material())


@contextmanager
def open_copy(path: Path, key: VaultKey) -> Iterator[Connection]:
    """A read-only connection to a copy that changes nothing in it: unlike the vault's own
    connections it does not switch the file to WAL. Driver errors become vault errors."""
    path = Path(path)
    conn = _connect(path, key, create=False)
    try:
        conn.execute("PRAGMA query_only = ON")
        with connection.translated(path):
            if check_not_newer(conn, path) == 0:
                raise NotAVault(path, "it is an encrypted database without Cairn's tables")
            yield conn
    finally:
        conn.close()


def integrity_problems(conn: Connection) -> list[str]:
    """SQLCipher's page HMAC check plus SQLite's integrity check; empty when sound. A file too
    damaged for the check to finish gives the driver's reason instead."""
    problems: list[str] = []
    try:
        problems += [row[0] for row in conn.execute("PRAGMA cipher_integrity_check")]
        problems += [r[0] for r in conn.execute("PRAGMA integrity_check") if r[0] != "ok"]
    except sqlcipher3.DatabaseError as exc:
        problems.append(str(exc))
    return problems


def contents(conn: Connection, path: Path) -> tuple[bool, list[ReceiptRow]]:
    """What a check reads in a copy: whether the sentinel is there, and the receipts. A file
    too damaged to read them raises ``VaultCorrupt``."""
    with connection.translated(path):
        return sentinel.present(conn), records.receipts(conn)


def in_use(path: Path) -> bool:
    """Whether a vault file has its write-ahead log beside it: a Cairn program has it open, or
    it was not closed cleanly. Replacing it then would lose what the log holds, or let the old
    log be replayed into the new file."""
    return any(Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-shm"))


# -- writing a copy ---------------------------------------------------------------------------


def copy_vault(vault: Vault, stage: Staged) -> None:
    """Copy an open vault into ``stage.path``, consistent as of one commit."""
    free = _free_bytes(stage.dest.parent)
    if free is not None and free < vault.file_size():
        raise CopyFailed(stage.dest, _full(stage.dest))
    key = key_of(vault)
    # Holding a read keeps a rekey or close of this vault waiting until the copy is done.
    with vault.read():
        source = vault.new_read_only_connection(for_scan=True)
        try:
            _copy(source, vault.path, stage, key)
        finally:
            source.close()
            key.wipe()


def copy_file(src: Path, key: VaultKey, stage: Staged) -> None:
    """Copy the vault file ``src`` (a backup being restored) into ``stage.path``."""
    src = Path(src)
    free = _free_bytes(stage.dest.parent)
    if free is not None and free < src.stat().st_size:
        raise CopyFailed(stage.dest, _full(stage.dest))
    source = _connect(src, key, create=False)
    try:
        source.execute("PRAGMA query_only = ON")
        _copy(source, src, stage, key)
    finally:
        source.close()


@contextmanager
def staged(
    dest: Path, *, overwrite: bool, keep_replaced: bool = False, stale_names: str | None = None
) -> Iterator[Staged]:
    """A temporary file beside ``dest`` to write a copy into; when the block ends without an
    error it is synced and renamed to ``dest`` atomically, else removed.

    ``overwrite`` allows replacing an existing ``dest``; ``keep_replaced`` (a restore over a
    vault) keeps the replaced file under a new name, and refuses a vault that is in use.
    First, the temporary files that killed runs left for ``dest`` (or, given ``stale_names``,
    a regular expression, for any NAME it matches) are removed: ``Staged.removed`` lists them.
    """
    dest = Path(dest)
    _check_target(dest, overwrite=overwrite, keep_replaced=keep_replaced)
    removed = remove_stale_partials(dest.parent, stale_names or re.escape(dest.name))
    try:
        tmp, lock = _new_partial(dest)
    except OSError as exc:
        raise CopyFailed(dest, _why(exc, dest)) from None
    stage = Staged(tmp, dest, removed=[path for path, _ in removed])
    stage.removed_bytes = sum(size for _, size in removed)
    try:
        yield stage
        _sync(tmp)
        # Checked again: another program may have made or opened ``dest`` during the copy.
        _check_target(dest, overwrite=overwrite, keep_replaced=keep_replaced)
        stage.replaced = _place(tmp, dest, overwrite=overwrite, keep_replaced=keep_replaced)
    except OSError as exc:
        _remove(tmp)
        raise CopyFailed(dest, _why(exc, dest)) from None
    except BaseException:
        _remove(tmp)
        raise
    finally:
        os.close(lock)


def remove_stale_partials(folder: Path, names: str) -> list[tuple[Path, int]]:
    """Remove the temporary files (``.NAME.<hex>.partial`` and SQLite's -journal, -wal, -shm
    beside them) that a killed backup or restore left in ``folder``, for each NAME matching the
    regular expression ``names``; returns each removed file with its size.

    A run holds an exclusive ``flock`` on its temporary file from creation to its end, and the
    kernel drops it when the process dies: a file whose lock can be taken belongs to no live
    run. One still locked (a backup running now) is left, and so is anything not named exactly
    as ``staged`` names its files, and anything on a file system without ``flock``.
    """
    token = f"[0-9a-f]{{{2 * PARTIAL_TOKEN_BYTES}}}"
    sidecar = "|".join(re.escape(suffix) for suffix in SIDECARS)
    pattern = re.compile(rf"\.(?:{names})\.{token}{re.escape(PARTIAL_SUFFIX)}(?:{sidecar})?")
    try:
        found = sorted(
            entry.name
            for entry in os.scandir(folder)
            if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False)
        )
    except OSError:
        return []
    removed: list[tuple[Path, int]] = []
    mains = [name for name in found if name.endswith(PARTIAL_SUFFIX)]
    for name in mains:
        removed += _remove_if_abandoned(folder / name)
    for name in found:
        main = folder / name[: name.rindex(PARTIAL_SUFFIX) + len(PARTIAL_SUFFIX)]
        # A sidecar without its file: a run killed between removing the one and the other. A
        # live run makes its file before SQLite makes a sidecar, and removes both when done.
        if name not in mains and not main.exists():
            removed += _unlink_counted(folder / name)
    return removed


# -- inside ------------------------------------------------------------------------------------


def _new_partial(dest: Path) -> tuple[Path, int]:
    """A new, empty, owner-only temporary file for ``dest`` and an open descriptor holding its
    ``flock`` (see ``remove_stale_partials``); the caller closes the descriptor."""
    for _ in range(3):
        tmp = dest.with_name(
            f".{dest.name}.{secrets.token_hex(PARTIAL_TOKEN_BYTES)}{PARTIAL_SUFFIX}"
        )
        # Owner-only from the start, as the vault is: the copy holds the same (encrypted) data.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pass  # another run's clean-up took it between our create and lock: about to go
        except OSError:
            return tmp, fd  # no flock here: clean-ups leave this folder's partials alone
        else:
            # Still ours: a clean-up may have removed it between the create and the lock.
            with contextlib.suppress(OSError):
                if tmp.stat().st_ino == os.fstat(fd).st_ino:
                    return tmp, fd
        os.close(fd)
    raise OSError(errno.EAGAIN, "its temporary file was removed as it was made; try again")


def _remove_if_abandoned(path: Path) -> list[tuple[Path, int]]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return []
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # held by a run going on now, or no flock here: cannot tell, so leave it
        os.close(fd)
        return []
    try:
        # Removed while the lock is held, so no run can start using it meanwhile.
        return [
            done for suffix in ("", *SIDECARS) for done in _unlink_counted(Path(f"{path}{suffix}"))
        ]
    finally:
        os.close(fd)


def _unlink_counted(path: Path) -> list[tuple[Path, int]]:
    try:
        size = path.lstat().st_size
        path.unlink()
    except OSError:
        return []
    return [(path, size)]


def _connect(path: Path, key: VaultKey, *, create: bool) -> Connection:
    # Not ``connection.connect``: that switches the file to WAL, which writes to it (a check
    # must not) and leaves -wal and -shm files beside it (a backup is one file).
    with connection.translated(path):
        conn = sqlcipher3.connect(
            str(path), isolation_level=None, timeout=connection.BUSY_TIMEOUT_MS / 1000
        )
    try:
        with connection.translated(path):
            connection.apply_key(conn, path, key, create=create)
            # Sorts and temporary indexes stay in memory: SQLite's temp files would hold
            # plaintext. FULL: the copy is on disk, not in a cache, when it is renamed.
            conn.execute("PRAGMA temp_store = MEMORY")
            conn.execute("PRAGMA synchronous = FULL")
    except BaseException:
        conn.close()
        raise
    conn.row_factory = sqlcipher3.Row
    opened: Connection = conn
    return opened


def _copy(source: Any, source_path: Path, stage: Staged, key: VaultKey) -> None:
    target = _connect(stage.path, key, create=True)
    try:
        # pages=-1: one step inside one read transaction on the source, so the copy is the
        # vault as of one commit; WAL lets other connections go on writing meanwhile.
        source.backup(target, pages=-1)
        # The copy carries the vault's WAL flag; as one file it travels without a log beside it.
        target.execute("PRAGMA journal_mode = DELETE")
    except sqlcipher3.Error as exc:
        text = str(exc).lower()
        if "full" in text:
            raise CopyFailed(stage.dest, _full(stage.dest)) from None
        if "disk i/o" in text or "unable to open" in text or "readonly" in text:
            raise CopyFailed(
                stage.dest,
                f"writing stopped part-way ({exc}); the disk may be full, removed or failing",
            ) from None
        known = connection.translate(exc, source_path)
        if known is None:
            raise
        raise known from exc
    finally:
        target.close()


def _check_target(dest: Path, *, overwrite: bool, keep_replaced: bool) -> None:
    if not dest.parent.is_dir():
        raise VaultError(
            dest, f"The folder {dest.parent} does not exist; create it or choose another."
        )
    if dest.is_dir():
        raise VaultError(dest, f"{dest} is a folder; give the path of a file to write.")
    if not (dest.exists() or dest.is_symlink()):
        return
    if not overwrite:
        raise TargetExists(dest)
    if keep_replaced and in_use(dest):
        raise VaultError(
            dest,
            f"{dest} is open in a Cairn program, or was not closed cleanly (its -wal file is "
            "beside it). Close Cairn, or open and close that vault once, then try again; "
            "nothing was changed. If it is damaged and cannot be opened: close every Cairn "
            f"program, move {dest.name} and its -wal and -shm files together into another "
            "folder (keep them), then restore again.",
        )


def _place(tmp: Path, dest: Path, *, overwrite: bool, keep_replaced: bool) -> Path | None:
    replaced = None
    if not overwrite:
        try:
            # A link fails if ``dest`` exists, even one made a moment ago: never a clobber.
            dest.hardlink_to(tmp)
        except FileExistsError:
            raise TargetExists(dest) from None
        except OSError:  # no hard links on this file system (FAT, exFAT on a USB stick)
            if dest.exists():
                raise TargetExists(dest) from None
            tmp.rename(dest)
        else:
            tmp.unlink()
    elif keep_replaced and dest.exists():
        replaced = _aside_name(dest)
        try:
            replaced.hardlink_to(dest)  # ``dest`` stays in place until the swap below
            moved = False
        except OSError:
            dest.rename(replaced)
            moved = True
        try:
            tmp.replace(dest)
        except OSError:
            if moved:
                replaced.rename(dest)
            else:
                replaced.unlink()
            raise
    else:
        tmp.replace(dest)
    sync_folder(dest.parent)
    return replaced


def _aside_name(dest: Path) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    candidate = dest.with_name(f"{dest.name}.replaced-{stamp}")
    number = 1
    while candidate.exists():
        number += 1
        candidate = dest.with_name(f"{dest.name}.replaced-{stamp}-{number}")
    return candidate


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_folder(folder: Path) -> None:
    # The rename is on disk only once the folder is; some file systems cannot sync a folder.
    with contextlib.suppress(OSError):
        _sync(folder)


def _remove(tmp: Path) -> None:
    for suffix in ("", *SIDECARS):
        with contextlib.suppress(OSError):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)


def _free_bytes(folder: Path) -> int | None:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


def _full(dest: Path) -> str:
    return f"the disk holding {dest.parent} is full; free some space or choose another place"


def _why(exc: OSError, dest: Path) -> str:
    if exc.errno in _FULL:
        return _full(dest)
    if exc.errno in _REFUSED:
        return (
            f"you may not write in {dest.parent} ({exc.strerror}); choose a folder you may write to"
        )
    return exc.strerror or str(exc)
