"""A killed export leaves no plaintext behind once Cairn next runs: the staging folder it was
writing is in the ledger before its first byte, and the next command (any one) or the window
removes it and says what went. Real ``cairn export`` processes, killed with SIGKILL at the
moment named (a driver turns the moment into a kill of itself), and real commands after."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.errors import InvalidRequest
from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService
from tests.app.ingestion.test_ingest_crash import _number_from_env
from tests.conftest import PASSPHRASE

MARKER = "QUINCEHARBOUR"
NOTES = 40

# Runs `cairn export` in this process after arranging a SIGKILL of itself at one moment.
DRIVER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    moment, argv = sys.argv[1], sys.argv[2:]

    def die():
        os.kill(os.getpid(), signal.SIGKILL)

    from cairn.app.portability import markdown_export
    if moment == "before-rename":
        real_rename = Path.rename
        def rename(self, target):
            if ".partial-" in self.name:
                die()
            return real_rename(self, target)
        Path.rename = rename
    elif moment == "before-staging":
        real_mkdir = Path.mkdir
        def mkdir(self, *args, **kwargs):
            if ".partial-" in self.name:
                die()
            return real_mkdir(self, *args, **kwargs)
        Path.mkdir = mkdir
    elif moment == "mid-markdown":
        real_file = markdown_export.private_file
        made = []
        def private_file(path):
            made.append(path)
            if len(made) == 6:
                die()
            return real_file(path)
        markdown_export.private_file = private_file
    elif moment == "mid-jsonl":
        import cairn.app.portability.exporting as exporting
        real_private = exporting.private_file
        class Dying:
            def __init__(self, f):
                self.f, self.writes = f, 0
            def __enter__(self):
                return self
            def __exit__(self, *exc):
                return self.f.__exit__(*exc)
            def write(self, text):
                self.writes += 1
                if self.writes == 60:
                    self.f.flush()
                    die()
                return self.f.write(text)
            def flush(self):
                return self.f.flush()
            def fileno(self):
                return self.f.fileno()
        exporting.private_file = lambda path: Dying(real_private(path))
    elif moment == "stop-mid-markdown":
        real_file = markdown_export.private_file
        made = []
        def private_file(path):
            made.append(path)
            if len(made) == 6:
                os.kill(os.getpid(), signal.SIGSTOP)
            return real_file(path)
        markdown_export.private_file = private_file
    from cairn.app.cli.main import main
    sys.exit(main(argv))
    """
)


@pytest.fixture
def exporting_vault(service: MemoryService, vault_path: Path, monkeypatch: pytest.MonkeyPatch):
    for n in range(NOTES):
        service.write("Note", f"Harbour log {n}", f"Entry {n}: {MARKER} moored at berth {n}.")
    service.close()
    monkeypatch.setenv("CAIRN_VAULT", str(vault_path))
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    return vault_path


def _driver(tmp_path: Path) -> Path:
    script = tmp_path / "driver.py"
    script.write_text(DRIVER, encoding="utf-8")
    return script


def _export(tmp_path: Path, moment: str, dest: Path, fmt: str = "markdown") -> int:
    done = subprocess.run(
        [sys.executable, str(_driver(tmp_path)), moment, "export", str(dest), "--format", fmt],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode


def _cairn(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cairn.app.cli", *argv],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _partials(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if ".partial-" in p.name]


def _holds_marker(folder: Path) -> bool:
    return any(MARKER in f.read_text(encoding="utf-8") for f in folder.rglob("*") if f.is_file())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("moment", "fmt"),
    [("mid-markdown", "markdown"), ("mid-jsonl", "jsonl"), ("before-rename", "markdown")],
)
def test_a_killed_export_is_removed_by_the_next_command(
    exporting_vault: Path, tmp_path: Path, moment: str, fmt: str
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    dest = out / "notes-export"
    assert _export(tmp_path, moment, dest, fmt) == -signal.SIGKILL
    [staging] = _partials(out)
    assert _holds_marker(staging)  # plaintext was there to be found
    assert not dest.exists()

    done = _cairn("scope", "list")  # any command at all
    assert done.returncode == 0, done.stderr
    assert "Removed the plaintext files an export left" in done.stderr
    assert str(staging) in done.stderr
    assert list(out.iterdir()) == []
    assert "Traceback" not in done.stderr
    # Said once: the next command has nothing to say.
    assert "Removed" not in _cairn("scope", "list").stderr


@pytest.mark.slow
def test_an_export_killed_before_its_folder_exists_leaves_nothing(
    exporting_vault: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    assert _export(tmp_path, "before-staging", out / "x") == -signal.SIGKILL
    assert list(out.iterdir()) == []
    done = _cairn("scope", "list")
    assert done.returncode == 0 and "Removed" not in done.stderr
    ledger = compose.Config.from_environment().export_ledger.folder
    assert list(ledger.iterdir()) == []  # its record went too


@pytest.mark.slow
def test_a_running_export_is_not_disturbed_and_a_whole_one_leaves_only_dest(
    exporting_vault: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    dest = out / "notes"
    running = subprocess.Popen(
        [sys.executable, str(_driver(tmp_path)), "stop-mid-markdown", "export", str(dest)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not _stopped(running.pid):
            assert time.monotonic() < deadline, "the export never reached its sixth file"
            time.sleep(0.05)
        [staging] = _partials(out)
        done = _cairn("scope", "list")  # another command while the export waits
        assert done.returncode == 0 and "Removed" not in done.stderr
        assert staging.is_dir()
    finally:
        os.kill(running.pid, signal.SIGCONT)
    _, err = running.communicate(timeout=120)
    assert running.returncode == 0, err
    assert list(out.iterdir()) == [dest]
    assert len(list(dest.iterdir())) == NOTES
    ledger = compose.Config.from_environment().export_ledger.folder
    assert list(ledger.iterdir()) == []


def _stopped(pid: int) -> bool:
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return state == "T"


@pytest.mark.slow
def test_the_window_removes_a_killed_exports_files_at_start(
    exporting_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    assert _export(tmp_path, "mid-markdown", out / "x") == -signal.SIGKILL
    assert _partials(out)
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    done = subprocess.run(
        [sys.executable, "-m", "cairn.ui.main", "--smoke-test"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "window ok" in done.stdout, done.stderr
    assert list(out.iterdir()) == []


def test_an_export_that_cannot_record_its_folder_writes_nothing(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.write("Note", "Berth", f"{MARKER} at berth 9.")
    ledger = compose.Config.from_environment().export_ledger.folder
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text("not a folder")  # the record cannot be made
    with pytest.raises(InvalidRequest, match="could not be written"):
        service.export(tmp_path / "dest", format="markdown")
    assert not [p for p in tmp_path.iterdir() if "dest" in p.name]


# -- kills at random moments, from outside (make stress runs more trials) ----------------------

TRIALS = _number_from_env("CAIRN_STRESS_TRIALS", 1) or 3
FIRST_SEED = random.SystemRandom().randrange(1 << 32)
LARGE_NOTES, SECTIONS = 150, 8


@pytest.fixture(scope="module")
def large_vault(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Path:
    """A vault of about 1,400 memories (notes and their passages), so an export takes
    seconds and a kill can land anywhere in it."""
    root = tmp_path_factory.mktemp("large-export")
    folder = root / "notes"
    folder.mkdir()
    for n in range(LARGE_NOTES):
        sections = "\n\n".join(
            f"## Part {s}\n\n{MARKER} entry {n}.{s}: " + "the tide turned at the harbour. " * 30
            for s in range(SECTIONS)
        )
        (folder / f"Log {n}.md").write_text(f"# Log {n}\n\n{sections}\n", encoding="utf-8")
    vault = root / "large.cairn"
    with compose.create_vault(vault, PASSPHRASE, embedder=embedder) as service:
        service.ingest(IngestRequest.of([folder]))
    return vault


@pytest.mark.crash
@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("trial", range(TRIALS))
def test_exports_killed_at_random_moments_leave_no_plaintext(
    trial: int, large_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAIRN_VAULT", str(large_vault))
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    seed = FIRST_SEED + trial
    rng = random.Random(seed)
    fmt = rng.choice(["markdown", "jsonl"])
    out = tmp_path / "out"
    out.mkdir()
    dest = out / "export"
    started = time.monotonic()
    assert _cairn("scope", "list").returncode == 0
    startup = time.monotonic() - started  # a command's start, before an export's first byte
    started = time.monotonic()
    whole = _cairn("export", str(dest), "--format", fmt)  # how long a whole one takes
    assert whole.returncode == 0, whole.stderr
    took = time.monotonic() - started
    shutil.rmtree(dest)
    running = subprocess.Popen(
        [sys.executable, "-m", "cairn.app.cli", "export", str(dest), "--format", fmt],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    began = time.monotonic()
    if rng.random() < 0.7:
        # Most kills land while files are written: wait for the staging folder, then a
        # random share of what is left of the export's time.
        while not _partials(out) and running.poll() is None and time.monotonic() - began < took:
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, max(0.01, took - (time.monotonic() - began))))
    else:
        time.sleep(rng.uniform(startup * 0.8, took))
    delay = time.monotonic() - began
    running.kill()
    running.wait(timeout=60)
    partials = _partials(out)
    found = (
        f"a staging folder of {sum(1 for f in partials[0].rglob('*') if f.is_file())} files"
        if partials
        else "the whole export"
        if dest.exists()
        else "nothing yet"
    )
    context = f"seed {seed}: {fmt} export killed after {delay:.2f} s of {took:.2f} s left {found}"
    print(context)  # `make stress` lists what each kill left
    done = _cairn("scope", "list")
    assert done.returncode == 0, (context, done.stderr)
    left = sorted(p.name for p in out.iterdir())
    # Killed in time: nothing at all; too late (already renamed): the whole export, alone.
    assert left in ([], ["export"]), (context, left)
    if left:
        assert _holds_marker(dest)
    ledger = compose.Config.from_environment().export_ledger.folder
    assert not ledger.exists() or list(ledger.iterdir()) == [], context
