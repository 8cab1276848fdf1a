"""``cairn ingest`` and ``cairn sources``, run in-process as ``main(argv)``: the JSON report, the
dry run, progress lines on stderr (stdout stays clean for --json), failures listed and the exit
code, and the sources listing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.app import ingest_files as files
from tests.app.cli_runner import Cli

REPORT_KEYS = {
    "dry_run",
    "cancelled",
    "counts",
    "files",
    "removed",
    "not_found",
    "links",
    "mentions",
    "stubs",
    "pending_review",
}
NOTES = {
    "a_walk.md": "# Walk\n\nWe walked along the canal towpath to the old mill.\n",
    "b_shopping.txt": "Buy lentils, a lemon and two candles for Friday.\n",
    "c_story.html": "<html><body><h1>Story</h1><p>The fox crossed the lake.</p></body></html>",
}


@pytest.fixture
def cli(cli_from_init: Cli) -> Cli:
    return cli_from_init


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    return files.write(tmp_path / "notes", NOTES).resolve()


def test_dry_run_then_ingest_then_sources(cli, notes: Path) -> None:
    out, err = cli("ingest", str(notes), "--dry-run")
    assert out.startswith("would read: 3 planned\n")
    for name in NOTES:
        assert f"  new         {notes / name}\n" in out
    out, _ = cli("sources")
    assert out == "no files yet: cairn ingest PATH\n"  # the dry run wrote nothing

    out, err = cli("ingest", str(notes), "--json")
    report = json.loads(out)  # progress went to stderr: stdout is the JSON alone
    assert set(report) == REPORT_KEYS
    assert report["counts"] == {"ingested": 3}
    assert report["dry_run"] is False and report["cancelled"] is False
    assert [f["path"] for f in report["files"]] == [str(notes / n) for n in sorted(NOTES)]
    for entry in report["files"]:
        assert set(entry) == {"path", "action", "state", "document_id", "passages", "size"}
        assert entry["action"] == "new" and entry["state"] == "ingested"
        assert entry["passages"] == 1 and entry["size"] == Path(entry["path"]).stat().st_size
    lines = err.splitlines()
    assert len(lines) == 3 and all(line.startswith("[") for line in lines)
    assert [line.split("] ", 1)[1] for line in lines] == [str(notes / n) for n in sorted(NOTES)]
    assert all(line.split("]")[0].endswith("/3") for line in lines)

    out, _ = cli("sources")
    assert out.splitlines() == [f"ingested  {notes / name}" for name in sorted(NOTES)]
    out, _ = cli("sources", "--json")
    rows = json.loads(out)
    assert [row["path"] for row in rows] == [str(notes / n) for n in sorted(NOTES)]
    documents = {f["path"]: f["document_id"] for f in report["files"]}
    for row in rows:
        assert row["state"] == "ingested" and row["document_id"] == documents[row["path"]]
        assert len(row["sha256"]) == 64 and row["passages"] == 1
    out, _ = cli("sources", "--failed")
    assert out == "no failed files\n"

    # Again: nothing to read, nothing said on stderr, a human summary on stdout.
    out, err = cli("ingest", str(notes))
    assert out.startswith("done: 3 unchanged\n") and err == ""
    out, _ = cli("search", "canal towpath mill", "--json")
    assert json.loads(out)["results"][0]["source"] == str(notes / "a_walk.md")


def test_progress_lines_number_the_files_in_order(cli, notes: Path) -> None:
    _, err = cli("ingest", str(notes))
    assert err.splitlines() == [
        f"[{n}/3] {notes / name}" for n, name in enumerate(sorted(NOTES), start=1)
    ]


def test_quiet_prints_no_progress(cli, notes: Path) -> None:
    out, err = cli("ingest", str(notes), "--quiet")
    assert err == "" and out.startswith("done: 3 ingested\n")


def test_a_failure_is_listed_and_exits_1(cli, notes: Path) -> None:
    (notes / "d_broken.txt").write_bytes(b"")
    (notes / "e_photo.heic").write_bytes(b"not read by Cairn")  # in a folder: skipped quietly
    out, _ = cli("ingest", str(notes), expect=1)
    assert out.startswith("done: 1 failed, 3 ingested, 1 skipped\n")
    assert f"  failed: {notes / 'd_broken.txt'}\n    d_broken.txt is empty" in out
    assert "e_photo.heic" not in out
    out, _ = cli("ingest", str(notes), "--json", expect=1)
    report = json.loads(out)
    failed = [f for f in report["files"] if f["state"] == "failed"]
    assert [(f["path"], f["action"]) for f in failed] == [(str(notes / "d_broken.txt"), "retry")]
    assert "is empty" in failed[0]["error"]

    out, _ = cli("sources", "--failed")
    assert out == f"failed    {notes / 'd_broken.txt'}\n    {failed[0]['error']}\n"
    out, _ = cli("sources", "--state", "failed", "--json")
    assert [row["path"] for row in json.loads(out)] == [str(notes / "d_broken.txt")]


def test_a_file_named_on_its_own_that_cairn_cannot_read_fails(cli, tmp_path: Path) -> None:
    photo = tmp_path / "photo.heic"
    photo.write_bytes(b"not read by Cairn")
    out, _ = cli("ingest", str(photo), expect=1)
    assert "Cairn does not read .heic files" in out
    out, _ = cli("sources", "--failed")
    assert str(photo) in out and "does not read .heic files" in out


def test_a_path_that_does_not_exist_is_an_error(cli, tmp_path: Path) -> None:
    """Naming a file or folder that is not there did not do what was asked: say so, exit 1."""
    missing = tmp_path / "no such folder"
    out, _ = cli("ingest", str(missing), expect=1)
    assert f"not found: {missing}" in out


def test_removed_files_are_named(cli, notes: Path) -> None:
    cli("ingest", str(notes), "--quiet")
    (notes / "b_shopping.txt").unlink()
    out, _ = cli("ingest", str(notes))
    assert f"  gone from disk (its memories are kept): {notes / 'b_shopping.txt'}\n" in out
    out, _ = cli("sources", "--state", "missing")
    assert out == f"missing   {notes / 'b_shopping.txt'}\n"
