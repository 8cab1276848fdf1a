"""The syntax notes apps add to Markdown, taken out of what a person reads: Logseq's block
properties (``id:: 6018…``, ``collapsed:: true``), block references (``((6018…))``) and macros
(``{{query …}}``, ``{{embed …}}``), org-mode block fences (``#+BEGIN_NOTE``), and pictures,
which a reader sees named rather than as a broken image. The note keeps its text as written;
this is only what is shown (a snippet, the detail pane), never what is stored or searched.

``for_reading`` keeps the Markdown (the detail pane renders it) and turns a ``[[link]]`` into
a Markdown link to ``cairn-link:`` + the name, which the window opens as a memory by that name.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

LINK_SCHEME = "cairn-link:"
_PROPERTY = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?[A-Za-z][\w-]*::(?:[ \t].*)?$")
_ORG_FENCE = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?#\+(?:BEGIN|END)_\w+.*$", re.IGNORECASE)
_BLOCK_REF = re.compile(r"\(\([0-9a-f]{8}-[0-9a-f-]{27,}\)\)", re.IGNORECASE)
_MACRO = re.compile(r"\{\{[^{}\n]*\}\}")
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(([^()\n]*)\)")
_EMBED = re.compile(r"!\[\[([^\]\n|#]+)(?:[#|][^\]\n]*)?\]\]")
_WIKILINK = re.compile(r"(?<!!)\[\[([^\[\]\n|#]+?)(?:#([^\[\]\n|]+?))?(?:\|([^\[\]\n]+))?\]\]")
_EMPTY_BULLET = re.compile(r"^[ \t]*[-*+][ \t]*$")


def is_markup_line(line: str) -> bool:
    """A line that only carries a notes app's syntax: a block property, an org fence."""
    return bool(_PROPERTY.match(line) or _ORG_FENCE.match(line))


def inline_markup_out(text: str) -> str:
    """Block references and macros taken out of a line, pictures named by their words."""
    text = _BLOCK_REF.sub("", text)
    text = _MACRO.sub("", text)
    text = _EMBED.sub(lambda m: f"[{_picture(m.group(1))}]", text)
    return _IMAGE.sub(lambda m: f"[{_picture(m.group(1) or m.group(2))}]", text)


def for_reading(text: str) -> str:
    """A note's Markdown as the detail pane renders it."""
    lines = []
    for line in text.split("\n"):
        if is_markup_line(line):
            continue
        line = inline_markup_out(line)
        if _EMPTY_BULLET.match(line):
            continue
        lines.append(_WIKILINK.sub(_as_link, line))
    return "\n".join(lines)


def link_target(url: str) -> str | None:
    """The memory name a ``cairn-link:`` URL names (None for any other URL)."""
    if not url.startswith(LINK_SCHEME):
        return None
    return unquote(url[len(LINK_SCHEME) :]) or None


def _as_link(match: re.Match[str]) -> str:
    name, heading, shown = match.group(1).strip(), match.group(2), match.group(3)
    words = shown or (f"{name} › {heading}" if heading else name)
    return f"[{words}]({LINK_SCHEME}{quote(name)})"


def _picture(name: str) -> str:
    base = name.rsplit("/", 1)[-1].strip() or "picture"
    return f"picture: {base}"
