"""Titles at any number of memories, on a real vault: the whole vault of a few hundred linked
memories writes the titles that fit at its fitted zoom, the most linked among them, none over
another; zooming in writes more; hovering still names any memory; a memory clicked puts its
own title and its neighbours' first. Nodes keep their size in screen pixels at any zoom."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QSize, Qt

from cairn.app.graphview.data import ViewGraph
from cairn.ui.base.session import Session
from cairn.ui.graph.canvas import ZOOM_STEP, GraphCanvas
from cairn.ui.graph.scene import build_picture, node_width
from cairn.ui.graph.view import GraphView
from tests.ui.graph.test_graph_view import WAIT_MS, assert_apart, drawn, hover, make_view, shown

pytestmark = pytest.mark.serial

PEOPLE = ("Ada Lindqvist", "Bruno Okafor", "Chiara Ventimiglia", "Dmitri Sokolov", "Esi Mensah")
SUBJECTS = ("Bee hives", "Allotment", "Choir rehearsal", "Boiler service", "Kayak club")
NOTES = 320


def vault_of_hundreds(session: Session) -> dict[str, str]:
    """Five people, each in about sixty notes (and some notes in two people's), as a person's
    notes would link them: ids by person's name."""
    service = session.service
    assert service is not None
    people = {name: service.write("Person", name, "Someone I know.").node for name in PEOPLE}
    ids = {name: node.id for name, node in people.items() if node is not None}
    scopes = service.scopes()
    for number in range(NOTES):
        subject = SUBJECTS[number % len(SUBJECTS)]
        note = service.write(
            "Note",
            f"{subject}, week {number}",
            f"What happened at the {subject.lower()} in week {number}.",
            dedup=False,
        ).node
        assert note is not None
        service.link(note.id, ids[PEOPLE[number % len(PEOPLE)]], "involves", scopes=scopes)
        if number % 7 == 0:
            service.link(
                note.id, ids[PEOPLE[(number + 2) % len(PEOPLE)]], "involves", scopes=scopes
            )
    return ids


def test_the_whole_vault_writes_the_titles_that_fit_at_any_zoom(
    qtbot: Any, open_session: Session
) -> None:
    ids = vault_of_hundreds(open_session)
    view = make_view(qtbot, open_session)
    shown(qtbot, view, view.show_overview)
    picture = view.picture
    assert picture is not None and picture.count == NOTES + len(PEOPLE)
    fitted = drawn(view.canvas)
    written = {picture.view.ids[node] for node, _ in fitted}
    assert 5 <= len(fitted) < picture.count  # titles, not a wall of them
    assert_apart(fitted)
    assert set(ids.values()) & written  # the most linked memories are named
    labels, canvas = picture.labels, view.canvas
    assert labels is not None
    fitted_zoom = canvas.transform().m11()
    canvas.zoom(ZOOM_STEP**4)
    closer = drawn(canvas)
    assert_apart(closer)
    # closer in, more titles fit, and every one written before that is still on screen stays
    assert len(labels.shown(canvas.transform().m11())) > len(labels.shown(fitted_zoom))
    on_screen = {
        node
        for node, _ in fitted
        if canvas.viewport().rect().contains(canvas.mapFromScene(canvas.node_point(node)))
    }
    assert on_screen <= {node for node, _ in closer}
    assert len(closer) > len(on_screen)
    # any memory not written is named on hover
    unnamed = next(i for i in range(picture.count) if i not in {n for n, _ in closer})
    view.canvas.centerOn(view.canvas.node_point(unnamed))
    view.canvas.zoom(ZOOM_STEP**6)
    hover(view, view.canvas.mapFromScene(view.canvas.node_point(unnamed)))
    assert view.canvas.hovered == unnamed
    assert picture.view.titles[unnamed] in view.canvas._label.text


def test_a_neighbourhood_names_its_centre_first(qtbot: Any, open_session: Session) -> None:
    ids = vault_of_hundreds(open_session)
    view = make_view(qtbot, open_session)
    view.depth_box.setValue(3)
    shown(qtbot, view, lambda: view.show_ego(ids["Ada Lindqvist"]))
    assert view.picture is not None and view.picture.count > 150  # beyond the old limit
    labels = drawn(view.canvas)
    assert labels[0][0] == view.picture.view.index_of(ids["Ada Lindqvist"])
    assert_apart(labels)


def test_a_clicked_memory_puts_itself_and_its_neighbours_first(
    qtbot: Any, open_session: Session
) -> None:
    ids = vault_of_hundreds(open_session)
    view = make_view(qtbot, open_session)
    shown(qtbot, view, view.show_overview)
    picture = view.picture
    assert picture is not None and picture.labels is not None
    clicked = picture.view.index_of(ids["Esi Mensah"])
    assert clicked is not None
    before = picture.labels.order.copy()
    spot = view.canvas.mapFromScene(view.canvas.node_point(clicked))
    with qtbot.waitSignal(view.open_requested, timeout=WAIT_MS):
        qtbot.mouseClick(view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=spot)
    qtbot.waitUntil(lambda: picture.labels.order[0] == clicked, timeout=WAIT_MS)
    assert not np.array_equal(before, picture.labels.order)
    neighbours = set(picture.view.edges[picture.view.edges[:, 1] == clicked][:, 0].tolist())
    after_it = picture.labels.order[1 : len(neighbours) + 1].tolist()
    assert set(after_it) == neighbours  # one link away comes before the rest
    labels = drawn(view.canvas)
    assert labels[0][0] == clicked
    assert_apart(labels)


def test_nodes_keep_their_size_on_screen_at_any_zoom(qtbot: Any) -> None:
    count = 200
    grid = np.array([[i % 20, i // 20] for i in range(count)], dtype=float) * 3
    view = ViewGraph(
        kind="overview",
        key="grid",
        ids=[str(i) for i in range(count)],
        types=["Person"] * count,
        titles=[""] * count,  # no titles over the nodes
        edges=np.zeros((0, 2), dtype=np.int64),
        edge_layers=[],
        positions=grid,
        communities=np.zeros(count, dtype=np.int64),
    )
    canvas = GraphCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(700, 500)
    canvas.show()
    qtbot.waitExposed(canvas)
    canvas.set_picture(build_picture(view, QSize(700, 500)), fit=True)
    widths = []
    for steps in (0, 4, 8):
        canvas.fit()
        canvas.zoom(ZOOM_STEP**steps)
        canvas.centerOn(canvas.node_point(110))
        image = canvas.viewport().grab().toImage()
        at = canvas.mapFromScene(canvas.node_point(110))
        widths.append(_inked_run(image, at))
    expected = node_width(count)
    assert all(abs(width - expected) <= 2 for width in widths), widths


def _inked_run(image: Any, at: QPoint) -> int:
    """How many pixels across ``at`` are painted (not the white background)."""
    return sum(
        1
        for dx in range(-20, 21)
        if 0 <= at.x() + dx < image.width() and image.pixelColor(at.x() + dx, at.y()).red() < 230
    )


def test_the_view_keeps_its_picture_through_a_view_hidden_and_shown(
    qtbot: Any, open_session: Session
) -> None:
    ids = vault_of_hundreds(open_session)
    view: GraphView = make_view(qtbot, open_session)
    view.hide()  # as behind the Search tab: the memory opened is laid out all the same
    shown(qtbot, view, lambda: view.show_ego(ids["Bruno Okafor"]))
    view.show()
    qtbot.waitExposed(view)
    assert drawn(view.canvas)  # titles on screen once the tab is in front
