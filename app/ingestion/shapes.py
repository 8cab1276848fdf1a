"""What an ingested file becomes as memories: the Document's title and attributes (only values
that fit the pack's attribute kinds), each Passage's title ("Letter — p. 3 · Terms") and
attributes (heading path, page, time range, ordinal). Pure functions; the pipeline stores them.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from cairn.app.ingestion.plan import PlannedFile
from cairn.app.packs import Pack
from cairn.app.text import shelves
from cairn.app.text.snippets import readable
from cairn.app.writing.writer import MAX_BODY
from cairn.ingest.chunking import Passage
from cairn.ingest.document import ExtractedDocument

TITLE_CHARS = 120
# A note's text is kept whole in its Document up to the most a memory's text may hold (about
# thirty pages, more than a note); a longer text file, a book, is read by its sections only.
NOTE_BODY_CHARS = MAX_BODY
# Metadata kept as the Document's attributes. A value of the first kind that does not fit is
# reported; one of the second (a message's headers, or a note's own "created:" in front matter,
# which was never kept before) is left out quietly.
WARNED_KEYS = ("pages", "duration_s", "language", "author")
QUIET_KEYS = ("created", "sender", "recipients", "subject")


def document_title(title: str, path: Path) -> str:
    return (title or path.stem).strip()[:TITLE_CHARS] or path.name


def document_body(document: ExtractedDocument) -> str:
    """What a file's Document keeps as its body: a note's whole text as written (shown and
    edited whole); nothing for other files, whose words are in their passages."""
    if shelves.shelf_of("Document", {"media_type": document.media_type}) != shelves.NOTE:
        return ""
    text = document.written
    return text if len(text) <= NOTE_BODY_CHARS else ""


def passage_title(document_title: str, passage: Passage) -> str:
    where = passage.locator
    headings = list(where.heading)
    if headings and headings[0].casefold() == document_title.casefold():
        headings = headings[1:]  # a note's first heading is usually its title again
    place = " › ".join(headings)
    if where.page is not None:
        place = f"p. {where.page}" + (f" · {place}" if place else "")
    elif where.start_s is not None:
        place = clock(where.start_s) + (f" · {place}" if place else "")
    return f"{document_title[:TITLE_CHARS]} — {place or opening_words(passage.text)}"


OPENING_WORDS = 6  # a section with no heading, page or time is named by its first words
OPENING_CHARS = 60  # and no more of them than a line of a list shows (a URL is one word)


def opening_words(text: str) -> str:
    """The first few words of a section that has no heading to name it (an outline's block,
    a paragraph of a text file), as a person would point at it: "The kiln reached cone …"."""
    words = readable(text).split()
    if not words:
        return "a section"
    shown = " ".join(words[:OPENING_WORDS])
    if len(shown) > OPENING_CHARS:
        return shown[:OPENING_CHARS].rstrip() + " …"
    return shown + (" …" if len(words) > OPENING_WORDS else "")


def clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def document_attrs(
    document: ExtractedDocument, planned: PlannedFile, pack: Pack
) -> tuple[dict[str, Any], list[str]]:
    """The Document's attributes, and a warning for each value from the file (front matter,
    PDF metadata) that does not fit the pack's attribute (``pages: 120-180``): it is left out."""
    attrs: dict[str, Any] = {
        "path": planned.source,
        "media_type": document.media_type,
        "sha256": planned.sha256,
    }
    specs = pack.node_types["Document"].attrs
    warnings: list[str] = []
    meta = document.metadata
    for key in (*WARNED_KEYS, *QUIET_KEYS):
        if key not in meta or key not in specs:
            continue
        value = meta[key]
        if fits(specs[key].kind, value):
            attrs[key] = value.strip() if isinstance(value, str) else value
        elif value not in (None, "") and key in WARNED_KEYS:
            shown = str(value)[:40]
            warnings.append(f"its {key} ({shown!r}) was left out: not a {specs[key].kind}")
    if document.tags:
        attrs["tags"] = list(document.tags)
    if document.aliases and "aliases" in specs:  # searchable, shown, and a name links find
        attrs["aliases"] = list(document.aliases)
    return attrs, warnings


def fits(kind: str, value: Any) -> bool:
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str) and bool(value.strip())
    if kind == "list":
        return isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)
    if kind == "date":
        return isinstance(value, str) and _is_date(value)
    return False


def _is_date(value: str) -> bool:
    """A date, or a date and time, as the vault stores them (YYYY-MM-DD, then the time)."""
    if len(value) < 10 or value[4] != "-" or value[7] != "-":
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def passage_attrs(passage: Passage) -> dict[str, Any]:
    where = passage.locator
    attrs: dict[str, Any] = {"ordinal": passage.ordinal}
    if where.heading:
        attrs["heading"] = " › ".join(where.heading)
    for key in ("page", "start_s", "end_s"):
        value = getattr(where, key)
        if value is not None:
            attrs[key] = value
    return attrs
