"""Image files by OCR: the Tesseract test pages read exactly (turned ones too), a magazine scan
nearly so, text drawn here read without the corpus; TIFF frames as pages; EXIF orientation;
oversized, broken and empty files refused with the reason; nothing written to disk."""

from __future__ import annotations

import io
import os
import re
import struct
import subprocess
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageFile

from cairn.ingest import image, ocr
from cairn.ingest.document import ExtractionError, Locator

pytestmark = pytest.mark.ocr

TESSERACT_TEST = "04_ocr/tesseract_test"
SIMILAR = Callable[[str, str], float]
TextImage = Callable[..., Image.Image]


def _same_words(text: str) -> str:
    return " ".join(text.split())


def _encoded(picture: Image.Image, format: str = "PNG", **options: Any) -> bytes:
    buffer = io.BytesIO()
    picture.save(buffer, format=format, **options)
    return buffer.getvalue()


def _png_header(width: int, height: int) -> bytes:
    """A PNG that states its size and holds no pixels: enough for every size check."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1-bit grey
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")


def _installed_languages() -> set[str]:
    done = subprocess.run(["tesseract", "--list-langs"], capture_output=True, check=True)
    return {line.strip() for line in done.stdout.decode().splitlines()[1:] if line.strip()}


def test_the_tesseract_test_page_reads_exactly(corpus: Path) -> None:
    path = corpus / TESSERACT_TEST / "phototest.tif"
    doc = image.extract(path.read_bytes(), path.name)
    expected = (corpus / TESSERACT_TEST / "phototest.txt").read_text(encoding="utf-8")
    assert _same_words(doc.text) == _same_words(expected)
    assert [s.locator for s in doc.segments] == [Locator(page=1)]
    assert (doc.title, doc.media_type, doc.warnings) == ("phototest", "image/tiff", ())
    assert doc.metadata["pages"] == 1
    assert doc.metadata["ocr_confidence"] > 90
    assert doc.metadata["ocr_pages"] == [
        {"page": 1, "confidence": doc.metadata["ocr_confidence"], "words": 60}
    ]


@pytest.mark.parametrize(
    "variant",
    [
        "phototest-rotated-R.png",
        "phototest-rotated-L.png",
        "phototest-rotated-180.png",
        "phototestrot.tif",
    ],
)
def test_a_turned_page_is_read_upright(corpus: Path, variant: str) -> None:
    path = corpus / TESSERACT_TEST / variant
    doc = image.extract(path.read_bytes(), path.name)
    expected = (corpus / TESSERACT_TEST / "phototest.txt").read_text(encoding="utf-8")
    assert _same_words(doc.text) == _same_words(expected)


@pytest.mark.slow
def test_a_magazine_page_scan_is_read_nearly_word_for_word(
    corpus: Path, word_similarity: SIMILAR
) -> None:
    path = corpus / TESSERACT_TEST / "8071_093.3B.tif"
    doc = image.extract(path.read_bytes(), path.name)
    expected = (corpus / TESSERACT_TEST / "8071_093.3B.txt").read_text(encoding="utf-8")
    assert word_similarity(doc.text, expected) >= 0.9


def test_text_drawn_here_is_read(text_image: TextImage, word_similarity: SIMILAR) -> None:
    lines = ["Cairn keeps what you read.", "Scans and photos are read by OCR."]
    doc = image.extract(_encoded(text_image(lines)), "note.png")
    assert word_similarity(doc.text, " ".join(lines)) >= 0.9
    assert doc.media_type == "image/png"
    assert doc.warnings == ()


def test_black_text_on_a_transparent_background_is_read(text_image: TextImage) -> None:
    grey = text_image(["Transparent background"])
    clear = Image.new("RGBA", grey.size, (0, 0, 0, 0))
    clear.putalpha(grey.point(lambda v: 255 - v))  # opaque black where the text is
    doc = image.extract(_encoded(clear), "sticker.png")
    assert "Transparent background" in doc.text


def test_a_photo_is_turned_upright_by_its_exif_orientation(text_image: TextImage) -> None:
    # One short line: too little for Tesseract to tell which way up it is on its own.
    upside_down = text_image(["Invoice 42 due Friday"]).transpose(Image.Transpose.ROTATE_180)
    exif = Image.Exif()
    exif[0x0112] = 3  # Orientation: shown turned by 180°
    doc = image.extract(_encoded(upside_down, "JPEG", exif=exif, quality=95), "photo.jpg")
    assert _same_words(doc.text) == "Invoice 42 due Friday"
    assert doc.media_type == "image/jpeg"
    without_exif = image.extract(_encoded(upside_down, "JPEG", quality=95), "photo.jpg")
    if "Invoice" in without_exif.text:
        pytest.skip("this Tesseract turns the line by itself; the EXIF check proves nothing")


def test_each_frame_of_a_tiff_is_a_page(text_image: TextImage) -> None:
    first = text_image(["The first page of the fax"], mode="1")
    second = text_image(["The second page follows"], mode="1")
    data = _encoded(first, "TIFF", save_all=True, append_images=[second], compression="group4")
    doc = image.extract(data, "fax.tiff")
    assert [(s.locator.page, _same_words(s.text)) for s in doc.segments] == [
        (1, "The first page of the fax"),
        (2, "The second page follows"),
    ]
    assert doc.metadata["pages"] == 2
    assert [p["page"] for p in doc.metadata["ocr_pages"]] == [1, 2]


def test_a_50_megapixel_image_is_refused_before_it_is_decoded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = _encoded(Image.new("1", (10_000, 5_000), 1))  # mostly blank, so a small file
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda _: pytest.fail("pixels decoded"))
    with pytest.raises(ExtractionError) as caught:
        image.extract(data, "poster.png")
    assert str(caught.value) == (
        "poster.png is 50 megapixels; Cairn reads images up to 40 megapixels. "
        "Scale it down and add it again."
    )


@pytest.mark.parametrize(("width", "megapixels"), [(10_000, 100), (20_000, 200)])
def test_pillows_decompression_bomb_checks_speak_the_same_words(
    width: int, megapixels: int
) -> None:
    # 100 MP passes Pillow's warning level, 200 MP its error level.
    with pytest.raises(ExtractionError, match=rf"^bomb.png is {megapixels} megapixels; Cairn"):
        image.extract(_png_header(width, 10_000), "bomb.png")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "bad.png is empty: there is nothing to keep."),
        (b"just some text, no picture", "is not an image Cairn can read"),
        (_png_header(640, 480), "is damaged or cut short"),
    ],
)
def test_an_empty_or_broken_file_fails_with_the_reason(data: bytes, reason: str) -> None:
    with pytest.raises(ExtractionError, match=re.escape(reason)):
        image.extract(data, "bad.png")


def test_a_cut_short_image_fails_with_the_reason(text_image: TextImage) -> None:
    data = _encoded(text_image(["Half of this file is missing"]))
    with pytest.raises(ExtractionError, match=r"half\.png is damaged or cut short"):
        image.extract(data[: len(data) // 2], "half.png")


def test_a_missing_tesseract_says_what_to_install(text_image: TextImage) -> None:
    settings = ocr.OcrSettings(tesseract_cmd="/nonexistent/tesseract")
    with pytest.raises(ExtractionError) as caught:
        image.extract(_encoded(text_image(["Hello"])), "note.png", settings)
    assert str(caught.value).startswith(
        "Tesseract is not installed: install it (Debian/Ubuntu: apt-get install tesseract-ocr)"
    )


def test_a_missing_language_pack_says_which_to_install(text_image: TextImage) -> None:
    missing = next(lang for lang in ("fra", "deu", "spa", "ita", "nld") if lang not in
                   _installed_languages())  # fmt: skip
    settings = ocr.OcrSettings(languages=("eng", missing))
    with pytest.raises(ExtractionError) as caught:
        image.extract(_encoded(text_image(["Bonjour"])), "note.png", settings)
    assert f"apt-get install tesseract-ocr-{missing}" in str(caught.value)
    assert repr(missing) in str(caught.value)


def test_without_the_orientation_data_pages_are_read_as_they_are(
    text_image: TextImage, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    listing = subprocess.run(["tesseract", "--list-langs"], capture_output=True, check=True)
    tessdata = Path(re.findall(r'"(.+?)"', listing.stdout.decode().splitlines()[0])[0])
    only_english = tmp_path / "tessdata"
    only_english.mkdir()
    (only_english / "eng.traineddata").symlink_to(tessdata / "eng.traineddata")
    monkeypatch.setenv("TESSDATA_PREFIX", str(only_english))
    doc = image.extract(_encoded(text_image(["Upright and readable"])), "note.png")
    assert _same_words(doc.text) == "Upright and readable"
    assert doc.warnings == (ocr.ORIENTATION_NOT_CHECKED,)


def test_no_image_or_text_reaches_a_temporary_file(
    text_image: TextImage, no_temporary_files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    system_temp = Path("/tmp") if Path("/tmp").is_dir() else Path(tempfile.gettempdir())
    before = set(os.listdir(system_temp))
    commands: list[list[str]] = []
    real_run = subprocess.run

    def spy(args: list[str], *rest: Any, **options: Any) -> Any:
        commands.append(list(args))
        return real_run(args, *rest, **options)

    monkeypatch.setattr(subprocess, "run", spy)
    doc = image.extract(_encoded(text_image(["A private note about Quokkas"])), "note.png")
    assert "Quokkas" in doc.text
    # Tesseract read the page from a pipe and wrote the words to one: no path, no folder.
    assert [c[1:3] for c in commands if "--list-langs" not in c] == [["stdin", "stdout"]]
    # Anything that asked for a temporary folder would have failed, or made the trap.
    assert not no_temporary_files.exists()
    for entry in set(os.listdir(system_temp)) - before:
        path = system_temp / entry
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
        for file in files:
            assert b"Quokkas" not in file.read_bytes(), file
