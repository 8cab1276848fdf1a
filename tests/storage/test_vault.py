"""The encrypted vault file, on the real SQLCipher: encryption at rest, keys, life cycle,
migrations, transactions and connection settings. No mocks."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlcipher3

from cairn.app.service import MemoryService
from cairn.storage import connection, records
from cairn.storage.connection import CIPHER_PAGE_SIZE
from cairn.storage.errors import (
    NotAVault,
    SchemaTooNew,
    VaultClosed,
    VaultError,
    VaultExists,
    VaultNotFound,
    WrongPassphrase,
)
from cairn.storage.keys import (
    KDF_HASH,
    KDF_ITERATIONS,
    KEY_BYTES,
    SQLITE_PLAINTEXT_HEADER,
    VaultKey,
    read_salt,
)
from cairn.storage.schema import SCHEMA_VERSION, migrate, schema_version
from cairn.storage.vault import Vault
from tests.conftest import PASSPHRASE

OTHER_PASSPHRASE = "a different passphrase entirely"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A bare vault (schema only) made once, and its raw key, so most tests skip the ~0.3 s
    key derivation: each test works on its own copy of the file."""
    path = tmp_path_factory.mktemp("template") / "template.cairn"
    Vault.create(path, PASSPHRASE).close()
    salt = read_salt(path)
    raw = hashlib.pbkdf2_hmac(KDF_HASH, PASSPHRASE.encode(), salt, KDF_ITERATIONS)[:KEY_BYTES]
    return path, raw


def _key(template: tuple[Path, bytes]) -> VaultKey:
    path, raw = template
    return VaultKey(raw, read_salt(path))


@pytest.fixture
def vault(template: tuple[Path, bytes], vault_path: Path) -> Iterator[Vault]:
    """A bare vault of this test's own, opened with the passphrase's key."""
    shutil.copyfile(template[0], vault_path)
    v = Vault.open_with_key(vault_path, _key(template))
    yield v
    v.close()


def _siblings(path: Path) -> list[Path]:
    """The vault file and every file SQLite keeps next to it (-wal, -shm, -journal)."""
    return sorted(p for p in path.parent.iterdir() if p.name.startswith(path.name))


def _forms(marker: str) -> list[bytes]:
    return [
        marker.encode("utf-8"),
        marker.encode("utf-16-le"),
        marker.encode("utf-16-be"),
        marker.upper().encode("utf-8"),
    ]


def _files_holding(paths: list[Path], marker: str) -> list[str]:
    found = []
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        for form in _forms(marker):
            if form in data:
                found.append(f"{path} holds {form!r}")
    return found


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _settings(vault: Vault) -> dict[str, object]:
    with vault.read() as conn:
        return {row[0]: row[1] for row in conn.execute("SELECT key, value FROM settings")}


# -- encryption at rest ---------------------------------------------------------------------------


def test_no_plaintext_in_the_vault_its_wal_or_temp_files(
    service: MemoryService, vault_path: Path, tmp_path: Path
) -> None:
    started = time.time() - 1
    marker = "zq" + uuid.uuid4().hex
    written = service.write(
        "Person",
        f"Ada {marker}",
        f"Met {marker} at the lake. {marker} likes tea.",
        attrs={"occupation": f"{marker} engineer", "tags": [marker, "friend"]},
    )
    service.inbox_capture(f"remember {marker} tomorrow")
    hits = service.search(marker, scopes=["personal"]).results
    assert [hit.id for hit in hits] == [written.node.id]
    assert service.get([written.node.id], scopes=["personal"]).nodes[0].node.title.endswith(marker)

    open_files = _siblings(vault_path)
    wal = vault_path.with_name(vault_path.name + "-wal")
    assert wal in open_files and wal.stat().st_size > 0, "the writes should still sit in the WAL"
    assert _files_holding(open_files, marker) == []

    service.close()
    leftovers = [p for p in _siblings(vault_path) if p != vault_path]
    assert all(p.stat().st_size == 0 for p in leftovers), leftovers
    assert _files_holding(_siblings(vault_path), marker) == []

    everything = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert vault_path in everything
    assert _files_holding(everything, marker) == []

    # SQLite would put temp files (sorts, temp indexes) in the system temp folder.
    temp_dir = Path(tempfile.gettempdir())
    new_temp_files = [
        p
        for p in temp_dir.iterdir()
        if p.is_file() and p.stat().st_mtime >= started and p.stat().st_size < 64 << 20
    ]
    assert _files_holding(new_temp_files, marker) == []


def test_the_vault_does_not_start_with_the_sqlite_header(vault: Vault) -> None:
    vault.close()
    head = vault.path.read_bytes()[:16]
    assert head != SQLITE_PLAINTEXT_HEADER
    assert read_salt(vault.path) == head


def test_stdlib_sqlite3_cannot_read_the_vault(vault: Vault) -> None:
    with vault.write() as conn:
        records.set_setting(conn, "greeting", "hello")
    vault.close()
    plain = sqlite3.connect(vault.path)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="not a database"):
            plain.execute("SELECT * FROM sqlite_schema").fetchall()
    finally:
        plain.close()


# -- keys -----------------------------------------------------------------------------------------


def test_wrong_passphrase_is_refused_and_names_the_file(vault: Vault) -> None:
    with vault.write() as conn:
        records.set_setting(conn, "greeting", "hello")
    vault.close()
    with pytest.raises(WrongPassphrase) as caught:
        Vault.open(vault.path, OTHER_PASSPHRASE)
    assert caught.value.path == vault.path
    assert str(vault.path) in str(caught.value)
    with Vault.open(vault.path, PASSPHRASE) as reopened:
        assert _settings(reopened) == {"greeting": '"hello"'}


def test_an_empty_passphrase_is_not_the_passphrase(vault: Vault) -> None:
    vault.close()
    with pytest.raises(WrongPassphrase):
        Vault.open(vault.path, "")


def test_the_passphrase_opens_the_vault_in_plain_sqlcipher(vault: Vault) -> None:
    """The raw key Cairn derives is SQLCipher 4's own derivation of the passphrase."""
    with vault.write() as conn:
        records.set_setting(conn, "greeting", "hello")
    vault.close()
    conn = sqlcipher3.connect(str(vault.path))
    try:
        conn.execute(f"PRAGMA key = '{PASSPHRASE}'")
        # The one setting the file does not record (see storage/connection.py).
        conn.execute(f"PRAGMA cipher_page_size = {CIPHER_PAGE_SIZE}")
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("SELECT value FROM settings WHERE key = 'greeting'").fetchall() == [
            ('"hello"',)
        ]
    finally:
        conn.close()


def test_a_file_keyed_with_a_passphrase_in_plain_sqlcipher_opens_in_cairn(vault_path: Path) -> None:
    conn = sqlcipher3.connect(str(vault_path))
    try:
        conn.execute(f"PRAGMA key = '{PASSPHRASE}'")
        # The one setting the file does not record (see storage/connection.py).
        conn.execute(f"PRAGMA cipher_page_size = {CIPHER_PAGE_SIZE}")
        conn.execute("CREATE TABLE made_elsewhere (x INTEGER)")
        conn.commit()
    finally:
        conn.close()
    with Vault.open(vault_path, PASSPHRASE) as opened:  # and migrated from schema 0
        with opened.read() as reader:
            assert schema_version(reader) == SCHEMA_VERSION
            names = {row[0] for row in reader.execute("SELECT name FROM sqlite_schema")}
        assert {"made_elsewhere", "nodes", "edges", "settings"} <= names


def test_change_passphrase_re_keys_the_file(template: tuple[Path, bytes], vault_path: Path) -> None:
    shutil.copyfile(template[0], vault_path)
    key = _key(template)
    vault = Vault.open_with_key(vault_path, key)
    with vault.write() as conn:
        records.set_setting(conn, "greeting", "hello")
    with vault.read() as conn:  # a reader open across the rekey must not keep the old key
        conn.execute("SELECT 1").fetchone()
    salt = read_salt(vault_path)

    vault.change_passphrase(OTHER_PASSPHRASE)
    assert key.wiped
    assert _settings(vault) == {"greeting": '"hello"'}
    with vault.write() as conn:
        records.set_setting(conn, "after", 1)
    vault.close()

    assert read_salt(vault_path) == salt
    with pytest.raises(WrongPassphrase):
        Vault.open(vault_path, PASSPHRASE)
    with Vault.open(vault_path, OTHER_PASSPHRASE) as reopened:
        assert _settings(reopened) == {"greeting": '"hello"', "after": "1"}
        assert reopened.integrity_problems() == []
    plain = sqlcipher3.connect(str(vault_path))
    try:
        plain.execute(f"PRAGMA key = '{OTHER_PASSPHRASE}'")
        plain.execute(f"PRAGMA cipher_page_size = {CIPHER_PAGE_SIZE}")
        assert plain.execute("SELECT count(*) FROM settings").fetchone()[0] == 2
    finally:
        plain.close()


# -- what is and is not a vault ---------------------------------------------------------------


def test_a_newer_schema_is_refused_without_touching_the_file(
    vault: Vault, template: tuple[Path, bytes]
) -> None:
    with vault.write() as conn:
        records.set_setting(conn, "greeting", "hello")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    vault.close()
    before = _sha256(vault.path)
    with pytest.raises(SchemaTooNew) as caught:
        Vault.open_with_key(vault.path, _key(template))
    assert (caught.value.found, caught.value.known) == (SCHEMA_VERSION + 1, SCHEMA_VERSION)
    assert caught.value.path == vault.path
    assert str(vault.path) in str(caught.value)
    assert _sha256(vault.path) == before
    assert _siblings(vault.path) == [vault.path]


def test_a_missing_file_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(VaultNotFound) as caught:
        Vault.open(tmp_path / "nowhere.cairn", PASSPHRASE)
    assert caught.value.path == tmp_path / "nowhere.cairn"
    assert not (tmp_path / "nowhere.cairn").exists()


def test_a_plaintext_sqlite_file_is_not_a_vault(tmp_path: Path) -> None:
    path = tmp_path / "plain.db"
    plain = sqlite3.connect(path)
    try:
        plain.execute("CREATE TABLE t (x)")
        plain.commit()
    finally:
        plain.close()
    before = _sha256(path)
    with pytest.raises(NotAVault, match="unencrypted"):
        Vault.open(path, PASSPHRASE)
    assert _sha256(path) == before


@pytest.mark.parametrize("content", [b"", b"SQLite", b"\x00" * 15], ids=["empty", "6", "15"])
def test_an_empty_or_short_file_is_not_a_vault(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "short.cairn"
    path.write_bytes(content)
    with pytest.raises(NotAVault, match="empty or too short"):
        Vault.open(path, PASSPHRASE)
    assert path.read_bytes() == content


def test_a_folder_is_not_a_vault(tmp_path: Path) -> None:
    folder = tmp_path / "folder.cairn"
    folder.mkdir()
    with pytest.raises(NotAVault, match="folder"):
        Vault.open(folder, PASSPHRASE)


def test_random_bytes_are_reported_as_a_wrong_passphrase(tmp_path: Path) -> None:
    path = tmp_path / "noise.cairn"
    noise = bytes(range(256)) * 32
    path.write_bytes(noise)
    with pytest.raises(WrongPassphrase):
        Vault.open(path, PASSPHRASE)
    assert path.read_bytes() == noise


def test_creating_over_an_existing_path_is_refused(vault: Vault, tmp_path: Path) -> None:
    vault.close()
    before = _sha256(vault.path)
    with pytest.raises(VaultExists):
        Vault.create(vault.path, PASSPHRASE)
    assert _sha256(vault.path) == before
    folder = tmp_path / "a-folder"
    folder.mkdir()
    with pytest.raises(VaultExists):
        Vault.create(folder, PASSPHRASE)


def test_creating_in_a_missing_folder_is_refused(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    with pytest.raises(VaultError) as caught:
        Vault.create(missing / "v.cairn", PASSPHRASE)
    assert str(missing) in str(caught.value)
    assert not missing.exists()


def test_the_vault_and_its_side_files_are_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "fresh.cairn"
    created = Vault.create(path, PASSPHRASE)
    try:
        with created.write() as conn:
            records.set_setting(conn, "greeting", "hello")
        with created.read() as conn:
            conn.execute("SELECT 1").fetchone()
        files = _siblings(path)
        assert {p.name for p in files} >= {path.name, path.name + "-wal", path.name + "-shm"}
        for file in files:
            assert file.stat().st_mode & 0o077 == 0, f"{file} is {oct(file.stat().st_mode)}"
    finally:
        created.close()
    assert path.stat().st_mode & 0o077 == 0


# -- migrations -----------------------------------------------------------------------------------


def test_create_records_the_schema_version(vault: Vault) -> None:
    with vault.read() as conn:
        assert schema_version(conn) == SCHEMA_VERSION
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_schema")}
    assert {"nodes", "edges", "search_index", "vectors", "receipts", "inbox"} <= tables


def test_migrate_is_idempotent(vault: Vault, template: tuple[Path, bytes]) -> None:
    vault.close()
    conn = connection.connect(vault.path, _key(template))
    try:
        schema = conn.execute("SELECT type, name, sql FROM sqlite_schema ORDER BY name").fetchall()
        assert migrate(conn, vault.path) == SCHEMA_VERSION
        assert migrate(conn, vault.path) == SCHEMA_VERSION
        assert not conn.in_transaction
        assert schema_version(conn) == SCHEMA_VERSION
        again = conn.execute("SELECT type, name, sql FROM sqlite_schema ORDER BY name").fetchall()
        assert [tuple(r) for r in again] == [tuple(r) for r in schema]
    finally:
        conn.close()
    reopened = Vault.open_with_key(vault.path, _key(template))
    with reopened, reopened.read() as reader:
        assert schema_version(reader) == SCHEMA_VERSION


def test_migrate_on_a_newer_file_refuses(vault: Vault, template: tuple[Path, bytes]) -> None:
    with vault.write() as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
    vault.close()
    conn = connection.connect(vault.path, _key(template))
    try:
        with pytest.raises(SchemaTooNew):
            migrate(conn, vault.path)
        assert schema_version(conn) == SCHEMA_VERSION + 3
    finally:
        conn.close()


# -- life cycle -----------------------------------------------------------------------------------


def test_a_closed_vault_refuses_use_and_its_key_is_wiped(
    vault: Vault, template: tuple[Path, bytes]
) -> None:
    vault.close()
    key = _key(template)
    opened = Vault.open_with_key(vault.path, key)
    with opened.read() as conn:
        conn.execute("SELECT 1").fetchone()
    assert not key.wiped and not opened.closed
    opened.close()
    assert opened.closed
    assert key.wiped
    opened.close()  # closing twice is harmless

    with pytest.raises(VaultClosed) as caught, opened.write():
        pass
    assert caught.value.path == vault.path
    with pytest.raises(VaultClosed), opened.read():
        pass
    with pytest.raises(VaultClosed):
        opened.new_read_only_connection()
    with pytest.raises(VaultClosed):
        opened.change_passphrase(OTHER_PASSPHRASE)
    # The refused calls left the file as it was: it still opens with the same passphrase.
    with Vault.open_with_key(vault.path, _key(template)) as again:
        assert again.integrity_problems() == []


def test_close_folds_the_wal_back_into_the_file(vault: Vault, template: tuple[Path, bytes]) -> None:
    with vault.write() as conn:
        for i in range(50):
            records.set_setting(conn, f"k{i}", "x" * 200)
    wal = vault.path.with_name(vault.path.name + "-wal")
    assert wal.exists() and wal.stat().st_size > 0
    vault.close()
    assert not wal.exists() or wal.stat().st_size == 0
    with Vault.open_with_key(vault.path, _key(template)) as reopened:
        assert len(_settings(reopened)) == 50


# -- transactions ---------------------------------------------------------------------------------


class Boom(Exception):
    pass


def test_a_failing_inner_block_rolls_back_only_itself(vault: Vault) -> None:
    with vault.write() as conn:
        records.set_setting(conn, "outer_before", 1)
        with pytest.raises(Boom), vault.write() as inner:
            assert inner is conn
            records.set_setting(inner, "inner", 2)
            raise Boom
        with vault.write() as inner:
            records.set_setting(inner, "inner_ok", 3)
        records.set_setting(conn, "outer_after", 4)
    assert _settings(vault) == {"outer_before": "1", "inner_ok": "3", "outer_after": "4"}


def test_a_failing_outer_block_rolls_back_everything(vault: Vault) -> None:
    with vault.write() as conn:
        records.set_setting(conn, "kept", 0)
    with pytest.raises(Boom), vault.write() as conn:
        records.set_setting(conn, "outer", 1)
        with vault.write() as inner:
            records.set_setting(inner, "inner", 2)
        raise Boom
    assert _settings(vault) == {"kept": "0"}
    # The writer is usable again, not stuck in a transaction.
    with vault.write() as conn:
        assert conn.in_transaction
        records.set_setting(conn, "later", 3)
    assert _settings(vault) == {"kept": "0", "later": "3"}


def test_uncommitted_writes_are_invisible_to_readers(vault: Vault) -> None:
    with vault.write() as conn:
        records.set_setting(conn, "pending", 1)
        assert _settings(vault) == {}
    assert _settings(vault) == {"pending": "1"}


def test_after_commit_runs_once_after_the_outermost_commit(vault: Vault) -> None:
    calls: list[str] = []
    with vault.write() as conn:
        vault.after_commit(lambda: calls.append("outer"))
        with vault.write():
            vault.after_commit(lambda: calls.append("inner"))
        assert calls == []
        records.set_setting(conn, "x", 1)
        assert calls == []
    assert calls == ["outer", "inner"]
    with vault.write():
        pass
    assert calls == ["outer", "inner"]


def test_after_commit_never_runs_after_a_rollback(vault: Vault) -> None:
    calls: list[str] = []
    with pytest.raises(Boom), vault.write():
        vault.after_commit(lambda: calls.append("doomed"))
        with vault.write():
            vault.after_commit(lambda: calls.append("doomed inner"))
        raise Boom
    assert calls == []
    with vault.write():
        vault.after_commit(lambda: calls.append("next"))
    assert calls == ["next"]  # the rolled-back callbacks did not linger into the next commit


def test_after_commit_outside_a_transaction_runs_at_once(vault: Vault) -> None:
    calls: list[int] = []
    vault.after_commit(lambda: calls.append(1))
    assert calls == [1]


def test_after_commit_of_a_rolled_back_savepoint_never_runs(vault: Vault) -> None:
    calls: list[str] = []
    with vault.write():
        with pytest.raises(Boom), vault.write() as inner:
            records.set_setting(inner, "gone", 1)
            vault.after_commit(lambda: calls.append("rolled back"))
            raise Boom
        vault.after_commit(lambda: calls.append("kept"))
    assert _settings(vault) == {}
    assert calls == ["kept"]


# -- connection settings --------------------------------------------------------------------------


def _pragmas(conn: object) -> dict[str, object]:
    return {
        name: conn.execute(f"PRAGMA {name}").fetchone()[0]  # type: ignore[attr-defined]
        for name in (
            "journal_mode",
            "foreign_keys",
            "secure_delete",
            "temp_store",
            "synchronous",
            "busy_timeout",
            "query_only",
        )
    }


EXPECTED_PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "secure_delete": 1,
    "temp_store": 2,  # MEMORY
    "synchronous": 2,  # FULL
    "busy_timeout": connection.BUSY_TIMEOUT_MS,
}


def test_writer_connection_pragmas(vault: Vault) -> None:
    with vault.write() as conn:
        assert _pragmas(conn) == {**EXPECTED_PRAGMAS, "query_only": 0}


def test_reader_connections_are_configured_and_read_only(vault: Vault) -> None:
    with vault.read() as conn:
        assert _pragmas(conn) == {**EXPECTED_PRAGMAS, "query_only": 1}
        with pytest.raises(sqlcipher3.OperationalError, match="readonly"):
            records.set_setting(conn, "sneaky", 1)
    separate = vault.new_read_only_connection()
    try:
        assert _pragmas(separate) == {**EXPECTED_PRAGMAS, "query_only": 1}
        with pytest.raises(sqlcipher3.OperationalError, match="readonly"):
            separate.execute("DELETE FROM settings")
    finally:
        separate.close()
    assert _settings(vault) == {}


def test_each_thread_gets_its_own_reader(vault: Vault) -> None:
    import threading

    with vault.read() as mine:
        pass
    seen: list[object] = []

    def read() -> None:
        with vault.read() as conn:
            seen.append(conn)
            conn.execute("SELECT count(*) FROM settings").fetchone()

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    with vault.read() as again:
        assert again is mine
    assert len(seen) == 1 and seen[0] is not mine


# -- integrity ------------------------------------------------------------------------------------


def test_integrity_problems_is_empty_after_writes(service: MemoryService) -> None:
    first = service.write("Person", "Ann Example", attrs={"occupation": "nurse"})
    second = service.write("Organization", "Example Hospital")
    service.link(first.node.id, second.node.id, "works_at", scopes=["personal"])
    service.archive(second.node.id, scopes=["personal"])
    service.inbox_capture("call Ann")
    assert service.verify().integrity_problems == []
    assert service.verify().ok


def test_a_thread_python_did_not_start_keeps_its_reader(vault: Vault) -> None:
    """A thread started outside the threading module (as Qt's pool threads are) holds its read
    connection while another thread opens its own; it used to be closed under it."""
    import _thread
    import threading

    inside, go_on, finished = threading.Event(), threading.Event(), threading.Event()
    outcome: list[object] = []

    def foreign() -> None:
        try:
            with vault.read() as conn:
                inside.set()
                go_on.wait(10)
                outcome.append(conn.execute("SELECT count(*) FROM nodes").fetchone()[0])
        except BaseException as error:
            outcome.append(error)
        finally:
            finished.set()

    _thread.start_new_thread(foreign, ())
    assert inside.wait(10)
    with vault.read() as conn:  # this thread's first read prunes the readers of dead threads
        conn.execute("SELECT 1").fetchone()
    go_on.set()
    assert finished.wait(10)
    assert outcome == [0]
