"""PDF text layers with pypdf, page by page, on the py-pdf sample files; scans are named for OCR
and a broken file fails alone with the reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cairn.ingest import pdf
from cairn.ingest.document import ExtractionError

SAMPLES = "05_documents/py-pdf_sample-files"
_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


@pytest.mark.parametrize(
    "sample",
    [
        "001-trivial/minimal-document.pdf",
        "002-trivial-libre-office-writer/002-trivial-libre-office-writer.pdf",
        "004-pdflatex-4-pages/pdflatex-4-pages.pdf",
        "011-google-doc-document/google-doc-document.pdf",
        "021-pdfa/crazyones-pdfa.pdf",
        "026-latex-multicolumn/multicolumn.pdf",
    ],
)
def test_text_layers_match_the_reference_extraction(corpus: Path, sample: str) -> None:
    path = corpus / SAMPLES / sample
    doc = pdf.extract(path.read_bytes(), path.name)
    reference = (corpus / SAMPLES / "_reference_pdftotext").glob(f"{sample.split('/')[0]}__*.txt")
    expected = _words(next(reference).read_text(encoding="utf-8"))
    ours = _words(doc.text)
    assert len(ours & expected) / len(expected) >= 0.9
    assert [s.locator.page for s in doc.segments] == list(range(1, doc.metadata["pages"] + 1))
    assert doc.warnings == ()


def test_a_scanned_page_is_named_for_ocr(corpus: Path) -> None:
    path = corpus / "05_documents/ocrmypdf_scanned/linn.pdf"
    doc = pdf.extract(path.read_bytes(), path.name)
    assert doc.segments == ()
    assert doc.warnings == ("1 page(s) have no text layer (pages 1); they need OCR",)
    pages_seen: list[int] = []
    with_ocr = pdf.extract(
        path.read_bytes(),
        path.name,
        ocr_page=lambda n, _page: pages_seen.append(n) or "Read by OCR",
    )
    assert pages_seen == [1]
    assert [(s.text, s.locator.page) for s in with_ocr.segments] == [("Read by OCR", 1)]


def test_a_pdf_with_a_broken_cross_reference_table_fails_alone(corpus: Path) -> None:
    path = corpus / SAMPLES / "017-unreadable-meta-data/unreadablemetadata.pdf"
    with pytest.raises(ExtractionError, match="not a readable PDF"):
        pdf.extract(path.read_bytes(), path.name)


@pytest.mark.parametrize(
    ("data", "reason"), [(b"", "empty"), (b"%PDF-1.4\nnot really", "not a readable PDF")]
)
def test_broken_input_fails_with_the_reason(data: bytes, reason: str) -> None:
    with pytest.raises(ExtractionError, match=reason):
        pdf.extract(data, "bad.pdf")
