"""The long-recording line: a day-long recording through ``cairn ingest`` on a fresh vault.

A recording of ``--hours`` (10 by default) is made on the spot, with PyAV only: a quiet room
(noise at about -50 dBFS) in which the clips of the shared corpus's ``03_audio`` are spoken in
turn, one every two minutes, encoded as a phone keeps a voice memo (AAC in .m4a, 48 kHz mono,
64 kbit/s: about 0.5 MB a minute). Then ``cairn init`` and ``cairn ingest --json`` run as a
person would run them, on a fresh vault and data folder, under ``/usr/bin/time -v`` where there
is one, while this process reads the extraction worker's peak resident memory (VmHWM, from
``/proc``) every half second. Printed: the wall time of the ingest, the worker's peak, the
CLI's own peak, whether the file was kept and with how many passages, and a search for the
last clip's words with the time in the recording it is found at.

``--whole-decode`` also measures faster-whisper's ``decode_audio`` of the whole file (what the
worker did before recordings were decoded in windows) in a process of its own: its peak is
about 5.5 GiB for ten hours, so have that much memory free.

``python -m bench.long_recording [--hours H] [--keep DIR] [--whole-decode]``. It is not part
of ``make bench``: on a 2-core machine ten hours take about twelve minutes to build and five
to ingest. Without the corpus it is skipped with a message.

Measured (2 cores shared with other work, load average about 5): 10 h, 283 MiB, 300 clips (15
min of speech); the ingest 282 s, the worker's peak 604 MiB, the CLI's 222 MiB, kept with 13
passages. The whole-file decode alone peaked at 5584 MiB, and the ingest before windows was
stopped at the worker's 3072 MiB budget after 39 s.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench.corpus import PROJECT_ROOT
from bench.measure import load_average

CORPUS = PROJECT_ROOT.parent / "shared" / "corpus" / "03_audio"
RATE = 48_000
BIT_RATE = 64_000
NOISE = 0.003
EVERY_S = 120.0  # one clip every two minutes, 30 s into each
PASSPHRASE = "bench: long recording"
SAMPLE_SECONDS = 0.5
_WHOLE_DECODE = """
import sys
from faster_whisper.audio import decode_audio
samples = decode_audio(sys.argv[1])
with open("/proc/self/status") as status:
    print(next(line.split()[1] for line in status if line.startswith("VmHWM:")))
"""


def clips() -> list[tuple[str, npt.NDArray[np.float32]]]:
    """The corpus's clips, decoded at the recording's rate."""
    from faster_whisper.audio import decode_audio

    paths = [CORPUS / "openai_whisper" / "jfk.flac"]
    paths += sorted((CORPUS / "speechbrain_asr_samples").glob("*.wav"))
    return [(path.name, decode_audio(str(path), sampling_rate=RATE)) for path in paths]


def build(path: Path, hours: float) -> dict[str, Any]:
    """Write the recording (unless ``path`` holds it already, from a run with ``--keep``: the
    same hours make the same file); what was placed where."""
    spoken = clips()
    total = round(hours * 3600 * RATE)
    places: list[tuple[int, str, npt.NDArray[np.float32]]] = []
    for index, at in enumerate(itertools.count(30.0, EVERY_S)):
        name, samples = spoken[index % len(spoken)]
        start = round(at * RATE)
        if start + samples.shape[0] > total:
            break
        places.append((start, name, samples))
    started = time.perf_counter()
    if not path.exists():
        partial = path.with_name(path.name + ".partial")
        _encode(partial, total, places)
        partial.replace(path)  # a stopped build leaves no file that looks whole
    last_start, last_name, _ = places[-1]
    return {
        "hours": hours,
        "bytes": path.stat().st_size,
        "clips": len(places),
        "speech_s": round(sum(s.shape[0] for _, _, s in places) / RATE, 1),
        "last_clip": {"name": last_name, "at_s": round(last_start / RATE, 1)},
        "build_s": round(time.perf_counter() - started, 1),
    }


def _encode(path: Path, total: int, places: list[tuple[int, str, npt.NDArray[np.float32]]]) -> None:
    """The recording, a second at a time, as AAC in an .m4a file."""
    import av

    rng = np.random.default_rng(11)
    with av.open(str(path), "w", format="ipod") as out:
        stream = out.add_stream("aac", rate=RATE, layout="mono")
        stream.bit_rate = BIT_RATE
        for first, stretch in _seconds(total, places, rng):
            frame = av.AudioFrame.from_ndarray(
                (np.clip(stretch, -1, 1) * 32767).astype(np.int16)[None, :],
                format="s16",
                layout="mono",
            )
            frame.rate, frame.pts, frame.time_base = RATE, first, Fraction(1, RATE)
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)


def _seconds(
    total: int, places: list[tuple[int, str, npt.NDArray[np.float32]]], rng: np.random.Generator
) -> Iterator[tuple[int, npt.NDArray[np.float32]]]:
    pending = iter(places)
    current = next(pending, None)
    for first in range(0, total, RATE):
        last = min(total, first + RATE)
        stretch = (rng.standard_normal(last - first) * NOISE).astype(np.float32)
        while current is not None:
            start, _, samples = current
            lo, hi = max(first, start), min(last, start + samples.shape[0])
            if lo < hi:
                stretch[lo - first : hi - first] += samples[lo - start : hi - start]
            if start + samples.shape[0] > last:
                break  # it goes on in the next second
            current = next(pending, None)
        yield first, stretch


def reference(name: str) -> str:
    """What the clip says, from the corpus's transcripts (its words, for a search)."""
    for row in (CORPUS / "transcripts.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        path, text, *_ = row.split("\t")
        if path.split("/")[-1] == name:
            return text.lower()
    raise KeyError(name)


def ingest(recording: Path, root: Path, query: str) -> dict[str, Any]:
    """``cairn init`` and ``cairn ingest --json`` on a fresh vault; times and peaks."""
    shutil.rmtree(root / "data", ignore_errors=True)  # a kept folder's earlier run
    for leftover in root.glob("day.cairn*"):
        leftover.unlink()
    env = {
        **os.environ,
        "CAIRN_PASSPHRASE": PASSPHRASE,
        "CAIRN_DATA_DIR": str(root / "data"),
        "CAIRN_VAULT": str(root / "day.cairn"),
    }
    cairn = str(Path(sys.executable).with_name("cairn"))
    subprocess.run([cairn, "init", "--json"], env=env, check=True, capture_output=True)
    timed = ["/usr/bin/time", "-v"] if Path("/usr/bin/time").exists() else []
    command = [*timed, cairn, "ingest", "--json", "--quiet", str(recording)]
    started = time.perf_counter()
    child = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    peaks: dict[int, tuple[str, int]] = {}
    while child.poll() is None:
        for pid, role, peak in _tree_peaks(child.pid):
            peaks[pid] = (role, max(peak, peaks.get(pid, (role, 0))[1]))
        time.sleep(SAMPLE_SECONDS)
    out, err = child.communicate()
    wall = time.perf_counter() - started
    report = json.loads(out)
    (kept,) = report["files"]
    found = subprocess.run(
        [cairn, "search", "--json", query],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = {
        "command": " ".join(command),
        "wall_s": round(wall, 1),
        "state": kept["state"],
        "passages": kept.get("passages"),
        "warnings": kept.get("warnings"),
        "error": kept.get("error"),
        "worker_peak_mib": round(
            max((p for r, p in peaks.values() if r == "worker"), default=0) / 1024
        ),
        "cli_peak_mib": round(max((p for r, p in peaks.values() if r == "cli"), default=0) / 1024),
        "search": [
            {key: hit[key] for key in ("title", "snippet", "type")}
            for hit in json.loads(found.stdout)["results"][:3]
        ],
    }
    for line in err.splitlines():
        if "Maximum resident set size" in line or "Elapsed (wall clock)" in line:
            key, _, value = line.strip().rpartition(": ")
            result[f"time -v: {key}"] = value
    return result


def _tree_peaks(pid: int) -> Iterator[tuple[int, str, int]]:
    """VmHWM (KiB) of ``pid`` and every process below it: the CLI, and its extraction worker
    (a multiprocessing spawn child); /usr/bin/time itself is left out."""
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            command = Path(f"/proc/{current}/cmdline").read_bytes().replace(b"\0", b" ")
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        pending += [int(c) for c in children]
        role = "worker" if b"spawn_main" in command else "cli" if b"cairn" in command else None
        if role is None or b"/usr/bin/time" in command.split(b" ")[0]:
            continue
        peaks = [int(row.split()[1]) for row in status.splitlines() if row.startswith("VmHWM:")]
        peak = peaks[0] if peaks else 0
        yield current, role, peak


def whole_decode(recording: Path) -> dict[str, Any]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _WHOLE_DECODE, str(recording)],
        capture_output=True,
        text=True,
        check=True,
    )
    return {
        "peak_mib": round(int(done.stdout) / 1024),
        "seconds": round(time.perf_counter() - started, 1),
    }


def line(root: Path, hours: float, whole: bool) -> dict[str, Any]:
    if not CORPUS.is_dir():
        message = f"skipped: the audio corpus is not at {CORPUS}"
        print(f"bench: long recording {message}", file=sys.stderr)
        return {"skipped": message}
    recording = root / f"meeting {hours:g} h.m4a"
    print(f"bench: long recording: building {hours:g} h", file=sys.stderr)
    result: dict[str, Any] = {"load_average_at_start": load_average()}
    result["recording"] = build(recording, hours)
    if whole:
        print("bench: long recording: whole-file decode", file=sys.stderr)
        result["whole_decode"] = whole_decode(recording)
    print("bench: long recording: cairn ingest", file=sys.stderr)
    last = result["recording"]["last_clip"]
    last["says"] = reference(last["name"])
    result["ingest"] = ingest(recording, root, last["says"])
    result["load_average_at_end"] = load_average()
    return result


def print_line(result: dict[str, Any]) -> None:
    print("\nlong-recording line (cairn ingest of one recording, fresh vault)")
    if "skipped" in result:
        print(f"  {result['skipped']}")
        return
    made, run = result["recording"], result["ingest"]
    print(
        f"  recording   {made['hours']:g} h, {made['bytes'] / 2**20:.0f} MiB AAC, "
        f"{made['clips']} clips ({made['speech_s'] / 60:.1f} min of speech), built in "
        f"{made['build_s']:.0f} s"
    )
    if "whole_decode" in result:
        whole = result["whole_decode"]
        print(f"  whole-file decode (before windows)  peak {whole['peak_mib']} MiB")
    print(
        f"  ingest      {run['wall_s']:.0f} s; worker peak {run['worker_peak_mib']} MiB, CLI "
        f"peak {run['cli_peak_mib']} MiB; {run['state']}, {run['passages']} passages"
    )
    last = made["last_clip"]
    print(f"  search      {last['says']!r} (placed at {last['at_s']:.0f} s):")
    for hit in run["search"]:
        print(f"    {hit['type']:<8} {hit['title']}: {hit['snippet'][:90]}")
    verdict = "ok" if run["state"] == "ingested" and run["worker_peak_mib"] < 3072 else "MISSED"
    print(f"  target: kept, worker under 3072 MiB: {verdict}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.long_recording")
    parser.add_argument("--hours", type=float, default=10.0)
    parser.add_argument("--keep", type=Path, help="build and keep the files in this folder")
    parser.add_argument("--whole-decode", action="store_true")
    args = parser.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        result = line(args.keep, args.hours, args.whole_decode)
    else:
        folder = tempfile.mkdtemp(prefix="cairn-bench-recording-")
        try:
            result = line(Path(folder), args.hours, args.whole_decode)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(result, indent=2), file=sys.stderr)
    print_line(result)


if __name__ == "__main__":
    main()
