"""Renders the PNG icons of the hicolor theme from the scalable SVG, with Qt's SVG renderer.

    .venv/bin/python packaging/render_icons.py          # after changing the SVG

The PNGs are committed, so installing the icons needs neither Qt nor an SVG renderer; the SVG
stays the one source of the design. A tool of the packaging, not part of the cairn package.
``--out DIR`` writes the tree elsewhere (tests/ui/shell/test_app_icon.py renders a fresh copy to
check that the committed PNGs are up to date).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no screen needed to draw into an image

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

APP_ID = "org.example.cairn"
# The sizes desktops look up in the hicolor theme; 512 for software centres on dense screens.
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICONS = Path(__file__).resolve().parent / "icons" / "hicolor"
SVG = ICONS / "scalable" / "apps" / f"{APP_ID}.svg"


def png_path(root: Path, size: int) -> Path:
    return root / f"{size}x{size}" / "apps" / f"{APP_ID}.png"


def render(out: Path) -> list[Path]:
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"render_icons: {SVG} is not a valid SVG file; fix it and run again.")
    written = []
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        target = png_path(out, size)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(target)):
            raise SystemExit(f"render_icons: could not write {target}; check that it is writable.")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ICONS, help="the hicolor folder to write")
    args = parser.parse_args(argv)
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    for path in render(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
