"""One row per memory: the hits of a search gathered so that a note or document is listed once,
with the sections of it that matched under it, in the order of its best hit.

A search ranks sections (Passages) and whole memories alike, so one note's nine sections can
fill a screen. Grouped, the note is one row ("9 matching sections"), placed where its best
section or its own hit ranked; the ranking itself is the search's and stays as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cairn.app.models import SearchHit
from cairn.app.text import shelves

PLACE_MARK = " — "  # between a document's title and a section's place in a section's title


@dataclass
class ResultGroup:
    """A memory as one row: its own hit if it matched, and its sections that matched."""

    id: str
    type: str
    shelf: str
    title: str
    head: SearchHit | None = None
    sections: list[SearchHit] = field(default_factory=list)

    @property
    def best(self) -> SearchHit:
        """The hit the row shows: the memory's own, else its best section."""
        return self.head if self.head is not None else self.sections[0]

    @property
    def snippet(self) -> tuple[str, list[tuple[int, int]]]:
        """What the row says: the memory's own snippet, or (a file whose words are in its
        sections) its best section's."""
        if self.head is not None and self.head.snippet.strip():
            return self.head.snippet, list(self.head.highlights)
        if self.sections:
            return self.sections[0].snippet, list(self.sections[0].highlights)
        return "", []


def group_hits(hits: Sequence[SearchHit]) -> list[ResultGroup]:
    """``hits`` (best first) as rows: a section goes under its note or document, placed at its
    first hit; everything else is a row of its own."""
    groups: dict[str, ResultGroup] = {}
    for hit in hits:
        owner = hit.part_of
        if owner is not None:
            group = groups.setdefault(
                owner.id, ResultGroup(owner.id, shelves.DOCUMENT, owner.shelf, owner.title)
            )
            group.sections.append(hit)
            continue
        found = groups.get(hit.id)
        if found is None:
            groups[hit.id] = ResultGroup(hit.id, hit.type, hit.shelf or hit.type, hit.title, hit)
        else:  # its sections came first
            found.head, found.type, found.title = hit, hit.type, hit.title
    return list(groups.values())


def section_place(section_title: str, document_title: str) -> str:
    """Where a section sits in its note or document (a heading, a page, a time), from its
    title ("Ferry times — Sundays" is "Sundays")."""
    lead = document_title + PLACE_MARK
    return section_title[len(lead) :] if section_title.startswith(lead) else section_title
