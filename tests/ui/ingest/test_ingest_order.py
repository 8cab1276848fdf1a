"""A mixed folder dropped on the real ingest panel: its notes are added and searchable, and the
library told, before its scan and its recording are read (although by name the attachments
come first); the rows say what is really happening. A run cut short by a lock is offered
again after the unlock, and Resume adds the rest. Real vault, embedder, Tesseract, Whisper and
the run's child process; the scan and the recording come from the shared corpus."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cairn.app.api import IngestProgress, IngestReport
from cairn.ui.base.session import Session
from cairn.ui.ingest.panel import IngestPanel
from tests.app import ingest_files as files
from tests.conftest import PASSPHRASE

RUN_TIMEOUT_MS = 180_000
SCAN = "04_ocr/tesseract_test/phototest.tif"  # "This is a lot of 12 point text to test the..."
RECORDING = "03_audio/speechbrain_asr_samples/spk1_snt1.wav"  # "The child almost hurt the..."


@pytest.fixture
def panel(qtbot, open_session: Session) -> IngestPanel:
    widget = IngestPanel(open_session)
    qtbot.addWidget(widget)
    return widget


def _names(panel: IngestPanel) -> dict[str, str]:
    return {Path(path).name: state for path, (state, _) in panel.file_rows().items()}


@pytest.mark.ocr
@pytest.mark.audio
def test_notes_are_searchable_before_the_scan_and_the_recording_are_read(
    qtbot, panel: IngestPanel, open_session: Session, tmp_path: Path, corpus: Path
) -> None:
    vault = files.write(
        tmp_path / "Harbour vault",
        {
            "Harbour.md": "# Harbour\n\nThe crane broke again; see [[Tides]].\n\n![[scan.tif]]\n",
            "Tides.md": "# Tides\n\nSpring tides peak in March at the north harbour.\n",
        },
    )
    (vault / ".obsidian").mkdir()
    (vault / "Attachments").mkdir()
    shutil.copy(corpus / SCAN, vault / "Attachments" / "scan.tif")
    shutil.copy(corpus / RECORDING, vault / "Attachments" / "a-memo.wav")
    service = open_session.service
    assert service is not None
    changed: list[int] = []
    open_session.changed.connect(lambda: changed.append(len(changed)))
    read: list[str] = []
    at_scan: dict[str, object] = {}
    memo_words: set[str] = set()

    def watch(event: IngestProgress) -> None:
        name = Path(event.current).name if event.current else ""
        if event.stage == "reading":
            read.append(name)
        if event.stage == "reading" and name == "scan.tif":
            at_scan["rows"] = _names(panel)
            at_scan["changed"] = len(changed)
            hits = service.search("spring tides march", scopes=["personal"], limit=5).results
            at_scan["found"] = {Path(str(hit.source)).name for hit in hits}
        if name == "a-memo.wav" and event.stage != "scanning":
            memo_words.add(panel.file_states()[str(event.current)])
        if event.stage == "done":
            at_scan["changed by the end"] = len(changed)

    panel.progressed.connect(watch)
    with qtbot.waitSignal(panel.finished, timeout=RUN_TIMEOUT_MS) as finished:
        panel.start([str(vault)])
    report: IngestReport = finished.args[0]

    assert report.counts() == {"ingested": 4}, report.failed
    # By cost, not by name: the notes, then the scan (OCR), then the recording (Whisper).
    assert read == ["Harbour.md", "Tides.md", "scan.tif", "a-memo.wav"]
    rows = at_scan["rows"]
    assert isinstance(rows, dict)
    assert rows["Harbour.md"] == rows["Tides.md"] == "done"
    assert rows["scan.tif"] == "reading" and rows["a-memo.wav"] == "queued"
    assert "Tides.md" in at_scan["found"]  # type: ignore[operator]
    # The library was told while the scan and the recording were still being read.
    assert at_scan["changed by the end"] >= 1  # type: ignore[operator]
    assert any(words.startswith("Transcribing 00:0") for words in memo_words), memo_words
    assert _names(panel) == dict.fromkeys(
        ("Harbour.md", "Tides.md", "scan.tif", "a-memo.wav"), "done"
    )
    hits = service.search("child almost hurt the small dog", scopes=["personal"], limit=5).results
    assert any(str(hit.source).endswith("a-memo.wav") for hit in hits)
    assert panel.bar_value == 1.0


def test_a_run_cut_short_by_a_lock_is_offered_again_after_the_unlock(
    qtbot, panel: IngestPanel, open_session: Session, tmp_path: Path
) -> None:
    folder = files.write(
        tmp_path / "Journal",
        {f"day_{n:02d}.md": f"# Day {n}\n\n{files.prose(f'day {n}', 10)}\n" for n in range(12)},
    )
    events: list[IngestProgress] = []
    panel.progressed.connect(events.append)
    panel.start([str(folder)])
    qtbot.waitUntil(lambda: any(e.stage == "embedding" for e in events), timeout=RUN_TIMEOUT_MS)
    open_session.lock()  # mid-run: the run stops, and the panel forgets what it showed
    assert panel.file_rows() == {} and not panel.resume_bar.isVisibleTo(panel)

    vault_path = open_session.path
    assert vault_path is not None
    with qtbot.waitSignal(open_session.unlocked, timeout=30_000):
        open_session.open(vault_path, PASSPHRASE)
    qtbot.waitUntil(lambda: panel.resume_bar.isVisibleTo(panel), timeout=10_000)
    assert "“Journal” was stopped before it finished" in panel.resume_bar.label.text()

    with qtbot.waitSignal(panel.finished, timeout=RUN_TIMEOUT_MS) as finished:
        panel.resume_bar.resume_button.click()
    report: IngestReport = finished.args[0]
    assert not report.cancelled
    assert report.count("ingested") + report.count("unchanged") == 12
    assert report.count("ingested") >= 1  # the lock left files to add
    service = open_session.service
    assert service is not None and service.unfinished_ingests() == []
    assert len(service.sources()) == 12
