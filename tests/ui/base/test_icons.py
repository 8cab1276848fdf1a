"""A memory's type badge: letters of its own for each type (no two types, nor two shelves of
the library, share them), drawn in the same colour the graph gives the type, with letters that
stand out on light tiles as on dark ones."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QColor

from cairn.app.api import Pack, ViewGraph
from cairn.ui.base.icons import BADGES, SHELF_BADGES, badge_text, letters_colour, type_icon
from cairn.ui.base.type_colours import type_colour
from cairn.ui.graph.legend import colour_nodes

SIZE = 32


def test_every_type_and_shelf_has_letters_of_its_own(qapp) -> None:
    types = list(Pack.bundled("personal").node_types)
    shown = [badge_text(name) for name in [*types, *SHELF_BADGES]]
    assert len(set(shown)) == len(shown), shown
    assert {badge_text(name) for name in ("Person", "Place", "Project", "Preference")} == {
        "Pe",
        "Pl",
        "Pr",
        "Pf",
    }
    assert badge_text("All") != badge_text("Archive")
    assert set(BADGES) >= set(types) - {"Section"}  # the pack's own types have chosen letters
    assert badge_text("Recipe") == "Re"  # a type of the person's own pack: its first two


def _neighbourhood(types: list[str]) -> ViewGraph:
    """A picture of one memory of each of ``types``, as the graph would colour it."""
    count = len(types)
    ids = [f"node-{n}" for n in range(count)]
    no_edges = np.zeros((0, 2), dtype=np.int64)
    return ViewGraph("ego", "test", ids, types, ids, no_edges, [], np.zeros((count, 2)))


def test_a_badge_has_the_colour_the_graph_gives_its_type(qapp) -> None:
    view = _neighbourhood(["Project", "Person", "Fact", "Recipe"])
    graph_colours, _legend = colour_nodes(view)
    for name, in_graph in zip(view.types, graph_colours, strict=True):
        image = type_icon(name).pixmap(SIZE, SIZE).toImage()
        tile = QColor(image.pixel(SIZE // 2, 3))  # above the letters, inside the tile
        assert tile.name() == in_graph == type_colour(name), name


def test_the_letters_stand_out_on_light_and_dark_tiles() -> None:
    assert letters_colour(QColor("#edc948")).lightness() < 64  # dark letters on yellow
    assert letters_colour(QColor("#ff9da7")).lightness() < 64  # and on pink
    assert letters_colour(QColor("#4e79a7")) == QColor("white")  # white on blue
