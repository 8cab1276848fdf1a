"""What a memory is to the person who kept it: the shelf it stands on.

Mostly its type. But a Markdown or text file is a note the person wrote, even when Cairn read
it from a notes folder (a Document, with Passages for its sections): it stands with the notes
typed in the window. Other files (a PDF, a scan, a recording) are Documents. A Passage is a
section of its document, reached from it, never a shelf of its own. The library, the status
bar, the search list and the detail pane all ask here, so their counts and words agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cairn.storage.shelf_rows import ShelfFilter

NOTE = "Note"
DOCUMENT = "Document"
SECTION = "Passage"  # the type whose memories are sections of a document
# What a note file is read as (ingest/textfile.py); a code file or a chat export has its own.
NOTE_MEDIA_TYPES = ("text/markdown", "text/plain")


def shelf_of(type_name: str, attrs: Mapping[str, Any]) -> str:
    """The shelf of a memory of ``type_name`` with ``attrs``."""
    if type_name == DOCUMENT and attrs.get("media_type") in NOTE_MEDIA_TYPES:
        return NOTE
    return type_name


def is_note_file(type_name: str, attrs: Mapping[str, Any]) -> bool:
    """A note Cairn read from a file (not one typed in the window)."""
    return type_name == DOCUMENT and shelf_of(type_name, attrs) == NOTE


def shelf_filter(shelf: str | None) -> ShelfFilter:
    """The rows a shelf lists (None: every memory but the sections)."""
    if shelf is None:
        return ShelfFilter(except_types=(SECTION,))
    if shelf == NOTE:
        return ShelfFilter(types=(NOTE,), documents_of=NOTE_MEDIA_TYPES)
    if shelf == DOCUMENT:
        return ShelfFilter(types=(), documents_of=NOTE_MEDIA_TYPES, other_documents=True)
    return ShelfFilter(types=(shelf,))


def fold(counts: Mapping[tuple[str, str | None], int]) -> dict[str, int]:
    """Counts by type and media type (``shelf_rows.counts_by_type_and_media``) as counts by
    shelf, sections left out."""
    shelves: dict[str, int] = {}
    for (type_name, media_type), count in counts.items():
        if type_name == SECTION:
            continue
        shelf = shelf_of(type_name, {"media_type": media_type})
        shelves[shelf] = shelves.get(shelf, 0) + count
    return dict(sorted(shelves.items()))
