"""No Cairn process leaves a core file when it crashes: the command line (a server, a watcher,
an ingest), the window, the window's ingest child, the extraction worker and the community
worker. Each real process is started in a folder of its own, found once it is at work, and
crashed with SIGSEGV or SIGABRT.

Two protections are checked apart. Each process's core size limit must read 0
(``/proc/PID/limits``). Then the test raises that limit from outside (``prlimit``, as
``ulimit -c unlimited`` would have before it started) and crashes it: no core may appear, which
only holds because the process made itself non-dumpable. A plain Python process crashed the
same way beside it shows that this machine does write cores where the test looks; where it
does not (a ``core_pattern`` that pipes to a system service or writes elsewhere), only the
limits are checked, and the test says so.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cairn.app.service import MemoryService
from tests.conftest import PASSPHRASE

WAIT_S = 90.0
UNLIMITED = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid``, nearest first."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found, frontier = [], [pid]
    while frontier:
        below = [child for p in frontier for child in parents.get(p, [])]
        found += below
        frontier = below
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _core_limit(pid: int) -> str:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max core file size"):
            return line.split()[4]  # the soft limit, the one the kernel applies
    raise AssertionError("no core line in /proc/PID/limits")


def _cores(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("core"))


def _wait_for(what: str, found: Callable[[], int | None]) -> int:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        pid = found()
        if pid is not None:
            return pid
        time.sleep(0.1)
    raise AssertionError(f"{what} never appeared")


def _protected(pid: int) -> bool:
    try:
        return _core_limit(pid) == "0"
    except (OSError, AssertionError):
        return False


def _crash(pid: int, sig: signal.Signals) -> None:
    """Raise the core limit of ``pid`` from outside, then crash it with ``sig``."""
    resource.prlimit(pid, resource.RLIMIT_CORE, UNLIMITED)
    os.kill(pid, sig)


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


@pytest.fixture
def crash_room(tmp_path: Path) -> Iterator[tuple[Path, bool]]:
    """A folder for the processes to work in, and whether a core written there can be seen:
    a plain Python process crashed the same way must leave one."""
    room = tmp_path / "room"
    room.mkdir()
    pattern = Path("/proc/sys/kernel/core_pattern").read_text().strip()
    visible = not pattern.startswith("|") and "/" not in pattern
    if visible:
        plain = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], cwd=room)
        time.sleep(0.5)
        _crash(plain.pid, signal.SIGSEGV)
        plain.wait(timeout=30)
        visible = bool(_cores(room))
        for name in _cores(room):
            (room / name).unlink()
    yield room, visible
    for name in _cores(room):  # a failed test leaves no core of the test's vault behind
        (room / name).unlink()


def _check_crash(room: Path, visible: bool, pid: int, sig: signal.Signals, kind: str) -> None:
    assert _core_limit(pid) == "0", f"{kind}: core size limit is {_core_limit(pid)}"
    _crash(pid, sig)
    deadline = time.monotonic() + 30
    while not _gone(pid):
        assert time.monotonic() < deadline, f"{kind} did not end on {sig.name}"
        time.sleep(0.05)
    time.sleep(0.5)  # a core is written as the process ends
    if visible:
        assert _cores(room) == [], f"{kind} left a core on {sig.name}"


@pytest.fixture
def vault(service: MemoryService, vault_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    service.write("Note", "Locker", "The locker code is 4411, behind the boathouse.")
    service.close()
    monkeypatch.setenv("CAIRN_VAULT", str(vault_path))
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    return vault_path


def _notes(folder: Path, count: int) -> Path:
    folder.mkdir()
    for n in range(count):
        text = f"# Log {n}\n\n" + f"Entry {n} of the harbour log, about the tide. " * 200
        (folder / f"log-{n}.md").write_text(text, encoding="utf-8")
    return folder


def _cairn(room: Path, *argv: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "cairn.app.cli", *argv],
        cwd=room,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


# A spawned worker inherits the core limit of 0 at once, but makes itself non-dumpable only
# once its interpreter has started and imported its module (under a second here); as root the
# flag cannot be read from outside, so a worker counts as at work once seen this long.
SETTLED_S = 4.0


def _settled_child(parent: int) -> Callable[[], int | None]:
    """Finds a worker the spawn method started below ``parent`` (not its resource tracker)
    once it has run for ``SETTLED_S``."""
    first_seen: dict[int, float] = {}

    def find() -> int | None:
        for pid in _descendants(parent):
            line = _cmdline(pid)
            if "spawn_main" in line and "resource_tracker" not in line and _protected(pid):
                seen = first_seen.setdefault(pid, time.monotonic())
                if time.monotonic() - seen >= SETTLED_S:
                    return pid
        return None

    return find


@pytest.mark.crash
@pytest.mark.slow
def test_the_graph_server_and_the_watcher_leave_no_core(
    vault: Path, crash_room: tuple[Path, bool], tmp_path: Path
) -> None:
    room, visible = crash_room
    server = _cairn(room, "serve", "--port", "0", "--allow-loopback-without-token")
    try:
        _wait_for("the server", lambda: server.pid if _protected(server.pid) else None)
        time.sleep(2)  # the vault open, the model loaded: memory to lose
        _check_crash(room, visible, server.pid, signal.SIGSEGV, "cairn serve")
    finally:
        server.kill()
        server.wait()
    watched = _notes(tmp_path / "watched", 3)
    added = subprocess.run(
        [sys.executable, "-m", "cairn.app.cli", "watch", "add", str(watched)],
        cwd=room,
        capture_output=True,
    )
    assert added.returncode == 0, added.stderr
    watcher = _cairn(room, "watch", "run")
    try:
        _wait_for("the watcher", lambda: watcher.pid if _protected(watcher.pid) else None)
        time.sleep(2)
        _check_crash(room, visible, watcher.pid, signal.SIGABRT, "cairn watch run")
    finally:
        watcher.kill()
        watcher.wait()


@pytest.mark.crash
@pytest.mark.slow
def test_an_ingest_and_its_extraction_worker_leave_no_core(
    vault: Path, crash_room: tuple[Path, bool], tmp_path: Path
) -> None:
    room, visible = crash_room
    ingest = _cairn(room, "ingest", str(_notes(tmp_path / "notes", 300)))
    try:
        worker = _wait_for("the extraction worker", _settled_child(ingest.pid))
        _check_crash(room, visible, worker, signal.SIGSEGV, "the extraction worker")
        _check_crash(room, visible, ingest.pid, signal.SIGABRT, "cairn ingest")
    finally:
        ingest.kill()
        ingest.wait()


WINDOW_INGEST = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from cairn.app import compose
    from cairn.app.ingestion.request import IngestRequest
    if __name__ == "__main__":  # the spawned child runs this file again, as its main
        service = compose.open_vault(Path(sys.argv[1]), sys.argv[2])
        service.ingest(IngestRequest.of([Path(sys.argv[3])]), separate_process=True)
    """
)

COMMUNITIES = textwrap.dedent(
    """
    import numpy as np
    from cairn.app.graphview.leiden_process import Child
    if __name__ == "__main__":
        rng = np.random.default_rng(7)
        count = 400_000
        pairs = rng.integers(0, count, size=(2_000_000, 2), dtype=np.int64)
        Child(count, pairs, 7).membership()
    """
)


@pytest.mark.crash
@pytest.mark.slow
def test_the_window_and_its_workers_leave_no_core(
    vault: Path, crash_room: tuple[Path, bool], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    room, visible = crash_room
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    window = subprocess.Popen(
        [sys.executable, "-m", "cairn.ui.main", str(vault)], cwd=room, stderr=subprocess.DEVNULL
    )
    try:
        _wait_for("the window", lambda: window.pid if _protected(window.pid) else None)
        time.sleep(3)  # Qt up, the unlock screen shown
        _check_crash(room, visible, window.pid, signal.SIGSEGV, "the window")
    finally:
        window.kill()
        window.wait()

    folder = _notes(tmp_path / "notes", 300)
    driver = tmp_path / "window_ingest.py"
    driver.write_text(WINDOW_INGEST, encoding="utf-8")
    apart = subprocess.Popen(
        [sys.executable, str(driver), str(vault), PASSPHRASE, str(folder)], cwd=room
    )
    try:
        child = _wait_for("the window's ingest child", _settled_child(apart.pid))
        worker = _wait_for("its extraction worker", _settled_child(child))
        _check_crash(room, visible, worker, signal.SIGSEGV, "the ingest child's worker")
        _check_crash(room, visible, child, signal.SIGABRT, "the window's ingest child")
    finally:
        apart.kill()
        apart.wait()

    driver = tmp_path / "communities.py"
    driver.write_text(COMMUNITIES, encoding="utf-8")
    leiden = subprocess.Popen([sys.executable, str(driver)], cwd=room)
    try:
        child = _wait_for("the community worker", _settled_child(leiden.pid))
        _check_crash(room, visible, child, signal.SIGSEGV, "the community worker")
    finally:
        leiden.kill()
        leiden.wait()


def test_the_check_would_see_an_unprotected_process(
    crash_room: tuple[Path, bool],
) -> None:
    """What the tests above rely on, on this machine: an unprotected process crashed the same
    way leaves a core where they look (skipped, with the reason, where cores go elsewhere)."""
    room, visible = crash_room
    if not visible:
        pytest.skip("this machine's core_pattern sends cores elsewhere; only limits are checked")
    plain = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], cwd=room)
    time.sleep(0.5)
    _crash(plain.pid, signal.SIGABRT)
    plain.wait(timeout=30)
    time.sleep(0.5)
    assert _cores(room)


def test_this_process_kind_protects_itself_at_start() -> None:
    """``protect`` as every entry point calls it: the limit and the flag, read back."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from cairn.app.process import privacy as p; print(p.protect())",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "core_limit=0, dumpable=False" in done.stdout, done.stderr
