"""The formats Cairn reads, each declared by its reader's module, and the registry of them.

Each reader module declares what it reads next to its reader, a ``Format``: its name, the
suffixes and media types of its files, and how to read one (``textfile.TEXT``, ``pdf.PDF``,
...). ``registry()`` gathers them, and whatever asks which files Cairn reads, or which reader
reads a file, asks it: the extraction step, the plan of an ingest, an e-mail's attachments.

A suffix belongs to one format. A few formats share their suffix with another and are told by
what the file holds (a WhatsApp export is a ``.txt``, a Telegram export a ``.json``): such a
format is ``by_content``, is tried first, and its reader answers None for a file that is not
one, which the format of its suffix then reads.

The registry imports every reader (pypdf, Pillow, NumPy among them): it is built on first use,
so a program that never reads a file never loads them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import PurePath
from typing import BinaryIO

from cairn.ingest.document import ExtractedDocument
from cairn.ingest.format_declaration import Format, Reading


class Formats:
    """The registry: formats by suffix and by media type."""

    def __init__(self, formats: Iterable[Format]) -> None:
        self.formats = tuple(formats)
        self._by_suffix: dict[str, Format] = {}
        self._by_content: dict[str, list[Format]] = {}
        self._by_media_type: dict[str, Format] = {}
        for format_ in self.formats:
            for suffix in format_.suffixes:
                if format_.by_content:
                    self._by_content.setdefault(suffix, []).append(format_)
                elif suffix in self._by_suffix:
                    raise ValueError(f"{suffix} is read by {self._by_suffix[suffix].name} too")
                else:
                    self._by_suffix[suffix] = format_
            for media_type in format_.media_types:
                if media_type in self._by_media_type:
                    raise ValueError(f"{media_type} is {self._by_media_type[media_type].name} too")
                self._by_media_type[media_type] = format_
        for suffix in self._by_content.keys() - self._by_suffix.keys():
            raise ValueError(f"no format reads every {suffix} file")

    @property
    def suffixes(self) -> frozenset[str]:
        """Every suffix Cairn reads, lower case with its dot."""
        return frozenset(self._by_suffix)

    def by_name(self, name: str) -> Format | None:
        """The format that reads a file of this name (by its suffix, in any case), or None."""
        return self._by_suffix.get(PurePath(name).suffix.lower())

    def named(self, name: str) -> Format | None:
        """The format of this name ("pdf"), the kind an ingest's plan gives a file."""
        return next((f for f in self.formats if f.name == name), None)

    def by_media_type(self, media_type: str) -> Format | None:
        """The format of a media type ("application/pdf"), or None."""
        return self._by_media_type.get(media_type.split(";")[0].strip().lower())

    def readers(self, format_: Format, name: str) -> tuple[Format, ...]:
        """The formats that may read a file of ``format_`` named ``name``, in the order tried:
        those told by content first, then ``format_`` itself."""
        suffix = PurePath(name).suffix.lower()
        return (*self._by_content.get(suffix, ()), format_)

    def read(self, format_: Format, data: bytes, name: str, reading: Reading) -> ExtractedDocument:
        """``data``, a file of ``format_`` named ``name``, read by the first reader that takes
        it (see ``readers``)."""
        for candidate in self.readers(format_, name):
            document = candidate.read(data, name, reading)
            if document is not None:
                return document
        raise ValueError(f"the {format_.name} reader declined {name}")

    def read_stream(
        self, format_: Format, stream: BinaryIO, name: str, reading: Reading
    ) -> ExtractedDocument:
        """A file of a format with ``read_stream``, read from the open file."""
        if format_.read_stream is None:
            raise ValueError(f"the {format_.name} reader reads bytes, not a stream")
        document = format_.read_stream(stream, name, reading)
        if document is None:
            raise ValueError(f"the {format_.name} reader declined {name}")
        return document


@functools.cache
def registry() -> Formats:
    """Every format Cairn reads, from the declarations beside their readers."""
    from cairn.ingest import (
        audio,
        chat,
        code_file,
        docx,
        epub,
        html,
        image,
        mail,
        odt,
        pdf,
        textfile,
    )

    return Formats(
        (
            textfile.TEXT,
            chat.WHATSAPP,
            html.HTML,
            docx.DOCX,
            odt.ODT,
            epub.EPUB,
            mail.MESSAGE,
            mail.MAILBOX,
            pdf.PDF,
            image.IMAGE,
            audio.AUDIO,
            code_file.CODE,
            chat.TELEGRAM,
        )
    )
