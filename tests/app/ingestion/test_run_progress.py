"""What a run tells as it goes: a long file's own progress (pages, seconds of a recording), each
file's outcome as soon as it is final, what is stored while a slow file is still being read;
and the runs that did not finish, kept in the vault until a run of their paths does. Real
vault, real embedder, real extraction worker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn.app.ingestion.report import CancelToken, IngestProgress
from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService
from tests.app import ingest_files as files


def test_a_pdf_tells_its_pages_and_each_file_is_settled_when_it_is_stored(
    service: MemoryService, tmp_path: Path
) -> None:
    folder = files.write(
        tmp_path / "papers",
        {
            "notes.md": "# Notes\n\nThe crane at the harbour broke again.\n",
            "report.pdf": files.pdf_bytes([[f"Page {n} of the harbour report."] for n in range(5)]),
        },
    ).resolve()
    events: list[IngestProgress] = []
    report = service.ingest(IngestRequest.of([folder]), progress=events.append)
    assert report.counts() == {"ingested": 2}

    pages = [e for e in events if e.stage == "file_progress"]
    assert pages, "the PDF reader told nothing of its pages"
    assert {(e.current, e.unit, e.total_units) for e in pages} == {
        (str(folder / "report.pdf"), "page", 5.0)
    }
    assert all(0 <= e.done_units < 5 for e in pages)
    reading = [e for e in events if e.stage == "reading"]
    assert [(Path(str(e.current)).name, e.unit) for e in reading] == [
        ("notes.md", ""),
        ("report.pdf", "page"),
    ]
    # Every file's outcome was told once, in an event that says memories were stored.
    settled = [(o.path, o.state) for e in events for o in e.settled]
    assert sorted(settled) == sorted((o.path, o.state) for o in report.files)
    assert all(e.stored for e in events if any(o.state == "ingested" for o in e.settled))
    assert events[-1].stage == "done" and events[-1].seconds_left == 0.0  # nothing left


@pytest.mark.audio
def test_a_recording_tells_the_seconds_transcribed(service: MemoryService, tmp_path: Path) -> None:
    folder = files.write(tmp_path / "memos", {"tone.wav": files.tone_wav(3.0)}).resolve()
    events: list[IngestProgress] = []
    service.ingest(IngestRequest.of([folder]), progress=events.append)
    told = [e for e in events if e.stage == "file_progress"]
    assert told and {(e.unit, e.total_units) for e in told} == {("second", 3.0)}
    assert [e.unit for e in events if e.stage == "reading"] == ["second"]


@pytest.mark.ocr
def test_what_was_read_is_stored_while_a_slow_scan_is_read(
    service: MemoryService, tmp_path: Path
) -> None:
    quick = files.text_png(["Receipt 1182", "Rope and two shackles"])
    if quick is None:
        pytest.skip("DejaVu Sans is not installed: no picture of text to read")
    folder = files.write(
        tmp_path / "scans",
        {
            "a-receipt.png": quick,
            "b-fax.tif": files.slow_scan_tiff(["Fax from the boatyard"], noise_pages=2),
        },
    ).resolve()
    events: list[IngestProgress] = []
    report = service.ingest(IngestRequest.of([folder]), progress=events.append)
    assert report.counts() == {"ingested": 2}

    def first(found: object) -> int:
        return next(i for i, e in enumerate(events) if found(e))  # type: ignore[operator]

    receipt = str(folder / "a-receipt.png")
    stored = first(lambda e: any(o.path == receipt for o in e.settled))
    assert events[stored].stored
    fax_read = first(lambda e: e.stage == "embedding" and e.current == str(folder / "b-fax.tif"))
    assert stored < fax_read  # the receipt was searchable while the fax was still read
    fax_pages = [e for e in events if e.stage == "file_progress" and e.unit == "page"]
    assert fax_pages and {e.total_units for e in fax_pages} == {3.0}


def test_a_stopped_run_is_kept_until_a_run_of_its_paths_finishes(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = files.write(
        tmp_path / "notes", {f"n{n}.txt": files.prose(f"left {n}", 3) for n in range(4)}
    ).resolve()
    monkeypatch.chdir(tmp_path)  # named relative to the working folder, kept absolute
    cancel = CancelToken()

    def stop_at_the_first(event: IngestProgress) -> None:
        if event.stage == "embedding":
            cancel.cancel()

    report = service.ingest(IngestRequest.of(["notes"]), progress=stop_at_the_first, cancel=cancel)
    assert report.cancelled
    assert service.unfinished_ingests() == [IngestRequest.of([str(folder)])]

    # A dry run, or another folder's run, finishes nothing of it.
    service.ingest(IngestRequest.of([folder], dry_run=True))
    other = files.write(tmp_path / "other", {"o.txt": files.prose("other", 2)})
    service.ingest(IngestRequest.of([other]))
    assert service.unfinished_ingests() == [IngestRequest.of([str(folder)])]

    # The vault's own state, not a memory: an export leaves it out.
    service.export(tmp_path / "out", format="jsonl")
    lines = (tmp_path / "out" / "memories.jsonl").read_text(encoding="utf-8").splitlines()
    keys = {json.loads(line).get("key") for line in lines if '"setting"' in line}
    assert "ingest.unfinished" not in keys

    resumed = service.ingest(service.unfinished_ingests()[0])
    assert not resumed.cancelled and resumed.count("ingested") == 4 - report.count("ingested")
    assert service.unfinished_ingests() == []


def test_unfinished_runs_are_kept_by_scope_and_can_be_let_go(
    service: MemoryService, tmp_path: Path
) -> None:
    service.add_scope("work")
    first = files.write(tmp_path / "home", {"h.txt": files.prose("home", 2)}).resolve()
    second = files.write(tmp_path / "desk", {"d.txt": files.prose("desk", 2)}).resolve()
    for folder, scope in ((first, "personal"), (second, "work")):
        cancel = CancelToken()
        cancel.cancel()  # stopped before it read anything
        assert service.ingest(IngestRequest.of([folder], scope=scope), cancel=cancel).cancelled
    assert service.unfinished_ingests() == [
        IngestRequest.of([str(first)], scope="personal"),
        IngestRequest.of([str(second)], scope="work"),
    ]
    # Its files added another way, the folder's run reads nothing, and still finishes it.
    service.ingest(IngestRequest.of([first / "h.txt"]))
    assert service.ingest(IngestRequest.of([first])).counts() == {"unchanged": 1}
    assert service.unfinished_ingests() == [IngestRequest.of([str(second)], scope="work")]

    service.forget_unfinished_ingests()
    assert service.unfinished_ingests() == []
    assert [Path(row.path).name for row in service.sources()] == ["h.txt"]  # nothing removed
