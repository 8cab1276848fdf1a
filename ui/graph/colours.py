"""The graph's colours and shapes, each with the word the legend says it by.

A colour that means something is also said in words (the legend writes "blue" beside the blue
dot), for whoever does not tell those two colours apart. Nodes are coloured by type in a
neighbourhood and by group in the whole-vault view; their shape says, in both, whether a memory
stands for a file (a square: a document or a passage of one) or for anything else (a circle).
Links are coloured by their layer, which the pack gives each edge type.
"""

from __future__ import annotations

import zlib

# Tableau 10 and two more: distinct on light and dark backgrounds.
PALETTE = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#86bcb6", "#d37295", "#a0cbe8",
)  # fmt: skip
LONE = "#9aa0a6"  # a community of one: a memory without links
TYPE_COLOURS = {
    "Person": "#4e79a7", "Organization": "#f28e2b", "Place": "#59a14f", "Project": "#e15759",
    "Topic": "#b07aa1", "Event": "#edc948", "Note": "#76b7b2", "Fact": "#ff9da7",
    "Preference": "#d37295", "Commitment": "#9c755f", "Document": "#86bcb6", "Passage": "#bab0ac",
}  # fmt: skip
LAYER_COLOURS = {
    "entity": "#7f8c8d", "temporal": "#2e86de", "causal": "#e67e22", "semantic": "#8e44ad",
}  # fmt: skip
LAYER_NAMES = {
    "entity": "People & things",
    "temporal": "Time",
    "causal": "Cause",
    "semantic": "Related",
}
COLOUR_WORDS = {
    "#4e79a7": "blue", "#f28e2b": "orange", "#e15759": "red", "#76b7b2": "teal",
    "#59a14f": "green", "#edc948": "yellow", "#b07aa1": "purple", "#ff9da7": "pink",
    "#9c755f": "brown", "#86bcb6": "pale teal", "#d37295": "rose", "#a0cbe8": "light blue",
    "#bab0ac": "warm grey", "#9aa0a6": "grey",
    "#7f8c8d": "grey", "#2e86de": "blue", "#e67e22": "orange", "#8e44ad": "purple",
}  # fmt: skip
# The types whose memories stand for files: ingest writes them, whatever the pack.
FILE_TYPES = frozenset({"Document", "Passage"})
SQUARE, CIRCLE = "square", "circle"
SHAPE_MARKS = {SQUARE: "■", CIRCLE: "●"}


def type_colour(name: str) -> str:
    """A type's colour: fixed for the bundled pack's types, stable for any other."""
    return TYPE_COLOURS.get(name) or PALETTE[zlib.crc32(name.encode()) % len(PALETTE)]


def colour_word(colour: str) -> str:
    return COLOUR_WORDS.get(colour.lower(), colour)


def shape_of(type_name: str) -> str:
    return SQUARE if type_name in FILE_TYPES else CIRCLE


def edge_words(name: str) -> str:
    """An edge type as the legend says it: ``part_of`` is "part of"."""
    return name.replace("_", " ")
