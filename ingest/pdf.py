"""PDF with pypdf: the text layer page by page, each page a segment located by its number.

A page is handed to ``ocr_page`` (``ocr.pdf_page_ocr``) when it has no text layer (a scan), or
when images cover most of it and its text layer is short for them: a scanner's stamp ("Scanned
with ..."), a fax header or a partial OCR layer must not hide the page they sit on
(``pdf_pages`` says what is on a page). The text layer and the OCR are then put together, each
line once. Without ``ocr_page`` such pages are listed in the document's warnings, so nothing is
silently missing. What OCR says of the pages it read (confidence, images left unread, a page
where neither the text layer nor the OCR found much) joins the document's metadata and
warnings. A title in the file's metadata is used only when it names the document, not when a
program put its default or a file name there (``placeholder_titles``). A damaged file is read
as far as pypdf can recover it (it rebuilds a broken cross-reference table); one it cannot open
at all, or an encrypted one, fails with the reason.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from pypdf import PdfReader, get_configuration
from pypdf.errors import LimitReachedError

from cairn.ingest import failures, pdf_pages
from cairn.ingest.document import ExtractedDocument, ExtractionError, Locator, Segment
from cairn.ingest.format_declaration import Cost, Format, Progress, Reading
from cairn.ingest.ocr import PageText, pdf_page_ocr, summarise
from cairn.ingest.pdf_images import PDF_DAMAGED
from cairn.ingest.placeholder_titles import document_title

MEDIA_TYPE = "application/pdf"
# A page with fewer characters than this in its text layer is treated as a scan (a scan may
# carry a stray page number); a short real page, a title or a one-word heading, is kept.
MIN_TEXT_CHARS = 3
_SPACE_RUNS = re.compile(r"[ \t]+")
# Control characters a text layer carries from fonts without a Unicode map (LaTeX math fonts
# give \x00, \x12...): noise to a reader, and a NUL cuts text short in some tools.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# How pypdf words a RecursionError it met reading an object.
_RECURSION = re.compile(r"RecursionError|recursion depth", re.I)
# (page number, reader's page object) -> the page's text by OCR, with how sure it was or not.
PageOcr = Callable[[int, Any], str | PageText]


def extract(
    data: bytes, name: str, ocr_page: PageOcr | None = None, progress: Progress | None = None
) -> ExtractedDocument:
    """The PDF's text by page; as each page starts, ``progress`` is told the pages done."""
    if not data:
        raise ExtractionError(f"{name} is empty: there is nothing to keep.")
    # pypdf tells what it repaired through logging; a repaired file is still read.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            raise ExtractionError(
                f"{name} is protected by a password. Open it, save an unprotected copy, and add "
                "that."
            )
        pages = list(reader.pages)
    except RecursionError:
        raise _too_deep(name) from None
    except LimitReachedError as exc:
        raise _past_limit(name, exc) from None
    except PDF_DAMAGED as exc:
        if _RECURSION.search(str(exc)):  # pypdf passes on a RecursionError as its message
            raise _too_deep(name) from None
        raise ExtractionError(f"{name} is not a readable PDF ({exc}).") from None
    segments: list[Segment] = []
    scanned: list[int] = []
    stamped: list[int] = []  # mostly images, with a short text layer
    warnings: list[str] = []
    read_by_ocr: dict[int, PageText] = {}
    layers: dict[int, str] = {}  # the short text layers of pages also read by OCR
    for number, page in enumerate(pages, start=1):
        if progress is not None:
            progress(number - 1, len(pages))
        try:
            text = _clean(page.extract_text() or "")
        except Exception as exc:  # one bad page must not cost the others
            reason = failures.part_reason(exc, "the PDF reader", PDF_DAMAGED)
            warnings.append(f"page {number} could not be read ({reason})")
            continue
        has_layer = len(text) >= MIN_TEXT_CHARS
        if has_layer and not _mostly_images(page, text):
            segments.append(Segment(text, Locator(page=number)))
            continue
        if ocr_page is None:
            (stamped if has_layer else scanned).append(number)
        else:
            read = ocr_page(number, page)
            if isinstance(read, PageText):
                read_by_ocr[number] = read
            by_ocr = _clean(read if isinstance(read, str) else read.text)
            if has_layer:
                layers[number] = text
                text = pdf_pages.merge(text, by_ocr)
            else:  # a stray mark in the layer of a scan (a page number) gives way to the OCR
                text = by_ocr or text
        if text:
            segments.append(Segment(text, Locator(page=number)))
    if scanned:
        warnings.append(
            f"{len(scanned)} page(s) have no text layer (pages {_ranges(scanned)}); they need OCR"
        )
    if stamped:
        warnings.append(
            f"{len(stamped)} page(s) are mostly images with little text layer (pages "
            f"{_ranges(stamped)}); only that text was kept, and they need OCR"
        )
    metadata = _metadata(reader, len(pages))
    if read_by_ocr:
        ocr_metadata, ocr_warnings = summarise(read_by_ocr, text_layers=layers)
        metadata.update(ocr_metadata)
        warnings.extend(ocr_warnings)
    title = metadata.get("title") or PurePath(name).stem
    return ExtractedDocument(
        title=title,
        media_type=MEDIA_TYPE,
        segments=tuple(segments),
        metadata=metadata,
        warnings=tuple(warnings),
    )


def _too_deep(name: str) -> ExtractionError:
    return failures.too_deep(
        name,
        None,
        "arrays and dictionaries inside each other, hundreds of levels down",
        "If it opens in a PDF viewer, print it to a new PDF and add that; otherwise leave it out.",
    )


def _past_limit(name: str, exc: LimitReachedError) -> ExtractionError:
    """pypdf's limits guard against files built to exhaust a reader (a page tree that nests
    or loops without end, more objects than a file holds)."""
    if "page tree depth" in str(exc):
        return failures.too_deep(
            name,
            None,
            "its pages in groups inside groups, more than "
            f"{get_configuration().page_tree_maximum_depth} levels down",
            "If it opens in a PDF viewer, print it to a new PDF and add that; otherwise leave "
            "it out.",
        )
    return ExtractionError(
        f"{name} is built in a way no ordinary PDF is, and reading it was stopped at one of "
        f"the PDF reader's limits ({exc}). If it opens in a PDF viewer, print it to a new PDF "
        "and add that."
    )


def _mostly_images(page: Any, layer: str) -> bool:
    """Whether images cover most of a page whose text layer is short for them."""
    try:
        area = pdf_pages.page_area(page)
        if pdf_pages.text_amount(layer) >= pdf_pages.longest_short_layer(area):
            return False  # a text page, whatever pictures it holds: their places are not needed
        coverage = pdf_pages.image_coverage(page)
    except Exception:  # a damaged page box or content stream: the text layer stands, as before
        return False
    return pdf_pages.short_for_its_images(layer, coverage, area)


def _clean(text: str) -> str:
    text = _CONTROL.sub(" ", text.replace("\r", "\n"))
    lines = [_SPACE_RUNS.sub(" ", line).strip() for line in text.split("\n")]
    return "\n".join(line for line in lines if line).strip()


def _metadata(reader: PdfReader, pages: int) -> dict[str, Any]:
    found: dict[str, Any] = {"pages": pages}
    try:
        info = reader.metadata
    except Exception:  # unreadable metadata is common and never worth failing the file for
        return found
    if info is None:
        return found
    programs = (_field(info, "creator"), _field(info, "producer"))
    title = document_title(_field(info, "title"), programs)
    if title:
        found["title"] = title
    author = _field(info, "author")
    if isinstance(author, str) and author.strip():
        found["author"] = author.strip()
    return found


def _field(info: Any, name: str) -> Any:
    """One entry of the document information (``title``, ``creator``...), None when it cannot
    be read."""
    try:
        return getattr(info, name)
    except Exception:  # a damaged entry is as good as none
        return None


def _ranges(numbers: list[int]) -> str:
    spans: list[str] = []
    start = prev = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == prev + 1:
            prev = number
            continue
        spans.append(str(start) if start == prev else f"{start}-{prev}")
        if number is not None:
            start = prev = number
    return ", ".join(spans)


def _read(data: bytes, name: str, reading: Reading) -> ExtractedDocument:
    # Without OCR settings (an e-mail's attachment), a PDF's text layer only.
    ocr_page = pdf_page_ocr(reading.ocr()) if reading.ocr else None
    return extract(data, name, ocr_page, reading.progress)


PDF = Format(
    name="pdf",
    label="PDF",
    suffixes=frozenset({".pdf"}),
    media_types=frozenset({MEDIA_TYPE}),
    read=_read,
    cost=Cost.PAGES,
    unit="page",
)
