"""What the ingest panel says of a run's events: the page or time a file is at, the line over
the bar, the time left (only once the run can tell it), and a stopped run's summary."""

from __future__ import annotations

from cairn.app.api import FileOutcome, IngestProgress, IngestReport
from cairn.ui.ingest.words import clock, reading_words, stage_line, summarize, time_left


def event(
    stage: str,
    current: str | None = None,
    *,
    done_units: float = 0.0,
    total_units: float = 0.0,
    unit: str = "",
) -> IngestProgress:
    return IngestProgress(stage, 3, 40, 1000, 9000, current, done_units, total_units, unit)


def test_a_file_says_the_page_or_the_time_it_is_at() -> None:
    pdf = event("file_progress", "/docs/linn.pdf", done_units=11, total_units=80, unit="page")
    assert reading_words(pdf) == "Reading page 12 of 80"
    assert stage_line(pdf) == "Reading linn.pdf: page 12 of 80"
    memo = event("file_progress", "/rec/talk.mp3", done_units=190, total_units=2460, unit="second")
    assert reading_words(memo) == "Transcribing 03:10 of 41:00"
    assert stage_line(memo) == "Transcribing talk.mp3: 03:10 of 41:00"
    assert reading_words(event("reading", "/rec/talk.mp3", unit="second")) == "Transcribing…"
    assert stage_line(event("reading", "/rec/talk.mp3", unit="second")) == "Transcribing talk.mp3"
    assert reading_words(event("reading", "/n/a.md")) == "Reading…"
    assert stage_line(event("reading", "/n/a.md")) == "Reading a.md"
    last = event("file_progress", "/docs/linn.pdf", done_units=80, total_units=80, unit="page")
    assert reading_words(last) == "Reading page 80 of 80"
    assert clock(3 * 3600 + 62) == "3:01:02"


def test_saving_and_the_stages_without_a_file() -> None:
    part = event("writing", "/docs/big.md", done_units=256, total_units=1024, unit="passage")
    assert stage_line(part) == "Saving big.md: 256 of 1,024 passages"
    assert stage_line(event("writing")) == "Saving to the vault"
    assert stage_line(event("embedding", "/n/a.md")) == "Preparing a.md for search"
    assert stage_line(event("linking")) == "Linking notes to each other"


def test_the_time_left_is_said_only_when_known() -> None:
    assert time_left(None) == ""
    assert time_left(12) == "less than a minute left"
    assert time_left(61) == "about 1 minute left"
    assert time_left(4 * 60 + 20) == "about 4 minutes left"
    assert time_left(2 * 3600 + 5 * 60) == "about 2 h 05 min left"


def test_a_stopped_run_says_what_was_added_and_what_is_left() -> None:
    report = IngestReport(
        files=[
            FileOutcome("/n/a.md", "new", "ingested", "d1", 2),
            FileOutcome("/n/b.md", "new", "cancelled"),
            FileOutcome("/n/c.png", "new", "cancelled"),
        ],
        cancelled=True,
    )
    assert summarize(report) == (
        "Stopped as you asked: 1 file added. 2 files left to add; Resume adds them."
    )
    assert summarize(report, resumable=False).endswith(
        "2 files left to add; the watcher adds them when the vault is next unlocked."
    )
    report.files.pop()
    assert summarize(report).endswith("1 file left to add; Resume adds it.")
