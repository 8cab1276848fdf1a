"""A run reads text first and pictures and recordings last, by what each format declares its
reading costs, in the same order every time; the notes are stored and linked before the
pictures are read, and their links to the pictures are made once those are read. Real vault,
real embedder, real extraction worker and Tesseract."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.app.ingestion.extraction import cost_of
from cairn.app.ingestion.plan import make_plan
from cairn.app.ingestion.report import IngestProgress
from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService
from cairn.ingest import formats
from cairn.ingest.format_declaration import Cost
from cairn.storage.vault import Vault
from tests.app import ingest_files as files

ALL = ["personal"]


def test_each_reader_declares_what_reading_costs() -> None:
    costs = {format_.name: format_.cost for format_ in formats.registry().formats}
    assert costs["text"] == costs["html"] == costs["docx"] == costs["email"] == Cost.TEXT
    assert costs["code"] == costs["epub"] == costs["odt"] == costs["whatsapp"] == Cost.TEXT
    assert costs["pdf"] == Cost.PAGES
    assert costs["image"] == Cost.OCR
    assert costs["audio"] == Cost.TRANSCRIPTION
    units = {format_.name: format_.unit for format_ in formats.registry().formats}
    assert units["pdf"] == units["image"] == "page" and units["audio"] == "second"
    assert units["text"] == ""


def test_the_plan_reads_text_then_pdfs_then_pictures_then_recordings(
    vault: Vault, tmp_path: Path
) -> None:
    folder = files.write(
        tmp_path / "vault",
        {
            "Attachments/a-memo.wav": files.tone_wav(0.5),
            "Attachments/b-scan.png": files.huge_png(40, 20),
            "Attachments/c-report.pdf": files.pdf_bytes([["A page."]]),
            "Journal.md": "# Journal\n\nA day at the harbour.\n",
            "letter.docx": files.docx_bytes(["Dear reader."]),
            "zz-last.txt": "The last note by name.\n",
        },
    )
    plan = make_plan(vault, [folder], "personal")
    order = [Path(planned.source).name for planned in plan.files]
    assert order == [
        "Journal.md",
        "letter.docx",
        "zz-last.txt",
        "c-report.pdf",
        "b-scan.png",
        "a-memo.wav",
    ]
    costs = [cost_of(planned.kind) for planned in plan.files]
    assert costs == sorted(costs)
    again = make_plan(vault, [folder], "personal")  # the same files, the same order
    assert [planned.source for planned in again.files] == [p.source for p in plan.files]


@pytest.mark.ocr
def test_notes_are_stored_and_linked_before_the_pictures_they_embed_are_read(
    service: MemoryService, tmp_path: Path
) -> None:
    scan = files.text_png(["Invoice 4471", "Harbour crane repair"])
    if scan is None:
        pytest.skip("DejaVu Sans is not installed: no picture of text to read")
    folder = files.write(
        tmp_path / "Vault",
        {
            "Attachments/crane.png": scan,
            "Harbour.md": "# Harbour\n\nThe crane broke again; see [[Tides]].\n\n![[crane.png]]\n",
            "Tides.md": "# Tides\n\nSpring tides peak in March at the north harbour.\n",
        },
    ).resolve()
    (folder / ".obsidian").mkdir()
    when_the_picture_is_read: dict[str, object] = {}

    def watch(event: IngestProgress) -> None:
        if event.stage == "reading" and event.current and event.current.endswith("crane.png"):
            hits = service.search("spring tides march", scopes=ALL, limit=5).results
            when_the_picture_is_read["found"] = [hit.source for hit in hits]
            when_the_picture_is_read["links"] = _links_from(service, folder / "Harbour.md")

    report = service.ingest(IngestRequest.of([folder]), progress=watch)
    assert report.counts() == {"ingested": 3}
    # The notes were searchable, and linked to each other, before the picture was read.
    assert str(folder / "Tides.md") in when_the_picture_is_read["found"]  # type: ignore[operator]
    assert when_the_picture_is_read["links"] == {"Tides"}
    # Once the picture is read, the note's embed of it is a link to its Document; no stub.
    assert _links_from(service, folder / "Harbour.md") == {"Tides", "crane"}
    assert service.list_memories(scopes=ALL, statuses=["stub"]) == []
    assert report.stubs == 0


def _links_from(service: MemoryService, note: Path) -> set[str]:
    """The titles of what the note's Document links to (``references``)."""
    document = next(row.document_id for row in service.sources() if row.path == str(note))
    reach = service.traverse(
        document, scopes=ALL, direction="out", edge_types=["references"], depth=1
    )
    return {node.title for node in reach.nodes if node.id != document}
