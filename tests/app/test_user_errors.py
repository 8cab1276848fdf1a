"""Mistakes a person can make get a clear message, and nothing stored is lost."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.app.cli.main import main
from cairn.app.errors import InboxItemNotFound, InvalidRequest, UnknownScope
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.conftest import PASSPHRASE

ALL = ["personal"]


def test_a_text_too_long_for_a_memory_is_refused(service: MemoryService) -> None:
    with pytest.raises(InvalidRequest, match="at most 100,000 characters"):
        service.write("Note", "Novel", "word " * 30_000)
    assert service.stats(scopes=ALL).nodes_by_type == {}


def test_bi_temporal_stamps_must_be_dates(service: MemoryService) -> None:
    with pytest.raises(InvalidRequest, match="valid_from is a date"):
        service.write("Fact", "Moved house", valid_from="yesterday")
    # An hour before UTC's first instant: no UTC time to store it as (it once overflowed).
    with pytest.raises(InvalidRequest, match="valid_to is a date"):
        service.write("Fact", "Moved house", valid_to="0001-01-01T00:00:00+01:00")
    node = service.write("Fact", "Moved house", valid_from="2026-03-01").node
    assert node.valid_from == "2026-03-01"


def test_scopes_are_checked_by_name(service: MemoryService) -> None:
    with pytest.raises(InvalidRequest, match="lowercase letters"):
        service.add_scope("Work")
    with pytest.raises(UnknownScope, match="wrok"):
        service.search("anything", scopes=["wrok"])
    assert service.add_scope("work") is True
    assert service.add_scope("work") is False


def test_only_an_archived_memory_can_be_unarchived(service: MemoryService, vault: Vault) -> None:
    stub = service.write("Person", "Someone").node
    with vault.write() as conn:
        conn.execute("UPDATE nodes SET status = 'stub' WHERE id = ?", (stub.id,))
    with pytest.raises(InvalidRequest, match="is stub, not archived"):
        service.unarchive(stub.id, scopes=ALL)
    assert service.get([stub.id], scopes=ALL).nodes[0].node.status == "stub"


def test_an_unknown_inbox_item_says_inbox(service: MemoryService) -> None:
    with pytest.raises(InboxItemNotFound, match="No inbox item"):
        service.inbox_promote("01ARZ3NDEKTSV4RRFFQ69G5FAV", scopes=ALL)


def test_stats_for_some_scopes_do_not_count_vectors_of_others(service: MemoryService) -> None:
    service.add_scope("work")
    service.write("Note", "Payroll", scope="work")
    spaces = service.stats(scopes=["personal"]).embedding_spaces
    assert spaces and all("vectors" not in space.as_dict() for space in spaces)
    assert service.stats(scopes=["personal", "work"]).embedding_spaces[0].vectors == 1


@pytest.fixture
def cli(vault_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.setenv("CAIRN_VAULT", str(vault_path))
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)

    def run(*argv: str, expect: int = 0) -> str:
        code = main(list(argv))
        _, err = capsys.readouterr()
        assert code == expect, err
        return err

    return run


@pytest.mark.parametrize(
    ("attr", "message"),
    [
        ("done=maybe", "yes or no"),
        ("confidence=1e400", "finite number"),
        ("confidence=lots", "is a number"),
        ("subject=", "has no value"),
        ("=x", "key=value"),
    ],
)
def test_attribute_values_that_do_not_fit_are_errors(cli, attr: str, message: str) -> None:
    cli("init")
    type_name = "Commitment" if attr.startswith("done") else "Fact"
    err = cli("add", "--type", type_name, "--title", "x", "--attr", attr, expect=1)
    assert message in err and err.count("\n") == 1


def test_inbox_add_takes_its_scope_after_the_verb(cli, capsys) -> None:
    cli("init")
    cli("scope", "add", "work")
    cli("inbox", "add", "call", "the", "bank", "--scope", "work")
    cli("inbox", "list", "--scope", "work", "--json")


def test_os_errors_are_one_line(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CAIRN_VAULT", "/proc/self/mem")
    err = cli("stats", expect=1)
    assert err.startswith("cairn: Cannot use /proc/self/mem") and err.count("\n") == 1
    monkeypatch.setenv("CAIRN_VAULT", str(tmp_path))
    err = cli("stats", expect=1)
    assert "is a folder" in err


def test_a_closed_pipe_is_not_a_traceback(vault_path: Path) -> None:
    env = {**os.environ, "CAIRN_VAULT": str(vault_path), "CAIRN_PASSPHRASE": PASSPHRASE}
    script = str(Path(sys.executable).parent / "cairn")
    subprocess.run([script, "init"], env=env, check=True, capture_output=True, timeout=120)
    # More than a pipe holds, so the writer meets the closed pipe.
    subprocess.run(
        [script, "inbox", "add", "x " * 45_000],
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    shell = f"'{script}' inbox list --json | head -c 10"
    done = subprocess.run(["sh", "-c", shell], env=env, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr
