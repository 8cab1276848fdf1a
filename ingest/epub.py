"""EPUB books (2 and 3) with the standard library: a zip holding a package file (OPF) that lists
the chapters, in reading order (the spine), each an XHTML page.

Each chapter is read by the HTML extractor (``ingest.html``), so a book's text is found as a
saved page's is. A chapter's passages are located by its name in the book's table of contents
(EPUB 3's navigation page, or EPUB 2's ``toc.ncx``), followed by the headings inside it; a
chapter the contents do not name is located by its own headings. The package's metadata gives
the title, author and language. A book whose chapters are encrypted (DRM) cannot be read, and
says so; obfuscated fonts do not matter. A chapter that is missing, damaged or cannot be parsed
is left out with a warning naming it, the others kept (a book none of whose chapters can be
read fails); a damaged table of contents is a warning too. A damaged package file (OPF) fails
the book: without it there are no chapters to find.

The zip and its XML are read within ``zip_parts``' bounds.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from urllib.parse import unquote
from xml.etree import ElementTree

from cairn.ingest import failures, html
from cairn.ingest.document import ExtractedDocument, ExtractionError, Locator, Segment
from cairn.ingest.format_declaration import Format, Reading
from cairn.ingest.zip_parts import Package, attr, local, packaged_document

MEDIA_TYPE = "application/epub+zip"
CHAPTER_TYPES = frozenset({"application/xhtml+xml", "text/html", "application/xml"})
_PAGE_SUFFIXES = (".xhtml", ".html", ".htm", ".xml")


def extract(data: bytes, name: str) -> ExtractedDocument:
    fix = "if it opens in a reader, export it again"
    with Package(data, name, "EPUB book", fix) as package:
        container = package.xml("META-INF/container.xml")
        rootfile = next(
            (attr(el, "full-path") for el in (container.iter() if container is not None else ())
             if local(el.tag) == "rootfile"),
            None,
        )  # fmt: skip
        opf = package.xml(rootfile) if rootfile else None
        if rootfile is None or opf is None:
            raise ExtractionError(
                f"{name} has no package file (META-INF/container.xml names none): it is not an "
                "EPUB book, or it is damaged."
            )
        _refuse_drm(package, name)
        base = posixpath.dirname(rootfile)
        manifest = {
            attr(item, "id") or "": item for item in opf.iter() if local(item.tag) == "item"
        }
        warnings: list[str] = []
        contents = _contents(package, opf, manifest, base, warnings)
        segments: list[Segment] = []
        chapters = unread = 0
        for number, path in enumerate(_spine(opf, manifest, base), start=1):
            chapters += 1
            # One chapter that is missing, damaged or breaks a parser costs only itself.
            try:
                raw = package.read(path)
                if raw is None:
                    warnings.append(f"chapter {number} ({path}) is missing from the book")
                    unread += 1
                    continue
                chapter = html.extract(raw, posixpath.basename(path))
            except Exception as exc:
                warnings.append(f"chapter {number} ({path}) could not be read: {_reason(exc)}")
                unread += 1
                continue
            segments += _located(chapter.segments, contents.get(path))
    if chapters and unread == chapters:
        raise ExtractionError(
            f"{name}: none of its chapters could be read ({warnings[-1]}); {fix}."
        )
    return packaged_document(name, MEDIA_TYPE, segments, _metadata(opf), warnings)


def _refuse_drm(package: Package, name: str) -> None:
    """Encrypted chapters (DRM) cannot be read; encrypted fonts (obfuscation) do not matter."""
    encryption = package.xml("META-INF/encryption.xml")
    if encryption is None:
        return
    for reference in encryption.iter():
        uri = attr(reference, "URI") if local(reference.tag) == "CipherReference" else None
        if uri and unquote(uri).lower().endswith(_PAGE_SUFFIXES):
            raise ExtractionError(
                f"{name} is protected by DRM: its chapters are encrypted, so Cairn cannot read "
                "them. Export it without DRM from the shop or app it came from, if you may."
            )


def _spine(
    opf: ElementTree.Element, manifest: dict[str, ElementTree.Element], base: str
) -> Iterator[str]:
    """The chapters' paths in the zip, in reading order, each once: a spine that lists one
    chapter again and again (a few bytes each) would otherwise unpack it again each time."""
    seen: set[str] = set()
    for itemref in opf.iter():
        if local(itemref.tag) != "itemref":
            continue
        item = manifest.get(attr(itemref, "idref") or "")
        if item is None or (attr(item, "media-type") or "") not in CHAPTER_TYPES:
            continue
        if "nav" in (attr(item, "properties") or "").split():
            continue  # the table of contents: its entries are the chapters' names

        href = attr(item, "href")
        path = _resolve(base, href) if href else None
        if path and path not in seen:
            seen.add(path)
            yield path


def _contents(
    package: Package,
    opf: ElementTree.Element,
    manifest: dict[str, ElementTree.Element],
    base: str,
    warnings: list[str],
) -> dict[str, str]:
    """Chapter path -> its name in the table of contents (the first entry that points into
    it). EPUB 3's navigation page is preferred; EPUB 2's NCX is the fallback. A contents that
    cannot be read is a warning: the chapters are still read, located by their own headings."""
    names: dict[str, str] = {}
    nav = next(
        (i for i in manifest.values() if "nav" in (attr(i, "properties") or "").split()), None
    )
    spine = next((el for el in opf.iter() if local(el.tag) == "spine"), None)
    ncx = manifest.get(attr(spine, "toc") or "") if spine is not None else None
    ncx = ncx or next(
        (i for i in manifest.values() if attr(i, "media-type") == "application/x-dtbncx+xml"),
        None,
    )
    for item, entries in ((nav, _nav_entries), (ncx, _ncx_entries)):
        href = attr(item, "href") if item is not None else None
        if not href:
            continue
        path = _resolve(base, href)
        try:
            root = package.xml(path)
            if root is None:
                continue
            for label, target in entries(root):
                names.setdefault(_resolve(posixpath.dirname(path), target.split("#")[0]), label)
        except Exception as exc:
            warnings.append(f"its table of contents ({path}) could not be read: {_reason(exc)}")
            continue
        if names:
            break
    return names


def _nav_entries(root: ElementTree.Element) -> Iterator[tuple[str, str]]:
    for nav in root.iter():
        if local(nav.tag) != "nav" or (attr(nav, "type") or "toc") != "toc":
            continue
        for link in nav.iter():
            href = attr(link, "href") if local(link.tag) == "a" else None
            label = " ".join("".join(link.itertext()).split())
            if href and label:
                yield label, href


def _ncx_entries(root: ElementTree.Element) -> Iterator[tuple[str, str]]:
    for point in root.iter():
        if local(point.tag) != "navPoint":
            continue
        label_el = next((el for el in point.iter() if local(el.tag) == "text"), None)
        content = next((el for el in point if local(el.tag) == "content"), None)
        label = " ".join((label_el.text or "").split()) if label_el is not None else ""
        src = attr(content, "src") if content is not None else None
        if label and src:
            yield label, src


def _located(segments: tuple[Segment, ...], chapter: str | None) -> list[Segment]:
    """A chapter's segments under its name in the contents (unless its own first heading
    already says it)."""
    if chapter is None:
        return list(segments)
    out = []
    for segment in segments:
        heading = segment.locator.heading
        if heading[:1] != (chapter,):
            heading = (chapter, *heading)
        out.append(Segment(segment.text, Locator(heading=heading)))
    return out


def _reason(exc: Exception) -> str:
    """What went wrong, for a warning: our own message, or a sentence for what no reader
    foresaw (``failures``)."""
    return failures.part_reason(exc, "the EPUB reader")


def _resolve(base: str, href: str) -> str:
    return posixpath.normpath(posixpath.join(base, unquote(href))).lstrip("/")


def _metadata(opf: ElementTree.Element) -> dict[str, str]:
    found: dict[str, str] = {}
    metadata = next((el for el in opf if local(el.tag) == "metadata"), None)
    if metadata is None:
        return found
    for element in metadata:
        key = {"title": "title", "creator": "author", "language": "language"}.get(
            local(element.tag)
        )
        value = " ".join((element.text or "").split())
        if key and value and key not in found:
            found[key] = value
    return found


def _read(data: bytes, name: str, reading: Reading) -> ExtractedDocument:
    return extract(data, name)


EPUB = Format(
    name="epub",
    label="EPUB",
    suffixes=frozenset({".epub"}),
    media_types=frozenset({MEDIA_TYPE}),
    read=_read,
)
