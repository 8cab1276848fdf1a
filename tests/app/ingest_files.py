"""Files for the ingest pipeline tests, made on the spot: notes, text, HTML, Python, PDF, Word,
pictures of text, sound, and the damaged or hostile kinds a person's folders also hold.

Nothing here reads the shared corpus. Every generator is cheap (well under a second) and
deterministic, so a test that fails fails the same way again.
"""

from __future__ import annotations

import io
import random
import struct
import wave
import zipfile
import zlib
from pathlib import Path

import numpy as np

from cairn.storage import graph_rows
from cairn.storage.vault import Vault

FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",  # Debian, Ubuntu
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",  # Fedora
)

# Plain words to build prose from: seeded sentences of these read as English to the embedder
# and differ enough between seeds that no two generated files look like near-duplicates.
_WORDS = (
    "apple", "harbour", "lantern", "meadow", "violin", "glacier", "copper", "saddle", "orchard",
    "thunder", "pepper", "canyon", "marble", "falcon", "tunnel", "velvet", "quarry", "ribbon",
    "walnut", "ember", "compass", "ladder", "nectar", "pebble", "thimble", "beacon", "cedar",
    "domino", "fossil", "goblet", "hammock", "igloo", "jasmine", "kettle", "lemon", "mosaic",
    "nutmeg", "oyster", "parcel", "quilt", "raven", "sundial", "trumpet", "umbrella", "vinegar",
    "wagon", "yacht", "zebra", "anchor", "biscuit", "candle", "dolphin", "engine", "feather",
    "garlic", "helmet", "island", "jacket", "kitten", "ladle", "mirror", "needle", "onion",
    "pillow", "rocket", "shovel", "tractor", "unicorn", "vessel", "whistle", "basket", "bridge",
    "castle", "desert", "forest", "garden", "hollow", "jungle", "lagoon", "mountain", "ocean",
    "prairie", "river", "savanna", "valley", "volcano", "cottage", "factory", "library",
    "museum", "station", "theatre", "stadium", "airport", "village",
)  # fmt: skip
_VERBS = (
    "carried", "painted", "borrowed", "repaired", "counted", "polished", "wrapped", "measured",
    "planted", "folded", "traded", "buried", "lifted", "sorted", "hidden", "cleaned", "tested",
    "mended", "weighed", "labelled",
)  # fmt: skip


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    """Writes ``files`` (relative path -> text or bytes) under ``root``; returns ``root``."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def sentence(rng: random.Random) -> str:
    a, b, c = rng.sample(_WORDS, 3)
    return f"The {a} {rng.choice(_VERBS)} the {b} beside the {c}."


def prose(seed: int | str, sentences: int = 4) -> str:
    """A paragraph of ``sentences`` seeded sentences: the same seed, the same paragraph."""
    rng = random.Random(seed)
    return " ".join(sentence(rng) for _ in range(sentences))


def sectioned_markdown(seed: int | str, sections: int) -> str:
    """A note with ``sections`` headings, each over a short paragraph: one passage each."""
    parts = [f"# Notebook {seed}\n"]
    for number in range(1, sections + 1):
        parts.append(f"## Section {number}\n\n{prose(f'{seed}-{number}', 2)}\n")
    return "\n".join(parts)


def plain_text(seed: int | str, paragraphs: int) -> str:
    """A text note without headings: ``paragraphs`` seeded paragraphs, which the chunker joins
    into passages of up to about two hundred words."""
    return "\n\n".join(prose(f"{seed}-{number}") for number in range(paragraphs)) + "\n"


def notes_folder(
    *,
    long_sections: int = 128,
    notes: int = 14,
    logs: int = 20,
    seed: int = 0,
) -> dict[str, str]:
    """A notes folder of varied sizes, as a person's grows: two long journals of
    ``long_sections`` sections each (named to come first), ``notes`` Markdown notes of one to
    four sections in ``ideas/``, ``logs`` plain-text logs of one to three paragraphs in
    ``log/``, and a note of twenty-four sections last. The same ``seed``, the same folder."""
    rng = random.Random(seed)
    folder: dict[str, str] = {
        f"a-journal-{year}.md": sectioned_markdown(f"journal{year}", long_sections)
        for year in (2023, 2024)
    }
    for number in range(notes):
        folder[f"ideas/idea{number:02}.md"] = sectioned_markdown(f"idea{number}", rng.randint(1, 4))
    for number in range(logs):
        folder[f"log/day{number:02}.txt"] = plain_text(f"day{number}", rng.randint(1, 3))
    folder["z-archive.md"] = sectioned_markdown("archive", 24)
    return folder


# -- PDF --------------------------------------------------------------------------------------


def _pdf_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def pdf_bytes(pages: list[list[str]]) -> bytes:
    """A PDF with a text layer: each page its lines in Helvetica, one object per part, and a
    correct cross-reference table (pypdf reads it without repairs)."""
    bodies: dict[int, bytes] = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
    kids: list[int] = []
    number = 4
    for lines in pages:
        shown = " ".join(f"({_pdf_text(line)}) Tj T*" for line in lines)
        stream = f"BT /F1 12 Tf 14 TL 72 720 Td {shown} ET".encode("latin-1")
        bodies[number] = (
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (number + 1)
        )
        bodies[number + 1] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
        kids.append(number)
        number += 2
    listed = " ".join(f"{kid} 0 R" for kid in kids)
    bodies[2] = f"<< /Type /Pages /Kids [{listed}] /Count {len(kids)} >>".encode()
    out = bytearray(b"%PDF-1.4\n")
    offsets: dict[int, int] = {}
    for index in range(1, number):
        offsets[index] = len(out)
        out += b"%d 0 obj\n" % index + bodies[index] + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % number
    out += b"".join(b"%010d 00000 n \n" % offsets[index] for index in range(1, number))
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (number, xref)
    return bytes(out)


# -- Word -------------------------------------------------------------------------------------

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)


def docx_bytes(paragraphs: list[str], heading: str | None = None) -> bytes:
    """A minimal Word document: an optional Heading 1, then one paragraph per string."""

    def paragraph(text: str, style: str | None = None) -> str:
        props = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
        return f"<w:p>{props}<w:r><w:t>{text}</w:t></w:r></w:p>"

    body = (paragraph(heading, "Heading1") if heading else "") + "".join(
        paragraph(text) for text in paragraphs
    )
    return docx_with_body(body)


def docx_with_body(body: str) -> bytes:
    """A minimal Word document whose ``w:body`` holds ``body`` (WordprocessingML)."""
    document = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        f'<w:document xmlns:w="{_W}"><w:body>{body}</w:body></w:document>'
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr("word/document.xml", document)
    return buffer.getvalue()


def docx_zip_bomb(unpacked_mib: int = 300) -> bytes:
    """A .docx whose word/document.xml unpacks to ``unpacked_mib`` MiB (a run of spaces after
    an XML declaration): a few hundred KiB on disk, more than any document holds once open."""
    buffer = io.BytesIO()
    block = b" " * (1 << 20)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        with archive.open("word/document.xml", "w", force_zip64=True) as part:
            part.write(b'<?xml version="1.0" encoding="UTF-8"?>')
            for _ in range(unpacked_mib):
                part.write(block)
    return buffer.getvalue()


# -- pictures ---------------------------------------------------------------------------------


def font_path() -> str | None:
    return next((path for path in FONTS if Path(path).is_file()), None)


def text_png(lines: list[str], size: int = 48) -> bytes | None:
    """Black text on white as PNG bytes, in DejaVu Sans; None without that font."""
    from PIL import Image, ImageDraw, ImageFont

    path = font_path()
    if path is None:
        return None
    font = ImageFont.truetype(path, size)
    margin, spacing = size, size // 2
    width = max(int(font.getlength(line)) for line in lines) + 2 * margin
    height = len(lines) * (size + spacing) + 2 * margin
    image = Image.new("L", (width, height), 255)
    ImageDraw.Draw(image).multiline_text(
        (margin, margin), "\n".join(lines), font=font, fill=0, spacing=spacing
    )
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def slow_scan_tiff(lines: list[str], noise_pages: int, seed: int = 3) -> bytes:
    """A multi-page TIFF that takes Tesseract a second or two a page: ``lines`` typed on the
    first page (when DejaVu Sans is there), then ``noise_pages`` letter-sized pages of speckle,
    in which it looks for words and finds none."""
    import random

    from PIL import Image, ImageDraw, ImageFont

    size = (1700, 2200)
    rng = random.Random(seed)
    first = Image.new("L", size, 255)
    path = font_path()
    if path is not None:
        ImageDraw.Draw(first).multiline_text(
            (150, 200), "\n".join(lines), font=ImageFont.truetype(path, 48), fill=0, spacing=24
        )
    # Nearly half the dots black: a second or two of Tesseract's time a page here (a tenth
    # black keeps it near a minute; a fiftieth, a fraction of a second).
    dots = bytes(0 if b < 115 else 255 for b in range(256))
    noise = [
        Image.frombytes("L", size, rng.randbytes(size[0] * size[1]).translate(dots))
        for _ in range(noise_pages)
    ]
    buffer = io.BytesIO()
    first.save(
        buffer, format="TIFF", save_all=True, append_images=noise, compression="tiff_deflate"
    )
    return buffer.getvalue()


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def huge_png(width: int = 10_000, height: int = 5_000) -> bytes:
    """A valid, all-white, 1-bit PNG of ``width`` x ``height`` (50 megapixels by default): about
    80 KB on disk, written row by row without ever holding the picture in memory."""
    row = b"\x00" + b"\xff" * ((width + 7) // 8)  # filter byte "none", then white pixels
    packer = zlib.compressobj(9)
    compressed = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1-bit greyscale
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", compressed)
        + _png_chunk(b"IEND", b"")
    )


# -- sound ------------------------------------------------------------------------------------


def tone_wav(seconds: float = 2.0, rate: int = 16_000) -> bytes:
    """A 440 Hz tone as 16-bit mono WAV."""
    t = np.arange(int(seconds * rate)) / rate
    samples = (np.sin(2 * np.pi * 440 * t) * 8000).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.tobytes())
    return buffer.getvalue()


# -- text that is not text --------------------------------------------------------------------


def binary_bytes(size: int = 4096, seed: int = 7) -> bytes:
    """Bytes of a program or archive: NULs among them, as any binary file has."""
    data = bytearray(random.Random(seed).randbytes(size))
    data[10] = 0
    return bytes(data)


def unknown_encoding_bytes() -> bytes:
    """Text in no encoding Cairn can tell: not UTF-8 (lone continuation bytes) and not
    Windows-1252 (0x81, 0x8D, 0x8F, 0x90 and 0x9D are unassigned there), with no NUL."""
    return b"Caf\x81 \x8d\x8f\x90\x9d " * 40


# -- reading the vault back -------------------------------------------------------------------


def part_of_counts(vault: Vault) -> dict[str, int]:
    """Document id -> how many Passage nodes are ``part_of`` it, every status counted. Read
    from the tables: ``get`` caps the edges it lists and ``traverse`` skips history."""
    with vault.read() as conn:
        rows = conn.execute(
            "SELECT d.id, count(p.id) FROM nodes AS d "
            "LEFT JOIN edges AS e ON e.dst = d.id AND e.type = 'part_of' "
            "LEFT JOIN nodes AS p ON p.id = e.src AND p.type = 'Passage' "
            "WHERE d.type = 'Document' GROUP BY d.id"
        ).fetchall()
    return {node_id: count for node_id, count in rows}


def node_count(vault: Vault) -> int:
    with vault.read() as conn:
        return graph_rows.node_count(conn)  # every memory; not the engine's sentinel
