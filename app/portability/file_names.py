"""File names for exported notes: safe on Linux, macOS and Windows, and unique in a folder even
where the file system ignores case.

A title keeps its words. Only what a file system or a ``[[link]]`` cannot hold is replaced:
``/ \\ : * ? " < > |`` and control characters (Windows, macOS, Linux), ``# ^ [ ]`` (they end a
wikilink's name or start its heading), a leading dot (a hidden file, which notes tools skip),
trailing dots and spaces (Windows drops them), Windows' device names (CON, NUL, COM1...). A
title ending like a file of another kind ("notes.pdf") would make ``[[notes.pdf]]`` an
attachment, so its last dot becomes "_". Names are cut at 120 UTF-8 bytes (every file system
holds 255). The exact title always stays in the note's front matter.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePath

from cairn.ingest import textfile

MAX_BYTES = 120
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|#^\[\]]+')
_DEVICE = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$", re.IGNORECASE)
FALLBACK = "Untitled"


def safe_stem(title: str) -> str:
    """A file name stem (no suffix) for ``title``."""
    name = unicodedata.normalize("NFC", title)
    name = " ".join(_UNSAFE.sub(" ", name).split())
    name = name.lstrip(". ")
    name = _cut(name).rstrip(". ")
    suffix = PurePath(name).suffix.lower()
    if suffix and (suffix in textfile.FILE_SUFFIXES or suffix in textfile.MARKDOWN_SUFFIXES):
        head, _, tail = name.rpartition(".")
        name = f"{head}_{tail}"
    if _DEVICE.match(name):
        name = f"{name}_"
    return name or FALLBACK


def _cut(name: str) -> str:
    data = name.encode("utf-8")
    if len(data) <= MAX_BYTES:
        return name
    return data[:MAX_BYTES].decode("utf-8", errors="ignore").rstrip()


class Names:
    """Hands out unique stems, case-insensitively: "Plan", "plan (2)", "PLAN (3)"."""

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def claim(self, title: str) -> str:
        stem = safe_stem(title)
        candidate, number = stem, 1
        while _key(candidate) in self._taken:
            number += 1
            candidate = f"{_cut(stem)[: MAX_BYTES - 8].rstrip()} ({number})"
        self._taken.add(_key(candidate))
        return candidate


def _key(stem: str) -> str:
    return unicodedata.normalize("NFC", stem).casefold()
