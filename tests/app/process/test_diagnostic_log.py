"""The diagnostic log (``app/process/diagnostic_log.py``): a fault is its frames and its type, never
its message; the long operations' timings are numbers; the file is 0600, made with its first
record, rotated at a small size and reopened when another process rotated it; and the bugs of
the command line and of the ingest child leave their frames in it."""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.cli.main import main
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.ingestion.extraction import ExtractionSettings
from cairn.app.ingestion.process import ApartRuns
from cairn.app.ingestion.request import IngestRequest
from cairn.app.process import diagnostic_log
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.app.ingestion import broken_service
from tests.conftest import PASSPHRASE

MARKER = "NUMBATQUINCE"


@pytest.fixture
def log_file(tmp_path: Path) -> Iterator[Path]:
    data = tmp_path / "data"
    path = diagnostic_log.start(data, "test")
    assert path == data / "cairn.log"
    yield path
    diagnostic_log.stop()


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _written(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _inner(secret: str) -> None:
    raise KeyError(secret)


def _outer(secret: str) -> None:
    try:
        _inner(secret)
    except KeyError as error:
        raise ValueError(f"while reading {secret!r}") from error


def test_a_fault_is_its_frames_and_types_never_a_message(log_file: Path) -> None:
    try:
        _outer(MARKER)
    except ValueError as error:
        diagnostic_log.fault(error, "a test")
    written = _written(log_file)
    assert "ERROR cairn: a fault in a test" in written
    # Both exceptions of the chain, causes first, each with where it happened...
    assert written.index("KeyError") < written.index("direct cause") < written.index("ValueError")
    assert "in _inner" in written and "in _outer" in written
    assert f'File "{__file__}"' in written
    # ...and nothing of what they said, nor the source lines (they may hold literals).
    assert MARKER not in written
    assert "raise KeyError" not in written


def test_an_os_error_keeps_its_code_not_its_file_name(log_file: Path) -> None:
    missing = log_file.parent / f"{MARKER}.md"
    try:
        missing.read_bytes()
    except OSError as error:
        diagnostic_log.fault(error, "a test")
    written = _written(log_file)
    assert "FileNotFoundError [ENOENT]" in written
    assert MARKER not in written


def test_a_traceback_another_handler_formatted_first_is_not_reused(log_file: Path) -> None:
    """logging caches a record's formatted traceback (with its message) on the record: the
    log must tell its own, whichever handler formats first."""
    plain = logging.StreamHandler(open(os.devnull, "w"))  # noqa: SIM115
    diagnostic_log.log.handlers.insert(0, plain)
    try:
        try:
            _inner(MARKER)
        except KeyError as error:
            diagnostic_log.log.error("a fault", exc_info=error)
    finally:
        diagnostic_log.log.removeHandler(plain)
        plain.stream.close()
    written = _written(log_file)
    assert "in _inner" in written and MARKER not in written


def test_the_file_is_made_with_its_first_record_owner_only(
    tmp_path: Path, permissive_umask: None
) -> None:
    data = tmp_path / "nothing-yet"
    path = diagnostic_log.start(data, "test")
    assert path is not None and not data.exists()  # a command that logs nothing writes nothing
    diagnostic_log.log.info("the first record")
    assert data.stat().st_mode & 0o777 == 0o700
    assert path.stat().st_mode & 0o777 == 0o600
    first, second = _written(path).splitlines()
    assert "INFO cairn: test started: Cairn " in first
    for part in ("Python 3.", "SQLCipher 4.", sys.platform.capitalize()):
        assert part in first, first
    assert second.endswith("INFO cairn: the first record")
    diagnostic_log.stop()
    path.chmod(0o644)  # loosened by hand: the next process to write makes it private again
    diagnostic_log.start(data, "test")
    diagnostic_log.log.info("again")
    assert path.stat().st_mode & 0o777 == 0o600


def test_the_log_rotates_at_a_small_size_and_keeps_few_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, permissive_umask: None
) -> None:
    monkeypatch.setattr(diagnostic_log, "MAX_BYTES", 2_000)
    data = tmp_path / "data"
    path = diagnostic_log.start(data, "test")
    assert path is not None
    for number in range(200):
        diagnostic_log.log.info("record number %d, of a fair length to fill the file", number)
    logs = sorted(p.name for p in data.iterdir())
    assert logs == ["cairn.log", "cairn.log.1", "cairn.log.2"]
    for name in logs:
        kept = data / name
        assert kept.stat().st_size <= 2_000
        assert kept.stat().st_mode & 0o777 == 0o600
    assert _written(path).rstrip().endswith("record number 199, of a fair length to fill the file")


def test_a_file_another_process_rotated_is_reopened(log_file: Path) -> None:
    diagnostic_log.log.info("before")
    log_file.rename(log_file.with_name("cairn.log.1"))  # as another Cairn process rotates
    diagnostic_log.log.info("after")
    assert _written(log_file).rstrip().endswith("INFO cairn: after")
    assert "before" in _written(log_file.with_name("cairn.log.1"))


def test_a_timing_is_how_long_and_how_many(log_file: Path) -> None:
    with diagnostic_log.timed("export") as counts:
        counts.update(memories=12, node=3)
        counts[MARKER] = 1  # not a count's name: left out
    with pytest.raises(KeyError), diagnostic_log.timed("ingest") as counts:
        counts["files"] = 4
        raise KeyError(MARKER)
    with pytest.raises(ValueError, match="not an operation"), diagnostic_log.timed(MARKER):
        pass
    lines = _written(log_file).splitlines()
    assert lines[1].endswith(" s (memories=12, node=3)") and " export took " in lines[1]
    assert " ingest stopped by KeyError after " in lines[2] and lines[2].endswith("(files=4)")
    assert MARKER not in "\n".join(lines)


def test_what_a_thread_did_not_catch_is_a_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hooks go in once a process, around whatever hooks were there (here the ones
    standing for Python's, which still print what they are given)."""
    passed_on: list[type[BaseException]] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: passed_on.append(args.exc_type))
    monkeypatch.setattr(sys, "excepthook", lambda kind, error, trace: passed_on.append(kind))
    monkeypatch.setattr(diagnostic_log, "_hooks_installed", False)
    path = diagnostic_log.start(tmp_path / "data", "test")
    assert path is not None

    def broken() -> None:
        _inner(MARKER)

    thread = threading.Thread(target=broken)
    thread.start()
    thread.join()
    try:
        _inner(MARKER)
    except KeyError as error:
        sys.excepthook(KeyError, error, error.__traceback__)  # as Python does at the top
    assert passed_on == [KeyError, KeyError]
    written = _written(path)
    assert "a fault in a thread that did not catch it" in written
    assert "a fault in code that did not catch it" in written
    assert "in broken" in written and MARKER not in written


def test_a_bug_in_a_command_goes_to_the_log_and_the_message_names_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    assert main(["init"]) == 0

    def broken_stats(self: MemoryService, **_: object) -> None:
        raise RuntimeError(f"a bug that quotes {MARKER}")

    monkeypatch.setattr(MemoryService, "stats", broken_stats)
    capsys.readouterr()
    with pytest.raises(RuntimeError):
        main(["stats"])
    log = compose.Config.from_environment().log_file
    err = capsys.readouterr().err
    assert f"Please report this, with Cairn's log {log}" in err
    written = _written(log)
    assert "a fault in the command line (cairn stats)" in written
    assert "in broken_stats" in written and "RuntimeError" in written
    assert MARKER not in written
    assert "open took " in written  # the timing of the open before it


def test_a_bug_in_the_ingest_child_leaves_its_traceback_in_the_log(
    service: MemoryService, vault_path: Path, tmp_path: Path
) -> None:
    """The child is spawned: it starts the log of the data folder it is handed itself."""
    data = tmp_path / "child-data"
    note = tmp_path / "note.md"
    note.write_text("# A note\n\nAbout the harbour.\n", encoding="utf-8")
    runs = ApartRuns(broken_service.open_broken_service)
    vault = Vault.open(vault_path, PASSPHRASE)  # the vault the window's service hands over
    try:
        with pytest.raises(RuntimeError, match="ValueError"):
            runs.run(
                vault,
                None,
                ExtractionSettings(data_dir=str(data)),
                IngestRequest.of([note], scope="personal"),
                progress=None,
                cancel=None,
            )
    finally:
        vault.close()
    written = _written(data / "cairn.log")
    assert "ingest child started: Cairn" in written
    assert "a fault in the ingest child" in written
    assert "in open_broken_service" in written and "ValueError" in written
    assert broken_service.MARKER not in written


def test_the_long_operations_are_timed_with_counts_only(
    service: MemoryService, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    log = compose.start_log("test")
    service.write("Note", MARKER, f"{MARKER} keeps the spare key under the blue pot.")
    service.backup(tmp_path / "copy.cairn")
    export = service.export(tmp_path / "out", format="jsonl")
    assert export.file is not None
    with compose.create_vault(tmp_path / "new.cairn", PASSPHRASE, embedder=embedder) as fresh:
        fresh.import_jsonl(export.file)
    with compose.open_vault(tmp_path / "new.cairn", PASSPHRASE, embedder=embedder) as opened:
        opened.rebuild_vectors()
    lines = _written(log).splitlines()

    def line(starting: str) -> str:
        (found,) = [text for text in lines if f"INFO cairn: {starting} " in text]
        return found

    assert re.search(r"backup took [\d.]+ s \(bytes=\d+\)$", line("backup took"))
    assert "memories=" in line("export took") and "node=" in line("export took")
    assert "node=" in line("import took") and "resumed=0" in line("import took")
    assert [text for text in lines if " reindex took " in text]  # the import's, and this one
    assert re.search(r"open took [\d.]+ s$", line("open took"))
    assert MARKER not in "\n".join(lines) and str(tmp_path) not in "\n".join(lines)


def test_a_fault_without_the_log_tells_stderr_no_message_either(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With no log started (a library's use of the service), Python's last resort prints
    the record on stderr: the frames and the type, as in the log."""
    diagnostic_log.stop()
    root = logging.getLogger()
    kept, root.handlers = root.handlers, []  # pytest's own capture, out of the way
    try:
        try:
            _inner(MARKER)
        except KeyError as error:
            diagnostic_log.fault(error, "a test")
    finally:
        root.handlers = kept
    err = capsys.readouterr().err
    assert "a fault in a test" in err and "in _inner" in err and "KeyError" in err
    assert MARKER not in err
