"""Plain text and Markdown (Obsidian, Logseq, Foam notes): decoded with care (``encoding`` tells
text from binary and finds the encoding), split by heading and paragraph with line ranges, and read
for the links and tags the writer stated.

- Front matter (YAML between ``---`` lines) gives the title, aliases and tags; Logseq's
  ``key:: value`` page properties (``alias::``, ``tags::``, ``title::``) do the same. Front
  matter that is not YAML, or is nested or repeats itself (aliases) beyond the limits here, is
  kept as text with a warning saying which.
- The title is the front matter ``title`` (or Logseq's ``title::``), else a level-1 heading
  that opens the file (the Markdown convention for a document's title), else the file name.
  A heading further down, or of another level, is a section's name, never the file's. (A note
  in a notes folder is named as its tool names it: see ``notes_folder``.)
- ``[[Target]]``, ``[[Target|shown]]``, ``[[Target\\|shown]]`` (the ``|`` escaped inside a
  table) and ``[[Target#heading]]`` are links to "Target"; the heading is kept in ``anchors``.
  A target named like a file of another kind (``![[x.png]]``, ``[[talk.ogg]]``,
  ``[[x.pdf|the paper]]``) or a Markdown link or image to a relative path (``![](a/x.png)``)
  is an attachment, not a note: it is kept in ``attachments``. ``#tag`` and
  ``#[[two words]]`` are tags.
- Nothing inside code counts as a heading, link or tag: not in fenced blocks (a fence may open
  in a Logseq bullet, "- ```lang", and closes only on a bare run of its own mark at least as
  long, so a four-backtick block can show a three-backtick one), nor in inline code spans.
- "](#anchor)", a Markdown link to a heading, is not a tag.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any
from urllib.parse import unquote

import yaml

from cairn.ingest.document import ExtractedDocument, Locator, Segment
from cairn.ingest.encoding import decode
from cairn.ingest.format_declaration import Format, Reading

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(`{3,}|~{3,})(.*)$")
_INLINE_CODE = re.compile(r"(`+).+?\1")
_WIKILINK = re.compile(r"(?<!#)(!?)\[\[([^\[\]\n]+)\]\]")
# [shown](target "title") and ![alt](target): only a relative path to a file is an attachment.
# The shown text may hold brackets one level deep ("[see [1]](a.pdf)"); a bracket opened inside
# those ends the try at once, so a line of a hundred thousand "[" is read in one pass, not one
# pass per bracket.
_MARKDOWN_LINK = re.compile(
    r"!?\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^\n]*?[\"'])?\s*\)"
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_TAG = re.compile(r"(?<![\w#&/])(?<!\]\()#(?:\[\[([^\[\]\n]+)\]\]|([^\W\d_][\w/-]*))")
_PROPERTY = re.compile(r"^([A-Za-z][\w-]*)::\s*(.*)$")
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd"})
# What a link names when it names a file rather than a note: pictures, sound, video, documents,
# drawings. A name like "Release 1.2" has no such suffix, so it stays a note's name.
FILE_SUFFIXES = frozenset(
    {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp", ".tif", ".tiff", ".heic", ".avif",
     ".mp3", ".wav", ".m4a", ".ogg", ".oga", ".opus", ".flac", ".aac", ".3gp", ".webm", ".mp4",
     ".mkv", ".mov", ".avi", ".m4v", ".pdf", ".docx", ".doc", ".odt", ".rtf", ".epub", ".xlsx",
     ".xls", ".ods", ".pptx", ".odp", ".csv", ".txt", ".html", ".htm", ".eml", ".mbox", ".zip",
     ".excalidraw", ".canvas", ".drawio", ".json"}
)  # fmt: skip


def title_from_filename(name: str) -> str:
    """A note's title from its file name: Logseq writes "/" in a page name as "___" (and some
    versions as "%2F"), so "projects___cairn.md" is the page "projects/cairn"."""
    stem = PurePath(name).stem
    return stem.replace("___", "/").replace("%2F", "/").replace("%2f", "/").strip() or name


def extract(data: bytes, name: str) -> ExtractedDocument:
    """A text or Markdown file as an extracted document. An empty Markdown file is a note with
    only its name (notes apps make one for a link clicked before anything was written in it);
    an empty text file is refused as empty."""
    markdown = PurePath(name).suffix.lower() in MARKDOWN_SUFFIXES
    if markdown and not data.strip():
        return ExtractedDocument(title_from_filename(name), "text/markdown", segments=())
    text = decode(data, name).replace("\r\n", "\n").replace("\r", "\n")
    warnings: list[str] = []
    metadata: dict[str, Any] = {}
    body_start = 0
    lines = text.split("\n")
    if markdown:
        metadata, body_start = _front_matter(lines, warnings)
        properties, body_start = _page_properties(lines, body_start)
        metadata = {**properties, **metadata}
    segments, found, tags = _segments(lines, body_start, markdown)
    # Links in page properties ("type:: [[Tool]]") are links too.
    found = [link for line in lines[:body_start] for link in _links_in(line)] + found
    links = [link.name for link in found if not link.file]
    attachments = [link.name for link in found if link.file]
    anchors = {(link.name, link.heading): None for link in found if link.heading}
    title = (
        _first_str(metadata.get("title"))
        or (_opening_title(lines, body_start) if markdown else None)
        or title_from_filename(name)
    )
    aliases = _names(metadata.get("aliases")) + _names(metadata.get("alias"))
    tags = _dedupe(_names(metadata.get("tags")) + tags)
    return ExtractedDocument(
        title=title,
        media_type="text/markdown" if markdown else "text/plain",
        segments=tuple(segments),
        metadata=metadata,
        links=tuple(_dedupe(links)),
        attachments=tuple(_dedupe(attachments)),
        anchors=tuple(anchors),
        tags=tuple(tags),
        aliases=tuple(_dedupe(aliases)),
        warnings=tuple(warnings),
        written="\n".join(lines[body_start:]).strip("\n"),
    )


def _front_matter(lines: list[str], warnings: list[str]) -> tuple[dict[str, Any], int]:
    if not lines or lines[0].strip() != "---":
        return {}, 0
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            block = "\n".join(lines[1:end])
            try:
                data = yaml.safe_load(block)
                if data is None:
                    return {}, end + 1
                if not isinstance(data, dict):
                    warnings.append(
                        "the front matter is not a list of keys and values; kept as text"
                    )
                    return {}, 0
                # Dates and numbers become text: metadata is plain data a JSON column holds.
                values = [0]
                return {str(k): _plain(v, values) for k, v in data.items()}, end + 1
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                where = f" (line {mark.line + 2})" if mark is not None else ""
                warnings.append(f"the front matter is not valid YAML{where}; kept as text")
            except (RecursionError, _TooMuch):  # PyYAML recurses once per level, as does _plain
                warnings.append(_too_much(block))
            return {}, 0
    return {}, 0


# Front matter is a note's title, tags and a few fields. Deeper or larger, it is left as text:
# YAML's aliases (&a, *a) can repeat a value inside itself, or a billion times over in a few
# lines, which spelled out as metadata would fill the memory.
MAX_FRONT_MATTER_DEPTH = 32
MAX_FRONT_MATTER_VALUES = 10_000


class _TooMuch(Exception):
    """Front matter deeper or larger than Cairn keeps (see ``_too_much``)."""


def _too_much(block: str) -> str:
    """Why front matter was kept as text: it is nested too deeply, or its aliases repeat more
    than Cairn keeps."""
    # The parser's events come without recursion, so front matter PyYAML could not load is
    # measured too; only down to the limit, as its scanner slows with every level open.
    depth = 0
    with contextlib.suppress(yaml.YAMLError):  # measured as far as it parses
        for event in yaml.parse(block, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_FRONT_MATTER_DEPTH:
                    return (
                        f"the front matter is nested more than {MAX_FRONT_MATTER_DEPTH} levels "
                        "deep, more than Cairn reads; kept as text"
                    )
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    return (
        "the front matter's aliases (&name, *name) repeat values inside one another beyond "
        f"what Cairn reads ({MAX_FRONT_MATTER_VALUES:,} values, {MAX_FRONT_MATTER_DEPTH} levels "
        "deep); kept as text"
    )


def _page_properties(lines: list[str], start: int) -> tuple[dict[str, Any], int]:
    """Logseq's ``key:: value`` lines at the top of a page (the first block)."""
    found: dict[str, Any] = {}
    index = start
    while index < len(lines):
        match = _PROPERTY.match(lines[index].strip().removeprefix("- "))
        if not match:
            break
        key, value = match.group(1).lower(), match.group(2).strip()
        found[key] = (
            [part.strip() for part in value.split(",")] if key in ("alias", "tags") else value
        )
        index += 1
    return found, index


def _segments(
    lines: list[str], start: int, markdown: bool
) -> tuple[list[Segment], list[_Link], list[str]]:
    """Paragraphs (blank-line separated) with their heading path and line range."""
    segments: list[Segment] = []
    links: list[_Link] = []
    tags: list[str] = []
    path: list[tuple[int, str]] = []  # (level, heading)
    block: list[str] = []
    block_start = start
    fence = ""  # the marker of the open code fence, "" outside code

    def flush(end: int) -> None:
        text = "\n".join(block).strip()
        if text:
            heading = tuple(h for _, h in path)
            segments.append(
                Segment(text, Locator(heading=heading, line_start=block_start + 1, line_end=end))
            )
        block.clear()

    for number, line in enumerate(lines[start:], start=start):
        was_code = bool(fence)
        fence = _fence_after(line, fence) if markdown else ""
        in_code = was_code or bool(fence)
        if markdown and not in_code:  # a heading's links and tags count too
            links.extend(_links_in(line))
            visible = _INLINE_CODE.sub(" ", line)
            tags.extend(m.group(1) or m.group(2) for m in _TAG.finditer(visible))
        heading = _HEADING.match(line) if markdown and not in_code else None
        if heading:
            flush(number)
            level, title = len(heading.group(1)), heading.group(2).strip()
            path[:] = [(lvl, h) for lvl, h in path if lvl < level] + [(level, title)]
            block_start = number
            block.append(title)
            flush(number + 1)
            block_start = number + 1
            continue
        if not line.strip():
            flush(number)
            block_start = number + 1
            continue
        if not block:
            block_start = number
        block.append(line)
    flush(len(lines))
    return segments, links, tags


def _fence_after(line: str, fence: str) -> str:
    """The open fence once ``line`` is read: a fence opens on ``` or ~~~ (a backtick fence's
    info string has no backtick) and closes on a bare run of the same mark, at least as long."""
    match = _FENCE.match(line)
    if not match:
        return fence
    mark, rest = match.groups()
    if not fence:
        return "" if mark[0] == "`" and "`" in rest else mark
    closes = mark[0] == fence[0] and len(mark) >= len(fence) and not rest.strip()
    return "" if closes else fence


@dataclass(frozen=True)
class _Link:
    name: str  # the note or file named, without its "#heading" or "|shown" part
    heading: str | None = None
    file: bool = False  # a file of another kind (an attachment), not a note


def _links_in(line: str) -> Iterator[_Link]:
    visible = _INLINE_CODE.sub(" ", line)
    for match in _WIKILINK.finditer(visible):
        # "|" starts the shown text; inside a table it is written "\|", so the name's
        # trailing backslash is the escape, not part of the name.
        target = match.group(2).split("|", 1)[0].rstrip("\\")
        name, _, heading = target.partition("#")
        name = " ".join(name.split())
        # "#H1#H2" is a heading under a heading: the last one is the place; "^id" is a block.
        place = " ".join(heading.split("#")[-1].split())
        if name:
            yield _Link(name, place if place and not place.startswith("^") else None, is_file(name))
    for match in _MARKDOWN_LINK.finditer(visible):
        target = unquote(match.group(1).split("#", 1)[0])
        local = target and not _SCHEME.match(target) and not target.startswith("//")
        if local and is_file(target):
            yield _Link(target, None, True)


def is_file(name: str) -> bool:
    """Whether a link's target names a file of another kind than a note (by its suffix)."""
    return PurePath(name.strip()).suffix.lower() in FILE_SUFFIXES


def _opening_title(lines: list[str], start: int) -> str | None:
    """A level-1 heading that is the first thing in the file, if there is one."""
    for line in lines[start:]:
        if line.strip():
            heading = _HEADING.match(line)
            return heading.group(2).strip() if heading and len(heading.group(1)) == 1 else None
    return None


def _first_str(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    return value.strip() or None if isinstance(value, str) else None


def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [part for part in value.split(",")]
    if not isinstance(value, list):
        return []
    cleaned = (str(item).strip().removeprefix("#").strip("[]").strip() for item in value if item)
    return [name for name in cleaned if name]


def _dedupe(names: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(name.casefold(), name)
    return list(seen.values())


def _plain(value: Any, values: list[int], depth: int = 2) -> Any:
    """``value`` as plain data; ``values`` counts those spelled out so far and ``depth`` is
    its level (the front matter's keys are the first): ``_TooMuch`` past the limits."""
    values[0] += 1
    if depth > MAX_FRONT_MATTER_DEPTH or values[0] > MAX_FRONT_MATTER_VALUES:
        raise _TooMuch
    if isinstance(value, dict):
        return {str(k): _plain(v, values, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, values, depth + 1) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return str(value)


def _read(data: bytes, name: str, reading: Reading) -> ExtractedDocument:
    return extract(data, name)


TEXT = Format(
    name="text",
    label="text",
    suffixes=MARKDOWN_SUFFIXES | {".txt", ".text", ".rst", ".org"},
    media_types=frozenset({"text/plain", "text/markdown"}),
    read=_read,
)
