"""PDFs made on the spot for the page tests: pictures placed where a scanner or a program puts
them (by a matrix, inline, inside a form), a text layer drawn over them (visible like a stamp,
or invisible like an OCR layer), and the document information (``/Title``...).

Written object by object with a correct cross-reference table, so pypdf reads each file as it
stands, without repairs.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

from PIL import Image

LETTER = (612.0, 792.0)


@dataclass(frozen=True)
class Picture:
    """An image and where it is drawn: ``box`` is (left, bottom, width, height) in points."""

    image: Image.Image
    box: tuple[float, float, float, float]
    inline: bool = False  # written in the content stream (BI ... ID ... EI)
    in_form: bool = False  # drawn by a form XObject, itself scaled by half and moved


@dataclass(frozen=True)
class Text:
    """Lines of Helvetica from (x, y) down; ``invisible`` is render mode 3, an OCR layer."""

    lines: tuple[str, ...]
    at: tuple[float, float] = (36.0, 36.0)
    size: float = 8.0
    invisible: bool = False


@dataclass(frozen=True)
class Page:
    pictures: tuple[Picture, ...] = ()
    texts: tuple[Text, ...] = ()
    size: tuple[float, float] = LETTER


@dataclass
class _Objects:
    bodies: list[bytes] = field(default_factory=list)

    def add(self, body: bytes) -> int:
        self.bodies.append(body)
        return len(self.bodies)

    def stream(self, entries: bytes, data: bytes) -> int:
        return self.add(
            b"<< %s /Length %d >>\nstream\n" % (entries, len(data)) + data + b"\nendstream"
        )


def full_page(image: Image.Image, size: tuple[float, float] = LETTER) -> Picture:
    """A scan: the picture over the whole page."""
    return Picture(image, (0.0, 0.0, size[0], size[1]))


def pdf(pages: list[Page], info: dict[str, str] | None = None) -> bytes:
    objects = _Objects()
    catalog = objects.add(b"")  # filled in once the pages are known
    tree = objects.add(b"")
    font = objects.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    kids = [_page(objects, tree, font, page) for page in pages]
    objects.bodies[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % tree
    listed = b" ".join(b"%d 0 R" % kid for kid in kids)
    objects.bodies[tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (listed, len(kids))
    trailer = b"/Root %d 0 R" % catalog
    if info is not None:
        entries = b" ".join(b"/%s %s" % (k.encode(), _string(v)) for k, v in info.items())
        trailer += b" /Info %d 0 R" % objects.add(b"<< %s >>" % entries)
    return _serialise(objects.bodies, trailer)


def _page(objects: _Objects, tree: int, font: int, page: Page) -> int:
    drawn: list[bytes] = []
    images: list[bytes] = []
    for number, picture in enumerate(page.pictures):
        left, bottom, width, height = picture.box
        place = b"%.2f 0 0 %.2f %.2f %.2f cm" % (width, height, left, bottom)
        if picture.inline:
            drawn.append(b"q " + place + b" " + _inline(picture.image) + b" Q")
            continue
        image = _image_object(objects, picture.image)
        if picture.in_form:
            # The form draws the image in a space twice the size, and its /Matrix halves it.
            paint = b"q %.2f 0 0 %.2f %.2f %.2f cm /Im0 Do Q" % (
                2 * width, 2 * height, 2 * left, 2 * bottom
            )  # fmt: skip
            entries = (
                b"/Type /XObject /Subtype /Form /BBox [0 0 %.2f %.2f] /Matrix [0.5 0 0 0.5 0 0] "
                b"/Resources << /XObject << /Im0 %d 0 R >> >>"
                % (2 * page.size[0], 2 * page.size[1], image)
            )
            image = objects.stream(entries, paint)
            drawn.append(b"/X%d Do" % number)
        else:
            drawn.append(b"q " + place + b" /X%d Do Q" % number)
        images.append(b"/X%d %d 0 R" % (number, image))
    for text in page.texts:
        shown = b" ".join(b"%s Tj T*" % _string(line) for line in text.lines)
        mode = 3 if text.invisible else 0
        drawn.append(
            b"BT /F1 %.1f Tf %.1f TL %d Tr %.2f %.2f Td %s ET"
            % (text.size, text.size * 1.2, mode, text.at[0], text.at[1], shown)
        )
    content = objects.stream(b"", b"\n".join(drawn))
    return objects.add(
        b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.2f %.2f] /Contents %d 0 R "
        b"/Resources << /Font << /F1 %d 0 R >> /XObject << %s >> >> >>"
        % (tree, page.size[0], page.size[1], content, font, b" ".join(images))
    )


def _image_object(objects: _Objects, image: Image.Image) -> int:
    grey = image.convert("L")
    entries = (
        b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Filter /FlateDecode" % grey.size
    )
    return objects.stream(entries, zlib.compress(grey.tobytes()))


def _inline(image: Image.Image) -> bytes:
    """In hex, which cannot hold the ``EI`` that ends an inline image."""
    grey = image.convert("L")
    header = b"BI /W %d /H %d /CS /G /BPC 8 /F /AHx ID " % grey.size
    return header + grey.tobytes().hex().encode() + b">\nEI"


def _string(text: str) -> bytes:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return b"(" + escaped.encode("latin-1") + b")"


def _serialise(bodies: list[bytes], trailer: bytes) -> bytes:
    out = bytearray(b"%PDF-1.5\n")
    offsets = []
    for number, body in enumerate(bodies, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(bodies) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d %s >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(bodies) + 1, trailer, xref
    )  # fmt: skip
    return bytes(out)
