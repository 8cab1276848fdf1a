"""EPUB books and OpenDocument texts: chapters and headings located, metadata read, and damaged,
encrypted or hostile archives failing alone with a message."""

from __future__ import annotations

import io
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from cairn.ingest import epub, odt, zip_parts
from cairn.ingest.document import ExtractionError
from tests.ingest import kept_files as kept

CHAPTERS = [
    ("Arrival", "<h1>Arrival</h1><p>The keeper rowed out to the rock at dawn.</p>"),
    ("The Storm", "<h2>Night</h2><p>Waves broke over the lamp room.</p><p>The glass held.</p>"),
]


@pytest.mark.parametrize("epub3", [True, False], ids=["epub3-nav", "epub2-ncx"])
def test_a_book_is_read_chapter_by_chapter_under_its_contents_names(epub3: bool) -> None:
    book = epub.extract(kept.epub_bytes("The Lighthouse", CHAPTERS, epub3=epub3), "book.epub")
    assert book.title == "The Lighthouse"
    assert book.media_type == "application/epub+zip"
    assert book.metadata == {"author": "Ann Author", "language": "en"}
    assert [(s.text, s.locator.heading) for s in book.segments] == [
        ("Arrival", ("Arrival",)),  # the chapter's own heading is its contents name: not twice
        ("The keeper rowed out to the rock at dawn.", ("Arrival",)),
        ("Night", ("The Storm", "Night")),
        ("Waves broke over the lamp room.", ("The Storm", "Night")),
        ("The glass held.", ("The Storm", "Night")),
    ]
    assert not book.warnings
    # The navigation page is the table of contents, not a chapter: its entries are not text.
    assert "Arrival" not in [s.text for s in book.segments[1:]]


def test_a_book_with_drm_says_so() -> None:
    data = kept.epub_bytes("Locked", CHAPTERS, encrypted=True)
    with pytest.raises(ExtractionError, match="DRM"):
        epub.extract(data, "locked.epub")


def test_a_missing_chapter_is_a_warning_and_the_rest_is_read() -> None:
    data = kept.epub_bytes("Torn", CHAPTERS)
    source = zipfile.ZipFile(io.BytesIO(data))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as torn:
        for info in source.infolist():
            if not info.filename.endswith("chapter1.xhtml"):
                torn.writestr(info, source.read(info))
    book = epub.extract(buffer.getvalue(), "torn.epub")
    assert [s.text for s in book.segments][-1] == "The glass held."
    assert book.warnings and "chapter 1" in book.warnings[0]


@pytest.mark.parametrize("how", kept.DAMAGES)
def test_a_damaged_chapter_is_a_warning_and_the_rest_is_read(how: str) -> None:
    data = kept.with_damaged_part(
        kept.epub_bytes("Torn", CHAPTERS), "OEBPS/text/chapter1.xhtml", how
    )
    book = epub.extract(data, "torn.epub")
    assert book.title == "Torn"
    assert [s.text for s in book.segments] == [
        "Night", "Waves broke over the lamp room.", "The glass held."
    ]  # fmt: skip
    assert len(book.warnings) == 1
    assert "chapter 1 (OEBPS/text/chapter1.xhtml) could not be read" in book.warnings[0]


def test_a_damaged_table_of_contents_is_a_warning_and_every_chapter_is_read() -> None:
    data = kept.with_damaged_part(
        kept.epub_bytes("Torn", CHAPTERS, epub3=False), "OEBPS/toc.ncx", "deflate"
    )
    book = epub.extract(data, "torn.epub")
    # Located by their own headings, as a chapter the contents do not name is.
    assert [(s.text, s.locator.heading) for s in book.segments][:2] == [
        ("Arrival", ("Arrival",)),
        ("The keeper rowed out to the rock at dawn.", ("Arrival",)),
    ]
    assert len(book.segments) == 5
    assert len(book.warnings) == 1 and "table of contents (OEBPS/toc.ncx)" in book.warnings[0]


def test_a_chapter_the_spine_lists_again_and_again_is_read_once() -> None:
    """Each listing is a few bytes and the chapter may unpack to megabytes: read once."""
    book = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(kept.epub_bytes("Loop", CHAPTERS))) as source,
        zipfile.ZipFile(book, "w", zipfile.ZIP_DEFLATED) as looped,
    ):
        for info in source.infolist():
            data = source.read(info)
            if info.filename.endswith(".opf"):
                data = data.replace(b'<itemref idref="c1"/>', b'<itemref idref="c1"/>' * 10000)
            looped.writestr(info.filename, data)
    doc = epub.extract(book.getvalue(), "loop.epub")
    assert [s.text for s in doc.segments] == [
        "Arrival", "The keeper rowed out to the rock at dawn.", "Night",
        "Waves broke over the lamp room.", "The glass held.",
    ]  # fmt: skip


def test_a_book_none_of_whose_chapters_can_be_read_fails_with_a_message() -> None:
    data = kept.epub_bytes("Torn", CHAPTERS[:1])
    data = kept.with_damaged_part(data, "OEBPS/text/chapter1.xhtml", "deflate")
    with pytest.raises(ExtractionError, match=r"none of its chapters could be read.*export it"):
        epub.extract(data, "torn.epub")


@pytest.mark.parametrize("how", kept.DAMAGES)
def test_a_damaged_package_file_fails_the_book_with_a_message(how: str) -> None:
    data = kept.with_damaged_part(kept.epub_bytes("Torn", CHAPTERS), "OEBPS/content.opf", how)
    with pytest.raises(ExtractionError, match=r"torn\.epub is damaged \(OEBPS/content\.opf"):
        epub.extract(data, "torn.epub")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not a readable EPUB"),
        (b"PK\x03\x04 this is no zip at all", "not a readable EPUB"),
        (kept.odt_bytes("<text:p>x</text:p>"), "no package file"),
    ],
    ids=["empty", "not-a-zip", "no-container"],
)
def test_what_is_not_a_book_fails_with_a_message(data: bytes, message: str) -> None:
    with pytest.raises(ExtractionError, match=message):
        epub.extract(data, "odd.epub")


ODT_BODY = (
    '<text:h text:outline-level="1">Garden plans</text:h>'
    '<text:p>Buy <text:span>seeds</text:span> at the<text:s text:c="2"/>market.'
    "<text:note><text:note-body><text:p>The one by the river.</text:p></text:note-body>"
    "</text:note></text:p>"
    '<text:h text:outline-level="2">Beds</text:h>'
    "<text:list><text:list-item><text:p>Tomatoes</text:p></text:list-item>"
    "<text:list-item><text:p>Beans</text:p></text:list-item></text:list>"
    "<table:table><table:table-row><table:table-cell><text:p>Bed</text:p></table:table-cell>"
    "<table:table-cell><text:p>Crop</text:p></table:table-cell></table:table-row>"
    "<table:table-row><table:table-cell><text:p>North</text:p></table:table-cell>"
    "<table:table-cell><text:p>Kale</text:p></table:table-cell></table:table-row></table:table>"
    "<text:table-of-content><text:index-body><text:p>Garden plans 1</text:p></text:index-body>"
    "</text:table-of-content>"
    "<text:p>Water daily<office:annotation><text:p>Not in rain.</text:p></office:annotation>"
    "</text:p>"
)


def test_an_odt_gives_headings_lists_tables_notes_and_metadata() -> None:
    doc = odt.extract(kept.odt_bytes(ODT_BODY, title="Allotment"), "garden.odt")
    assert doc.title == "Allotment"
    assert doc.media_type == "application/vnd.oasis.opendocument.text"
    assert doc.metadata == {"author": "Olga Writer", "language": "en-GB"}
    assert [(s.text, s.locator.heading) for s in doc.segments] == [
        ("Garden plans", ("Garden plans",)),
        ("Buy seeds at the market.", ("Garden plans",)),
        ("Beds", ("Garden plans", "Beds")),
        ("- Tomatoes", ("Garden plans", "Beds")),
        ("- Beans", ("Garden plans", "Beds")),
        ("Bed | Crop\nNorth | Kale", ("Garden plans", "Beds")),
        ("Water daily", ("Garden plans", "Beds")),
        ("The one by the river.", ("Footnotes",)),
        ("Not in rain.", ("Comments",)),
    ]


def test_an_odt_without_a_title_is_titled_by_its_first_heading() -> None:
    assert odt.extract(kept.odt_bytes(ODT_BODY), "garden.odt").title == "Garden plans"
    plain = odt.extract(kept.odt_bytes("<text:p>Just words.</text:p>"), "memo.odt")
    assert plain.title == "memo"


def test_a_libreoffice_file_is_read(corpus: Path) -> None:
    path = corpus / "05_documents/py-pdf_sample-files/002-trivial-libre-office-writer/source.odt"
    doc = odt.extract(path.read_bytes(), path.name)
    assert doc.segments[0].text.startswith("Lorem ipsum dolor sit amet")
    assert doc.title == "source"


def test_a_password_protected_odt_says_so() -> None:
    with pytest.raises(ExtractionError, match="password"):
        odt.extract(kept.odt_bytes("<text:p>x</text:p>", encrypted=True), "secret.odt")


def _zip(parts: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not a readable OpenDocument"),
        (b"\x00" * 100, "not a readable OpenDocument"),
        (_zip({"mimetype": b"x"}), "no content.xml"),
        (_zip({"content.xml": b"<office:document-content><unclosed>"}), "damaged"),
        (
            _zip(
                {"content.xml": b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>'}
            ),
            "declares XML entities",
        ),
    ],
    ids=["empty", "binary", "no-content", "broken-xml", "entities"],
)
def test_a_damaged_odt_fails_with_a_message(data: bytes, message: str) -> None:
    with pytest.raises(ExtractionError, match=message):
        odt.extract(data, "bad.odt")


@pytest.mark.parametrize("how", kept.DAMAGES)
def test_a_damaged_content_part_fails_the_odt_with_a_message(how: str) -> None:
    data = kept.with_damaged_part(kept.odt_bytes(ODT_BODY), "content.xml", how)
    with pytest.raises(ExtractionError, match=r"bad\.odt is damaged \(content\.xml.*save it again"):
        odt.extract(data, "bad.odt")


def test_a_damaged_meta_part_costs_only_the_title() -> None:
    data = kept.with_damaged_part(kept.odt_bytes(ODT_BODY, title="Allotment"), "meta.xml")
    doc = odt.extract(data, "garden.odt")
    assert doc.title == "Garden plans" and doc.segments[1].text == "Buy seeds at the market."
    assert len(doc.warnings) == 1 and "meta.xml" in doc.warnings[0]


def test_a_huge_space_count_is_not_spelled_out() -> None:
    """``text:c`` may claim billions of spaces in a file of a few hundred bytes."""
    body = '<text:p>Buy<text:s text:c="2000000000"/>seeds<text:s text:c="-3"/>now</text:p>'
    tracemalloc.start()
    try:
        doc = odt.extract(kept.odt_bytes(body), "plans.odt")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20
    assert [s.text for s in doc.segments] == ["Buy seeds now"]


def test_counts_that_are_no_numbers_fall_back_to_the_default() -> None:
    body = (
        '<text:h text:outline-level="one">Plans</text:h>'
        '<text:p>Buy<text:s text:c="many"/>seeds</text:p>'
        '<text:h text:outline-level="99999999999999999999">Deep</text:h>'
        '<text:h text:outline-level="2">Beds</text:h>'
    )
    doc = odt.extract(kept.odt_bytes(body), "plans.odt")
    assert [(s.text, s.locator.heading) for s in doc.segments] == [
        ("Plans", ("Plans",)),
        ("Buy seeds", ("Plans",)),
        ("Deep", ("Plans", "Deep")),  # past the deepest level OpenDocument has: the deepest
        ("Beds", ("Plans", "Beds")),
    ]


def test_a_zip_bomb_is_refused_before_it_is_unpacked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A part that unpacks past the limit, whatever the zip's directory claims about it."""
    monkeypatch.setattr(zip_parts, "MAX_PART_BYTES", 1 << 20)
    bomb = _zip({"content.xml": b"<a>" + b" " * (4 << 20) + b"</a>"})
    with pytest.raises(ExtractionError, match="too large"):
        odt.extract(bomb, "bomb.odt")
    monkeypatch.setattr(zip_parts, "MAX_TOTAL_BYTES", 2 << 20)
    with pytest.raises(ExtractionError, match="would unpack to"):
        epub.extract(bomb, "bomb.epub")
