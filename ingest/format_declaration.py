"""What a format is: the declaration each reader module makes next to its reader (a
``Format``: its name, suffixes, media types, how to read a file, what reading one costs and
the unit its progress is told in), and what a reader is handed besides the file (``Reading``).
``formats.py`` gathers the declarations into the registry; the readers import only this module,
so the registry can import them all without a loop.

A format's ``cost`` orders an ingest run: text is read and made searchable first, pictures
(OCR) and recordings (transcription) after, so a person who adds a notes folder with its
attachments finds the notes while the scans and the voice memos are still being read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, BinaryIO, Literal

from cairn.ingest.document import ExtractedDocument

if TYPE_CHECKING:
    from cairn.ingest.audio_settings import WhisperSettings
    from cairn.ingest.ocr import OcrSettings


# A file's bytes and the name it is known by -> its document; None: it is not read.
ReadFile = Callable[[bytes, str], ExtractedDocument | None]
# How far a reader is through a file: (units done, units in the file), in its format's unit.
Progress = Callable[[float, float], None]
# What a reader's progress counts: pages, or seconds of a recording; "" when it tells none.
Unit = Literal["", "page", "second"]


class Cost(IntEnum):
    """What reading a file of a format costs, cheapest first; an ingest reads in this order.
    Within a kind the cost grows with the file's size; between kinds it jumps: a note is read
    in milliseconds, a scan in seconds, an hour of recording in many minutes."""

    TEXT = 0  # parsed text: notes, pages, documents, e-mail, chats, code
    PAGES = 1  # text layers page by page, with OCR only for the scanned pages (PDF)
    OCR = 2  # every picture read by OCR
    TRANSCRIPTION = 3  # speech transcribed (Whisper)


@dataclass(frozen=True)
class Reading:
    """What a reader is handed besides the file: the person's settings, each made only when a
    reader asks for it (a text file never needs OCR settings that may not be valid), and how a
    file inside this one is read."""

    ocr: Callable[[], OcrSettings] | None = None  # pictures, scanned pages; None: text layers only
    whisper: Callable[[], WhisperSettings] | None = None  # recordings
    attachment: ReadFile | None = None  # an e-mail's attachments; None: not read
    progress: Progress | None = None  # told how far the reader is; None: nobody asks


Read = Callable[[bytes, str, Reading], ExtractedDocument | None]
ReadStream = Callable[[BinaryIO, str, Reading], ExtractedDocument | None]


@dataclass(frozen=True)
class Format:
    """One kind of file Cairn reads. ``name`` is its kind in an ingest's plan and budget,
    ``label`` what its reader is called in a sentence ("Cairn's PDF reader"). ``read`` takes the
    file's bytes; ``read_stream``, when given, is used instead for a file on disk, read from
    the open file (recordings and mailboxes run to gigabytes). ``cost`` orders a run (see the
    module notes); ``unit`` is what the reader's ``Reading.progress`` counts."""

    name: str
    label: str
    suffixes: frozenset[str]
    media_types: frozenset[str]
    read: Read
    read_stream: ReadStream | None = None
    by_content: bool = False  # shares its suffixes with another format: see the module notes
    cost: Cost = Cost.TEXT
    unit: Unit = ""

    def __post_init__(self) -> None:
        for suffix in self.suffixes:
            if not suffix.startswith(".") or suffix != suffix.lower():
                raise ValueError(f"{self.name}: a suffix is lower case with its dot: {suffix!r}")
