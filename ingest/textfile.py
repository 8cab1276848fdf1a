"""Plain text and Markdown (Obsidian, Logseq, Foam notes): decoded with care (``encoding`` tells
text from binary and finds the encoding), split by heading and paragraph with line ranges, and read
for the links and tags the writer stated.

- Front matter (YAML between ``---`` lines) gives the title, aliases and tags; Logseq's
  ``key:: value`` page properties (``alias::``, ``tags::``, ``title::``) do the same.
- ``[[Target]]``, ``[[Target|shown]]`` and ``[[Target#heading]]`` are links to "Target";
  ``![[file.png]]`` embeds a file and is not a link. ``#tag`` and ``#[[two words]]`` are tags.
- Nothing inside code counts as a heading, link or tag: not in fenced blocks (a fence may open
  in a Logseq bullet, "- ```lang", and closes only on a bare run of its own mark at least as
  long, so a four-backtick block can show a three-backtick one), nor in inline code spans.
- "](#anchor)", a Markdown link to a heading, is not a tag.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

import yaml

from cairn.ingest.document import ExtractedDocument, Locator, Segment
from cairn.ingest.encoding import decode

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(`{3,}|~{3,})(.*)$")
_INLINE_CODE = re.compile(r"(`+).+?\1")
_WIKILINK = re.compile(r"(?<!#)(!?)\[\[([^\[\]|#\n]+)(?:[#|][^\[\]\n]*)?\]\]")
_TAG = re.compile(r"(?<![\w#&/])(?<!\]\()#(?:\[\[([^\[\]\n]+)\]\]|([^\W\d_][\w/-]*))")
_PROPERTY = re.compile(r"^([A-Za-z][\w-]*)::\s*(.*)$")
_EMBEDDED_FILE = re.compile(r"\.(png|jpe?g|gif|svg|webp|pdf|mp3|mp4|wav|m4a|excalidraw)$", re.I)
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd"})


def title_from_filename(name: str) -> str:
    """A note's title from its file name: Logseq writes "/" in a page name as "___" (and some
    versions as "%2F"), so "projects___cairn.md" is the page "projects/cairn"."""
    stem = PurePath(name).stem
    return stem.replace("___", "/").replace("%2F", "/").replace("%2f", "/").strip() or name


def extract(data: bytes, name: str) -> ExtractedDocument:
    """A text or Markdown file as an extracted document."""
    text = decode(data, name).replace("\r\n", "\n").replace("\r", "\n")
    markdown = PurePath(name).suffix.lower() in MARKDOWN_SUFFIXES
    warnings: list[str] = []
    metadata: dict[str, Any] = {}
    body_start = 0
    lines = text.split("\n")
    if markdown:
        metadata, body_start = _front_matter(lines, warnings)
        properties, body_start = _page_properties(lines, body_start)
        metadata = {**properties, **metadata}
    segments, links, tags = _segments(lines, body_start, markdown)
    # Links in page properties ("type:: [[Tool]]") are links too.
    links = [link for line in lines[:body_start] for link in _links_in(line)] + links
    title = (
        _first_str(metadata.get("title")) or _first_heading(segments) or title_from_filename(name)
    )
    aliases = _names(metadata.get("aliases")) + _names(metadata.get("alias"))
    tags = _dedupe(_names(metadata.get("tags")) + tags)
    return ExtractedDocument(
        title=title,
        media_type="text/markdown" if markdown else "text/plain",
        segments=tuple(segments),
        metadata=metadata,
        links=tuple(_dedupe(links)),
        tags=tuple(tags),
        aliases=tuple(_dedupe(aliases)),
        warnings=tuple(warnings),
    )


def _front_matter(lines: list[str], warnings: list[str]) -> tuple[dict[str, Any], int]:
    if not lines or lines[0].strip() != "---":
        return {}, 0
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            try:
                data = yaml.safe_load("\n".join(lines[1:end]))
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                where = f" (line {mark.line + 2})" if mark is not None else ""
                warnings.append(f"the front matter is not valid YAML{where}; kept as text")
                return {}, 0
            if data is None:
                return {}, end + 1
            if not isinstance(data, dict):
                warnings.append("the front matter is not a list of keys and values; kept as text")
                return {}, 0
            # Dates and numbers become text: metadata is plain data a JSON column can hold.
            return {str(k): _plain(v) for k, v in data.items()}, end + 1
    return {}, 0


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
) -> tuple[list[Segment], list[str], list[str]]:
    """Paragraphs (blank-line separated) with their heading path and line range."""
    segments: list[Segment] = []
    links: list[str] = []
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


def _links_in(line: str) -> Iterator[str]:
    for match in _WIKILINK.finditer(_INLINE_CODE.sub(" ", line)):
        target = " ".join(match.group(2).split())
        if match.group(1) and _EMBEDDED_FILE.search(target):
            continue  # an embedded picture or file, not a note
        if target:
            yield target


def _first_heading(segments: list[Segment]) -> str | None:
    for segment in segments:
        if segment.locator.heading and segment.text == segment.locator.heading[-1]:
            return segment.locator.heading[0]
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


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return str(value)
