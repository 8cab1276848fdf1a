"""Opening configured SQLCipher connections, translating driver errors, and transactions.

This module and its siblings in ``storage`` are the only code that imports ``sqlcipher3``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import sqlcipher3

from cairn.storage import damage
from cairn.storage.errors import (
    DiskFull,
    RowRejected,
    VaultBusy,
    VaultCorrupt,
    VaultError,
    VaultUnreachable,
)
from cairn.storage.keys import VaultKey

DriverError = sqlcipher3.Error
Parameters = Sequence[Any] | Mapping[str, Any]


class Cursor(Protocol):
    """A cursor's rows are the driver's ``sqlcipher3.Row`` (by column name or position; untyped,
    as the driver ships no types): they stay inside ``storage``, which hands ``app`` dicts."""

    @property
    def rowcount(self) -> int: ...

    @property
    def lastrowid(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def fetchmany(self, size: int = ..., /) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """What ``storage`` and ``app`` use of a keyed SQLCipher connection (see ``connect``): the
    seam between them is typed by this, not by the driver, which ships no types."""

    @property
    def in_transaction(self) -> bool: ...

    def execute(self, sql: str, parameters: Parameters = (), /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Iterable[Parameters], /) -> Cursor: ...

    def executescript(self, script: str, /) -> Cursor: ...

    def close(self) -> None: ...


CIPHER_PAGE_SIZE = 16_384

# Milliseconds a connection waits for another writer before reporting the vault busy.
BUSY_TIMEOUT_MS = 5_000

# Page cache of a read connection, in KiB (SQLite's default is 8 MiB). A connection that reads
# a table once from end to end (loading vectors) is faster with the default: it only evicts.
READER_CACHE_KIB = 65_536
SCAN_CACHE_KIB = 8_000

# Trigger messages start with this marker so they can be told apart from driver failures.
TRIGGER_PREFIX = "cairn: "


def connect(
    path: Path,
    key: VaultKey,
    *,
    create: bool = False,
    read_only: bool = False,
    cache_kib: int = READER_CACHE_KIB,
) -> Connection:
    """A connection to the vault at ``path``, keyed and configured; raises WrongPassphrase."""
    conn = sqlcipher3.connect(
        str(path),
        isolation_level=None,  # we issue BEGIN/SAVEPOINT ourselves (see atomic())
        check_same_thread=False,  # the Vault hands each thread its own reader; the lock is ours
        timeout=BUSY_TIMEOUT_MS / 1000,
    )
    try:
        apply_key(conn, path, key, create=create)
        _configure(conn, read_only=read_only, cache_kib=cache_kib)
    except BaseException:
        conn.close()
        raise
    conn.row_factory = sqlcipher3.Row
    opened: Connection = conn  # the driver's connection, seen through the protocol
    return opened


def apply_key(conn: Connection, path: Path, key: VaultKey, *, create: bool) -> None:
    """Key a fresh connection; for an existing file, check the key opens it: WrongPassphrase,
    or VaultDamaged when the key is right but a page the open reads is damaged."""
    # SQLCipher logs HMAC failures to stderr; we report them as WrongPassphrase or VaultDamaged.
    conn.execute("PRAGMA cipher_log_level = NONE")
    conn.execute(f"PRAGMA key = {key.pragma_literal(with_salt=create)}")
    # Larger encrypted pages: each page carries its own IV and HMAC, so 16 KiB pages halve
    # the cost of reading the vectors at open (measured: 1.0 s -> 0.6 s for 100k). The
    # file does not record this; every open, in Cairn or another SQLCipher tool, sets it.
    conn.execute(f"PRAGMA cipher_page_size = {CIPHER_PAGE_SIZE}")
    if create:
        return
    try:
        conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
    except sqlcipher3.DatabaseError as exc:
        if "not a database" in str(exc):
            # The same words for a wrong key and a damaged first page: the file's other pages
            # tell which (storage/damage.py).
            raise damage.open_failure(path, key, CIPHER_PAGE_SIZE) from None
        raise


def _configure(conn: Connection, *, read_only: bool, cache_kib: int) -> None:
    # WAL: readers (search, the graph server) never block the writer and see committed data only.
    conn.execute("PRAGMA journal_mode = WAL")
    # The schema relies on foreign keys (edges, vectors, passages cascade with their node).
    conn.execute("PRAGMA foreign_keys = ON")
    # Freed pages are overwritten with zeros, so forgotten memories do not linger in free space.
    conn.execute("PRAGMA secure_delete = ON")
    # Sorts and temporary indexes stay in memory: SQLite's temp files would hold plaintext.
    conn.execute("PRAGMA temp_store = MEMORY")
    # FULL: a committed write survives a power cut, not only a crash; writes are human-paced or
    # batched, so the extra fsync is cheap next to losing a memory.
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    if read_only:
        # Readers (search, the graph server) can never write, even by mistake.
        conn.execute("PRAGMA query_only = ON")
        # Every page read from the file is decrypted and its HMAC checked; a larger cache of
        # decrypted pages (in memory only) keeps hot index pages from paying that again.
        conn.execute(f"PRAGMA cache_size = -{cache_kib}")


def translate(exc: BaseException, path: Path) -> VaultError | None:
    """The user-facing error for a driver failure, or None if it is a bug to let through."""
    if not isinstance(exc, sqlcipher3.Error):
        return None
    text = str(exc)
    if TRIGGER_PREFIX in text:
        return RowRejected(path, text[text.index(TRIGGER_PREFIX) + len(TRIGGER_PREFIX) :])
    if isinstance(exc, sqlcipher3.IntegrityError):
        return RowRejected(path, _constraint_sentence(text))
    lowered = text.lower()
    if "database or disk is full" in lowered or ("disk i/o error" in lowered and _disk_full(path)):
        return DiskFull(path)
    if "database is locked" in lowered or "database is busy" in lowered:
        return VaultBusy(path)
    if "malformed" in lowered or "not a database" in lowered:
        return VaultCorrupt(path, text)
    if "readonly" in lowered or "unable to open" in lowered or "disk i/o error" in lowered:
        return VaultUnreachable(path, text)
    return None


def _disk_full(path: Path) -> bool:
    import shutil

    try:
        return shutil.disk_usage(path.parent).free < 1 << 20
    except OSError:
        return False


def _constraint_sentence(text: str) -> str:
    match = re.search(r"(UNIQUE|CHECK|FOREIGN KEY|NOT NULL) constraint failed(: )?(.*)", text)
    if not match:
        return f"the vault refused the change ({text})"
    kind, _, detail = match.groups()
    return f"the vault refused the change: {kind.lower()} rule broken {detail}".strip()


@contextmanager
def translated(path: Path) -> Iterator[None]:
    """Re-raise known driver failures as the vault errors a user can act on."""
    try:
        yield
    except sqlcipher3.Error as exc:
        known = translate(exc, path)
        if known is None:
            raise
        raise known from exc


_savepoint_counter = 0


@contextmanager
def atomic(conn: Connection, path: Path) -> Iterator[Connection]:
    """One transaction; nested calls become savepoints that roll back on their own."""
    global _savepoint_counter
    with translated(path):
        if not conn.in_transaction:
            # IMMEDIATE takes the write lock up front so a transaction never fails half-way
            # with SQLITE_BUSY after it has read what it decided on.
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                # SQLite may have rolled back already (it does on some SQLITE_FULL errors).
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return
        _savepoint_counter += 1
        name = f"sp_{_savepoint_counter}"
        conn.execute(f"SAVEPOINT {name}")
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:  # else SQLite rolled the whole transaction back itself
                conn.execute(f"ROLLBACK TO {name}")
                conn.execute(f"RELEASE {name}")
            raise
        conn.execute(f"RELEASE {name}")


def placeholders(values: Sequence[Any]) -> str:
    """``?, ?, ?`` for an ``IN (...)`` list of ``values``: values are always bound, never
    spliced into SQL."""
    return ",".join("?" * len(values))
