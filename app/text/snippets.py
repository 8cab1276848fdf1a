"""A snippet a person can read: the words of the memory, not its bookkeeping or its markup.

The full-text index holds a memory's searchable text (``surface.searchable_text``): its title,
body and string attributes as ``key: value`` lines. A file's Document has ``path``,
``media_type`` and ``sha256`` among them, which stay searchable (a file is found by its name)
but are not what it says: a snippet drops every line, or cut line, that only repeats one of
them. Markdown is shown as the text a reader sees: ``**Settings → Sync**`` is "Settings →
Sync", a heading loses its hashes, a link its brackets, a code fence its fence lines, and a
notes app's own syntax goes (``note_markup``: Logseq's properties and block references).

The functions work on a snippet still holding the index's highlight markers (any characters
that are not markup), so the words that matched stay marked wherever the markup goes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from cairn.app.text import note_markup
from cairn.app.text.surface import reading_text

# What Cairn keeps to know a file again, not what the file says; ``heading`` is a section's
# place, which its title already shows.
BOOKKEEPING_ATTRS = frozenset({"path", "media_type", "sha256", "heading"})
ELLIPSIS = "…"

_FENCE = re.compile(r"^\s*(?:```|~~~)")
_LEADING = re.compile(
    r"^(?P<keep>[\x00-\x08]*)\s*(?:#{1,6}\s+|>\s?|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,3}[.)]\s+)"
)
_IMAGE_OR_LINK = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\n]*\)")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(
    r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])|(?<!\w)_(?=\S)([^_\n]+?)(?<=\S)_(?!\w)"
)
_CODE = re.compile(r"`+")
# What a cut leaves of markup whose other half fell outside the snippet: "**" or "__" alone, the
# "](target)" end of a link, a "[" or "]]" without its partner, a reference link's definition.
_STRAY = re.compile(r"\*\*|__|\]\([^()\s]*\)|\[\[|\]\]")
_LINK_DEFINITION = re.compile(r"^\s*\[[^\]\n]+\]:\s+\S+\s*$")
_TAG_HTML = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>\n]*)?/?>")
_TABLE_RULE = re.compile(r"^[\s|:\-]+$")
_SPACES = re.compile(r"[ \t]{2,}")


def hidden_lines(attrs: Mapping[str, Any]) -> tuple[str, ...]:
    """The searchable-text lines of ``attrs`` a snippet leaves out (``key: value``)."""
    lines = []
    for key in sorted(BOOKKEEPING_ATTRS & attrs.keys()):
        value = attrs[key]
        if isinstance(value, str) and value.strip():
            lines.append(f"{key.replace('_', ' ')}: {value.strip()}")
    return tuple(lines)


def readable(snippet: str, hidden: tuple[str, ...] = (), *, unmarked: str = "") -> str:
    """``snippet`` without the lines ``hidden`` names (whole, or cut short by the index's
    ellipsis) and with Markdown shown as text. ``unmarked`` are the marker characters to
    ignore when comparing a line with a hidden one."""
    kept: list[str] = []
    in_code = False
    for line in snippet.split("\n"):
        bare = _bare(line, unmarked)
        if _FENCE.match(bare):
            in_code = not in_code
            continue
        if not bare.strip() or _is_hidden(bare, hidden) or _TABLE_RULE.match(bare):
            continue
        if _LINK_DEFINITION.match(bare) or note_markup.is_markup_line(bare):
            continue
        kept.append(line if in_code else plain_line(line))
    return "\n".join(line for line in kept if line.strip())


def plain_line(line: str) -> str:
    """One line of Markdown as a reader sees it."""
    line = note_markup.inline_markup_out(line)
    line = _LEADING.sub(lambda m: m.group("keep"), line, count=1)
    line = reading_text(line)  # [[links]] and embeds as the words shown
    line = _IMAGE_OR_LINK.sub(r"\1", line)
    line = _STRONG.sub(r"\2", line)
    line = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), line)
    line = _CODE.sub("", line)
    line = _STRAY.sub("", line)
    line = _TAG_HTML.sub("", line)
    line = line.replace(" | ", " · ").strip("| ")
    return _SPACES.sub(" ", line)


def _bare(line: str, unmarked: str) -> str:
    for char in unmarked:
        line = line.replace(char, "")
    return line


def _is_hidden(bare: str, hidden: tuple[str, ...]) -> bool:
    """A hidden line: whole or cut at its end (it starts with one's ``key: ``, or the cut left
    less than that: "media…"), or cut at its start by the index's ellipsis (what is left is a
    piece of one)."""
    text = bare.strip()
    cut_start, cut_end = text.startswith(ELLIPSIS), text.endswith(ELLIPSIS)
    text = text.strip(ELLIPSIS).strip()
    if not text:
        return False
    for line in hidden:
        label = line.split(": ", 1)[0] + ": "
        if text.startswith(label) or (cut_start and text in line):
            return True
        if cut_end and line.startswith(text):
            return True
    return False
