"""One encrypted vault file: create, open, change passphrase, close.

A ``Vault`` owns the raw key (in memory only), one writer connection guarded by a lock, and one
read connection per thread, each keyed with the raw key so only the first open pays for the key
derivation. Nothing here knows what a memory is; that is app's business.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from cairn.storage import connection
from cairn.storage.connection import Connection
from cairn.storage.errors import (
    NotAVault,
    VaultBusy,
    VaultClosed,
    VaultError,
    VaultExists,
    VaultNotFound,
    VaultUnreachable,
)
from cairn.storage.keys import SALT_BYTES, SQLITE_PLAINTEXT_HEADER, VaultKey, read_salt
from cairn.storage.schema import check_not_newer, migrate


class Vault:
    """An open vault. Use ``Vault.create`` or ``Vault.open``; close it when done."""

    def __init__(self, path: Path, key: VaultKey, writer: Connection) -> None:
        self.path = path
        self._key = key
        self._writer = writer
        self._write_lock = threading.RLock()
        self._readers: dict[int, Connection] = {}
        self._readers_lock = threading.Lock()
        self._after_commit: list[Callable[[], None]] = []
        self._closed = False
        # Reads share the vault; rekey and close need it alone (a reader keyed with the old
        # key, or one closed under a running query, would fail). The gate counts reads in
        # progress and holds new ones back while an exclusive act waits or runs.
        self._gate = threading.Condition()
        self._active_reads = 0
        self._exclusive = False
        self._held = threading.local()  # this thread's depth of nested reads

    # -- life cycle ---------------------------------------------------------------------------

    @classmethod
    def create(cls, path: Path, passphrase: str) -> Vault:
        path = Path(path)
        if path.exists():
            raise VaultExists(path)
        if not path.parent.is_dir():
            raise VaultError(
                path, f"The folder {path.parent} does not exist; create it or choose another."
            )
        key = VaultKey.for_new_vault(passphrase)
        # Created empty with owner-only permissions before SQLite opens it: SQLite gives the
        # -wal and -shm files the main file's mode, so none of them is readable by others.
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        try:
            writer = connection.connect(path, key, create=True)
            migrate(writer, path)
        except BaseException:
            remove_vault_files(path)
            raise
        return cls(path, key, writer)

    @classmethod
    def open(cls, path: Path, passphrase: str) -> Vault:
        path = Path(path)
        salt = _salt_of_existing(path)
        return cls.open_with_key(path, VaultKey.derive(passphrase, salt))

    @classmethod
    def open_with_key(cls, path: Path, key: VaultKey) -> Vault:
        with connection.translated(path):
            writer = connection.connect(path, key)
        try:
            with connection.translated(path):
                check_not_newer(writer, path)
                migrate(writer, path)
        except BaseException:
            writer.close()
            raise
        return cls(path, key, writer)

    @classmethod
    def open_with_key_material(cls, path: Path, raw_key: bytes, salt: bytes) -> Vault:
        """Open with what ``key_material`` gave another process of this program."""
        return cls.open_with_key(Path(path), VaultKey(raw_key, salt))

    def key_material(self) -> tuple[bytes, bytes]:
        """The raw key and salt, for a helper process of this program that opens the same
        file (an ingest run kept off the window's process). The caller sends them through a
        pipe and nowhere else; the helper wipes its copy when it closes the vault."""
        self._require_open()
        return self._key.raw_bytes(), self._key.salt

    def change_passphrase(self, new_passphrase: str) -> None:
        """Re-encrypt the file under a key derived from ``new_passphrase``."""
        new_key = VaultKey.derive(new_passphrase, self._key.salt)
        with self._write_lock, self._alone():
            self._require_open()
            self._close_readers()
            with connection.translated(self.path):
                self._writer.execute(f"PRAGMA rekey = {new_key.pragma_literal(with_salt=False)}")
            self._key.wipe()
            self._key = new_key

    def close(self) -> None:
        """Close every connection and wipe the key; the object cannot be used afterwards."""
        with self._write_lock, self._alone():
            if self._closed:
                return
            self._close_readers()
            # Fold the WAL back into the file so the vault is one file again when closed. If
            # another process still reads, the (encrypted) WAL is folded in by a later close.
            with contextlib.suppress(connection.DriverError):
                self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._writer.close()
            self._key.wipe()
            self._closed = True

    def vacuum(self) -> None:
        """Rebuild the file from its live rows and fold the log in: after a forget, no page of
        the file (free pages included) or of the log holds what was deleted. Takes time in
        proportion to the vault's size, and as much memory (temporary storage stays in memory
        so that no plaintext reaches a temp file)."""
        with self._write_lock:
            self._require_open()
            with connection.translated(self.path):
                self._writer.execute("VACUUM")
                self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- connections --------------------------------------------------------------------------

    @contextmanager
    def write(self, *, patient: bool = True) -> Iterator[Connection]:
        """The writer connection inside one transaction (a savepoint when nested).

        ``patient=False`` raises ``VaultBusy`` at once instead of waiting for another writer:
        for bookkeeping that can wait for a later turn (the record of what was read)."""
        if not self._write_lock.acquire(blocking=patient):
            raise VaultBusy(self.path)
        try:
            with self._write_transaction(patient) as conn:
                yield conn
        finally:
            self._write_lock.release()

    @contextmanager
    def _write_transaction(self, patient: bool) -> Iterator[Connection]:
        self._require_open()
        outermost = not self._writer.in_transaction
        impatient = outermost and not patient
        if impatient:
            self._writer.execute("PRAGMA busy_timeout = 0")
        # Callbacks registered inside a block that rolls back go with it.
        registered_before = len(self._after_commit)
        try:
            with connection.atomic(self._writer, self.path) as conn:
                yield conn
        except BaseException:
            del self._after_commit[registered_before:]
            raise
        finally:
            if impatient:
                self._writer.execute(f"PRAGMA busy_timeout = {connection.BUSY_TIMEOUT_MS}")
        if outermost:
            callbacks, self._after_commit = self._after_commit, []
            for callback in callbacks:
                callback()

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the current outermost transaction commits; never on rollback.

        In-memory mirrors of the file (the vector index) use this so a rolled-back batch
        never leaves them ahead of what is stored.
        """
        if not self._writer.in_transaction:
            callback()
            return
        self._after_commit.append(callback)

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """This thread's read-only connection; sees what has been committed."""
        with self._shared(), connection.translated(self.path):
            yield self._reader()

    def new_read_only_connection(self, *, for_scan: bool = False) -> Connection:
        """A separate read-only connection the caller owns and closes (the graph server's);
        ``for_scan`` sizes its cache for reading a table once, end to end."""
        cache = connection.SCAN_CACHE_KIB if for_scan else connection.READER_CACHE_KIB
        with self._shared(), connection.translated(self.path):
            return connection.connect(self.path, self._key, read_only=True, cache_kib=cache)

    @contextmanager
    def _shared(self) -> Iterator[None]:
        nested = getattr(self._held, "depth", 0) > 0
        with self._gate:
            # A thread already reading goes on (waiting would deadlock against a rekey that
            # waits for it); a new read waits for a pending rekey or close.
            while self._exclusive and not nested:
                self._gate.wait()
            self._require_open()
            self._active_reads += 1
        self._held.depth = getattr(self._held, "depth", 0) + 1
        try:
            yield
        finally:
            self._held.depth -= 1
            with self._gate:
                self._active_reads -= 1
                self._gate.notify_all()

    @contextmanager
    def _alone(self) -> Iterator[None]:
        with self._gate:
            while self._exclusive:
                self._gate.wait()
            self._exclusive = True
            while self._active_reads:
                self._gate.wait()
        try:
            yield
        finally:
            with self._gate:
                self._exclusive = False
                self._gate.notify_all()

    def _reader(self) -> Connection:
        # Registers a thread Python did not start (a Qt pool thread) so that it is listed as
        # alive below; unlisted, its connection would be closed under it by another thread.
        threading.current_thread()
        ident = threading.get_ident()
        with self._readers_lock:
            conn = self._readers.get(ident)
            if conn is None:
                # Threads come and go (workers); their connections (and caches) go with them.
                alive = {thread.ident for thread in threading.enumerate()}
                for gone in [i for i in self._readers if i not in alive]:
                    self._readers.pop(gone).close()
                conn = connection.connect(self.path, self._key, read_only=True)
                self._readers[ident] = conn
            return conn

    def _close_readers(self) -> None:
        with self._readers_lock:
            for conn in self._readers.values():
                conn.close()
            self._readers.clear()

    def _require_open(self) -> None:
        if self._closed:
            raise VaultClosed(self.path)

    # -- facts about the file -----------------------------------------------------------------

    def data_version(self) -> int | None:
        """A number that changes whenever another connection commits to the file: another
        program (``cairn add``, a folder watcher, an ingest child) or another ``Vault`` on it.
        This vault's own writes never change it: it is SQLite's ``PRAGMA data_version`` asked
        of the writer, which counts the commits of every connection but its own. The answer
        comes from the WAL index in shared memory, so it costs the same at any size.

        None while this vault is writing (the writer is in use): ask again later, rather than
        wait behind a write."""
        if not self._write_lock.acquire(blocking=False):
            return None
        try:
            self._require_open()
            with connection.translated(self.path):
                return int(self._writer.execute("PRAGMA data_version").fetchone()[0])
        finally:
            self._write_lock.release()

    def integrity_problems(self) -> list[str]:
        """SQLCipher's page HMAC check plus SQLite's integrity check; empty when sound.

        Runs on a fresh connection: a long-lived reader's cached FTS5 structure can make the
        FTS5 part of integrity_check report a checksum mismatch that is not in the file.
        """
        conn = self.new_read_only_connection()
        try:
            with connection.translated(self.path):
                problems = [row[0] for row in conn.execute("PRAGMA cipher_integrity_check")]
                rows = [row[0] for row in conn.execute("PRAGMA integrity_check")]
        finally:
            conn.close()
        return problems + [row for row in rows if row != "ok"]

    def file_size(self) -> int:
        wal = self.path.with_name(self.path.name + "-wal")
        return self.path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def _salt_of_existing(path: Path) -> bytes:
    if not path.exists():
        raise VaultNotFound(path)
    if path.is_dir():
        raise NotAVault(path, "it is a folder")
    try:
        salt = read_salt(path)
        with path.open("rb") as handle:
            plaintext = handle.read(len(SQLITE_PLAINTEXT_HEADER)) == SQLITE_PLAINTEXT_HEADER
    except OSError as exc:
        raise VaultUnreachable(path, exc.strerror or str(exc)) from None
    if len(salt) < SALT_BYTES:
        raise NotAVault(path, "the file is empty or too short")
    if plaintext:
        raise NotAVault(path, "it is an unencrypted SQLite database")
    return salt


def remove_vault_files(path: Path) -> None:
    """Remove a vault's file and its sidecars: one whose creation failed half-way, so a retry
    starts clean (or, by ``cairn import``, a vault it made and could not fill)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        leftover = path.with_name(path.name + suffix)
        leftover.unlink(missing_ok=True)
