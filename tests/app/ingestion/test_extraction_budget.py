"""The extraction worker stops a file that takes too long or needs too much memory, and the
next file is read by a fresh worker: one file never costs the run."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from cairn.app.ingestion.extraction import ExtractionSettings, ExtractionWorker, Stopped, kind_of
from cairn.ingest.document import ExtractionError


def _note(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_file_over_its_time_budget_is_stopped_and_the_next_one_is_read(tmp_path: Path) -> None:
    slow = _note(tmp_path, "slow.md", "# Slow\n\nA note.\n")
    quick = _note(tmp_path, "quick.md", "# Quick\n\nAnother note.\n")
    # A budget far below the worker's own start-up time: the first file cannot make it.
    worker = ExtractionWorker(ExtractionSettings(time_scale=1e-6))
    try:
        with pytest.raises(ExtractionError, match="took longer than"):
            worker.extract(slow)
    finally:
        worker.close()
    worker = ExtractionWorker(ExtractionSettings())
    try:
        assert worker.extract(quick).title == "Quick"
        assert worker.extract(slow).title == "Slow"  # the same worker reads file after file
    finally:
        worker.close()


def test_a_file_over_its_memory_budget_is_stopped(tmp_path: Path) -> None:
    note = _note(tmp_path, "note.md", "# Note\n\nText.\n")
    # A Python process needs more than 1 MiB resident: the budget is crossed at once.
    worker = ExtractionWorker(ExtractionSettings(memory_mib=1))
    try:
        with pytest.raises(ExtractionError, match="MiB of memory"):
            worker.extract(note)
    finally:
        worker.close()


def test_cancelling_stops_the_file_being_read(tmp_path: Path) -> None:
    note = _note(tmp_path, "note.md", "# Note\n\nText.\n")
    worker = ExtractionWorker(ExtractionSettings())
    try:
        with pytest.raises(Stopped):
            worker.extract(note, should_stop=lambda: True)
        assert worker.extract(note).title == "Note"  # a new worker takes over
    finally:
        worker.close()


def test_a_worker_whose_starting_thread_ended_is_started_again(tmp_path: Path) -> None:
    """The worker ends with the thread that started it (so it dies with a killed parent): a
    file read later from another thread gets a fresh worker, not a dead one's failure."""
    note = _note(tmp_path, "note.md", "# Note\n\nText.\n")
    worker = ExtractionWorker(ExtractionSettings())
    titles: list[str] = []
    try:
        reader = threading.Thread(target=lambda: titles.append(worker.extract(note).title))
        reader.start()
        reader.join()
        assert worker.extract(note).title == "Note"
        assert titles == ["Note"]
    finally:
        worker.close()


def test_the_budget_grows_with_the_file_and_its_kind() -> None:
    settings = ExtractionSettings()
    assert settings.time_budget("audio", 50 * 2**20) > settings.time_budget("text", 50 * 2**20)
    assert settings.time_budget("pdf", 2**20) < settings.time_budget("pdf", 100 * 2**20)
    assert kind_of(Path("a.FLAC")) == "audio" and kind_of(Path("a.mp4")) == "audio"
    assert kind_of(Path("scan.tiff")) == "image" and kind_of(Path("x.unknown")) is None
