"""A long recording through the real extraction worker: streamed from its file, decoded and
transcribed a window at a time, its speech heard at the right times across window edges, in a
memory budget that decoding the file whole (as faster-whisper's own decoder does) cannot
meet; and one too long for the time it is allowed, refused at once, not stopped at the end."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cairn.app.ingestion.extraction import ExtractionSettings, ExtractionWorker
from cairn.ingest.audio import LEAST_SECONDS_PER_SECOND
from cairn.ingest.document import ExtractionError
from tests.ingest.long_recordings import (
    CHILD,
    JFK,
    JOY,
    STRIPE,
    SUNDAY,
    assert_heard_in_place,
    place,
    write_flac,
)

pytestmark = pytest.mark.audio

# Two hours keep the test near 30 s here (voice detection alone runs at ~500x real time on a
# core); windows of two minutes keep the worker within a budget far below the whole decode.
LENGTH_S = 2 * 3600.0
WINDOW_S = 120.0
BUDGET_MIB = 512  # the worker peaks near 410 MiB with the model loaded
# What the worker may grow by from a recording of a few windows to one of sixty. Freed heap
# memory kept by the allocator once grew it by 75 MiB over these two hours (see audio_windows).
GROWTH_MIB = 40

# faster-whisper's decode_audio on the whole file, which the worker called before windows,
# alone in a process: its peak resident size (VmHWM) in KiB.
_WHOLE_DECODE = """
import sys
from faster_whisper.audio import decode_audio
samples = decode_audio(sys.argv[1])
with open("/proc/self/status") as status:
    print(next(line.split()[1] for line in status if line.startswith("VmHWM:")))
"""


def _peak_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024


def _worker_pid() -> int:
    (child,) = [p for p in multiprocessing.active_children() if p.name == "cairn-extract"]
    assert child.pid is not None
    return child.pid


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.skipif(sys.platform != "linux", reason="peak memory is read from /proc")
def test_a_long_recording_is_kept_in_a_memory_budget_whole_decoding_cannot_meet(
    corpus: Path, tmp_path: Path
) -> None:
    lines = [WINDOW_S * n for n in range(1, 60)]
    clips = [
        # Windows 1 and 2 hear nothing: the language is detected in the third, on speech.
        place(corpus, JFK, lines[1] - 5.5),  # across a grid line: a plain cut splits "what"
        place(corpus, CHILD, lines[5]),  # starting on a line
        place(corpus, STRIPE, end_s=lines[9]),  # ending on one
        # Speech over all of a line's search span, the cut in one of its pauses.
        place(corpus, JFK, lines[13] - 9.0),
        place(corpus, JOY, lines[13] - 9.0 + 11.3),
        place(corpus, SUNDAY, LENGTH_S - 200.0),  # an hour and a half of windows later
    ]
    path = tmp_path / "all day.flac"
    write_flac(path, LENGTH_S, clips)
    memo = tmp_path / "memo.flac"  # the first two lines' worth of the same, and a little more
    write_flac(memo, lines[1] + 30.0, clips[:1])

    whole = subprocess.run(
        [sys.executable, "-c", _WHOLE_DECODE, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    whole_mib = int(whole.stdout) / 1024
    # 10 bytes a sample: its s16 bytes, the float32 copy and a temporary; without a model yet.
    assert whole_mib > 2 * BUDGET_MIB, whole_mib

    settings = ExtractionSettings(
        data_dir=str(tmp_path / "data"), memory_mib=BUDGET_MIB, audio_window_s=WINDOW_S
    )
    worker = ExtractionWorker(settings)
    try:
        assert_heard_in_place(worker.extract(memo), clips[:1])
        memo_peak_mib = _peak_mib(_worker_pid())
        doc = worker.extract(path)  # would raise "needed more than 512 MiB" over the budget
        peak_mib = _peak_mib(_worker_pid())  # the same worker: its peak over both files
    finally:
        worker.close()
    assert peak_mib < BUDGET_MIB, peak_mib
    # Bounded by the window, not the recording: sixty windows cost what three did.
    assert peak_mib - memo_peak_mib < GROWTH_MIB, (memo_peak_mib, peak_mib)

    assert doc.warnings == ()
    assert doc.metadata["duration_s"] == pytest.approx(LENGTH_S)
    assert doc.metadata["language"] == "en"
    assert doc.metadata["language_probability"] > 0.5
    assert_heard_in_place(doc, clips)


@pytest.mark.slow
def test_a_recording_too_long_for_its_time_budget_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "all week.flac"
    write_flac(path, 3 * 3600.0, noise=0.0)  # three hours of digital silence in 2 MB
    settings = ExtractionSettings(data_dir=str(tmp_path / "data"), time_scale=0.08)
    budget = settings.time_budget("audio", path.stat().st_size)
    least = 3 * 3600 * LEAST_SECONDS_PER_SECOND
    assert budget < least  # 19 s allowed; decoding and voice detection need 22 s at the least
    worker = ExtractionWorker(settings)
    started = time.monotonic()
    try:
        with pytest.raises(ExtractionError, match="so it was not decoded") as refused:
            worker.extract(path)
    finally:
        worker.close()
    # Refused as the file was opened, not stopped when its budget ran out.
    assert time.monotonic() - started < budget / 2
    assert f"is allowed {budget:.0f} s to be read" in str(refused.value)
