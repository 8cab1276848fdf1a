"""Buttons in a flow layout wrap onto the next row when the row is full: in a narrow pane or
at a large scale none is cut off or pushed out of sight, and none overlaps another."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QPushButton, QWidget

from cairn.ui.base.flow_layout import FlowLayout

TEXTS = ("Edit…", "Replace with…", "Link…", "Archive", "Forget…")


def _laid_out(qtbot: Any, width: int) -> tuple[QWidget, list[QPushButton]]:
    host = QWidget()
    qtbot.addWidget(host)
    layout = FlowLayout(host)
    buttons = [QPushButton(text) for text in TEXTS]
    for button in buttons:
        layout.addWidget(button)
    host.resize(width, layout.heightForWidth(width))
    host.show()
    qtbot.waitExposed(host)
    return host, buttons


def test_a_wide_row_holds_every_button(qtbot: Any) -> None:
    _host, buttons = _laid_out(qtbot, 900)
    assert len({b.geometry().top() for b in buttons}) == 1


def test_a_narrow_row_wraps_and_cuts_nothing(qtbot: Any) -> None:
    host, buttons = _laid_out(qtbot, 180)
    assert len({b.geometry().top() for b in buttons}) > 1
    for index, button in enumerate(buttons):
        assert host.rect().contains(button.geometry()), button.text()
        for other in buttons[index + 1 :]:
            assert not button.geometry().intersects(other.geometry())
