"""Cairn keeps no log file, and nothing it logs or prints on stderr carries a memory's text.

A whole command-line session (init, add, inbox, search, ingest, doctor) runs with a marker in
every memory it handles; afterwards the marker is in no file under the session's home, data,
config, cache and temp folders (the vault's bytes included: they are encrypted), in nothing
written to stderr, and in no log record at any level, Cairn's or a library's.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.cli.main import main
from tests.app import ingest_files as files
from tests.conftest import PASSPHRASE

MARKER = "QUOLLMARZIPAN"


def _needles() -> list[bytes]:
    forms = (MARKER, MARKER.lower(), MARKER.title())
    return [form.encode(encoding) for form in forms for encoding in ("utf-8", "utf-16-le")]


def _files_holding_marker(root: Path, outside: Path) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if not path.is_file() or path.is_symlink() or outside in path.parents:
            continue
        data = path.read_bytes()
        if any(needle in data for needle in _needles()):
            found.append(str(path))
    return found


def test_a_session_leaves_memory_text_in_no_log_and_no_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)  # every record of every logger, not only warnings
    temp = tmp_path / "tmp"
    temp.mkdir()
    for variable in ("TMPDIR", "TMP", "TEMP"):
        monkeypatch.setenv(variable, str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    inputs = files.write(
        tmp_path / "inputs",
        {
            "harbour.md": f"# Harbour\n\nThe gate code is {MARKER} until spring.\n",
            "letter.docx": files.docx_bytes([f"Quote {MARKER} when you call."], "Letter"),
        },
    )

    def cairn(*argv: str) -> str:
        assert main(list(argv)) == 0, argv
        out, err = capfd.readouterr()
        assert not any(form in err for form in (MARKER, MARKER.lower())), (argv, err)
        return out

    cairn("init")
    cairn("add", "--type", "Note", "--title", f"{MARKER} plans", "--body", f"About {MARKER}.")
    cairn("inbox", "add", f"call about {MARKER}")
    cairn("ingest", "--quiet", str(inputs))
    found = cairn("search", MARKER, "--json")
    assert found.count(MARKER) >= 3  # the note and both files: the marker went in
    cairn("doctor")

    vault = compose.Config.from_environment().default_vault
    assert vault.is_file()
    assert _files_holding_marker(tmp_path, outside=inputs) == []
    assert [
        r.getMessage() for r in caplog.records if MARKER.lower() in r.getMessage().lower()
    ] == []
