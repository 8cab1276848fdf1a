"""A title from a file's metadata is kept only when it names the document: a program's default
("Untitled document", "Document1"), its own name, or a file name gives way to the file's name."""

from __future__ import annotations

from pathlib import Path

import pytest
from pypdf import PdfReader

from cairn.ingest import pdf
from cairn.ingest.placeholder_titles import document_title
from tests.ingest import pdf_files as files

SCANS = "05_documents/ocrmypdf_scanned"
SAMPLES = "05_documents/py-pdf_sample-files"


@pytest.mark.parametrize(
    "title",
    ["", "   ", "untitled", "Untitled document", "Untitled 1", "Document1", "Presentation2",
     "Book1", "Microsoft Word - report.docx", "Microsoft PowerPoint - Präsentation1",
     "scan_0042.pdf", "IMG_2041.JPG", "C:\\Users\\ann\\Desktop\\notes", "/tmp/x", "1", "--",
     "PDF Document", "Copy of Untitled document"],
)  # fmt: skip
def test_a_placeholder_title_is_not_taken(title: str) -> None:
    assert document_title(title) is None


@pytest.mark.parametrize(
    ("title", "kept"),
    [
        ("Geometrie und Topologie", "Geometrie und Topologie"),
        ("PDF Example Document", "PDF Example Document"),
        ("Introduction to Node.js", "Introduction to Node.js"),
        ("Version 2.0 release notes", "Version 2.0 release notes"),
        ("Microsoft Word - Annual report  2019", "Annual report 2019"),
        ("1984", None),
        ("Chapter 3", "Chapter 3"),
    ],
)
def test_a_title_that_names_the_document_is_kept(title: str, kept: str | None) -> None:
    assert document_title(title) == kept


def test_a_title_that_names_the_program_is_not_taken(corpus: Path) -> None:
    """francais.pdf says its title is "Adobe Photoshop PDF": the program's name, which its
    /Creator names too. The file's name stands instead."""
    path = corpus / SCANS / "francais.pdf"
    assert PdfReader(path).metadata.title == "Adobe Photoshop PDF"
    assert pdf.extract(path.read_bytes(), path.name).title == "francais"
    google = corpus / SAMPLES / "011-google-doc-document/google-doc-document.pdf"
    assert pdf.extract(google.read_bytes(), google.name).title == "PDF Example Document"


@pytest.mark.parametrize(
    ("info", "title"),
    [
        ({"Title": "Microsoft Word - minutes.docx", "Creator": "Microsoft Word"}, "minutes 2024"),
        ({"Title": "minutes 2024.pdf"}, "minutes 2024"),
        ({"Title": "Untitled document", "Producer": "Skia/PDF m103"}, "minutes 2024"),
        ({"Title": "Garden committee minutes"}, "Garden committee minutes"),
    ],
)
def test_the_pdf_title_falls_back_to_the_file_name(info: dict[str, str], title: str) -> None:
    data = files.pdf([files.Page(texts=(files.Text(("The pond will be cleaned in May.",)),))], info)
    doc = pdf.extract(data, "minutes 2024.pdf")
    assert doc.title == title
    assert doc.metadata.get("title") == (title if title != "minutes 2024" else None)
