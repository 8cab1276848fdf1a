"""The watched-folder line: what watching costs (``cairn.app.ingestion.watching``, watchdog on
inotify), measured in a fresh process so its memory and CPU are the watcher's alone.

- ``start``: the time and the memory (resident set) to start watching a folder of 10,000 files
  in 100 subfolders (inotify watches folders, so it is the folder count that costs);
- ``idle``: the process's CPU time over some seconds of watching with nothing changing, as a
  percentage of one core (the target is near zero: the kernel wakes the watcher, it does not
  poll);
- ``one_change``: from a file written to its batch handed over (the quiet time included);
- ``burst``: 1,000 files written at once (a ``git pull``): how many batches, and when the last
  came.

``python -m bench.watch_line`` reads its spec as JSON on stdin and prints one JSON line.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

FILES = 10_000
FOLDERS = 100
IDLE_SECONDS = 10.0
BURST = 1_000
QUIET = 1.0
IDLE_TARGET_PERCENT = 1.0


def line(root: Path, files: int = FILES, idle_s: float = IDLE_SECONDS) -> dict[str, Any]:
    """Run the measurement in a fresh process on a folder under ``root``."""
    spec = {"root": str(root / "watched"), "files": files, "idle_s": idle_s}
    done = subprocess.run(
        [sys.executable, "-m", "bench.watch_line"],
        input=json.dumps(spec),
        stdout=subprocess.PIPE,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def measure(root: Path, files: int, idle_s: float) -> dict[str, Any]:
    from cairn.app.ingestion.watch_list import WatchedFolder
    from cairn.app.ingestion.watching import FolderWatcher, WatchBatch

    per_folder = max(1, files // FOLDERS)
    for n in range(files):
        path = root / f"folder-{n // per_folder:03}" / f"note-{n:05}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"Note {n}: a line of text.\n", encoding="utf-8")
    batches: list[tuple[float, WatchBatch]] = []
    arrived = threading.Condition()

    def on_batch(batch: WatchBatch) -> None:
        with arrived:
            batches.append((time.perf_counter(), batch))
            arrived.notify_all()

    problems: list[str] = []
    rss_before = _rss_mb()
    started = time.perf_counter()
    watcher = FolderWatcher(
        [WatchedFolder(str(root), "personal")], on_batch, problems.append, quiet=QUIET
    )
    watcher.start()
    start_s = time.perf_counter() - started
    rss_after = _rss_mb()
    try:
        cpu_before, wall_before = time.process_time(), time.perf_counter()
        time.sleep(idle_s)
        idle_cpu = time.process_time() - cpu_before
        idle_wall = time.perf_counter() - wall_before

        written = time.perf_counter()
        (root / "folder-000" / "changed.md").write_text("A change.\n", encoding="utf-8")
        _wait(arrived, batches, 1)
        one_change_s = batches[0][0] - written

        burst_start = time.perf_counter()
        for n in range(BURST):
            (root / "pulled" / f"{n // 100:02}").mkdir(parents=True, exist_ok=True)
            (root / "pulled" / f"{n // 100:02}" / f"p-{n:04}.md").write_text("x\n")
        _wait(arrived, batches, 2)
        time.sleep(QUIET * 3)  # anything late would be a second batch
        burst = batches[1:]
        changed = sum(len(b.changed or ()) for _, b in burst)
    finally:
        watcher.stop()
    return {
        "files": files,
        "folders": FOLDERS,
        "start_s": round(start_s, 3),
        "start_memory_mb": round(rss_after - rss_before, 1),
        "rss_mb": round(rss_after, 1),
        "idle_s": round(idle_wall, 1),
        "idle_cpu_percent": round(100 * idle_cpu / idle_wall, 3),
        "idle_target_percent": IDLE_TARGET_PERCENT,
        "quiet_s": QUIET,
        "one_change_s": round(one_change_s, 3),
        "burst_files": BURST,
        "burst_batches": len(burst),
        "burst_paths_seen": changed,
        "burst_last_batch_s": round(burst[-1][0] - burst_start, 3) if burst else None,
        "problems": problems,
    }


def _wait(arrived: threading.Condition, batches: list[Any], count: int) -> None:
    deadline = time.monotonic() + 60
    with arrived:
        while len(batches) < count:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"no batch {count} within 60 s")
            arrived.wait(left)


def _rss_mb() -> float:
    """The resident set now, in MB (``ru_maxrss`` is the peak, so /proc is read on Linux)."""
    try:
        for row in Path("/proc/self/status").read_text().splitlines():
            if row.startswith("VmRSS:"):
                return int(row.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def print_line(result: dict[str, Any] | None) -> None:
    if not result:
        return
    verdict = "ok" if result["idle_cpu_percent"] <= result["idle_target_percent"] else "OVER"
    print(f"\nWatched folders ({result['files']:,} files in {result['folders']} folders)")
    print(
        f"  start watching {result['start_s']:.3f} s, +{result['start_memory_mb']:.1f} MB "
        f"(process {result['rss_mb']:.0f} MB)"
    )
    print(
        f"  idle CPU {result['idle_cpu_percent']:.3f} % of a core over {result['idle_s']:.0f} s "
        f"(target <= {result['idle_target_percent']:g} %: {verdict})"
    )
    print(
        f"  one change handed over after {result['one_change_s']:.2f} s (quiet time "
        f"{result['quiet_s']:g} s); a burst of {result['burst_files']:,} files: "
        f"{result['burst_batches']} batch(es), {result['burst_paths_seen']:,} paths, the last "
        f"after {result['burst_last_batch_s']} s"
    )
    for problem in result["problems"]:
        print(f"  problem: {problem}")


def main() -> None:
    spec = json.loads(sys.stdin.read() or "{}")
    root = Path(spec.get("root") or os.path.join(os.getcwd(), "watch-bench"))
    root.mkdir(parents=True, exist_ok=True)
    result = measure(root, int(spec.get("files", FILES)), float(spec.get("idle_s", IDLE_SECONDS)))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
