"""A file that holds several documents (a mailbox, a whole chat export): one source, one
Document for the file, and one Document per part ``part_of`` it, each part's Passages
``part_of`` the part.

The file stays the unit of a run: it is hashed, compared, replaced and resumed as any other
(its source row names the file's Document), so re-reading an unchanged mailbox does nothing.
Passages are numbered across the whole file, so a stopped run goes on from the first one
missing whichever part it belongs to. A part's Document is written with its first passage, in
that passage's transaction, so a long mailbox is written part by part like a long document.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from cairn.app.ingestion import shapes
from cairn.app.ingestion.plan import PlannedFile
from cairn.app.packs import Pack
from cairn.app.text.surface import searchable_text
from cairn.ingest.chunking import Passage, chunk
from cairn.ingest.document import ExtractedDocument
from cairn.storage import graph_rows
from cairn.storage.connection import Connection


@dataclass
class PreparedPart:
    """One document inside a file, ready to be written as a Document."""

    document: ExtractedDocument
    title: str
    attrs: dict[str, Any]
    vector: Any = None

    @property
    def searchable(self) -> str:
        return searchable_text(self.title, "", self.attrs)


def split(document: ExtractedDocument) -> tuple[list[Passage], list[int]]:
    """The passages of a document's own text, or of its parts in order, numbered across the
    file; with them, for a file of parts, the index of the part each passage belongs to."""
    if not document.parts:
        return chunk(document.segments), []
    passages: list[Passage] = []
    owners: list[int] = []
    for index, part in enumerate(document.parts):
        for passage in chunk(part.segments):
            passages.append(dataclasses.replace(passage, ordinal=len(passages)))
            owners.append(index)
    return passages, owners


def prepare(document: ExtractedDocument, planned: PlannedFile, pack: Pack) -> list[PreparedPart]:
    """Each part's title and attributes: those of a file (its path and media type), with the
    part's own metadata (a message's sender, recipients, date, subject). The file's hash is the
    file Document's alone."""
    prepared = []
    for part in document.parts:
        attrs, _ = shapes.document_attrs(part, planned, pack)
        attrs.pop("sha256", None)
        title = shapes.document_title(part.title, planned.path)
        prepared.append(PreparedPart(part, title, attrs))
    return prepared


def people(document: ExtractedDocument) -> list[str]:
    """The people a file and its parts name as taking part, each once."""
    found: dict[str, str] = {}
    for named in (document, *document.parts):
        for name in named.people:
            found.setdefault(name.casefold(), name)
    return list(found.values())


def written(conn: Connection, document_id: str, scope: str) -> list[str]:
    """The part Documents already written for a file's Document, in the order written."""
    edges = graph_rows.edges_of(conn, document_id, "part_of")
    ids = [e["src"] for e in edges if e["dst"] == document_id]
    rows = [r for r in graph_rows.nodes_by_ids(conn, ids, [scope]) if r["type"] == "Document"]
    return [str(r["id"]) for r in sorted(rows, key=lambda r: r["seq"])]


def is_part(conn: Connection, document_id: str) -> bool:
    """Whether a Document is a part of another (a message of a mailbox)."""
    owners = [
        e["dst"]
        for e in graph_rows.edges_of(conn, document_id, "part_of")
        if e["src"] == document_id
    ]
    return any(graph_rows.type_of(conn, owner) == "Document" for owner in owners)
