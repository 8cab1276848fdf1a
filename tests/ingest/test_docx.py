"""Word documents: the mammoth fixtures' expected texts, and damaged or hostile archives that
fail alone with a message."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from cairn.ingest import docx, zip_parts
from cairn.ingest.document import ExtractionError
from tests.app import ingest_files as files
from tests.ingest import kept_files as kept

EXPECTED = {
    "single-paragraph.docx": ["Walking on imported air"],
    "simple-list.docx": ["- Apple", "- Banana"],
    "tables.docx": ["Above", "Top left | Top right\nBottom left | Bottom right", "Below"],
    "footnotes.docx": ["Ouch.", "A tachyon walks into a bar.", "Fin."],
    "endnotes.docx": ["Ouch.", "A tachyon walks into a bar.", "Fin."],
    "comments.docx": ["Ouch.", "A tachyon walks into a bar.", "Fin."],
    "footnote-hyperlink.docx": ["Example"],
    "text-box.docx": ["Datum plane"],
    "underline.docx": ["The Sunset Tree"],
    "strikethrough.docx": ["Today's Special: Salmon Sold out"],
    "strict-format.docx": ["Test"],
    "utf8-bom.docx": ["This XML has a byte order mark."],
    "tiny-picture.docx": [],
    "empty.docx": [],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_mammoth_fixtures_give_their_expected_text(corpus: Path, name: str) -> None:
    path = corpus / "05_documents/mammoth_docx" / name
    doc = docx.extract(path.read_bytes(), name)
    assert [segment.text for segment in doc.segments] == EXPECTED[name]
    assert doc.title == path.stem


def test_notes_are_filed_under_their_kind(corpus: Path) -> None:
    path = corpus / "05_documents/mammoth_docx/footnotes.docx"
    doc = docx.extract(path.read_bytes(), path.name)
    assert [s.locator.heading for s in doc.segments] == [(), ("Footnotes",), ("Footnotes",)]


def _docx(document_xml: bytes, extra: dict[str, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", document_xml)
        for part, content in (extra or {}).items():
            archive.writestr(part, content)
    return buffer.getvalue()


W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def test_headings_make_the_heading_path() -> None:
    body = (
        f"<w:document {W}><w:body>"
        '<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Plan</w:t></w:r></w:p>'
        "<w:p><w:r><w:t>Intro.</w:t></w:r></w:p>"
        '<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Costs</w:t></w:r></w:p>'
        "<w:p><w:r><w:t>Too </w:t></w:r><w:del><w:r><w:delText>very </w:delText></w:r></w:del>"
        "<w:r><w:t>high.</w:t></w:r></w:p>"
        "</w:body></w:document>"
    ).encode()
    doc = docx.extract(_docx(body), "plan.docx")
    assert doc.title == "Plan"
    assert [(s.text, s.locator.heading) for s in doc.segments] == [
        ("Plan", ("Plan",)),
        ("Intro.", ("Plan",)),
        ("Costs", ("Plan", "Costs")),
        ("Too high.", ("Plan", "Costs")),  # deleted (tracked) text is not kept
    ]


def test_a_zip_bomb_is_refused_before_it_is_unpacked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(zip_parts, "MAX_TOTAL_BYTES", 1_000_000)
    bomb = _docx(
        f"<w:document {W}><w:body/></w:document>".encode(), {"word/a.bin": bytes(2_000_000)}
    )
    assert len(bomb) < 50_000
    with pytest.raises(ExtractionError, match="unpack"):
        docx.extract(bomb, "bomb.docx")


def test_entity_declarations_are_refused() -> None:
    body = f"<w:document {W}><w:body><w:p><w:r><w:t>&b;</w:t></w:r></w:p></w:body></w:document>"
    laughs = (
        b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;">]>'
        + body.encode()
    )
    with pytest.raises(ExtractionError, match="entities"):
        docx.extract(_docx(laughs), "laughs.docx")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"not a zip at all", "not a readable Word document"),
        (_docx(b"<w:document"), "damaged"),
        (b"PK\x05\x06" + bytes(18), "no document text part"),
    ],
)
def test_damaged_files_fail_with_the_reason(data: bytes, reason: str) -> None:
    with pytest.raises(ExtractionError, match=reason):
        docx.extract(data, "bad.docx")


@pytest.mark.parametrize("how", kept.DAMAGES)
def test_a_damaged_part_fails_the_document_as_damaged(how: str) -> None:
    """A body whose compressed stream is garbled, or that needs a password or a method zipfile
    lacks: a sentence naming the part, whatever zipfile raised."""
    data = kept.with_damaged_part(files.docx_bytes(["Plans"]), "word/document.xml", how)
    with pytest.raises(ExtractionError, match=r"^torn\.docx is damaged \(word/document\.xml: "):
        docx.extract(data, "torn.docx")
