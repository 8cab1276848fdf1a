"""The ``cairn`` command line, run in-process and as the installed console script."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cairn.app.cli.main import main
from tests.conftest import PASSPHRASE


@pytest.fixture
def cli(vault_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.setenv("CAIRN_VAULT", str(vault_path))
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)

    def run(*argv: str, expect: int = 0) -> tuple[str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        assert code == expect, err
        return out, err

    return run


def test_a_session_from_init_to_verify(cli, vault_path: Path) -> None:
    cli("init")
    assert vault_path.exists()
    out, _ = cli(
        "add",
        "--type",
        "Person",
        "--title",
        "Lena Vos",
        "--attr",
        "occupation=pharmacist",
        "--attr",
        "aliases=Lena, L. Vos",
        "--json",
    )
    person = json.loads(out)
    assert person["outcome"] == "inserted" and person["embedded"] is True
    assert person["node"]["attrs"] == {"aliases": ["Lena", "L. Vos"], "occupation": "pharmacist"}
    out, _ = cli(
        "add",
        "--type",
        "Note",
        "--title",
        "Pharmacy hours",
        "--body",
        "Lena's pharmacy opens at eight.",
        "--json",
    )
    note = json.loads(out)
    cli("link", note["id"], person["id"], "--type", "mentions")
    out, _ = cli("search", "pharmacist", "--json")
    envelope = json.loads(out)
    assert set(envelope) >= {"results", "query", "vector_search"}
    first = envelope["results"][0]
    assert first["id"] == person["id"]
    assert {"id", "type", "title", "snippet"} <= set(first)
    out, _ = cli("get", person["id"], "--json")
    assert json.loads(out)["nodes"][0]["edges"][0]["other_id"] == note["id"]
    out, _ = cli("traverse", person["id"], "--depth", "2", "--json")
    assert [n["id"] for n in json.loads(out)["nodes"]] == [note["id"]]
    out, _ = cli("inbox", "add", "ring", "the", "garage", "--json")
    item = json.loads(out)
    out, _ = cli("inbox", "list")
    assert "ring the garage" in out
    out, _ = cli("inbox", "promote", item["id"], "--json")
    assert json.loads(out)["node"]["title"] == "ring the garage"
    out, _ = cli("stats", "--json")
    assert json.loads(out)["nodes_by_type"] == {"Note": 2, "Person": 1}
    out, _ = cli("verify")
    assert "receipts:" in out and "intact" in out


def test_human_search_output_and_missing_get(cli) -> None:
    cli("init")
    cli("add", "--type", "Note", "--title", "Water the ferns", "--body", "Every Sunday.")
    out, _ = cli("search", "ferns")
    assert "[Note] Water the ferns" in out
    out, err = cli("get", "01ARZ3NDEKTSV4RRFFQ69G5FAV", expect=1)
    assert "missing: 01ARZ3NDEKTSV4RRFFQ69G5FAV" in err


def test_errors_are_one_line_and_non_zero(
    cli, vault_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, err = cli("search", "x", expect=1)
    assert err.count("\n") == 1 and "cairn init" in err
    cli("init")
    _, err = cli("init", expect=1)
    assert err.count("\n") == 1 and "already exists" in err
    _, err = cli("add", "--type", "Gadget", "--title", "x", expect=1)
    assert err.startswith("cairn: ") and "no node type" in err
    _, err = cli("search", "x", "--limit", "40", expect=1)
    assert "between 1 and 25" in err
    monkeypatch.setenv("CAIRN_PASSPHRASE", "not it")
    _, err = cli("stats", expect=1)
    assert err.count("\n") == 1 and str(vault_path) in err and "Wrong passphrase" in err


def test_passwd_changes_the_passphrase(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    cli("init")
    cli("add", "--type", "Note", "--title", "kept across rekey")
    monkeypatch.setenv("CAIRN_NEW_PASSPHRASE", "a whole new phrase")
    cli("passwd")
    cli("stats", expect=1)
    monkeypatch.setenv("CAIRN_PASSPHRASE", "a whole new phrase")
    out, _ = cli("search", "kept across rekey", "--json")
    assert json.loads(out)["results"][0]["title"] == "kept across rekey"


def test_the_installed_console_script_reports_a_wrong_passphrase(vault_path: Path) -> None:
    script = shutil.which(
        "cairn", path=str(Path(os.__file__).parent) + os.pathsep + os.environ.get("PATH", "")
    )
    script = script or str(Path(__import__("sys").executable).parent / "cairn")
    env = {**os.environ, "CAIRN_VAULT": str(vault_path), "CAIRN_PASSPHRASE": PASSPHRASE}
    subprocess.run([script, "init"], env=env, check=True, capture_output=True, timeout=120)
    env["CAIRN_PASSPHRASE"] = "wrong"
    done = subprocess.run([script, "stats"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert str(vault_path) in done.stderr
    assert "hmac" not in done.stderr.lower()  # SQLCipher's own log lines are silenced


def test_init_in_the_data_dir_is_private(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    assert main(["init"]) == 0
    data_dir = Path(os.environ["CAIRN_DATA_DIR"])
    assert (data_dir.stat().st_mode & 0o777) == 0o700
    vault = data_dir / "vault.cairn"
    assert (vault.stat().st_mode & 0o777) == 0o600
    assert main(["add", "--type", "Note", "--title", "private"]) == 0
    for leftover in data_dir.iterdir():
        assert (leftover.stat().st_mode & 0o077) == 0, leftover
    capsys.readouterr()
