"""A reader whose parent is killed ends with it. ``kill -9`` of ``cairn ingest``, of ``cairn
watch run``, or of a program ingesting as the window does (the run in a child of its own),
while a scan is being read: within seconds no process of the run is left (the extraction
worker, the window's ingest child, Tesseract, multiprocessing's helper), none of them prints
anything on the terminal, the vault verifies, and the next ``cairn ingest`` finishes the file.

Real processes and a real scan, slow enough to be mid-read: Tesseract takes a second or two on
each of its pages. A run is killed once Tesseract is reading a page. Every process of the run
carries a mark in its environment (children inherit it), which is how the test finds them
after their parent is gone; the stderr they all share is a file, so whatever any of them
writes after the kill is seen."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from tests.app import hostile_files as hostile
from tests.app import ingest_files as files
from tests.conftest import PASSPHRASE

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux's /proc"),
    pytest.mark.skipif(shutil.which("tesseract") is None, reason="needs Tesseract to read scans"),
]

MARK = "CAIRN_ORPHAN_TEST"
WORDS = ["The lighthouse keeper logs", "every passing ship in a book."]
NOISE_PAGES = 10  # a page takes Tesseract a second or two: the read outlasts the test's wait
READING_WITHIN = 180.0  # seconds for a run to start Tesseract on a busy two-core machine
GONE_WITHIN = 5.0  # seconds for every process of a killed run to end
TIMEOUT_S = 600


@pytest.fixture
def vault_env(vault_path: Path, embedder: MiniLMEmbedder) -> dict[str, str]:
    compose.create_vault(vault_path, PASSPHRASE, embedder=embedder).close()
    return {**os.environ, "CAIRN_VAULT": str(vault_path), "CAIRN_PASSPHRASE": PASSPHRASE}


@pytest.fixture
def scan(tmp_path: Path) -> Path:
    path = tmp_path / "scans" / "logbook.tiff"
    path.parent.mkdir()
    path.write_bytes(files.slow_scan_tiff(WORDS, NOISE_PAGES))
    return path


def _processes(mark: str) -> dict[int, str]:
    """The live processes whose environment holds the mark: pid -> command line."""
    found = {}
    needle = f"{MARK}={mark}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()  # empty for a zombie: it has ended
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if needle in environ.split(b"\0"):
            found[int(entry.name)] = cmdline.replace(b"\0", b" ").decode("utf-8", "replace")
    return found


def _kill_while_reading(argv: list[str], env: dict[str, str], stderr: Path) -> None:
    """Runs ``argv`` in a session of its own, kills it with SIGKILL once Tesseract reads a page
    of the scan, and checks what it leaves: no process of it within ``GONE_WITHIN``, and
    nothing written on its stderr after the kill."""
    mark = uuid.uuid4().hex
    with stderr.open("wb") as err:
        parent = subprocess.Popen(
            argv,
            env={**env, MARK: mark},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + READING_WITHIN
        while not any("tesseract stdin" in line for line in _processes(mark).values()):
            assert parent.poll() is None, stderr.read_text(errors="replace")
            assert time.monotonic() < deadline, "Tesseract never started on the scan"
            time.sleep(0.05)
        running = _processes(mark)
        assert len(running) >= 3, running  # the parent, the reader(s), Tesseract
        parent.kill()
        parent.wait()
        written = stderr.read_bytes()  # all the parent wrote: it can write no more
        gone_by = time.monotonic() + GONE_WITHIN
        while (left := _processes(mark)) and time.monotonic() < gone_by:
            time.sleep(0.05)
        assert not left, f"still running {GONE_WITHIN} s after their parent was killed: {left}"
        assert stderr.read_bytes() == written, stderr.read_text(errors="replace")
        assert b"Traceback" not in written and b"BrokenPipeError" not in written, written
    finally:
        for pid in _processes(mark):
            os.kill(pid, signal.SIGKILL)


def _cairn(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        hostile.cairn(*args), env=env, capture_output=True, text=True, timeout=TIMEOUT_S
    )


def _finished_by_the_next_ingest(env: dict[str, str], scan: Path) -> None:
    """The vault verifies, and a plain ``cairn ingest`` then reads the scan whole."""
    verified = _cairn(env, "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    again = _cairn(env, "ingest", "--json", str(scan.parent))
    assert again.returncode == 0, again.stdout + again.stderr
    (outcome,) = json.loads(again.stdout)["files"]
    assert (outcome["path"], outcome["state"]) == (str(scan), "ingested"), outcome
    if files.font_path() is not None:  # the first page's words were typed: they are found
        found = _cairn(env, "search", "lighthouse keeper ship logbook", "--json")
        assert str(scan) in {hit["source"] for hit in json.loads(found.stdout)["results"]}


@pytest.mark.crash
def test_killing_cairn_ingest_ends_its_reader_quietly(
    tmp_path: Path, vault_env: dict[str, str], scan: Path
) -> None:
    _kill_while_reading(hostile.cairn("ingest", str(scan)), vault_env, tmp_path / "stderr")
    _finished_by_the_next_ingest(vault_env, scan)


@pytest.mark.crash
@pytest.mark.long
def test_killing_cairn_watch_run_ends_its_reader_quietly(
    tmp_path: Path, vault_env: dict[str, str], scan: Path
) -> None:
    added = _cairn(vault_env, "watch", "add", str(scan.parent))
    assert added.returncode == 0, added.stderr
    # Its catch-up of the folder reads the scan.
    _kill_while_reading(hostile.cairn("watch", "run"), vault_env, tmp_path / "stderr")
    _finished_by_the_next_ingest(vault_env, scan)


@pytest.mark.crash
@pytest.mark.long
def test_killing_the_window_ends_its_ingest_child_quietly(
    tmp_path: Path, vault_env: dict[str, str], vault_path: Path, scan: Path
) -> None:
    """The window's way: the run in a child that opens the vault itself, which reads through
    an extraction worker of its own."""
    program = [sys.executable, "-m", "tests.app.ingestion.apart_run", str(vault_path), str(scan)]
    env = {**vault_env, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    _kill_while_reading(program, env, tmp_path / "stderr")
    _finished_by_the_next_ingest(vault_env, scan)
