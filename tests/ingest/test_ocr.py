"""The OCR engine and the PDF hook: Tesseract's TSV rebuilt into lines and confidence; scanned
PDF pages read from their images (JBIG2 through jbig2dec's pipes, never pypdf's temporary
folder), close to the reference text; oversized images left unread with a warning."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pypdf.filters
import pytest
from PIL import Image
from pypdf import PdfReader, PdfWriter
from pypdf.generic import NameObject, NumberObject

from cairn.ingest import ocr, pdf, pdf_images
from cairn.ingest.document import ExtractionError

pytestmark = pytest.mark.ocr

SCANS = "05_documents/ocrmypdf_scanned"
SIMILAR = Callable[[str, str], float]
TextImage = Callable[..., Image.Image]
_TSV_HEADER = (
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
)


def _word(block: int, par: int, line: int, number: int, conf: float, text: str) -> str:
    return f"5\t1\t{block}\t{par}\t{line}\t{number}\t0\t0\t10\t10\t{conf}\t{text}"


def _scanned_pdf(picture: Image.Image) -> bytes:
    """A PDF whose one page is only a picture, as a scanner makes it (no text layer)."""
    buffer = io.BytesIO()
    picture.save(buffer, format="PDF", resolution=200)
    return buffer.getvalue()


def test_tesseracts_tsv_becomes_lines_paragraphs_and_a_mean_confidence() -> None:
    tsv = "\n".join(
        [
            _TSV_HEADER,
            "1\t1\t0\t0\t0\t0\t0\t0\t640\t480\t-1\t",  # the page, a block, ...: not words
            _word(1, 1, 1, 1, 96.0, "The"),
            _word(1, 1, 1, 2, 90.0, "quick"),
            _word(1, 1, 2, 1, 84.0, "brown"),
            _word(1, 1, 2, 2, -1, " "),  # a space Tesseract found no word in
            _word(1, 2, 1, 1, 70.0, "fox."),
        ]
    )
    assert ocr.words_from_tsv(tsv) == ("The quick\nbrown\n\nfox.", 85.0, 4)
    assert ocr.words_from_tsv(_TSV_HEADER) == ("", None, 0)


def test_confidence_is_kept_and_a_poor_or_empty_page_is_named() -> None:
    pages = {
        1: ocr.PageText("clear text", 95.0, 300),
        2: ocr.PageText("m1sre4d", 30.0, 100),
        3: ocr.PageText("", None, 0),
    }
    metadata, warnings = ocr.summarise(pages)
    assert metadata["ocr_confidence"] == 78.8  # over words: (95 * 300 + 30 * 100) / 400
    assert metadata["ocr_pages"] == [
        {"page": 1, "confidence": 95.0, "words": 300},
        {"page": 2, "confidence": 30.0, "words": 100},
        {"page": 3, "confidence": None, "words": 0},
    ]
    assert warnings == [
        "page 2 was read with low confidence (30/100): its text may be wrong in places; a "
        "sharper scan or photo reads better",
        "no text was found on page(s) 3 (a picture without writing?)",
    ]


@pytest.mark.parametrize("languages", [(), ("english; rm -rf",), ("",)])
def test_settings_refuse_what_is_not_a_language_name(languages: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match="language"):
        ocr.OcrSettings(languages=languages)


@pytest.mark.parametrize("hook", [ocr.pdf_page_ocr(ocr.OcrSettings()), ocr.ocr_pdf_page])
def test_a_scanned_pdf_page_is_read_from_its_image(
    text_image: TextImage, word_similarity: SIMILAR, hook: pdf.PageOcr
) -> None:
    lines = ["Minutes of the garden committee", "The pond will be cleaned in May."]
    doc = pdf.extract(_scanned_pdf(text_image(lines, mode="1")), "minutes.pdf", ocr_page=hook)
    assert word_similarity(doc.text, " ".join(lines)) >= 0.9
    assert [s.locator.page for s in doc.segments] == [1]
    assert doc.warnings == ()
    assert doc.metadata["ocr_confidence"] > 80
    assert doc.metadata["ocr_pages"][0]["page"] == 1


def test_an_oversized_image_on_a_pdf_page_is_left_unread_with_a_warning(
    text_image: TextImage,
) -> None:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(_scanned_pdf(text_image(["Big"])))))
    for stream in writer.pages[0]["/Resources"]["/XObject"].values():
        picture = stream.get_object()  # says 50 MP; its pixels are never decoded
        picture[NameObject("/Width")] = NumberObject(10_000)
        picture[NameObject("/Height")] = NumberObject(5_000)
    buffer = io.BytesIO()
    writer.write(buffer)
    doc = pdf.extract(buffer.getvalue(), "poster.pdf", ocr_page=ocr.pdf_page_ocr())
    assert doc.segments == ()
    assert doc.warnings == (
        "page 1: an image of 50 megapixels was left unread; Cairn reads images up to 40 megapixels",
    )


def test_a_pdf_with_a_text_layer_never_needs_tesseract(corpus: Path) -> None:
    path = corpus / "05_documents/py-pdf_sample-files/001-trivial/minimal-document.pdf"
    hook = ocr.pdf_page_ocr(ocr.OcrSettings(tesseract_cmd="/nonexistent/tesseract"))
    assert pdf.extract(path.read_bytes(), path.name, ocr_page=hook).text


def test_a_scanned_pdf_without_tesseract_fails_with_what_to_install(
    text_image: TextImage,
) -> None:
    hook = ocr.pdf_page_ocr(ocr.OcrSettings(tesseract_cmd="/nonexistent/tesseract"))
    with pytest.raises(ExtractionError, match=r"^Tesseract is not installed: install it"):
        pdf.extract(_scanned_pdf(text_image(["Scan"])), "scan.pdf", ocr_page=hook)


def test_a_jbig2_scan_without_jbig2dec_fails_with_what_to_install(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pdf_images.shutil, "which", lambda _name: None)
    path = corpus / SCANS / "linn.pdf"
    with pytest.raises(ExtractionError, match=r"apt-get install jbig2dec"):
        pdf.extract(path.read_bytes(), path.name, ocr_page=ocr.pdf_page_ocr())


def test_pypdf_is_never_let_run_jbig2dec_through_a_temporary_folder(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def temporary_folder(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("pypdf wrote the scan to a temporary folder for jbig2dec")

    monkeypatch.setattr(pypdf.filters, "TemporaryDirectory", temporary_folder)
    monkeypatch.setattr(pdf_images, "_filters", lambda _stream: [])  # JBIG2 gone unnoticed
    page = PdfReader(corpus / SCANS / "linn.pdf").pages[0]
    assert list(pdf_images.page_images(page, ocr.MAX_PIXELS)) == [
        "an image could not be decoded: jbig2dec binary is not available."
    ]


@pytest.mark.slow
@pytest.mark.parametrize("scan", ["linn.pdf", "ccitt.pdf", "skew.pdf"])
def test_scanned_pdfs_match_their_reference_text(
    corpus: Path,
    scan: str,
    word_similarity: SIMILAR,
    no_temporary_files: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """linn and skew hold a JBIG2 scan, ccitt the same page as CCITT G4."""
    if scan != "ccitt.pdf" and shutil.which("jbig2dec") is None:
        pytest.skip("jbig2dec is not installed (apt-get install jbig2dec): this scan is JBIG2")

    def through_a_temporary_folder(*_args: Any, **_kwargs: Any) -> bytes:
        raise AssertionError("pypdf's JBIG2 decoder writes the scan to a temporary folder")

    monkeypatch.setattr(pypdf.filters.JBIG2Decode, "decode", through_a_temporary_folder)
    path = corpus / SCANS / scan
    doc = pdf.extract(path.read_bytes(), path.name, ocr_page=ocr.pdf_page_ocr())
    expected = (corpus / SCANS / "linn.txt").read_text(encoding="utf-8")
    assert word_similarity(doc.text, expected) >= 0.9
    assert [s.locator.page for s in doc.segments] == [1]
    assert doc.warnings == ()
    assert doc.metadata["ocr_confidence"] > 80
    assert not no_temporary_files.exists()
