"""How a hit shows itself: its shelf (a note file is a note), the note or document a section
belongs to, and a snippet of what it says (``app/text/snippets.py``), with the matched spans.

Read for the few hits a search returns, after the ranking: none of this changes the order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cairn.app.models import DocumentRef
from cairn.app.text import shelves, snippets
from cairn.storage import fulltext, shelf_rows
from cairn.storage.connection import Connection

SNIPPET_FALLBACK_CHARS = 180
_MARKERS = fulltext.HIGHLIGHT_START + fulltext.HIGHLIGHT_END


@dataclass(frozen=True)
class Face:
    shelf: str
    part_of: DocumentRef | None
    hidden: tuple[str, ...]  # the searchable-text lines its snippet leaves out
    position: int | None  # a section's place in its document


def faces(
    conn: Connection, heads: Sequence[Mapping[str, Any]], scopes: Sequence[str]
) -> dict[str, Face]:
    """The face of each hit (``heads`` are its head rows: id and type)."""
    ids = [head["id"] for head in heads]
    attrs = {
        node_id: json.loads(text)
        for node_id, text in shelf_rows.attrs_of(conn, ids, scopes).items()
    }
    sections = [head["id"] for head in heads if head["type"] == shelves.SECTION]
    documents = shelf_rows.containing_documents(conn, sections, scopes)
    found: dict[str, Face] = {}
    for head in heads:
        node_attrs = attrs.get(head["id"], {})
        part_of = None
        if head["id"] in documents:
            document_id, title, document_attrs = documents[head["id"]]
            shelf = shelves.shelf_of(shelves.DOCUMENT, json.loads(document_attrs))
            part_of = DocumentRef(document_id, title, shelf)
        found[head["id"]] = Face(
            shelves.shelf_of(head["type"], node_attrs),
            part_of,
            snippets.hidden_lines(node_attrs),
            _position(node_attrs) if part_of is not None else None,
        )
    return found


def _position(attrs: Mapping[str, Any]) -> int | None:
    ordinal = attrs.get("ordinal")
    return int(ordinal) if isinstance(ordinal, int | float) else None


def snippet(
    marked: str | None, title: str, body: str, hidden: tuple[str, ...]
) -> tuple[str, list[tuple[int, int]]]:
    """Plain snippet text plus the spans that matched the query: the index's best fragment
    (``marked``), else the start of the body; a hit with neither (a file's Document, whose
    words are its sections') has an empty one."""
    readable = snippets.readable(marked, hidden, unmarked=_MARKERS) if marked else ""
    if not readable.replace(fulltext.HIGHLIGHT_START, "").replace(fulltext.HIGHLIGHT_END, ""):
        text = " ".join(snippets.readable(body).split()) if body else ""
        if len(text) > SNIPPET_FALLBACK_CHARS:
            text = text[:SNIPPET_FALLBACK_CHARS].rsplit(" ", 1)[0] + " …"
        return text or ("" if body or marked else title), []
    plain: list[str] = []
    spans: list[tuple[int, int]] = []
    position = 0
    start = 0
    for char in readable:
        if char == fulltext.HIGHLIGHT_START:
            start = position
        elif char == fulltext.HIGHLIGHT_END:
            spans.append((start, position))
        else:
            plain.append(char)
            position += 1
    return "".join(plain), spans
