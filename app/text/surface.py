"""The searchable surface of a memory: one function feeds both the embedder and the full-text
index, on write and on rebuild, so the two can never disagree about what a memory says."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

# ![[file]] or ![[Note#part|size]]: an embed; its name stays, as a word of the text.
_EMBED = re.compile(r"!\[\[([^\[\]\n|#]*)[^\[\]\n]*\]\]")
# [[Note]], [[Note#Heading]], [[Note|shown]], [[Note\|shown]] (in a table): what a reader sees.
_WIKILINK = re.compile(r"\[\[([^\[\]\n|#]*?)\\?(?:#([^\[\]\n|]*?))?\\?(?:\|([^\[\]\n]*))?\]\]")
# A running page header or footer: "Page 3 of 5", "3 / 5", "- 3 -", "Page 3" on a line alone,
# or "Page 3 of 5" within one. Words of every page, not of what the page says.
_PAGE_LINE = re.compile(
    r"^[ \t]*(?:(?:page|p\.)[ \t]*\d{1,5}(?:[ \t]*(?:of|/)[ \t]*\d{1,5})?"
    r"|\d{1,5}[ \t]*(?:of|/)[ \t]*\d{1,5}|[-–—][ \t]*\d{1,5}[ \t]*[-–—])[ \t]*$\n?",
    re.I | re.M,
)
_PAGE_OF = re.compile(r"\bpage[ \t]+\d{1,5}[ \t]+of[ \t]+\d{1,5}\b", re.I)


def searchable_text(
    title: str, body: str, attrs: Mapping[str, Any], addenda: Sequence[str] = ()
) -> str:
    """Title, body, each string, date or list-of-strings attribute as ``key: value``; for the
    full-text entry also the addenda the dedup gate kept with the memory (other wordings of it,
    merged duplicates). The vector is made from the memory's own text alone, so restatements
    kept beside a memory are found by their words without shifting its meaning.

    String and date attributes are content (a fact stored only as ``occupation: nurse`` must be
    found by "nurse"); numbers and booleans are not worth matching as words. Keys are sorted so
    the same memory always yields the same text.
    """
    parts = [title.strip()]
    body = reading_text(body)
    if body.strip():
        parts.append(body.strip())
    for key in sorted(attrs):
        value = attrs[key]
        if isinstance(value, str) and value.strip():
            parts.append(f"{_label(key)}: {value.strip()}")
        elif isinstance(value, list):
            words = [item.strip() for item in value if isinstance(item, str) and item.strip()]
            if words:
                parts.append(f"{_label(key)}: {', '.join(words)}")
    parts.extend(text.strip() for text in addenda if text.strip())
    return "\n".join(parts)


def reading_text(text: str) -> str:
    """``text`` without the markup and page furniture that are not what it says: a wikilink
    becomes the words a reader sees (``[[X|shown]]`` is "shown", ``[[X#Part]]`` "X Part"), an
    embed its name, and running page headers and footers ("Page 3 of 5") go. The memory keeps
    its text as written; this is only what is embedded and indexed, so neither leg ranks a
    passage by the syntax around its words or by the page count every page repeats."""
    if "[[" in text:
        text = _EMBED.sub(lambda m: m.group(1).strip(), text)
        text = _WIKILINK.sub(_shown, text)
    if any(ch.isdigit() for ch in text):
        text = _PAGE_OF.sub(" ", _PAGE_LINE.sub("", text))
    return text


def _shown(link: re.Match[str]) -> str:
    name, part, shown = link.group(1), link.group(2), link.group(3)
    if shown is not None and shown.strip():
        return shown.strip()
    return " ".join(w for w in (name.strip(), (part or "").strip()) if w)


def _label(key: str) -> str:
    return key.replace("_", " ")
