"""The colour of each kind of memory, and the word each colour Cairn draws is said by: one
table for the type badges of the lists and the detail pane (``icons.py``) and for the graph
(``ui/graph/colours.py``), so a project is the same red wherever it is shown.

A colour that means something is also said in words (the graph's legend writes "red" beside
the red dot, a badge carries the type's letters), for whoever does not tell two colours apart.
"""

from __future__ import annotations

import zlib

# Tableau 10 and two more: distinct on light and dark backgrounds.
PALETTE = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#86bcb6", "#d37295", "#a0cbe8",
)  # fmt: skip
TYPE_COLOURS = {
    "Person": "#4e79a7", "Organization": "#f28e2b", "Place": "#59a14f", "Project": "#e15759",
    "Topic": "#b07aa1", "Event": "#edc948", "Note": "#76b7b2", "Fact": "#ff9da7",
    "Preference": "#d37295", "Commitment": "#9c755f", "Document": "#86bcb6", "Passage": "#bab0ac",
}  # fmt: skip
NEUTRAL = "#9aa0a6"  # what is not a kind of memory: a shelf of the library, a memory alone
COLOUR_WORDS = {
    "#4e79a7": "blue", "#f28e2b": "orange", "#e15759": "red", "#76b7b2": "teal",
    "#59a14f": "green", "#edc948": "yellow", "#b07aa1": "purple", "#ff9da7": "pink",
    "#9c755f": "brown", "#86bcb6": "pale teal", "#d37295": "rose", "#a0cbe8": "light blue",
    "#bab0ac": "warm grey", "#9aa0a6": "grey",
    "#7f8c8d": "grey", "#2e86de": "blue", "#e67e22": "orange", "#8e44ad": "purple",
}  # fmt: skip


def type_colour(name: str) -> str:
    """A type's colour: fixed for the bundled pack's types, stable for any other (a pack of
    the person's own gets the same colour in every list and in the graph)."""
    return TYPE_COLOURS.get(name) or PALETTE[zlib.crc32(name.encode()) % len(PALETTE)]


def colour_word(colour: str) -> str:
    """The word a colour is said by ("red"); the colour itself for one without a word."""
    return COLOUR_WORDS.get(colour.lower(), colour)
