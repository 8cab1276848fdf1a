"""HTML pages: the main text, without navigation, scripts, styles or forms (stdlib parser).

A saved web page is mostly chrome. The text kept is that of ``<article>`` if the page has one,
else ``<main>``, else the whole body; inside it, what never holds the reading text is skipped
(scripts, styles, navigation, headers and footers of the page, asides, forms, buttons). Block
elements end a paragraph; headings give the heading path.
"""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import PurePath

from cairn.ingest.document import ExtractedDocument, ExtractionError, Locator, Segment
from cairn.ingest.encoding import decode
from cairn.ingest.format_declaration import Format, Reading

SKIPPED = frozenset(
    {"script", "style", "noscript", "template", "svg", "nav", "header", "footer", "aside",
     "form", "button", "select", "iframe", "canvas", "figure"}
)  # fmt: skip
# Elements that end a paragraph.
BLOCKS = frozenset(
    {"p", "div", "li", "ul", "ol", "dl", "dt", "dd", "section", "article", "main", "blockquote",
     "pre", "table", "tr", "td", "th", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "body"}
)  # fmt: skip
HEADINGS = {f"h{level}": level for level in range(1, 7)}
VOID = frozenset({"br", "hr", "img", "meta", "link", "input", "area", "base", "col", "wbr"})
_SPACE = re.compile(r"\s+")
MEDIA_TYPE = "text/html"


class _Page(HTMLParser):
    """Collects paragraphs per region: the article, the main element and the whole body."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.meta_title = ""
        self.regions: dict[str, list[tuple[str, tuple[str, ...]]]] = {
            "article": [],
            "main": [],
            "body": [],
        }
        self._open: list[str] = []
        # How many of each tag are open: whether one is, at once, however deep the page nests
        # (a list scan per tag made 200,000 unclosed tags hours of work).
        self._opened: Counter[str] = Counter()
        self._skip_depth = 0
        self._in_title = False
        self._text: list[str] = []
        self._path: list[tuple[int, str]] = []
        self._heading_level: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "meta":
            values = dict(attrs)
            if values.get("property") == "og:title" and values.get("content"):
                self.meta_title = values["content"] or ""
        if tag in VOID:
            if tag in BLOCKS and not self._skip_depth:
                self._flush()
            return
        self._open.append(tag)
        self._opened[tag] += 1
        if tag == "title":
            self._in_title = True
        if tag in SKIPPED:
            self._skip_depth += 1
        elif not self._skip_depth and tag in BLOCKS:
            self._flush()
            if tag in HEADINGS:
                self._heading_level = HEADINGS[tag]

    def handle_endtag(self, tag: str) -> None:
        if not self._opened[tag]:
            return  # a stray end tag: HTML in the wild has them
        while self._open:
            closed = self._open.pop()
            self._opened[closed] -= 1
            if closed == "title":
                self._in_title = False
            if closed in SKIPPED:
                self._skip_depth -= 1
            elif not self._skip_depth and closed in BLOCKS:
                self._flush()
            if closed == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip_depth and self._opened["body"]:
            self._text.append(data)

    def close(self) -> None:
        super().close()
        self._flush()

    def _flush(self) -> None:
        text = _SPACE.sub(" ", "".join(self._text)).strip()
        self._text.clear()
        level, self._heading_level = self._heading_level, None
        if not text:
            return
        if level is not None:
            self._path[:] = [(lvl, h) for lvl, h in self._path if lvl < level] + [(level, text)]
        heading = tuple(h for _, h in self._path)
        for region in ("article", "main", "body"):
            if self._opened[region] or (region == "body" and self._open):
                self.regions[region].append((text, heading))


def extract(data: bytes, name: str) -> ExtractedDocument:
    page = _Page()
    try:
        page.feed(decode(data, name))
        page.close()
    except AssertionError as exc:  # html.parser's way of giving up on broken markup
        raise ExtractionError(f"{name} is HTML too broken to read ({exc}).") from None
    paragraphs = next((page.regions[r] for r in ("article", "main", "body") if page.regions[r]), [])
    segments = tuple(Segment(text, Locator(heading=heading)) for text, heading in paragraphs)
    title = (
        _SPACE.sub(" ", page.meta_title or page.title).strip()
        or next((s.locator.heading[0] for s in segments if s.locator.heading), "")
        or PurePath(name).stem
    )
    return ExtractedDocument(title=title, media_type=MEDIA_TYPE, segments=segments)


def _read(data: bytes, name: str, reading: Reading) -> ExtractedDocument:
    return extract(data, name)


HTML = Format(
    name="html",
    label="web page",
    suffixes=frozenset({".html", ".htm", ".xhtml"}),
    media_types=frozenset({MEDIA_TYPE, "application/xhtml+xml"}),
    read=_read,
)
