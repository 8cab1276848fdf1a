"""Reading the parts of a zip-packaged document (Word, EPUB, OpenDocument) within bounds.

A zip can claim any size and a part any length: the archive is refused when its directory
claims more than ``MAX_TOTAL_BYTES`` of markup unpacked, and each part is read only up to
``MAX_PART_BYTES`` (whatever the directory says), so a zip bomb fails its file with a message
instead of filling memory. XML is parsed with defusedxml: no entity declarations (the "billion
laughs"), no external references.
"""

from __future__ import annotations

import io
import lzma
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any
from xml.etree import ElementTree

from defusedxml import ElementTree as SafeElementTree
from defusedxml.common import DefusedXmlException

from cairn.ingest.document import ExtractedDocument, ExtractionError, Segment

MAX_PART_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 256 * 1024 * 1024
# The parts that are read: markup. Pictures, fonts and sounds (a large share of an illustrated
# book) are never unpacked, so they do not count towards the total.
MARKUP_SUFFIXES = (".xml", ".xhtml", ".html", ".htm", ".opf", ".ncx")
# What zipfile raises on a damaged archive or part: a bad directory or CRC (BadZipFile), a
# corrupt deflate or LZMA stream (zlib.error, LZMAError; bzip2's is an OSError), one cut short
# (EOFError), a compression method it lacks (NotImplementedError), a part encrypted with a
# password (RuntimeError).
DAMAGED = (
    zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, RuntimeError,
    zlib.error, lzma.LZMAError,
)  # fmt: skip


def packaged_document(
    name: str,
    media_type: str,
    segments: Sequence[Segment],
    metadata: dict[str, Any],
    warnings: Sequence[str],
) -> ExtractedDocument:
    """A book or text document read from its package: titled by the title it declares (taken
    out of ``metadata``), else its first heading, else the file's name."""
    first_heading = next((s.locator.heading[0] for s in segments if s.locator.heading), None)
    title = str(metadata.pop("title", "")) or first_heading or PurePath(name).stem
    return ExtractedDocument(
        title=title,
        media_type=media_type,
        segments=tuple(segments),
        metadata=metadata,
        warnings=tuple(warnings),
    )


def local(tag: str) -> str:
    """An XML name without its namespace: ``{urn:...}p`` is ``p``."""
    return tag.rsplit("}", 1)[-1]


def attr(element: ElementTree.Element, name: str) -> str | None:
    """An attribute by its local name, whatever its namespace."""
    for key, value in element.attrib.items():
        if local(key) == name:
            return value
    return None


class Package:
    """An open zip whose parts are read as bytes or XML; ``what`` names the kind of document
    in messages ("EPUB book") and ``fix`` what to do about a damaged one. ``unopened`` is the
    sentence for a file that is not a zip at all, when the kind has more to say than that it may
    be damaged (an old .doc is not a .docx); ``every_part_counts`` counts pictures and the like
    towards the total too, not only the markup that is read."""

    def __init__(
        self,
        data: bytes,
        name: str,
        what: str,
        fix: str,
        *,
        unopened: str | None = None,
        every_part_counts: bool = False,
    ) -> None:
        self.name = name
        self.what = what
        self.fix = fix
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
        except DAMAGED:
            raise ExtractionError(
                unopened or f"{name} is not a readable {what} (it may be damaged: {fix})."
            ) from None
        claimed = sum(
            info.file_size
            for info in self._zip.infolist()
            if every_part_counts or info.filename.lower().endswith(MARKUP_SUFFIXES)
        )
        if claimed > MAX_TOTAL_BYTES:
            self._zip.close()
            raise ExtractionError(
                f"{name} would unpack to {claimed / 2**20:,.0f} MB, more than a document holds: "
                "it is damaged or built to fill the memory, and was not opened."
            )

    def __enter__(self) -> Package:
        return self

    def __exit__(self, *_: object) -> None:
        self._zip.close()

    def names(self) -> list[str]:
        return self._zip.namelist()

    def read(self, part: str) -> bytes | None:
        """A part's bytes, or None when the package has no such part."""
        try:
            info = self._zip.getinfo(part)
        except KeyError:
            return None
        too_large = ExtractionError(
            f"{self.name}: its part {part} is too large to be a document's text."
        )
        if info.file_size > MAX_PART_BYTES:
            raise too_large
        try:
            with self._zip.open(info) as stream:
                raw = stream.read(MAX_PART_BYTES + 1)
        except DAMAGED as exc:
            raise ExtractionError(f"{self.name} is damaged ({part}: {exc}): {self.fix}.") from None
        if len(raw) > MAX_PART_BYTES:  # the size in the zip's directory was a lie
            raise too_large
        return raw

    def xml(self, part: str) -> ElementTree.Element | None:
        """A part parsed as XML, or None when the package has no such part."""
        raw = self.read(part)
        if raw is None:
            return None
        try:
            root: ElementTree.Element = SafeElementTree.fromstring(raw)
        except ElementTree.ParseError as exc:
            raise ExtractionError(f"{self.name} is damaged ({part}: {exc}): {self.fix}.") from None
        except DefusedXmlException:
            raise ExtractionError(
                f"{self.name}: its part {part} declares XML entities, which no {self.what} "
                "needs; it was not opened."
            ) from None
        return root
