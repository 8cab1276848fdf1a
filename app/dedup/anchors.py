"""Anchors: the names and figures two wordings of one memory keep when every other word changed.

"Hana has been vegetarian since 2015" and "Hana stopped eating meat in 2015" share only "Hana"
and "2015", and the small embedding model puts them below its paraphrase band; the dedup gate
holds such a pair for review from a lower band (``dedup_anchored_low``).
"""

from __future__ import annotations

import re

from cairn.app.text.statements import fold_accents

# A name is a capitalised word, a figure a number. Capitalised words that are pronouns or
# common openers are not names.
_NAME_OR_FIGURE = re.compile(r"\b[A-Z][\w'’-]*|\d+(?:[.,]\d+)*")
_NOT_NAMES = frozenset({
    "a", "an", "the", "i", "i'm", "i'd", "i'll", "i've", "my", "me", "we", "our", "us", "you",
    "your", "he", "she", "it", "they", "his", "her", "its", "their", "them", "this", "that",
    "these", "those", "there", "here", "what", "when", "where", "who", "why", "how", "which",
    "if", "in", "on", "at", "to", "for", "of", "and", "or", "but", "so", "as", "by", "from",
    "with", "after", "before", "since", "until", "while", "because", "also", "then", "now",
    "yes", "no", "not", "please", "remember", "note", "put", "hold", "holding", "get", "got",
    "make", "made", "keep", "let",
})  # fmt: skip


def anchors(text: str) -> frozenset[str]:
    """The names and figures of a text, casefolded (a possessive "'s" or plural "s" dropped)."""
    return frozenset(_anchors(text))


def anchors_with_openers(text: str) -> dict[str, bool]:
    """Each anchor of ``text`` and whether it only ever opens a sentence or line."""
    return _anchors(text)


def _anchors(text: str) -> dict[str, bool]:
    """Each anchor, and whether it only ever opens a sentence or line. An opening capital says
    nothing (titles and sentences all start with one): "Shed paint" and "Shed door" share no
    name. Figures never open-only."""
    found: dict[str, bool] = {}
    folded = fold_accents(text)
    for match in _NAME_OR_FIGURE.finditer(folded):
        token = match.group(0)
        word = re.sub(r"['’]s$", "", token).casefold().replace(",", "")
        if not word or word in _NOT_NAMES:
            continue
        # A plural is the same name ("Tuesdays"): the last "s" goes, on both sides alike.
        word = word[:-1] if len(word) > 3 and word.endswith("s") else word
        before = folded[: match.start()].rstrip(" \t\"'(")
        opens = token[0].isalpha() and (not before or before[-1] in ".!?:;\n")
        found[word] = found.get(word, True) and opens
    return found


def share_anchors(a: str, b: str) -> bool:
    """Whether two texts name mostly the same people, places and figures: at least half of
    the smaller side's anchors (and at least one) appear on both sides, and at least one shared
    anchor is a figure or stands mid-sentence on one side."""
    mine, theirs = _anchors(a), _anchors(b)
    shared = mine.keys() & theirs.keys()
    named = [w for w in shared if not (mine[w] and theirs[w])]
    return bool(named) and 2 * len(shared) >= min(len(mine), len(theirs))
