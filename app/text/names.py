"""A name as it is compared: the one spelling the resolver, the mention finder and a search's
"who" all look names up by (``entity_names.norm``)."""

from __future__ import annotations

import re
import unicodedata

# Hyphens, underscores and any run of spaces are one separator: "Jean-Luc", "jean_luc" and
# "Jean  Luc" are the same name.
_SEPARATORS = re.compile(r"[\s\-_‐-―]+")
# Everything that is not a letter, digit or separator is dropped: "O'Brien" is "obrien",
# "J.R.R." is "jrr".
_NOT_WORD = re.compile(r"[^\w ]+")
# Letters that carry no combining accent to strip, so NFKD leaves them be: spelled out the way
# a keyboard without them would.
_PLAIN_LETTERS = str.maketrans(
    {"ø": "o", "æ": "ae", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"}
)


def normalize(name: str) -> str:
    """Casefolded, accents stripped, separators unified, punctuation dropped."""
    decomposed = unicodedata.normalize("NFKD", name)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    spaced = _SEPARATORS.sub(" ", stripped.casefold().translate(_PLAIN_LETTERS))
    return " ".join(_NOT_WORD.sub("", spaced).split())
