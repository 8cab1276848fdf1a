"""Fixtures shared by the ingest tests: a word-level similarity for OCR and transcripts, and
pictures of text drawn on the spot (so OCR is tested even without the shared corpus)."""

from __future__ import annotations

import difflib
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

_WORD = re.compile(r"\w+")
_FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",  # Debian, Ubuntu
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",  # Fedora
    "/Library/Fonts/Arial.ttf",
    "C:/Windows/Fonts/arial.ttf",
)
TextImage = Callable[..., Image.Image]


def _similarity(ours: str, expected: str) -> float:
    """difflib's ratio over the lower-cased words of both texts: 1.0 is the same words in the
    same order; punctuation and line breaks do not count."""
    a, b = _WORD.findall(ours.lower()), _WORD.findall(expected.lower())
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


@pytest.fixture
def word_similarity() -> Callable[[str, str], float]:
    return _similarity


@pytest.fixture
def text_image() -> TextImage:
    """Draws lines of black text on white: ``text_image(["line", ...], size=40, mode="L")``.
    DejaVu or another system font if there is one, else Pillow's own scalable font."""
    path = next((p for p in _FONTS if Path(p).is_file()), None)

    def draw(lines: list[str], size: int = 40, mode: str = "L") -> Image.Image:
        try:
            font = ImageFont.truetype(path, size) if path else ImageFont.load_default(size=size)
        except (OSError, ImportError):
            pytest.skip("no scalable font to draw text with (Pillow without FreeType)")
        if not isinstance(font, ImageFont.FreeTypeFont):
            pytest.skip("no scalable font to draw text with (Pillow without FreeType)")
        margin, spacing = size, size // 2
        width = max(int(font.getlength(line)) for line in lines) + 2 * margin
        height = len(lines) * (size + spacing) + 2 * margin
        image = Image.new("L", (width, height), 255)
        ImageDraw.Draw(image).multiline_text(
            (margin, margin), "\n".join(lines), font=font, fill=0, spacing=spacing
        )
        return image if mode == "L" else image.convert(mode)

    return draw


@pytest.fixture
def no_temporary_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Points every temporary folder (Python's tempfile, and TMPDIR for the programs it starts)
    at a folder that does not exist, so writing a temporary file anywhere fails loudly."""
    trap = tmp_path / "no-temporary-files-here"
    for variable in ("TMPDIR", "TMP", "TEMP"):
        monkeypatch.setenv(variable, str(trap))
    monkeypatch.setattr(tempfile, "tempdir", str(trap))
    return trap
