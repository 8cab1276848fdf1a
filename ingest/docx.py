"""Word documents (.docx) with the standard library: a DOCX is a zip of XML parts.

Read: paragraphs (list items marked with "- "), headings by paragraph style, tables row by row
("cell | cell"), text boxes, footnotes, endnotes and comments; deleted (tracked) text is not.
Both OOXML dialects (transitional and ISO 29500 strict) are read, by matching local names.

The package is read by ``zip_parts.Package``: XML through defusedxml (no entity declarations,
no external references), each part only up to ``zip_parts.MAX_PART_BYTES`` and the archive only
up to ``zip_parts.MAX_TOTAL_BYTES`` uncompressed, every part counted, so a zip bomb fails that
file with a message instead of filling memory, and a damaged part fails it with the part's
name. A part nested deeper than the walks here recurse fails the file too, saying how deep
(``failures``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import PurePath
from typing import TypeVar
from xml.etree import ElementTree

from cairn.ingest import failures
from cairn.ingest.document import ExtractedDocument, ExtractionError, Locator, Segment
from cairn.ingest.format_declaration import Format, Reading
from cairn.ingest.zip_parts import Package, attr, local

_T = TypeVar("_T")
MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
# Parts with notes beside the body, and the heading their text is filed under.
NOTE_PARTS = (
    ("word/footnotes.xml", "footnote", "Footnotes"),
    ("word/endnotes.xml", "endnote", "Endnotes"),
    ("word/comments.xml", "comment", "Comments"),
)


def extract(data: bytes, name: str) -> ExtractedDocument:
    with Package(
        data,
        name,
        "Word document",
        "if it opens in Word or LibreOffice, save it again and add it",
        unopened=(
            f"{name} is not a readable Word document (it may be damaged, or an old .doc file: "
            "save it as .docx and add it again)."
        ),
        # Every part counts towards the total here, pictures and embedded files too.
        every_part_counts=True,
    ) as package:
        body = package.xml("word/document.xml")
        if body is None:
            raise ExtractionError(f"{name} has no document text part: it is not a Word document.")
        segments = _walked(name, "word/document.xml", body, _body_segments)
        title = _core_title(package) or _first_heading(segments) or PurePath(name).stem
        for part, kind, heading in NOTE_PARTS:
            notes = package.xml(part)
            if notes is not None:
                texts = _walked(name, part, notes, functools.partial(_notes, kind=kind))
                segments += [Segment(text, Locator(heading=(heading,))) for text in texts]
    return ExtractedDocument(title=title, media_type=MEDIA_TYPE, segments=tuple(segments))


def _walked(
    name: str,
    part: str,
    root: ElementTree.Element,
    walk: Callable[[ElementTree.Element], Iterator[_T]],
) -> list[_T]:
    """What ``walk`` finds in a part's tree. The walks recurse once per level of elements: a
    part nested deeper than Python recurses fails the file, saying how deep."""
    try:
        return list(walk(root))
    except RecursionError:
        raise failures.too_deep(
            name,
            failures.xml_depth(root),
            f"elements inside each other in its part {part}",
            "Open it in Word or LibreOffice and save it again, or leave it out.",
        ) from None


def _body_segments(root: ElementTree.Element) -> Iterator[Segment]:
    body = next((el for el in root.iter() if local(el.tag) == "body"), None)
    if body is None:
        return
    path: list[tuple[int, str]] = []
    for element in _blocks(body):
        if local(element.tag) == "tbl":
            rows = [" | ".join(_cell_texts(row)) for row in element if local(row.tag) == "tr"]
            text = "\n".join(row for row in rows if row.strip(" |"))
            if text:
                yield Segment(text, Locator(heading=tuple(h for _, h in path)))
            continue
        text = _paragraph_text(element)
        if not text.strip():
            continue
        level = _heading_level(element)
        if level is not None:
            path[:] = [(lvl, h) for lvl, h in path if lvl < level] + [(level, text.strip())]
        elif _is_list_item(element):
            text = f"- {text}"
        yield Segment(text.strip(), Locator(heading=tuple(h for _, h in path)))


def _blocks(container: ElementTree.Element) -> Iterator[ElementTree.Element]:
    """Paragraphs and tables in reading order; content controls (sdt) are opened."""
    for child in container:
        tag = local(child.tag)
        if tag in ("p", "tbl"):
            yield child
        elif tag in ("sdt", "sdtContent", "customXml"):
            yield from _blocks(child)


def _cell_texts(row: ElementTree.Element) -> list[str]:
    cells = []
    for cell in row:
        if local(cell.tag) == "tc":
            parts = [_paragraph_text(p) for p in cell.iter() if local(p.tag) == "p"]
            cells.append(" ".join(part.strip() for part in parts if part.strip()))
    return cells


def _paragraph_text(paragraph: ElementTree.Element) -> str:
    out: list[str] = []

    def walk(element: ElementTree.Element) -> None:
        for child in element:
            tag = local(child.tag)
            if tag == "Fallback":  # the same text box again, for old readers
                continue
            if tag == "t":
                out.append(child.text or "")
            elif tag == "tab":
                out.append("\t")
            elif tag in ("br", "cr"):
                out.append("\n")
            elif tag == "p" and child is not paragraph:  # a text box's paragraph
                out.append(" ")
                walk(child)
                continue
            if tag not in ("t", "delText"):
                walk(child)

    walk(paragraph)
    return "".join(out)


def _paragraph_style(paragraph: ElementTree.Element) -> str:
    for element in paragraph.iter():
        if local(element.tag) == "pStyle":
            return attr(element, "val") or ""
    return ""


def _heading_level(paragraph: ElementTree.Element) -> int | None:
    style = _paragraph_style(paragraph).replace(" ", "").lower()
    if style == "title":
        return 1
    if style.startswith("heading") and style[7:].isdigit():
        return int(style[7:])
    return None


def _is_list_item(paragraph: ElementTree.Element) -> bool:
    return any(local(el.tag) == "numPr" for el in paragraph.iter()) or (
        "list" in _paragraph_style(paragraph).lower()
    )


def _notes(root: ElementTree.Element, kind: str) -> Iterator[str]:
    for note in root:
        if local(note.tag) != kind:
            continue
        # Footnote ids -1 and 0 are the separator lines Word keeps in every document.
        if kind != "comment" and int(attr(note, "id") or "0") <= 0:
            continue
        text = " ".join(
            _paragraph_text(p).strip() for p in note.iter() if local(p.tag) == "p"
        ).strip()
        if text:
            yield text


def _core_title(package: Package) -> str | None:
    core = package.xml("docProps/core.xml")
    if core is None:
        return None
    for element in core:
        if local(element.tag) == "title" and element.text and element.text.strip():
            return element.text.strip()
    return None


def _first_heading(segments: list[Segment]) -> str | None:
    for segment in segments:
        if segment.locator.heading:
            return segment.locator.heading[0]
    return None


def _read(data: bytes, name: str, reading: Reading) -> ExtractedDocument:
    return extract(data, name)


DOCX = Format(
    name="docx",
    label="Word",
    suffixes=frozenset({".docx"}),
    media_types=frozenset({MEDIA_TYPE}),
    read=_read,
)
