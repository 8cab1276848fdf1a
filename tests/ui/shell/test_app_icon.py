"""The icon files of packaging/ are the icon the window draws (ui/base/notify.py), and the
committed PNGs are what packaging/render_icons.py makes from the SVG today: a change to one of
the three that is not carried to the others fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageChops
from PySide6.QtWidgets import QApplication

from cairn.ui.base.notify import app_icon

ROOT = Path(__file__).resolve().parents[3]
ICONS = ROOT / "packaging" / "icons" / "hicolor"
APP_ID = "org.example.cairn"
# Two anti-aliasing renderers differ by a few levels at the edges; a moved or recoloured stone
# differs by far more.
TOLERANCE = 16


def _committed(size: int) -> Path:
    return ICONS / f"{size}x{size}" / "apps" / f"{APP_ID}.png"


def _largest_difference(first: Path, second: Path) -> int:
    """Compared as seen on a white background, where the colour of a transparent pixel does
    not show."""
    flattened = []
    for path in (first, second):
        with Image.open(path) as image:
            rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        flattened.append(Image.alpha_composite(background, rgba).convert("RGB"))
    extrema = ImageChops.difference(*flattened).getextrema()
    return max(high for _, high in extrema)  # type: ignore[misc]


@pytest.mark.parametrize("size", [16, 32, 64, 256])
def test_the_icon_files_show_what_the_window_draws(
    qapp: QApplication, tmp_path: Path, size: int
) -> None:
    drawn = tmp_path / "drawn.png"
    assert app_icon().pixmap(size, size).toImage().save(str(drawn))
    assert _largest_difference(drawn, _committed(size)) <= TOLERANCE


def test_the_committed_pngs_are_rendered_from_the_svg(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "render_icons.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    fresh = sorted(tmp_path.glob("*/apps/*.png"))
    assert len(fresh) == 8
    for path in fresh:
        size = int(path.parent.parent.name.split("x")[0])
        assert _largest_difference(path, _committed(size)) <= TOLERANCE, path
