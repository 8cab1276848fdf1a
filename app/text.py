"""The searchable surface of a memory: one function feeds both the embedder and the full-text
index, on write and on rebuild, so the two can never disagree about what a memory says."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


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


def _label(key: str) -> str:
    return key.replace("_", " ")
