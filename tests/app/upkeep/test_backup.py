"""``cairn backup``, ``restore`` and ``verify-restore``, and the sentinel every vault holds: a
backup is consistent while others write, encrypted, and checked; a restore replaces nothing
until its copy passed; a file that fails a check says which, in a sentence."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.cli.main import main
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.errors import InvalidRequest, NodeNotFound, UnknownScope
from cairn.app.models import ALL_STATUSES
from cairn.app.service import MemoryService
from cairn.app.upkeep import backups
from cairn.storage import sentinel
from cairn.storage.keys import SQLITE_PLAINTEXT_HEADER
from cairn.storage.vault import Vault
from tests.conftest import PASSPHRASE, create_service, open_service

WORD = "Quixotrombone"  # appears nowhere but in what these tests write


@pytest.fixture
def cli(vault_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.setenv("CAIRN_VAULT", str(vault_path))
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)

    def run(*argv: str, expect: int = 0) -> tuple[str, str]:
        code = main([str(arg) for arg in argv])
        out, err = capsys.readouterr()
        assert code == expect, out + err
        return out, err

    return run


@pytest.fixture
def add(vault_path: Path, embedder: MiniLMEmbedder) -> Callable[..., None]:
    """Write memories to the (closed) vault, creating it first if need be; the model loaded
    once for the run keeps this quick."""

    def write(*titles: str, type_: str = "Note") -> None:
        if vault_path.exists():
            svc = compose.open_vault(vault_path, PASSPHRASE, embedder=embedder)
        else:
            svc = compose.create_vault(vault_path, PASSPHRASE, embedder=embedder)
        with svc:
            for title in titles:
                svc.write(type_, title, f"{title}, on Friday at eight.")

    return write


@pytest.fixture
def backed_up(cli, add: Callable[..., None], tmp_path: Path) -> Path:
    """A vault with two memories, closed, and a backup of it made by ``cairn backup``."""
    add(f"{WORD} recital")
    add("Lena Vos", type_="Person")
    dest = tmp_path / "backups" / "vault.cairn"
    dest.parent.mkdir()
    out, _ = cli("backup", dest)
    assert f"Backed up to {dest}" in out and "receipts: 3" in out
    return dest


def _wait(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _titles(path: Path, type_: str = "Note") -> list[str]:
    with compose.open_vault(path, PASSPHRASE, with_embedder=False) as svc:
        nodes = svc.list_memories(scopes=["personal"], types=[type_], limit=500)
    return sorted(node.title for node in nodes)


def _flip_middle(path: Path) -> None:
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(b ^ 0xFF for b in data[middle : middle + 64])
    path.write_bytes(bytes(data))


def _flip_first_page(path: Path) -> None:
    """Damage inside the first 16 KiB, page 1 of the file, which every open reads."""
    data = bytearray(path.read_bytes())
    data[100:200] = bytes(b ^ 0xFF for b in data[100:200])
    path.write_bytes(bytes(data))


def _partials(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".partial")]


# -- backup ---------------------------------------------------------------------------------------


def test_a_backup_taken_while_another_connection_writes_holds_one_commits_state(
    service: MemoryService, vault_path: Path, embedder: MiniLMEmbedder, tmp_path: Path
) -> None:
    other = compose.open_vault(vault_path, PASSPHRASE, embedder=embedder)
    written: list[int] = []
    failures: list[BaseException] = []
    stop = threading.Event()

    def write_loop() -> None:
        try:
            for i in range(450):  # list_memories shows at most 500
                if stop.is_set():
                    return
                other.write("Note", f"Entry {i:04d}", f"line {i} of a diary", dedup=False)
                written.append(i)
        except BaseException as exc:
            failures.append(exc)

    thread = threading.Thread(target=write_loop)
    thread.start()
    try:
        _wait(lambda: len(written) >= 5)
        before = len(written)
        result = service.backup(tmp_path / "copy.cairn")
        _wait(lambda: len(written) >= before + 3 or not thread.is_alive())  # writing went on
    finally:
        stop.set()
        thread.join()
        other.close()
    assert failures == []
    assert result.report.ok
    copy = Path(result.path)
    assert backups.verify_copy(copy, PASSPHRASE).ok
    titles = _titles(copy)
    # Every memory committed before the backup began, and then a gap-free run: one commit's state.
    assert titles == [f"Entry {i:04d}" for i in range(len(titles))]
    assert before <= len(titles) <= len(written)


def test_the_backup_is_encrypted_and_opens_with_the_passphrase(
    service: MemoryService, tmp_path: Path
) -> None:
    service.write("Note", f"{WORD} recital", f"The {WORD} recital is on Friday at eight.")
    result = service.backup(tmp_path)  # a folder: a dated file inside it
    path = Path(result.path)
    assert path.parent == tmp_path and path.suffix == ".cairn"
    data = path.read_bytes()
    assert data[:16] != SQLITE_PLAINTEXT_HEADER
    for form in (WORD, WORD.lower(), WORD.upper(), "recital"):
        assert form.encode() not in data
    assert path.stat().st_mode & 0o777 == 0o600
    with compose.open_vault(path, PASSPHRASE, with_embedder=False) as copy:
        hits = copy.search(WORD, scopes=["personal"]).results
        # The note, and the name it states (a stub: a search for the name finds it too).
        assert [hit.title for hit in hits if hit.status != "stub"] == [f"{WORD} recital"]


def test_backup_refuses_to_replace_a_file_or_the_vault_itself(
    cli, add: Callable[..., None], backed_up: Path, vault_path: Path
) -> None:
    before = backed_up.read_bytes()
    _, err = cli("backup", backed_up, expect=1)
    assert "already exists" in err and "--force" in err
    assert backed_up.read_bytes() == before
    add("Written after the first backup")
    out, _ = cli("backup", backed_up, "--force")
    assert "receipts: 4" in out
    assert "Written after the first backup" in _titles(backed_up)
    _, err = cli("backup", vault_path, "--force", expect=1)
    assert "is the vault itself" in err
    _, err = cli("backup", backed_up.parent / "missing" / "b.cairn", expect=1)
    assert "does not exist" in err
    assert _partials(backed_up.parent) == []


def test_a_vault_with_a_broken_receipt_chain_is_still_backed_up_with_a_note(
    cli, backed_up: Path, vault_path: Path
) -> None:
    with Vault.open(vault_path, PASSPHRASE) as raw, raw.write() as conn:
        conn.execute("UPDATE receipts SET counts = '{\"nodes\":99}' WHERE seq = 2")
    dest = backed_up.with_name("tampered.cairn")
    out, err = cli("backup", dest)
    assert "the copy is whole" in out and "note: Its receipt chain is not intact" in err
    out, _ = cli("verify-restore", dest, expect=1)
    assert "receipt 2 was altered" in out
    _, err = cli("restore", dest, vault_path.with_name("restored.cairn"), expect=1)
    assert "did not pass its checks" in err


# -- verify-restore -------------------------------------------------------------------------------


def test_verify_restore_checks_integrity_sentinel_and_an_exported_head(
    cli, backed_up: Path
) -> None:
    out, _ = cli("verify-restore", backed_up)
    assert "ok" in out and "3 receipts intact" in out
    out, _ = cli("receipts", "export", "--json")
    head = json.loads(out)
    out, _ = cli("verify-restore", backed_up, "--head", head["head"], "--count", head["count"])
    assert "still has the hash you exported" in out
    out, _ = cli(
        "verify-restore", backed_up, "--head", "f" * 64, "--count", head["count"], expect=1
    )
    assert "FAILED" in out and "receipt chain is not intact" in out
    out, _ = cli("verify-restore", backed_up, "--json")
    report = json.loads(out)
    assert report["ok"] is True and report["sentinel"] is True
    assert report["integrity_problems"] == [] and report["receipts"]["count"] == 3
    _, err = cli("verify-restore", backed_up, "--head", head["head"], expect=1)
    assert "--head and --count together" in err


def test_verify_restore_with_the_wrong_passphrase_says_so(
    cli, backed_up: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAIRN_PASSPHRASE", "not the passphrase")
    _, err = cli("verify-restore", backed_up, expect=1)
    assert "Wrong passphrase" in err
    _, err = cli("verify-restore", backed_up.parent / "nothing.cairn", expect=1)
    assert "There is no file at" in err


def test_a_corrupted_backup_fails_verify_restore_and_is_never_restored(
    cli, backed_up: Path, tmp_path: Path
) -> None:
    _flip_middle(backed_up)
    out, _ = cli("verify-restore", backed_up, expect=1)
    assert "FAILED" in out and "The file is damaged" in out and "Do not restore it" in out
    target = tmp_path / "restored.cairn"
    _, err = cli("restore", backed_up, target, expect=1)
    assert "did not pass its checks, so nothing was changed" in err
    assert not target.exists() and _partials(tmp_path) == []


def test_a_backup_damaged_in_its_first_page_is_damage_not_a_wrong_passphrase(
    cli, backed_up: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _flip_first_page(backed_up)
    out, _ = cli("verify-restore", backed_up, expect=1)
    assert f"{backed_up}: FAILED" in out
    assert "The file is damaged: its first page" in out and "the passphrase is right" in out
    assert "Do not restore it; use another backup." in out and "Wrong passphrase" not in out
    report = json.loads(cli("verify-restore", backed_up, "--json", expect=1)[0])
    assert report["ok"] is False and report["sentinel"] is None
    target = tmp_path / "restored.cairn"
    _, err = cli("restore", backed_up, target, expect=1)
    assert "did not pass its checks" in err and "the passphrase is right" in err
    assert not target.exists() and _partials(tmp_path) == []
    monkeypatch.setenv("CAIRN_PASSPHRASE", "not the passphrase")
    for argv in (("verify-restore", backed_up), ("restore", backed_up, target)):
        _, err = cli(*argv, expect=1)
        assert f"Wrong passphrase for {backed_up}" in err and "passphrase is right" not in err


def test_a_vault_damaged_in_its_first_page_says_so_and_its_backup_restores_it(
    cli, backed_up: Path, vault_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _flip_first_page(vault_path)
    for argv in (("stats",), ("verify",), ("backup", tmp_path / "another.cairn")):
        _, err = cli(*argv, expect=1)
        assert err.startswith(f"cairn: {vault_path} is damaged: its first page"), err
        assert "the passphrase is right" in err and err.count("\n") == 1
        assert f"`cairn restore BACKUP {vault_path} --force`" in err
    assert not (tmp_path / "another.cairn").exists()
    monkeypatch.setenv("CAIRN_PASSPHRASE", "not the passphrase")
    _, err = cli("stats", expect=1)
    assert err.startswith(f"cairn: Wrong passphrase for {vault_path}")
    assert "passphrase is right" not in err
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    # What the message says to do works: the backup restores the vault.
    out, _ = cli("restore", backed_up, vault_path, "--force")
    assert "checks out" in out and "The vault it replaced is kept at" in out
    cli("verify")
    assert _titles(vault_path) == [f"{WORD} recital"]


def test_a_file_without_the_sentinel_is_not_a_vault_restored_whole(cli, backed_up: Path) -> None:
    with Vault.open(backed_up, PASSPHRASE) as raw, raw.write() as conn:
        # Only by going around the schema's guard, as another program could.
        conn.execute("DROP TRIGGER sentinel_never_deleted")
        conn.execute("DELETE FROM nodes WHERE id = ?", (sentinel.SENTINEL_ID,))
    out, _ = cli("verify-restore", backed_up, expect=1)
    assert "lacks the sentinel" in out and "not a Cairn vault copied whole" in out
    out, _ = cli("verify-restore", backed_up, "--json", expect=1)
    assert json.loads(out)["sentinel"] is False


# -- what killed runs leave ------------------------------------------------------------------------


def test_a_backup_removes_the_partial_files_a_killed_one_left_and_nothing_else(
    cli, backed_up: Path, tmp_path: Path
) -> None:
    folder = backed_up.parent
    stale = folder / f".{backed_up.name}.0123456789ab.partial"  # as ``staged`` names them
    stale.write_bytes(secrets.token_bytes(300_000))
    Path(f"{stale}-journal").write_bytes(b"journal")
    unrelated = [
        f".{backed_up.name}.0123456789ab.partial.bak",
        f".{backed_up.name}.partial",
        f".{backed_up.name}.0123456789xy.partial",
        "notes.txt",
    ]
    for name in unrelated:
        (folder / name).write_bytes(b"not ours")
    out, _ = cli("backup", backed_up, "--force")
    assert (
        f"Removed 2 temporary files (0.3 MB) that an interrupted backup or restore had left "
        f"beside {backed_up}." in out
    )
    assert sorted(p.name for p in folder.iterdir()) == sorted([*unrelated, backed_up.name])
    assert all((folder / name).read_bytes() == b"not ours" for name in unrelated)
    cli("verify-restore", backed_up)
    # A restore cleans up beside its destination the same way.
    target = tmp_path / "restored.cairn"
    left = tmp_path / f".{target.name}.abcdef012345.partial"
    left.write_bytes(b"half a restore")
    out, _ = cli("restore", backed_up, target, "--json")
    assert json.loads(out)["removed_partials"] == [str(left)] and not left.exists()


def test_a_backup_into_a_folder_removes_what_killed_dated_backups_left(
    cli, backed_up: Path, vault_path: Path
) -> None:
    folder = backed_up.parent
    # A folder backup names each copy by the time: a killed one's name is never the next one's.
    mine = folder / f".{vault_path.stem}-20250101-101010.cairn.0123456789ab.partial"
    other = folder / ".another-20250101-101010.cairn.0123456789ab.partial"
    for path in (mine, other):
        path.write_bytes(b"half a copy")
    out, _ = cli("backup", folder, "--json")
    result = json.loads(out)
    assert result["removed_partials"] == [str(mine)] and result["verified"] is True
    assert not mine.exists() and other.read_bytes() == b"half a copy"


def test_a_backup_killed_while_writing_leaves_a_partial_that_the_next_one_removes(
    cli, tmp_path: Path, vault_path: Path
) -> None:
    # Large enough that the copy takes a good part of a second to write.
    with create_service(vault_path, None) as (_, filled), filled.write() as conn:
        for i in range(400):
            conn.execute(
                "INSERT INTO settings(key, value) VALUES (?, json_quote(?))",
                (f"filler{i}", secrets.token_hex(50_000)),
            )
    dest = tmp_path / "backups" / "vault.cairn"
    dest.parent.mkdir()
    env = {**os.environ, "CAIRN_VAULT": str(vault_path), "CAIRN_PASSPHRASE": PASSPHRASE}
    child = subprocess.Popen(
        [sys.executable, "-m", "cairn.app.cli", "backup", str(dest)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    try:
        while child.poll() is None and time.monotonic() < deadline:
            partial = [p for p in dest.parent.iterdir() if p.name.endswith(".partial")]
            if partial and partial[0].stat().st_size > 1_000_000:  # pages are being written
                child.send_signal(signal.SIGKILL)
                break
            time.sleep(0.002)
    finally:
        if child.poll() is None:
            child.kill()
        _, said = child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL, f"it ended before it was killed: {said!r}"
    left = _partials(dest.parent)
    assert len(left) == 1 and not dest.exists()

    out, _ = cli("backup", dest)
    assert f"Backed up to {dest}" in out and "that an interrupted backup or restore had left" in out
    assert _partials(dest.parent) == [] and sorted(p.name for p in dest.parent.iterdir()) == [
        dest.name
    ]


# -- restore --------------------------------------------------------------------------------------


def test_restore_replaces_a_vault_only_with_force_and_keeps_the_old_one(
    cli, add: Callable[..., None], backed_up: Path, vault_path: Path, tmp_path: Path
) -> None:
    add("Written after the backup")
    before = vault_path.read_bytes()
    _, err = cli("restore", backed_up, vault_path, expect=1)
    assert "already exists" in err and "--force" in err
    assert vault_path.read_bytes() == before
    out, _ = cli("restore", backed_up, vault_path, "--force")
    assert "checks out" in out and "The vault it replaced is kept at" in out
    kept = [p for p in tmp_path.iterdir() if ".replaced-" in p.name]
    assert len(kept) == 1 and kept[0].read_bytes() == before
    assert _titles(vault_path) == [f"{WORD} recital"]
    assert "Written after the backup" in _titles(kept[0])
    cli("verify-restore", vault_path)
    out, _ = cli("restore", backed_up, tmp_path / "second.cairn", "--json")
    assert json.loads(out)["verified"] is True and json.loads(out)["replaced"] is None
    assert _partials(tmp_path) == []


def test_restore_with_force_never_replaces_with_a_copy_that_fails(
    cli, backed_up: Path, vault_path: Path, tmp_path: Path
) -> None:
    before = vault_path.read_bytes()
    _flip_middle(backed_up)
    _, err = cli("restore", backed_up, vault_path, "--force", expect=1)
    assert "nothing was changed" in err
    assert vault_path.read_bytes() == before
    assert [p for p in tmp_path.iterdir() if ".replaced-" in p.name] == []
    assert _partials(tmp_path) == []


def test_restore_refuses_a_vault_that_is_open(
    cli, backed_up: Path, vault_path: Path, embedder: MiniLMEmbedder
) -> None:
    with compose.open_vault(vault_path, PASSPHRASE, embedder=embedder):
        before = vault_path.read_bytes()
        _, err = cli("restore", backed_up, vault_path, "--force", expect=1)
        assert "is open in a Cairn program" in err
        assert vault_path.read_bytes() == before
    _, err = cli("restore", backed_up, backed_up, "--force", expect=1)
    assert "are the same file" in err


# -- the sentinel ---------------------------------------------------------------------------------


def test_every_new_vault_holds_the_sentinel_and_shows_it_nowhere(
    service: MemoryService, vault: Vault
) -> None:
    with vault.read() as conn:
        assert sentinel.present(conn)
    scopes = service.scopes()
    assert scopes == ["personal"]
    service.write("Note", "Cairn vault sentinel notes", "Nothing to do with the engine.")
    response = service.search(
        sentinel.SENTINEL_TITLE, scopes=scopes, include_archived=True, include_history=True
    )
    assert [hit.title for hit in response.results] == ["Cairn vault sentinel notes"]
    listed = service.list_memories(scopes=scopes, statuses=ALL_STATUSES, limit=500)
    assert sentinel.SENTINEL_ID not in {node.id for node in listed}
    assert service.list_memories(scopes=scopes, statuses=("archived",)) == []
    assert sentinel.SENTINEL_ID not in json.dumps(service.briefing(scopes=scopes).as_dict())
    overview = service.graph_overview(scopes=scopes)
    assert sentinel.SENTINEL_ID not in getattr(overview, "ids", [])
    stats = service.stats(scopes=scopes)
    assert stats.nodes_by_status == {"active": 1} and stats.nodes_by_type == {"Note": 1}
    assert service.get([sentinel.SENTINEL_ID], scopes=scopes).missing == [sentinel.SENTINEL_ID]
    with pytest.raises(NodeNotFound):
        service.forget(sentinel.SENTINEL_ID, scopes=scopes)
    with pytest.raises(NodeNotFound):
        service.unarchive(sentinel.SENTINEL_ID, scopes=scopes)
    with pytest.raises(UnknownScope):
        service.search("sentinel", scopes=[sentinel.ENGINE_SCOPE])
    with pytest.raises(InvalidRequest, match="Cairn's own"):
        service.add_scope(sentinel.ENGINE_SCOPE)
    # Not indexed, so neither the index check nor vector search counts it missing.
    assert service.verify().ok and service.vector_search_ready
    with vault.read() as conn:
        assert sentinel.present(conn)


def test_a_vault_made_before_the_sentinel_gets_it_when_opened(vault_path: Path) -> None:
    compose.create_vault(vault_path, PASSPHRASE, with_embedder=False).close()
    with Vault.open(vault_path, PASSPHRASE) as raw, raw.write() as conn:
        conn.execute("DROP TRIGGER sentinel_never_deleted")
        conn.execute("DELETE FROM nodes WHERE id = ?", (sentinel.SENTINEL_ID,))
        assert not sentinel.present(conn)
    with open_service(vault_path, None) as (svc, opened):
        with opened.read() as conn:
            assert sentinel.present(conn)
        assert svc.scopes() == ["personal"]
