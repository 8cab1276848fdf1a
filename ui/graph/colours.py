"""The graph's colours and shapes, each with the word the legend says it by.

Nodes are coloured by type in a neighbourhood, with the colours the lists' badges have too
(``ui/base/type_colours.py``), and by group in the whole-vault view; their shape says, in
both, whether a memory stands for a file (a square: a document or a passage of one) or for
anything else (a circle). Links are coloured by their layer, which the pack gives each edge
type.
"""

from __future__ import annotations

from cairn.ui.base.type_colours import NEUTRAL

LONE = NEUTRAL  # a community of one: a memory without links
LAYER_COLOURS = {
    "entity": "#7f8c8d", "temporal": "#2e86de", "causal": "#e67e22", "semantic": "#8e44ad",
}  # fmt: skip
LAYER_NAMES = {
    "entity": "People & things",
    "temporal": "Time",
    "causal": "Cause",
    "semantic": "Related",
}
# The types whose memories stand for files: ingest writes them, whatever the pack.
FILE_TYPES = frozenset({"Document", "Passage"})
SQUARE, CIRCLE = "square", "circle"
SHAPE_MARKS = {SQUARE: "■", CIRCLE: "●"}


def shape_of(type_name: str) -> str:
    return SQUARE if type_name in FILE_TYPES else CIRCLE


def edge_words(name: str) -> str:
    """An edge type as the legend says it: ``part_of`` is "part of"."""
    return name.replace("_", " ")
