"""What an extractor returns: plain data about one file, never a database row.

An ``ExtractedDocument`` holds the file's metadata and its text as ``Segment``s, each with a
``Locator`` saying where in the file it sits (page, time range, heading path, line range), so a
passage found later can be opened at its place. Links and tags the file states explicitly
(``[[wikilinks]]``, ``#tags``, front matter aliases) travel as intents; the app decides what
they connect to. So do the people a file names as its participants (a chat's speakers).

A file that holds several documents (a mailbox of messages, a chat export of conversations)
is one ``ExtractedDocument`` for the file with the documents inside it as ``parts``: the app
keeps the file as one source (re-read only when its bytes change) and each part as a Document
of its own.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from cairn.storage.errors import CairnError


class ExtractionError(CairnError):
    """A file could not be read; the message says why and what to do. The file fails alone."""


@dataclass(frozen=True)
class Locator:
    page: int | None = None  # 1-based
    start_s: float | None = None  # a time range in a recording
    end_s: float | None = None
    heading: tuple[str, ...] = ()  # the headings above the text, outermost first
    line_start: int | None = None  # 1-based, inclusive
    line_end: int | None = None
    message: int | None = None  # 1-based: the message's place in its mailbox or conversation

    def as_dict(self) -> dict[str, Any]:
        """Only what is set: a locator is stored with each passage."""
        data = asdict(self)
        data["heading"] = list(self.heading)
        return {key: value for key, value in data.items() if value not in (None, [])}


@dataclass(frozen=True)
class Segment:
    text: str
    locator: Locator = field(default_factory=Locator)


@dataclass(frozen=True)
class ExtractedDocument:
    title: str
    media_type: str
    segments: tuple[Segment, ...]
    metadata: dict[str, Any] = field(default_factory=dict)  # front matter, author, language...
    links: tuple[str, ...] = ()  # names linked as [[...]], in order, each once
    # Files the text embeds or links (![[x.png]], [[x.pdf|...]], ![](a/x.png)), as written.
    attachments: tuple[str, ...] = ()
    anchors: tuple[tuple[str, str], ...] = ()  # (name, heading) of each [[Name#Heading]]
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()  # other names of the document itself (alias::, aliases:)
    warnings: tuple[str, ...] = ()  # what was read only in part, and why
    people: tuple[str, ...] = ()  # the people taking part, by name (a chat's speakers)
    parts: tuple[ExtractedDocument, ...] = ()  # documents inside this file, each kept as one
    # A text file's words as written, after its front matter: what a note says, shown whole
    # and edited whole (its segments are cut for search and lose the blank lines and markup).
    written: str = ""

    @property
    def text(self) -> str:
        return "\n\n".join(segment.text for segment in self.segments)
