"""Pictures and scans (PNG, JPEG, TIFF; also BMP, GIF and WebP), read by OCR page by page.

Every frame of a TIFF is a page (a fax, a scanner's multi-page file) and becomes a segment
located by its page number; other formats are one picture (an animation's first frame). The
size is checked from the file's header before a pixel is decoded, and a photo turned by its
EXIF orientation is turned upright before Tesseract sees it. The pixels stay in memory.
"""

from __future__ import annotations

import io
import re
import struct
import warnings
from pathlib import PurePath
from typing import Any

from PIL import Image, ImageOps, UnidentifiedImageError

from cairn.ingest.document import ExtractedDocument, ExtractionError, Locator, Segment
from cairn.ingest.format_declaration import Cost, Format, Progress, Reading
from cairn.ingest.ocr import MAX_PIXELS, OcrSettings, PageText, Tesseract, summarise, too_large

# The formats read, by Pillow's names; nothing else is tried (EPS, say, would run Ghostscript).
FORMATS = ("PNG", "JPEG", "TIFF", "BMP", "GIF", "WEBP")
# Pillow's name -> media type. MPO is a camera's JPEG with a second view (opened as JPEG).
MEDIA_TYPES = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "MPO": "image/jpeg",
    "TIFF": "image/tiff",
    "BMP": "image/bmp",
    "GIF": "image/gif",
    "WEBP": "image/webp",
}
MULTIPAGE_FORMATS = frozenset({"TIFF"})
# What Pillow raises on a damaged or cut-short file, depending on the format and the damage.
_DAMAGED = (OSError, SyntaxError, ValueError, EOFError, struct.error)
_BOMB_PIXELS = re.compile(r"\((\d+) pixels\)")  # in Pillow's message; else its limit is said
_BOMB_LIMIT = (Image.MAX_IMAGE_PIXELS or 0) + 1


def extract(
    data: bytes,
    name: str,
    settings: OcrSettings | None = None,
    progress: Progress | None = None,
) -> ExtractedDocument:
    """An image file as an extracted document: its text by OCR, a segment per page. A file of
    several pages (a TIFF) tells ``progress`` the pages done as each page starts."""
    if not data:
        raise ExtractionError(f"{name} is empty: there is nothing to keep.")
    settings = settings or OcrSettings()
    picture = _open(data, name)
    tesseract: Tesseract | None = None  # made after the first page is known to be readable
    pages: dict[int, PageText] = {}
    notes: list[str] = []
    with picture:
        count = _page_count(picture, name)
        for number in range(1, count + 1):
            if progress is not None and count > 1:
                progress(number - 1, count)
            try:
                frame = _frame(picture, number, count, name)
            except ExtractionError as exc:
                if number == 1:
                    raise
                notes.append(f"page {number} was not read: {exc}")
                continue
            tesseract = tesseract or Tesseract(settings)
            pages[number] = tesseract.read(frame)
    metadata: dict[str, Any] = {"pages": count, "ocr_languages": list(settings.languages)}
    ocr_metadata, ocr_warnings = summarise(pages)
    return ExtractedDocument(
        title=PurePath(name).stem,
        media_type=MEDIA_TYPES.get(picture.format or "", "application/octet-stream"),
        segments=tuple(Segment(p.text, Locator(page=n)) for n, p in pages.items() if p.text),
        metadata={**metadata, **ocr_metadata},
        warnings=(*notes, *ocr_warnings),
    )


def _open(data: bytes, name: str) -> Image.Image:
    """The image with only its header read. Pillow's own decompression-bomb check (at about
    90 megapixels) speaks in the same words as Cairn's smaller limit."""
    Image.init()  # open(formats=...) finds only the formats whose plugins are loaded
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            return Image.open(io.BytesIO(data), formats=FORMATS)
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        pixels = _BOMB_PIXELS.search(str(exc))
        raise too_large(name, int(pixels.group(1)) if pixels else _BOMB_LIMIT) from None
    except UnidentifiedImageError:
        raise ExtractionError(
            f"{name} is not an image Cairn can read (PNG, JPEG, TIFF, BMP, GIF or WebP), or it "
            "is damaged. Open it in an image viewer, save it as PNG or JPEG, and add that."
        ) from None
    except _DAMAGED as exc:
        raise _damaged(name, exc) from None


def _page_count(picture: Image.Image, name: str) -> int:
    if picture.format not in MULTIPAGE_FORMATS:
        return 1
    try:
        return max(1, int(getattr(picture, "n_frames", 1)))
    except _DAMAGED as exc:  # the chain of pages is broken: read the first one
        raise _damaged(name, exc) from None


def _frame(picture: Image.Image, number: int, count: int, name: str) -> Image.Image:
    """Page ``number`` (1-based), decoded and upright. The size is checked before decoding."""
    try:
        picture.seek(number - 1)
        width, height = picture.size
        if width * height > MAX_PIXELS:
            raise too_large(name if count == 1 else f"page {number} of {name}", width * height)
        picture.load()
        return ImageOps.exif_transpose(picture)
    except _DAMAGED as exc:
        raise _damaged(name, exc) from None


def _damaged(name: str, exc: Exception) -> ExtractionError:
    return ExtractionError(
        f"{name} is damaged or cut short ({exc}), so its picture cannot be read. Open it in an "
        "image viewer and save a fresh copy, or find the original, and add that."
    )


def _read(data: bytes, name: str, reading: Reading) -> ExtractedDocument:
    return extract(data, name, reading.ocr() if reading.ocr else None, reading.progress)


IMAGE = Format(
    name="image",
    label="picture",
    suffixes=frozenset({".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".gif", ".webp"}),
    media_types=frozenset(MEDIA_TYPES.values()),
    read=_read,
    cost=Cost.OCR,
    unit="page",
)
