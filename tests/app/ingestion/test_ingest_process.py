"""An ingest run in a child process (the window's way): the same vault file, the same key, the
same result as in-process; progress and the report come back through the pipe, the window's
search sees the child's rows (text and vectors); cancelling keeps what was committed; closing
the service stops the child, and a rerun completes. Real vault, embedder and processes."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.ingestion.process import IngestStopped
from cairn.app.ingestion.report import CancelToken, IngestProgress
from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService
from tests.app import ingest_files as files
from tests.conftest import PASSPHRASE

ALL = ["personal"]


def test_a_run_in_a_child_process_is_searchable_here(
    service: MemoryService, tmp_path: Path
) -> None:
    folder = files.write(
        tmp_path / "folder",
        {
            "lighthouse.md": "# Lighthouse\n\nThe keeper logs every passing ship in a book.\n",
            "report.pdf": files.pdf_bytes([["Storm shutters are checked before winter."]]),
            "budget.txt": "The finance team reviews the quarterly budget on Thursday.\n",
        },
    ).resolve()
    events: list[IngestProgress] = []
    report = service.ingest(
        IngestRequest.of([folder]), progress=events.append, separate_process=True
    )
    assert report.counts() == {"ingested": 3}, report.as_dict()
    assert {e.stage for e in events} >= {"scanning", "reading", "embedding", "writing", "done"}
    rows = service.sources()
    assert sorted(Path(r.path).name for r in rows) == [
        "budget.txt",
        "lighthouse.md",
        "report.pdf",
    ]
    # The words and the meaning: the vector leg finds it too (this process's index caught up
    # with the child's rows).
    hits = service.search("lighthouse keeper", scopes=ALL).results
    assert hits and "keeper" in hits[0].snippet
    assert hits[0].ranks["vector"] is not None
    meaning = service.search("money planning meeting", scopes=ALL).results
    budget = [hit for hit in meaning if "budget" in (hit.title + hit.snippet).lower()]
    assert budget and budget[0].ranks["vector"] is not None and budget[0].ranks["text"] is None
    assert service.verify().ok
    # A rerun here (in-process) sees the child's source rows: nothing to do.
    again = service.ingest(IngestRequest.of([folder]))
    assert again.counts() == {"unchanged": 3}


def test_cancel_reaches_the_child_and_a_rerun_finishes(
    service: MemoryService, tmp_path: Path
) -> None:
    names = [f"{n:02d}.txt" for n in range(12)]
    folder = files.write(
        tmp_path / "folder", {name: files.prose(name, 4) + "\n" for name in names}
    ).resolve()
    cancel = CancelToken()

    def progress(event: IngestProgress) -> None:
        if event.stage == "embedding":  # the first file is read: stop soon after
            cancel.cancel()

    report = service.ingest(
        IngestRequest.of([folder]), progress=progress, cancel=cancel, separate_process=True
    )
    assert report.cancelled
    done = {Path(o.path).name for o in report.files if o.state == "ingested"}
    assert 1 <= len(done) < len(names)
    assert {Path(r.path).name for r in service.sources()} == done
    assert service.verify().ok
    rest = service.ingest(IngestRequest.of([folder]), separate_process=True)
    assert rest.counts() == {"unchanged": len(done), "ingested": len(names) - len(done)}


def test_closing_the_service_stops_the_child_and_the_vault_stays_whole(
    tmp_path: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAIRN_DATA_DIR", str(tmp_path / "data"))
    vault_path = tmp_path / "vault.cairn"
    service = compose.create_vault(vault_path, PASSPHRASE, embedder=embedder)
    names = [f"{n:02d}.md" for n in range(40)]
    folder = files.write(
        tmp_path / "folder", {name: files.prose(name, 6) + "\n" for name in names}
    ).resolve()
    writing = threading.Event()
    outcome: list[BaseException | None] = []

    def progress(event: IngestProgress) -> None:
        if event.stage == "writing":
            writing.set()

    def run() -> None:
        try:
            service.ingest(IngestRequest.of([folder]), progress=progress, separate_process=True)
        except BaseException as error:  # the test looks at what it was
            outcome.append(error)
        else:
            outcome.append(None)

    thread = threading.Thread(target=run)
    thread.start()
    assert writing.wait(120)
    started = time.monotonic()
    service.close()  # what the lock does: the child is told to stop, then ended
    thread.join(30)
    assert not thread.is_alive()
    print(f"stopped in {time.monotonic() - started:.2f} s")
    assert time.monotonic() - started < 15
    # Either the child finished the file it was on and sent its (cancelled) report, or it was
    # ended: both leave the vault whole.
    assert outcome and (outcome[0] is None or isinstance(outcome[0], IngestStopped))
    reopened = compose.open_vault(vault_path, PASSPHRASE, embedder=embedder)
    try:
        assert reopened.verify().ok
        kept = reopened.sources()
        assert len(kept) < len(names)
        rest = reopened.ingest(IngestRequest.of([folder]))
        assert rest.counts()["ingested"] == len(names) - len(kept)
        assert len(reopened.sources()) == len(names)
    finally:
        reopened.close()
