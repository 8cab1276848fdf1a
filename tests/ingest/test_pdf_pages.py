"""PDF pages decided by what is on them: a page images cover most of is read by real Tesseract
even under a short text layer (a scanner's stamp), the layer and the OCR are put together each
line once, a page where neither reads well is named, and a title a program filled in is not
taken for the document's."""

from __future__ import annotations

import io
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw
from pypdf import PdfReader, PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from cairn.ingest import ocr, pdf, pdf_pages
from tests.ingest import pdf_files as files

SIMILAR = Callable[[str, str], float]
TextImage = Callable[..., Image.Image]
SCANS = "05_documents/ocrmypdf_scanned"
SAMPLES = "05_documents/py-pdf_sample-files"
STAMP = files.Text(("Scanned with CamScanner",))
LETTER_LINES = [
    "Dear members of the allotment society,",
    "the water supply to the lower plots is restored.",
    "Please close each tap after use and report leaks",
    "to the warden before the end of October.",
]
_WORD = re.compile(r"\w+")


def _no_tesseract() -> ocr.PdfPageOcr:
    """The OCR hook with a program that does not exist: a page sent to OCR fails the file."""
    return ocr.pdf_page_ocr(ocr.OcrSettings(tesseract_cmd="/nonexistent/tesseract"))


def _words(text: str) -> Counter[str]:
    return Counter(_WORD.findall(text.lower()))


def _photo() -> Image.Image:
    """A picture without writing: a grey gradient with discs on it."""
    picture = Image.linear_gradient("L").resize((800, 1000))
    draw = ImageDraw.Draw(picture)
    for step in range(6):
        box = (50 + step * 110, 200 + step * 90, 250 + step * 110, 400 + step * 90)
        draw.ellipse(box, fill=40 + step * 30)
    return picture


def _coverage(data: bytes) -> float:
    return pdf_pages.image_coverage(PdfReader(io.BytesIO(data)).pages[0])


# -- where the images are ------------------------------------------------------------------------


def test_image_coverage_follows_the_placement_matrices() -> None:
    picture = Image.new("L", (200, 100), 255)
    width, height = files.LETTER

    def one(*pictures: files.Picture) -> float:
        return _coverage(files.pdf([files.Page(pictures=pictures, texts=(STAMP,))]))

    assert one(files.full_page(picture)) == 1.0
    assert one(files.Picture(picture, (0, 0, width / 2, height))) == 0.5
    # Two images over the same half count once; one reaching past the page counts its part.
    half = files.Picture(picture, (0, 0, width / 2, height))
    assert one(half, half) == 0.5
    assert one(files.Picture(picture, (-width, -height, 1.5 * width, 1.5 * height))) == 0.25
    # Written inline in the content stream, or drawn by a form with its own matrix.
    quarter = (width / 2, height / 2, width / 2, height / 2)
    assert one(files.Picture(picture, quarter, inline=True)) == 0.25
    assert one(files.Picture(picture, quarter, in_form=True)) == 0.25
    assert one() == 0.0


def test_coverage_of_the_corpus_pages(corpus: Path) -> None:
    """A scan fills its page; the PDF Annotator sample's picture is under a quarter of it."""
    scan = PdfReader(corpus / SCANS / "linn.pdf").pages[0]
    annotated = PdfReader(corpus / SAMPLES / "018-base64-image/base64image.pdf").pages[0]
    text_only = PdfReader(corpus / SAMPLES / "001-trivial/minimal-document.pdf").pages[0]
    assert pdf_pages.image_coverage(scan) == 1.0
    assert 0.2 < pdf_pages.image_coverage(annotated) < 0.25
    assert pdf_pages.image_coverage(text_only) == 0.0


def test_forms_drawing_themselves_are_walked_in_bounded_time() -> None:
    """A crafted form that draws itself ten times over: its depth and the operators walked
    are bounded, so the page is decided in moments instead of never."""
    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    form = DecodedStreamObject()
    form.set_data(b" ".join([b"/F0 Do"] * 10))
    form.update(
        {NameObject("/Type"): NameObject("/XObject"), NameObject("/Subtype"): NameObject("/Form")}
    )
    reference = writer._add_object(form)
    form[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/XObject"): DictionaryObject({NameObject("/F0"): reference})}
    )
    page[NameObject("/Resources")] = form["/Resources"]
    contents = DecodedStreamObject()
    contents.set_data(b"/F0 Do")
    page[NameObject("/Contents")] = writer._add_object(contents)
    buffer = io.BytesIO()
    writer.write(buffer)
    started = time.monotonic()
    assert _coverage(buffer.getvalue()) == 0.0
    assert time.monotonic() - started < 10


# -- which pages are read by OCR -----------------------------------------------------------------


def test_a_scan_under_a_stamp_is_named_for_ocr_when_there_is_none(text_image: TextImage) -> None:
    scan = files.full_page(text_image(LETTER_LINES))
    doc = pdf.extract(files.pdf([files.Page((scan,), (STAMP,))]), "letter.pdf")
    assert doc.text == "Scanned with CamScanner"
    assert doc.warnings == (
        "1 page(s) are mostly images with little text layer (pages 1); only that text was kept, "
        "and they need OCR",
    )


def test_a_scan_with_a_full_ocr_layer_is_not_read_again(text_image: TextImage) -> None:
    """A long text layer is the page's text, whatever picture lies under it: a scan that
    already has its OCR layer (invisible, render mode 3) is not read twice, and Tesseract is
    never asked."""
    prose = tuple(f"Line {n} of the minutes, with what was said and decided." for n in range(30))
    scan = files.full_page(text_image(list(prose[:8]), size=20))
    layer = files.Text(prose, (36, 720), 10, invisible=True)
    doc = pdf.extract(files.pdf([files.Page((scan,), (layer,))]), "minutes.pdf", _no_tesseract())
    assert doc.text.splitlines() == list(prose)
    assert doc.warnings == ()


def test_a_stamp_beside_a_small_picture_is_the_page(corpus: Path) -> None:
    """The PDF Annotator sample: a trial-version stamp and a picture a quarter of the page;
    the page is not a scan and Tesseract is never asked."""
    path = corpus / SAMPLES / "018-base64-image/base64image.pdf"
    doc = pdf.extract(path.read_bytes(), path.name, ocr_page=_no_tesseract())
    assert "Produced with a Trial Version of PDF Annotator" in doc.text
    assert doc.warnings == ()


def test_a_scan_under_a_stamp_is_read_by_ocr(
    text_image: TextImage, word_similarity: SIMILAR
) -> None:
    """The scanned letter under "Scanned with CamScanner": its text is read, the stamp kept."""
    scan = files.full_page(text_image(LETTER_LINES))
    data = files.pdf(
        [files.Page((scan,), (STAMP,)), files.Page(texts=(files.Text(("Page two",)),))]
    )
    doc = pdf.extract(data, "letter.pdf", ocr_page=ocr.pdf_page_ocr())
    first, second = doc.segments
    assert first.locator.page == 1 and second.locator.page == 2
    assert first.text.splitlines()[0] == "Scanned with CamScanner"
    expected = " ".join(["Scanned with CamScanner", *LETTER_LINES])
    assert word_similarity(first.text, expected) >= 0.9
    assert second.text == "Page two"
    assert doc.warnings == ()
    (read,) = doc.metadata["ocr_pages"]
    assert read["page"] == 1 and read["text_layer_chars"] == 23
    assert read["confidence"] > 80 and read["words"] > 25


# -- the text layer and the OCR, each line once --------------------------------------------------


def test_a_stamp_printed_on_the_scan_too_is_kept_once(text_image: TextImage) -> None:
    picture = text_image([*LETTER_LINES, "Scanned with CamScanner"])
    doc = pdf.extract(
        files.pdf([files.Page((files.full_page(picture),), (STAMP,))]),
        "letter.pdf",
        ocr_page=ocr.pdf_page_ocr(),
    )
    assert _words(doc.text)["camscanner"] == 1
    assert _words(doc.text)["allotment"] == 1


def test_an_invisible_ocr_layer_of_the_same_scan_is_not_doubled(text_image: TextImage) -> None:
    """A short OCR layer a scanner left (render mode 3) is read again with the scan, and each of
    its lines is kept once: where the two agree, in the OCR's place on the page."""
    lines = ["Invoice 2291 for garden tools", "Paid in full on 3 March"]
    layer = files.Text(tuple(lines), (40, 700), 12, invisible=True)
    page = files.Page((files.full_page(text_image(lines)),), (layer,))
    doc = pdf.extract(files.pdf([page]), "invoice.pdf", ocr_page=ocr.pdf_page_ocr())
    counts = _words(doc.text)
    assert all(counts[word] == 1 for word in _words(" ".join(lines))), doc.text
    assert doc.warnings == ()


def test_the_ocr_layer_of_a_scanned_graph_is_not_doubled(corpus: Path) -> None:
    """multipage.pdf page 4 (from OCRmyPDF's tests): a graph with an invisible OCR layer of
    some 100 characters. Read again, no word of the page is said more often than either the
    layer or the new OCR says it. The old layer joins the graph's axis and its legend on one
    baseline ("200 4 t= Oppose"); the OCR reads them apart, and the line still counts as read."""
    reader = PdfReader(corpus / SCANS / "multipage.pdf")
    writer = PdfWriter()
    writer.add_page(reader.pages[3])
    buffer = io.BytesIO()
    writer.write(buffer)
    layer = pdf._clean(reader.pages[3].extract_text())
    read: dict[int, ocr.PageText] = {}
    hook = ocr.pdf_page_ocr()

    def recording(number: int, page: Any) -> ocr.PageText:
        read[number] = hook(number, page)  # the real OCR, kept to compare with
        return read[number]

    doc = pdf.extract(buffer.getvalue(), "graph.pdf", ocr_page=recording)
    by_ocr, merged, in_layer = _words(read[1].text), _words(doc.text), _words(layer)
    assert {"oppose", "percentage"} <= set(by_ocr)  # the OCR did read the legend
    assert all(n <= max(by_ocr[w], in_layer[w]) for w, n in merged.items()), doc.text
    # A layer line the OCR did not read stays; one it read is said once, as the OCR read it.
    assert "sw" in merged and "esupport" not in merged and by_ocr["support"] == 1


STAMPED = "Scanned with CamScanner"
TAP = "Dear all,\nthe tap is fixed."


@pytest.mark.parametrize(
    ("layer", "by_ocr", "merged"),
    [
        (STAMPED, TAP, f"{STAMPED}\n\n{TAP}"),  # the stamp only in the layer: kept, first
        (STAMPED, "Dear all,\nScanned w1th Cam Scanner", "Dear all,\nScanned w1th Cam Scanner"),
        ("Fax from 0123 456\nDear all,", TAP, f"Fax from 0123 456\n\n{TAP}"),
        (STAMPED, "", STAMPED),  # the OCR found nothing
        ("---", "Dear all,", "Dear all,"),  # a rule in the layer adds nothing
    ],
)
def test_merging_keeps_each_line_once(layer: str, by_ocr: str, merged: str) -> None:
    assert pdf_pages.merge(layer, by_ocr) == merged


# -- a page neither reads well -------------------------------------------------------------------


def test_a_picture_under_a_stamp_is_named_when_ocr_finds_nothing_either() -> None:
    page = files.Page((files.full_page(_photo()),), (STAMP,))
    doc = pdf.extract(files.pdf([page]), "holiday.pdf", ocr_page=ocr.pdf_page_ocr())
    assert doc.text == "Scanned with CamScanner"
    assert doc.warnings == (
        "page 1 is mostly an image, and little of its text could be read: its text layer holds "
        "only 23 characters and OCR found no words; a sharper scan reads better (or the image "
        "holds no writing)",
    )


def test_a_poor_reading_under_a_stamp_is_named_once() -> None:
    pages = {
        1: ocr.PageText("m1sre4d w0rds h3re", 30.0, 3),
        2: ocr.PageText("Dear all, the tap is fixed.", 92.0, 6),
        3: ocr.PageText("m1sre4d", 35.0, 40),  # no text layer: the usual warning
    }
    layers = {1: "Scanned with CamScanner", 2: "Scanned with CamScanner"}
    metadata, warnings = ocr.summarise(pages, text_layers=layers)
    assert warnings == [
        "page 1 is mostly an image, and little of its text could be read: its text layer holds "
        "only 23 characters and OCR found 3 word(s) with low confidence (30/100); a sharper scan "
        "reads better (or the image holds no writing)",
        "page 3 was read with low confidence (35/100): its text may be wrong in places; a "
        "sharper scan or photo reads better",
    ]
    assert [p.get("text_layer_chars") for p in metadata["ocr_pages"]] == [23, 23, None]
