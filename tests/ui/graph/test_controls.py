"""The graph's controls on a real vault: the Types list stays open while several boxes are
ticked (one layout for all of them), All and None; the Links list and the legend say every
colour and edge kind in words; the picture refits when the view changes size, unless the person
zoomed or panned since."""

from __future__ import annotations

import re
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication

from cairn.ui.base.session import Session
from cairn.ui.base.type_colours import COLOUR_WORDS
from cairn.ui.graph.colours import LAYER_COLOURS
from cairn.ui.graph.view import REQUEST_DELAY_MS, GraphView
from tests.ui.graph.test_graph_view import WAIT_MS, make_view, seed, shown, shown_ids

pytestmark = pytest.mark.serial

HEX = re.compile(r"#[0-9a-fA-F]{6}")


def click_box(qtbot: Any, view: GraphView, name: str) -> None:
    box = view.type_boxes[name]
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(6, box.height() // 2))


# A popup asks the offscreen platform for what only a real screen does (raise, keyboard grab).
@pytest.mark.qt_log_ignore("This plugin does not support")
def test_the_types_list_stays_open_while_several_boxes_are_ticked(
    qtbot: Any, open_session: Session
) -> None:
    ids = seed(open_session)
    view = make_view(qtbot, open_session)
    shown(qtbot, view, view.show_overview)
    menu = view.types_filter.menu_
    qtbot.mouseClick(view.types_filter, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(menu.isVisible)
    pictures: list[bool] = []
    view.picture_shown.connect(lambda: pictures.append(True))
    for name in ("Note", "Fact", "Event"):
        click_box(qtbot, view, name)
        assert menu.isVisible(), f"the list closed after ticking {name}"
    assert not view.type_boxes["Note"].isChecked() and view.type_boxes["Person"].isChecked()
    assert (
        view.types_filter.text() == f"Types: {len(view.type_boxes) - 3} of {len(view.type_boxes)} ▾"
    )
    qtbot.waitUntil(lambda: bool(pictures), timeout=WAIT_MS)
    qtbot.wait(REQUEST_DELAY_MS * 2)
    assert len(pictures) == 1  # three ticks, one layout
    assert shown_ids(view) == {ids["alice"], ids["bob"], ids["carol"]}
    qtbot.keyClick(menu, Qt.Key.Key_Escape)
    assert not menu.isVisible()
    shown(qtbot, view, view.types_filter.checklist.all_button.click)
    assert shown_ids(view) == set(ids.values())
    assert all(box.isChecked() for box in view.type_boxes.values())
    view.types_filter.checklist.none_button.click()
    assert not any(box.isChecked() for box in view.type_boxes.values())
    for box in view.type_boxes.values():
        assert box.accessibleName().startswith("Show ")


@pytest.mark.qt_log_ignore("This plugin does not support")
def test_the_types_list_works_from_the_keyboard(qtbot: Any, open_session: Session) -> None:
    seed(open_session)
    view = make_view(qtbot, open_session)
    boxes = list(view.type_boxes.values())
    view.types_filter.open_list()
    qtbot.waitUntil(view.types_filter.menu_.isVisible)
    assert QApplication.focusWidget() is boxes[0]
    qtbot.keyClick(boxes[0], Qt.Key.Key_Space)
    qtbot.keyClick(boxes[0], Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is boxes[1]
    qtbot.keyClick(boxes[1], Qt.Key.Key_Down)
    qtbot.keyClick(boxes[2], Qt.Key.Key_Space)
    qtbot.keyClick(boxes[2], Qt.Key.Key_Up)
    assert QApplication.focusWidget() is boxes[1]
    assert [box.isChecked() for box in boxes[:3]] == [False, True, False]
    assert view.types_filter.menu_.isVisible()
    open_session.lock()  # nothing of the open vault floats over the unlock screen
    assert not view.types_filter.menu_.isVisible()


def test_links_and_legend_say_colours_and_edge_kinds_in_words(
    qtbot: Any, open_session: Session
) -> None:
    ids = seed(open_session)
    view = make_view(qtbot, open_session)
    for layer, box in view.layer_boxes.items():
        word = COLOUR_WORDS[LAYER_COLOURS[layer]]
        assert word in box.text() and not HEX.search(box.text() + box.toolTip())
    assert "involves" in view.layer_boxes["entity"].toolTip()
    assert "part of" in view.layer_boxes["entity"].toolTip()  # the pack's part_of, in words
    assert "supersedes" in view.layer_boxes["temporal"].toolTip()
    shown(qtbot, view, lambda: view.show_ego(ids["alice"]))
    legend = view.legend_label.text()
    plain = re.sub(r"<[^>]+>", "", legend)  # what is read: the markup's colours aside
    assert not HEX.search(plain)
    assert "Person" in plain and "(blue)" in plain and "Note" in plain and "(teal)" in plain
    assert "grey lines: people &amp; things" in plain
    for kind in ("involves", "mentions", "part of", "located in"):  # the layer's kinds
        assert kind in plain
    assert "purple lines: related" in plain and "references" in plain
    assert "Cause" not in plain and "orange lines" not in plain  # no such link drawn here
    shown(qtbot, view, view.show_overview)
    plain = re.sub(r"<[^>]+>", "", view.legend_label.text())
    assert "Groups" in plain and "around" in plain and not HEX.search(plain)
    view.legend_button.click()
    assert not view.legend.isVisible()


def test_the_picture_refits_when_the_view_changes_size_until_moved_by_hand(
    qtbot: Any, open_session: Session
) -> None:
    ids = seed(open_session)
    view = make_view(qtbot, open_session)
    canvas = view.canvas
    shown(qtbot, view, lambda: view.show_ego(ids["alice"]))
    assert canvas.picture is not None
    small = canvas.transform().m11()

    def fills_the_view() -> bool:
        seen = canvas.mapFromScene(canvas.picture.bounds).boundingRect()
        port = canvas.viewport().rect()
        # fitInView keeps a margin of a few pixels
        return abs(seen.width() - port.width()) <= 6 or abs(seen.height() - port.height()) <= 6

    assert fills_the_view()
    view.resize(1300, 900)
    qtbot.waitUntil(lambda: canvas.transform().m11() > small)
    assert fills_the_view()
    canvas.zoom(1.5)  # the person zooms in: their view stays theirs
    zoomed = canvas.transform().m11()
    view.resize(700, 450)
    qtbot.wait(50)
    assert canvas.transform().m11() == pytest.approx(zoomed)
    qtbot.keyClick(canvas, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)  # Fit
    assert fills_the_view()
    view.resize(1100, 800)
    qtbot.waitUntil(fills_the_view)
    # a drag pans the picture: no refit after it either
    middle = canvas.viewport().rect().center()
    qtbot.mousePress(canvas.viewport(), Qt.MouseButton.LeftButton, pos=middle)
    qtbot.mouseMove(canvas.viewport(), middle + QPoint(60, 40))
    qtbot.mouseRelease(canvas.viewport(), Qt.MouseButton.LeftButton, pos=middle + QPoint(60, 40))
    assert not canvas.fitted
