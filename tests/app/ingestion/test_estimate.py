"""The time left of a run: nothing until each kind of work with files left has shown its own
pace, then that kind's bytes left at that pace (the file in progress counted by its pages or
seconds done). A clock the test moves stands for the seconds a run spends."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.app.ingestion.estimate import MIN_EVIDENCE_S, TimeLeft
from cairn.app.ingestion.plan import PlannedFile


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def planned(name: str, kind: str, size: int) -> PlannedFile:
    return PlannedFile(Path("/notes") / name, None, size, 0, "0" * 64, "new", kind)


def test_nothing_is_said_until_each_kind_left_has_a_pace_of_its_own() -> None:
    clock = Clock()
    notes = [planned(f"n{n}.md", "text", 1_000) for n in range(10)]
    memo = planned("memo.wav", "audio", 6_000_000)
    estimate = TimeLeft([*notes, memo], clock)
    assert estimate.seconds_left() is None  # nothing done yet
    for note in notes:
        estimate.begin(note.source)
        clock.now += 1.0  # a second a note
    estimate.begin(memo.source)
    # The notes' pace says nothing of a recording's: still no estimate.
    assert estimate.seconds_left() is None
    clock.now += 2.0
    estimate.advance(memo.source, 30.0, 600.0)  # the model loading, then 30 s of 10 min
    assert estimate.seconds_left() is None  # under MIN_EVIDENCE_S of transcription
    clock.now += MIN_EVIDENCE_S
    estimate.advance(memo.source, 60.0, 600.0)  # a tenth done in 7 s: 63 s left
    assert estimate.seconds_left() == pytest.approx(63.0)
    estimate.begin(None)
    assert estimate.seconds_left() == 0.0


def test_files_of_one_kind_left_take_that_kinds_pace() -> None:
    clock = Clock()
    scans = [planned(f"scan{n}.png", "image", 200_000) for n in range(4)]
    memo = planned("memo.wav", "audio", 1_000_000)
    estimate = TimeLeft([*scans, memo], clock)
    estimate.begin(scans[0].source)
    clock.now += 6.0
    estimate.begin(scans[1].source)  # the first scan took 6 s
    assert estimate.seconds_left() is None  # the recording's pace is not known yet
    estimate = TimeLeft(scans, clock)
    estimate.begin(scans[0].source)
    clock.now += 6.0
    estimate.begin(scans[1].source)
    clock.now += 3.0  # half way through the second, by the clock alone (pictures tell no page)
    # 200 kB in 9 s so far; 600 kB left at that pace
    assert estimate.seconds_left() == pytest.approx(600_000 * 9.0 / 200_000)
    estimate.advance(scans[1].source, 1, 2)  # a two-page scan, its first page done
    assert estimate.seconds_left() == pytest.approx(500_000 * 9.0 / 300_000)


def test_a_file_read_ahead_counts_with_its_kind() -> None:
    """The next file is read while the last is saved: its progress comes before it is taken,
    and the time of that reading is counted in the file before it, of the same kind."""
    clock = Clock()
    pdfs = [planned(f"p{n}.pdf", "pdf", 100_000) for n in range(3)]
    estimate = TimeLeft(pdfs, clock)
    estimate.begin(pdfs[0].source)
    clock.now += 4.0
    estimate.advance(pdfs[0].source, 10, 10)  # read: now it is embedded and saved
    estimate.advance(pdfs[1].source, 5, 10)  # read ahead meanwhile
    clock.now += 2.0
    # 150 kB of pdf work in 6 s; 150 kB left
    assert estimate.seconds_left() == pytest.approx(150_000 * 6.0 / 150_000)
