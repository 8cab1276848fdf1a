"""Who said a text: the name before the colon of a said line ("Ines: we went camping").

A chat's messages, a transcript's turns and a conversation pasted into a note are kept as said
lines (``ingest.chat`` writes each message so), and the name at the head of one is the person
whose words follow. Read from the text, never guessed: a line opening with a capitalised name of
one to three words, after a time if any ("9:41 Ines:"), then a colon and a space.
"""

from __future__ import annotations

import re

# The head of a said line: a speaker's name (after a time, if any), a colon and a space.
SAID_LINE = re.compile(
    r"^[ \t]*(?:\d{1,2}[:.]\d{2}[ \t]+)?([A-Z][\w'’-]*(?: [A-Z][\w'’-]*){0,2}):[ \t]", re.M
)
# How much of a text's start is read to find its speaker: a time and a three-word name.
OPENING_CHARS = 80


def speaker(text: str) -> str | None:
    """The name that opens ``text`` as a said line, else None."""
    found = SAID_LINE.match(text)
    return found.group(1) if found else None
