"""OpenDocument text (.odt, LibreOffice and others) with the standard library: a zip of XML parts.

Read from ``content.xml``: headings (``text:h`` with their outline level give the heading
path), paragraphs, list items (marked "- "), tables row by row ("cell | cell"), sections and
text frames; footnotes and endnotes, and comments, are kept under their own heading after the
body. Tables of contents and indexes repeat the text and are skipped, as is deleted (tracked)
text. ``meta.xml`` gives the title, author and language (a damaged one is a warning: the text
is still read).

The zip and its XML are read within ``zip_parts``' bounds; a ``content.xml`` nested deeper than
the walks here recurse fails its file, saying how deep (``failures``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from xml.etree import ElementTree

from cairn.ingest import failures
from cairn.ingest.document import ExtractedDocument, ExtractionError, Locator, Segment
from cairn.ingest.format_declaration import Format, Reading
from cairn.ingest.zip_parts import Package, attr, local, packaged_document

MEDIA_TYPE = "application/vnd.oasis.opendocument.text"
# Elements that repeat the body (generated indexes) or hold what is not text to read.
SKIPPED = frozenset(
    {"table-of-content", "alphabetical-index", "illustration-index", "table-index",
     "object-index", "user-index", "bibliography", "tracked-changes", "sequence-decls",
     "variable-decls", "user-field-decls", "forms", "annotation-end"}
)  # fmt: skip
# meta.xml's elements and the metadata keys they give; the first found of each key is kept.
_META_KEYS = {
    "title": "title",
    "initial-creator": "author",
    "creator": "author",
    "language": "language",
}
_SPACES = re.compile(r"[ \u00a0]{2,}")
# Runs of spaces are collapsed to one anyway: a larger count (a file may claim billions) is
# never spelled out. Outline levels run from 1 to 10 in OpenDocument.
MAX_SPACES = 64
MAX_OUTLINE_LEVEL = 10


@dataclass
class _Notes:
    footnotes: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)


def extract(data: bytes, name: str) -> ExtractedDocument:
    with Package(
        data, name, "OpenDocument text", "open it in LibreOffice and save it again"
    ) as package:
        manifest = package.read("META-INF/manifest.xml") or b""
        if b"encryption-data" in manifest:
            raise ExtractionError(
                f"{name} is protected by a password. Open it, save a copy without the password, "
                "and add that."
            )
        content = package.xml("content.xml")
        if content is None:
            raise ExtractionError(f"{name} has no content.xml: it is not an OpenDocument text.")
        try:
            meta = package.xml("meta.xml")
        except ExtractionError as exc:  # only the title and author are lost: the text is read
            meta, warnings = None, [str(exc)]
        else:
            warnings = []
    notes = _Notes()
    text = next((el for el in content.iter() if local(el.tag) == "text"), None)
    try:
        segments = list(_blocks(text, [], notes)) if text is not None else []
    except RecursionError:  # the walks recurse once per level of elements
        raise failures.too_deep(
            name,
            failures.xml_depth(content),
            "elements inside each other in its part content.xml",
            "Open it in LibreOffice and save it again, or leave it out.",
        ) from None
    segments += [Segment(note, Locator(heading=("Footnotes",))) for note in notes.footnotes]
    segments += [Segment(note, Locator(heading=("Comments",))) for note in notes.comments]
    return packaged_document(name, MEDIA_TYPE, segments, _metadata(meta), warnings)


def _blocks(
    container: ElementTree.Element, path: list[tuple[int, str]], notes: _Notes, bullet: str = ""
) -> Iterator[Segment]:
    """The segments of a container's block elements in reading order; ``path`` is the heading
    path so far (updated as headings are met)."""
    for element in container:
        tag = local(element.tag)
        if tag in SKIPPED:
            continue
        if tag == "h":
            heading = _inline(element, notes)
            if not heading:
                continue
            level = _count(attr(element, "outline-level"), MAX_OUTLINE_LEVEL)
            path[:] = [(lvl, h) for lvl, h in path if lvl < level] + [(level, heading)]
            yield Segment(heading, Locator(heading=tuple(h for _, h in path)))
        elif tag == "p":
            text = _inline(element, notes)
            if text:
                yield Segment(bullet + text, Locator(heading=tuple(h for _, h in path)))
        elif tag in ("list", "list-item", "list-header"):
            yield from _blocks(element, path, notes, "- ")
        elif tag == "table":
            rows = [_row(row, notes) for row in element.iter() if local(row.tag) == "table-row"]
            text = "\n".join(row for row in rows if row.strip(" |"))
            if text:
                yield Segment(text, Locator(heading=tuple(h for _, h in path)))
        else:  # sections, text boxes and other containers: their blocks, in order
            yield from _blocks(element, path, notes, bullet)


def _row(row: ElementTree.Element, notes: _Notes) -> str:
    cells = []
    for cell in row:
        if local(cell.tag) == "table-cell":
            parts = [_inline(p, notes) for p in cell.iter() if local(p.tag) in ("p", "h")]
            cells.append(" ".join(part for part in parts if part))
    return " | ".join(cells)


def _inline(paragraph: ElementTree.Element, notes: _Notes) -> str:
    """A paragraph's text: spans and links opened, ``text:s`` spaces counted, tabs and line
    breaks kept; a footnote's or comment's text goes to ``notes`` instead."""
    out: list[str] = [paragraph.text or ""]
    for child in paragraph:
        tag = local(child.tag)
        if tag == "s":
            out.append(" " * _count(attr(child, "c"), MAX_SPACES))
        elif tag == "tab":
            out.append("\t")
        elif tag == "line-break":
            out.append("\n")
        elif tag == "note":
            body = next((el for el in child if local(el.tag) == "note-body"), None)
            if body is not None:
                text = " ".join(s.text for s in _blocks(body, [], notes))
                if text:
                    notes.footnotes.append(text)
        elif tag == "annotation":
            text = " ".join(_inline(p, notes) for p in child if local(p.tag) == "p").strip()
            if text:
                notes.comments.append(text)
        elif tag not in SKIPPED:
            if tag in ("frame", "text-box", "p", "h"):  # a text box's paragraphs
                out.append(" ")
            out.append(_inline(child, notes))
        out.append(child.tail or "")
    return _SPACES.sub(" ", "".join(out)).strip()


def _count(value: str | None, most: int) -> int:
    """A count attribute (``text:c``, ``outline-level``) within 1..``most``; missing or not a
    whole number, it is 1, OpenDocument's default."""
    try:
        return max(1, min(int(value or "1"), most))
    except ValueError:
        return 1


def _metadata(meta: ElementTree.Element | None) -> dict[str, str]:
    found: dict[str, str] = {}
    if meta is None:
        return found
    for element in meta.iter():
        value = (element.text or "").strip()
        key = _META_KEYS.get(local(element.tag))
        if key and value and key not in found:
            found[key] = value
    return found


def _read(data: bytes, name: str, reading: Reading) -> ExtractedDocument:
    return extract(data, name)


ODT = Format(
    name="odt",
    label="OpenDocument",
    suffixes=frozenset({".odt"}),
    media_types=frozenset({MEDIA_TYPE}),
    read=_read,
)
