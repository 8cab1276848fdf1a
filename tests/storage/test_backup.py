"""Copies of a vault file: encrypted like the vault, openable with its passphrase, written under
a temporary name and renamed only when whole, never left half-written."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cairn.storage import schema, sentinel, vault_copies
from cairn.storage.errors import (
    RowRejected,
    TargetExists,
    VaultError,
    WrongPassphrase,
)
from cairn.storage.keys import SQLITE_PLAINTEXT_HEADER, read_salt
from cairn.storage.vault import Vault
from tests.conftest import PASSPHRASE, without_root_override

WORD = "Quixotrombone"  # appears nowhere but in what the tests write


@pytest.fixture
def vault(vault_path: Path) -> Vault:
    v = Vault.create(vault_path, PASSPHRASE)
    with v.write() as conn:
        for i in range(200):
            conn.execute(
                "INSERT INTO settings(key, value) VALUES (?, json_quote(?))",
                (f"k{i}", f"{WORD} number {i}"),
            )
    yield v
    v.close()


def _backup(vault: Vault, dest: Path, *, overwrite: bool = False) -> None:
    with vault_copies.staged(dest, overwrite=overwrite) as stage:
        vault_copies.copy_vault(vault, stage)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if vault_copies.PARTIAL_SUFFIX in p.name)


def test_the_copy_is_encrypted_with_the_vaults_salt_and_opens_with_the_passphrase(
    vault: Vault, tmp_path: Path
) -> None:
    dest = tmp_path / "copy.cairn"
    _backup(vault, dest)
    data = dest.read_bytes()
    assert data[:16] != SQLITE_PLAINTEXT_HEADER
    assert data[:16] == read_salt(vault.path)  # the passphrase derives the key with this salt
    assert WORD.encode() not in data and WORD.lower().encode() not in data
    assert dest.stat().st_mode & 0o777 == 0o600
    # One file: no log beside it, and no temporary file left.
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("copy")) == [dest.name]
    with Vault.open(dest, PASSPHRASE) as copy, copy.read() as conn:
        assert (
            conn.execute("SELECT count(*) FROM settings WHERE key LIKE 'k%'").fetchone()[0] == 200
        )
    with pytest.raises(WrongPassphrase):
        Vault.open(dest, "not the passphrase")


def test_checking_a_copy_changes_none_of_its_bytes(vault: Vault, tmp_path: Path) -> None:
    dest = tmp_path / "copy.cairn"
    _backup(vault, dest)
    before = dest.read_bytes()
    key = vault_copies.key_for(dest, PASSPHRASE)
    with vault_copies.open_copy(dest, key) as conn:
        assert vault_copies.integrity_problems(conn) == []
    # Read-only: a write is refused, not made.
    with pytest.raises(VaultError, match="readonly"), vault_copies.open_copy(dest, key) as conn:
        conn.execute("INSERT INTO settings(key, value) VALUES ('x', '1')")
    assert dest.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("copy")) == [dest.name]
    with (
        pytest.raises(WrongPassphrase),
        vault_copies.open_copy(dest, vault_copies.key_for(dest, "wrong")),
    ):
        pass


def test_an_existing_file_is_kept_unless_overwrite_is_asked(vault: Vault, tmp_path: Path) -> None:
    dest = tmp_path / "copy.cairn"
    dest.write_bytes(b"something precious")
    with pytest.raises(TargetExists, match="--force"):
        _backup(vault, dest)
    assert dest.read_bytes() == b"something precious"
    assert _leftovers(tmp_path) == []
    _backup(vault, dest, overwrite=True)
    assert dest.read_bytes()[:16] == read_salt(vault.path)


def test_a_missing_folder_is_said_before_anything_is_written(vault: Vault, tmp_path: Path) -> None:
    with pytest.raises(VaultError, match="does not exist"):
        _backup(vault, tmp_path / "nowhere" / "copy.cairn")
    with pytest.raises(VaultError, match="is a folder"):
        _backup(vault, tmp_path)


def test_an_unwritable_folder_gives_a_clear_message(vault: Vault, tmp_path: Path) -> None:
    # In a child whose file permissions bind it (root's override dropped, as for a person).
    vault.close()
    folder = tmp_path / "locked"
    folder.mkdir(mode=0o500)
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from cairn.storage import vault_copies
        from cairn.storage.errors import CopyFailed
        from cairn.storage.vault import Vault

        copy = Path({str(folder / "copy.cairn")!r})
        with Vault.open(Path({str(vault.path)!r}), {PASSPHRASE!r}) as vault:
            try:
                with vault_copies.staged(copy, overwrite=False) as stage:
                    vault_copies.copy_vault(vault, stage)
            except CopyFailed as error:
                print(error)
                sys.exit(3)
        """
    )
    done = subprocess.run(
        without_root_override([sys.executable, "-c", script]),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert "you may not write in" in done.stdout
    assert list(folder.iterdir()) == []


def test_a_write_that_fails_part_way_leaves_no_partial_file(vault: Vault, tmp_path: Path) -> None:
    # A file size limit makes the copy's writes fail part-way, as a full disk would; it is set
    # in a child process so that nothing else in this run is limited.
    vault.close()
    dest = tmp_path / "out" / "copy.cairn"
    dest.parent.mkdir()
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        from pathlib import Path
        from cairn.storage import vault_copies
        from cairn.storage.errors import CopyFailed
        from cairn.storage.vault import Vault

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        vault = Vault.open(Path({str(vault.path)!r}), {PASSPHRASE!r})
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, hard))
        try:
            with vault_copies.staged(Path({str(dest)!r}), overwrite=False) as stage:
                vault_copies.copy_vault(vault, stage)
        except CopyFailed as error:
            print(error)
            sys.exit(3)
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
            vault.close()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 3, done.stderr
    assert f"Could not write {dest}: writing stopped part-way" in done.stdout
    assert "Nothing was left behind" in done.stdout
    assert list(dest.parent.iterdir()) == []
    with Vault.open(vault.path, PASSPHRASE) as again:  # the vault itself is untouched
        assert again.integrity_problems() == []


def test_a_restore_target_in_use_is_refused(vault: Vault, tmp_path: Path) -> None:
    # ``vault`` is open: its -wal and -shm files are beside it.
    assert vault_copies.in_use(vault.path)
    refused = pytest.raises(VaultError, match="is open in a Cairn program")
    with refused, vault_copies.staged(vault.path, overwrite=True, keep_replaced=True):
        pass
    assert _leftovers(tmp_path) == []


def _killed_while_copying(dest: Path) -> Path:
    """A child process starts a copy to ``dest`` with ``staged``, writes into its temporary
    file (and a rollback journal beside it, as SQLite does) and is killed with SIGKILL, as a
    killed backup is: nothing of it runs after. Returns the temporary file it left."""
    script = textwrap.dedent(
        f"""
        import os, signal
        from pathlib import Path
        from cairn.storage import vault_copies

        with vault_copies.staged(Path({str(dest)!r}), overwrite=False) as stage:
            stage.path.write_bytes(b"half a copy " * 10_000)
            Path(f"{{stage.path}}-journal").write_bytes(b"journal")
            os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    left = [p for p in dest.parent.iterdir() if p.name.endswith(vault_copies.PARTIAL_SUFFIX)]
    assert len(left) == 1
    assert re.fullmatch(rf"\.{re.escape(dest.name)}\.[0-9a-f]{{12}}\.partial", left[0].name)
    return left[0]


def test_the_next_copy_removes_what_a_killed_one_left_and_nothing_else(
    vault: Vault, tmp_path: Path
) -> None:
    dest = tmp_path / "out" / "copy.cairn"
    dest.parent.mkdir()
    left = _killed_while_copying(dest)
    journal = Path(f"{left}-journal")
    assert journal.exists()
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    unrelated = [
        ".copy.cairn.0123456789AB.partial",  # not hex as this code writes it
        ".copy.cairn.0123456789a.partial",  # one digit short
        ".copy.cairn.partial",
        "copy.cairn.0123456789ab.partial",  # no leading dot
        ".copy.cairn.0123456789ab.partial.old",
        ".copy.cairn.0123456789ab.partial-journal.old",
        ".other.cairn.0123456789ab.partial",  # another destination's
        "notes.txt",
    ]
    for name in unrelated:
        (dest.parent / name).write_bytes(b"not ours")
    (dest.parent / ".copy.cairn.aaaaaaaaaaaa.partial").symlink_to(precious)
    sizes = left.stat().st_size + journal.stat().st_size

    with vault_copies.staged(dest, overwrite=False) as stage:
        vault_copies.copy_vault(vault, stage)
    assert sorted(stage.removed) == [left, journal] and stage.removed_bytes == sizes
    assert sorted(p.name for p in dest.parent.iterdir()) == sorted(
        [*unrelated, ".copy.cairn.aaaaaaaaaaaa.partial", "copy.cairn"]
    )
    assert all((dest.parent / name).read_bytes() == b"not ours" for name in unrelated)
    assert precious.read_text() == "keep me"
    with Vault.open(dest, PASSPHRASE) as copy:
        assert copy.integrity_problems() == []


def test_the_temporary_file_of_a_copy_going_on_is_left_alone(vault: Vault, tmp_path: Path) -> None:
    dest = tmp_path / "copy.cairn"
    with vault_copies.staged(dest, overwrite=False) as stage:
        # Another backup to the same place, starting now, must not take this one's file.
        assert vault_copies.remove_stale_partials(tmp_path, re.escape(dest.name)) == []
        assert stage.path.exists()
        vault_copies.copy_vault(vault, stage)
    assert stage.removed == [] and _leftovers(tmp_path) == []
    with Vault.open(dest, PASSPHRASE) as copy:
        assert copy.integrity_problems() == []


def test_the_sentinel_cannot_be_changed_or_deleted(vault: Vault) -> None:
    with vault.write() as conn:
        conn.execute("INSERT INTO node_types(name, family) VALUES ('Note', 'memory')")
        sentinel.add(conn, "Note", "{}", "2024-01-01T00:00:00.000000+00:00")
        assert sentinel.present(conn)
    for sql in (
        "DELETE FROM nodes WHERE id = ?",
        "UPDATE nodes SET status = 'active' WHERE id = ?",
    ):
        with pytest.raises(RowRejected, match="sentinel belongs to Cairn"), vault.write() as conn:
            conn.execute(sql, (sentinel.SENTINEL_ID,))
    with vault.read() as conn:
        assert sentinel.present(conn)


def test_the_guarding_migration_names_the_sentinels_id() -> None:
    guard = next(m for m in schema.MIGRATIONS if "sentinel_never_deleted" in m)
    assert guard.count(f"'{sentinel.SENTINEL_ID}'") == 2
