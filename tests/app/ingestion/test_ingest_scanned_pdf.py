"""A scanned PDF under a scanner's stamp, through the whole ingest: a real vault, the extraction
worker and real Tesseract. The scan's words are found, the title is the file's name and not the
placeholder the program wrote, and a page nothing could be read from is in the file's outcome."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService
from tests.ingest import pdf_files as files
from tests.ingest.conftest import TextImage, text_image

pytestmark = pytest.mark.ocr

__all__ = ["text_image"]  # the ingest tests' fixture that draws lines of text, used here too

ALL = ["personal"]
STAMP = files.Text(("Scanned with CamScanner",))


def test_a_stamped_scan_is_read_and_a_picture_page_is_named(
    service: MemoryService, tmp_path: Path, text_image: TextImage
) -> None:
    letter = text_image(["The boathouse roof was mended", "on Saturday by the volunteers."])
    photo = Image.linear_gradient("L").resize((600, 800))
    ImageDraw.Draw(photo).ellipse((100, 200, 500, 600), fill=60)
    path = tmp_path / "boathouse.pdf"
    path.write_bytes(
        files.pdf(
            [
                files.Page((files.full_page(letter),), (STAMP,)),
                files.Page((files.full_page(photo),), (STAMP,)),
            ],
            info={"Title": "Untitled document"},
        )
    )
    (outcome,) = service.ingest(IngestRequest.of([path])).files
    assert outcome.state == "ingested", outcome
    assert outcome.warnings == [
        "page 2 is mostly an image, and little of its text could be read: its text layer holds "
        "only 23 characters and OCR found no words; a sharper scan reads better (or the image "
        "holds no writing)"
    ]
    document = service.get([outcome.document_id], scopes=ALL).nodes[0].node
    assert document.title == "boathouse"
    hits = service.search("boathouse roof mended by volunteers", scopes=ALL).results
    assert hits and hits[0].source == str(path)
