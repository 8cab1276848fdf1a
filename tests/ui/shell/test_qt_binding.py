"""The installed Qt binding keeps Python's reference to None: PySide6 6.12.0 dropped one on
every call of a method returning nothing, so a window painting its result list crashed the
interpreter ("deallocating None") after some minutes of use. From Python 3.12 None is immortal
and such a bug is harmless, so the check is for the interpreters where it is not."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtGui import QColor, QImage, QPainter, QPalette

CALLS = 10_000


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None is immortal from Python 3.12")
def test_methods_returning_nothing_keep_the_reference_count_of_none(qapp: object) -> None:
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    palette = QPalette()
    colour = QColor("teal")
    try:
        before = sys.getrefcount(None)
        for _ in range(CALLS):
            painter.save()
            painter.restore()
            palette.setColor(QPalette.ColorRole.Text, colour)
        after = sys.getrefcount(None)
    finally:
        painter.end()
    assert abs(after - before) < CALLS // 100, f"None's count went {before} → {after}"
