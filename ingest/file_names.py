"""File names that are not valid UTF-8, kept faithfully and shown readably.

A Linux file name is bytes. Python hands an undecodable byte to us as a lone surrogate
(``caf\\udce9.txt``, PEP 383), which opens the file fine but which SQLite, JSON and a terminal
refuse. Old archives (Latin-1 names from another decade, a zip unpacked on the wrong system) are
full of such names, so every name is carried in two forms:

- its **bytes** (``os.fsencode``), which open the file and are kept in the vault beside
- its **readable form**: the name with each undecodable byte written ``\\xe9``. That is what is
  shown, searched and used as the key; for a valid UTF-8 name it is the name itself.

``on_disk`` turns a readable form back into the path that opens the file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# backslashreplace writes only bytes 0x80-0xff (ASCII always decodes), in lower case.
_ESCAPED_BYTE = re.compile(r"\\x([89a-f][0-9a-f])")


def readable(path: str | os.PathLike[str]) -> str:
    """The path as text any consumer accepts: undecodable bytes as ``\\xNN``."""
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", "backslashreplace")
    return text


def raw_bytes(path: str | os.PathLike[str]) -> bytes | None:
    """The name's bytes when they are not valid UTF-8 (so the readable form differs); else
    None: the readable form is the name."""
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(text)
    return None


def on_disk(shown: str, raw: bytes | None = None) -> Path:
    """The path that opens the file shown as ``shown``: its kept bytes when there are some;
    else the readable form itself when such a file exists; else the form with its ``\\xNN``
    escapes turned back into bytes (a readable form made by ``readable``)."""
    if raw is not None:
        return Path(os.fsdecode(raw))
    path = Path(shown)
    if "\\x" not in shown or os.path.lexists(path):
        return path
    # U+DC80..U+DCFF is how Python spells an undecodable byte 0x80..0xFF in a str (PEP 383).
    return Path(_ESCAPED_BYTE.sub(lambda match: chr(0xDC00 + int(match.group(1), 16)), shown))
