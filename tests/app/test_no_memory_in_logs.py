"""Nothing Cairn logs or prints on stderr carries a memory's text, and its log file
(``app/process/diagnostic_log.py``) holds none either.

A whole command-line session (init, add, inbox, search, ingest, export, a command that meets
a bug whose message quotes a memory, doctor) runs with a marker in every memory it handles;
afterwards the marker is in no file under the session's home, data, config, cache and temp
folders (the vault's bytes included: they are encrypted; Cairn's log, which the session wrote
to, included), in nothing written to stderr, and in no log record at any level, Cairn's or a
library's. A control writes the marker into the log on purpose, and the hunt finds it.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.cli.main import main
from cairn.app.process import diagnostic_log
from cairn.app.service import MemoryService
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
    cairn("export", "--format", "jsonl", str(tmp_path / "out"))

    def broken_stats(self: MemoryService, **_: object) -> None:
        raise RuntimeError(f"a bug that quotes a memory: {MARKER}")

    with monkeypatch.context() as patch:
        patch.setattr(MemoryService, "stats", broken_stats)
        with pytest.raises(RuntimeError):
            main(["stats"])
    assert "Please report this, with Cairn's log" in capfd.readouterr().err
    cairn("doctor")

    config = compose.Config.from_environment()
    assert config.default_vault.is_file()
    log = config.log_file.read_text(encoding="utf-8")
    for written in ("ingest took", "export took", "open took", "in broken_stats"):
        assert written in log, (written, log)
    exported = tmp_path / "out"
    assert set(_files_holding_marker(tmp_path, outside=inputs)) == {
        str(p) for p in exported.rglob("*") if p.is_file()
    }  # an export is plaintext, asked for: it is the one place the marker may be
    assert [
        r.getMessage() for r in caplog.records if MARKER.lower() in r.getMessage().lower()
    ] == []
    # The control: a marker written to the log is found there.
    compose.start_log("test")
    diagnostic_log.log.error("a leak, written on purpose: %s", MARKER)
    assert str(config.log_file) in _files_holding_marker(tmp_path, outside=inputs)
