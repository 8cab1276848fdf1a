"""Chat exports: WhatsApp's "Export chat" text file and Telegram Desktop's ``result.json``.

A conversation is one document; each message is a segment "21:41 Ada: text", located by its
number in the conversation and filed under its day (so a passage, which joins consecutive
messages, never spans two days and says which day it holds). The speakers are the document's
``people``: the app makes them Person entities linked to the conversation.

**WhatsApp** writes one line per message, in the phone's date format: ``12/31/23, 9:41 PM -
Ada: text`` (Android), ``[31.12.23, 21:41:05] Ada: text`` (iPhone), with day, month and year in
any order the locale has (but never an ISO ``2023-12-31``: that is a log's or a journal's
date). Only these shapes count: the date followed by ", ", then " - " before the speaker on
Android, the stamp in brackets on iPhone. Lines without a date continue the message above. A
line with a date but no "Name:" is an event of the chat ("Ada added Ben"), kept without a
speaker; a name that only ever stands before marked events (an iPhone export's group name) is
no person. The date order is found from the file itself: a first field above 12 is a day, a
second field above 12 too; when every date fits both orders, the order in which the dates run
forward (a chat is written in time order) is taken. A file is taken for an export only when
its first line is such a dated line and a message with a speaker follows: other text files
stay text.

**Telegram** exports JSON: one chat (``{"name", "messages": [...]}``) or the whole account
(``{"chats": {"list": [...]}}``), which becomes a document with one part per chat. Message
text may be a string or a list of strings and formatted pieces; service messages (a member
added, a call) are kept without a speaker. JSON nested deeper than Python's parser goes fails
its file with a sentence saying how deep (``failures``).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePath
from typing import Any

from cairn.ingest import failures
from cairn.ingest.document import ExtractedDocument, Locator, Segment
from cairn.ingest.encoding import decode
from cairn.ingest.format_declaration import Format, Reading

WHATSAPP_TYPE = "text/x-whatsapp-chat"
TELEGRAM_TYPE = "application/x-telegram-chat"
DETECT_LINES = 50  # how far into a text file a WhatsApp message with a speaker is looked for
MAX_SPEAKER_CHARS = 80
TELEGRAM_SAMPLE = 20  # messages looked at to tell a Telegram chat from other JSON
TELEGRAM_CHAT_TYPES = frozenset(
    {"personal_chat", "private_group", "private_supergroup", "public_supergroup",
     "private_channel", "public_channel", "bot_chat", "saved_messages"}
)  # fmt: skip
_MARKS = "\u200e\u200f\ufeff"  # direction marks WhatsApp puts before dates and attachments
# WhatsApp's own line shapes, and no others (a dated journal or a log file is no chat):
# Android "D/M/Y, H:MM[ AM] - rest" (", " after the date, " - " before the speaker) and iPhone
# "[D/M/Y, H:MM:SS[ AM]] rest" (in brackets, with seconds). WhatsApp never writes an ISO
# "yyyy-mm-dd" date, the shape of logs and journals, so one is refused. Both shapes give the
# same groups: day, month and year fields (and their separator), hour, minute, second, AM/PM,
# and the rest of the line.
_DATE = r"(?!\d{4}-)(\d{1,4})([./-])(\d{1,2})\2(\d{1,4}),[ \u00a0\u202f]"
_HALF = r"(?:[ \u00a0\u202f]*([AaPp])\.?[ \u00a0\u202f]?[Mm]\.?)?"
_ANDROID = re.compile(
    rf"^[{_MARKS}]*{_DATE}(\d{{1,2}})[:.](\d{{2}})(?:[:.](\d{{2}}))?{_HALF} - (.*)$"
)
_IPHONE = re.compile(rf"^[{_MARKS}]*\[{_DATE}(\d{{1,2}})[:.](\d{{2}})[:.](\d{{2}}){_HALF}\] (.*)$")
_SPEAKER = re.compile(rf"^([^:\n]{{1,{MAX_SPEAKER_CHARS}}}?): (.*)$", re.S)
ORDERS = ("dmy", "mdy", "ymd")


@dataclass
class Message:
    when: datetime | None
    speaker: str | None  # None: an event of the chat, not something someone said
    text: str
    line_start: int | None = None
    line_end: int | None = None


# -- WhatsApp -----------------------------------------------------------------------------------


def is_whatsapp(data: bytes) -> bool:
    """Whether a text file is a WhatsApp export (see the module notes); cheap: reads the first
    lines only."""
    head = data[:16384].decode("utf-8", errors="replace").replace("\r\n", "\n").split("\n")
    lines = [line for line in head[:DETECT_LINES] if line.strip()]
    if not lines or not _dated_line(lines[0]):
        return False
    return any((match := _dated_line(line)) and _SPEAKER.match(match.group(9)) for line in lines)


def _dated_line(line: str) -> re.Match[str] | None:
    """A line that starts a message, in one of WhatsApp's shapes (see ``_ANDROID``)."""
    return _ANDROID.match(line) or _IPHONE.match(line)


def extract_whatsapp(data: bytes, name: str) -> ExtractedDocument:
    text = decode(data, name).replace("\r\n", "\n").replace("\r", "\n")
    stamps: list[tuple[str, str, str, str, str, str | None, str | None]] = []
    messages: list[Message] = []
    # Each message's lines, joined once at the end: adding a line to a growing string copies
    # it, which a message of a million lines would make hours of work.
    lines: list[list[str]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        match = _dated_line(line)
        if match is None:
            if messages:
                lines[-1].append(line)
                if line.strip():
                    messages[-1].line_end = number
            continue
        first, _, second, third, hour, minute, second_s, half, rest = match.groups()
        stamps.append((first, second, third, hour, minute, second_s, half))
        said = _SPEAKER.match(rest)
        speaker, words = (said.group(1).strip(), said.group(2)) if said else (None, rest)
        messages.append(Message(None, speaker, "", number, number))
        lines.append([words])
    for message, own in zip(messages, lines, strict=True):
        message.text = "\n".join(own)
    order = _date_order([(a, b, c) for a, b, c, *_ in stamps], any(s[6] for s in stamps))
    # An iPhone export writes the chat's own events under the group's name, each marked with
    # a direction mark: a "speaker" who never says anything unmarked is no person.
    speaking = {m.speaker for m in messages if m.speaker and not m.text.startswith(tuple(_MARKS))}
    for message, stamp in zip(messages, stamps, strict=True):
        message.when = _datetime(order, *stamp)
        message.text = message.text.strip(_MARKS + " \n")
    not_people = {m.speaker for m in messages if m.speaker and m.speaker not in speaking}
    return conversation(PurePath(name).stem, messages, WHATSAPP_TYPE, not_people)


def _date_order(dates: Sequence[tuple[str, str, str]], twelve_hour: bool) -> str:
    """The order of day, month and year in these dates (see the module notes)."""
    if dates and all(len(a) == 4 for a, _, _ in dates):
        return "ymd"
    if any(int(a) > 12 for a, _, _ in dates):
        return "dmy"
    if any(int(b) > 12 for _, b, _ in dates):
        return "mdy"

    def backwards(order: str) -> int:
        days = [_day(order, *date) for date in dates]
        known = [day for day in days if day is not None]
        return sum(later < earlier for earlier, later in itertools.pairwise(known))

    # A tie (every date on one day, say): a 12-hour clock is the US way, month first.
    preferred = ("mdy", "dmy") if twelve_hour else ("dmy", "mdy")
    return min(preferred, key=backwards)


def _day(order: str, a: str, b: str, c: str) -> datetime | None:
    parts = dict(zip(order, (int(a), int(b), int(c)), strict=True))
    year = parts["y"] + 2000 if parts["y"] < 100 else parts["y"]
    try:
        return datetime(year, parts["m"], parts["d"])  # the chat's own clock: no zone
    except ValueError:
        return None


def _datetime(
    order: str,
    a: str,
    b: str,
    c: str,
    hour: str,
    minute: str,
    second: str | None,
    half: str | None,
) -> datetime | None:
    day = _day(order, a, b, c)
    if day is None:
        return None
    hours = int(hour)
    if half:
        hours = hours % 12 + (12 if half.lower() == "p" else 0)
    try:
        return day.replace(hour=hours, minute=int(minute), second=int(second or 0))
    except ValueError:
        return day


# -- Telegram -----------------------------------------------------------------------------------


def telegram_export(data: bytes, name: str) -> ExtractedDocument | None:
    """A Telegram export as a document, or None when the JSON is something else."""
    head = data[:4096]
    if b'"messages"' not in head and b'"chats"' not in data[:65536]:
        return None
    text = decode(data, name)
    try:
        root = json.loads(text)
    except RecursionError:  # Python's parser recurses once per level: see ``failures``
        raise failures.too_deep(
            name,
            failures.json_depth(text),
            "lists and objects inside each other",
            "If it is a chat export, export the chat again from Telegram Desktop; otherwise "
            "leave it out.",
        ) from None
    except ValueError:
        return None  # not JSON: the caller reads it as the text it is
    if _is_telegram_chat(root):
        return _telegram_chat(root, PurePath(name).stem)
    chats = root.get("chats") if isinstance(root, dict) else None
    listed = chats.get("list") if isinstance(chats, dict) else None
    if not isinstance(listed, list) or not all(_is_telegram_chat(chat) for chat in listed):
        return None
    left = root.get("left_chats")
    if isinstance(left, dict) and isinstance(left.get("list"), list):
        listed = listed + left["list"]
    parts = [_telegram_chat(chat, "") for chat in listed if isinstance(chat, dict)]
    return ExtractedDocument(
        title=f"Telegram export ({PurePath(name).stem})",
        media_type=TELEGRAM_TYPE,
        segments=(),
        parts=tuple(part for part in parts if part.segments),
    )


def _is_telegram_chat(value: Any) -> bool:
    """A chat as Telegram writes it: a list of messages, each with a type and a date (other
    JSON with "messages", a language model's conversation say, is not one)."""
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        return False
    messages = value["messages"][:TELEGRAM_SAMPLE]
    if not messages:
        return value.get("type") in TELEGRAM_CHAT_TYPES
    return all(
        isinstance(m, dict) and m.get("type") in ("message", "service") and "date" in m
        for m in messages
    )


def _telegram_chat(chat: dict[str, Any], fallback: str) -> ExtractedDocument:
    messages = []
    for item in chat.get("messages") or ():
        if not isinstance(item, dict):
            continue
        when = _iso(item.get("date"))
        if item.get("type") == "service":
            action = str(item.get("action") or "").replace("_", " ")
            actor = str(item.get("actor") or "")
            title = f' "{item["title"]}"' if isinstance(item.get("title"), str) else ""
            if action:
                messages.append(Message(when, None, f"{actor} {action}{title}".strip()))
            continue
        text = _telegram_text(item.get("text"))
        if not text:
            continue
        speaker = item.get("from")
        messages.append(Message(when, str(speaker) if speaker else "Deleted Account", text))
    kind = chat.get("type")
    name = chat.get("name")
    if kind == "saved_messages":
        title = "Saved Messages"
    elif isinstance(name, str) and name.strip():
        title = f"Chat with {name.strip()}" if kind == "personal_chat" else name.strip()
    else:
        title = fallback or f"Telegram chat {chat.get('id', '')}".strip()
    return conversation(title, messages, TELEGRAM_TYPE)


def _telegram_text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        # A formatted piece's text is a string; anything else in its place (a list nested a
        # thousand deep, say) is no text, and is not spelled out.
        pieces = (p if isinstance(p, str) else p.get("text") for p in value
                  if isinstance(p, str | dict))  # fmt: skip
        return "".join(p for p in pieces if isinstance(p, str)).strip()
    return ""


def _iso(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


# -- a conversation -----------------------------------------------------------------------------


def conversation(
    title: str,
    messages: Iterable[Message],
    media_type: str,
    not_people: Collection[str] = (),
) -> ExtractedDocument:
    """The document of one conversation: a segment per message, the speakers (but
    ``not_people``) as people."""
    segments = []
    people: dict[str, str] = {}
    first: datetime | None = None
    for number, message in enumerate(messages, start=1):
        if not message.text:
            continue
        when = message.when
        first = first or when
        said = f"{message.speaker}: {message.text}" if message.speaker else message.text
        segments.append(
            Segment(
                f"{when:%H:%M} {said}" if when else said,
                Locator(
                    heading=(f"{when:%Y-%m-%d}",) if when else (),
                    line_start=message.line_start,
                    line_end=message.line_end,
                    message=number,
                ),
            )
        )
        if message.speaker and message.speaker not in not_people:
            people.setdefault(message.speaker.casefold(), message.speaker)
    metadata: dict[str, Any] = {"created": first.isoformat()} if first else {}
    return ExtractedDocument(
        title=title,
        media_type=media_type,
        segments=tuple(segments),
        metadata=metadata,
        people=tuple(people.values()),
    )


def _read_whatsapp(data: bytes, name: str, reading: Reading) -> ExtractedDocument | None:
    return extract_whatsapp(data, name) if is_whatsapp(data) else None


def _read_telegram(data: bytes, name: str, reading: Reading) -> ExtractedDocument | None:
    return telegram_export(data, name)


# Told by what they hold from the text files and the JSON they share their suffix with.
WHATSAPP = Format(
    name="whatsapp",
    label="WhatsApp chat",
    suffixes=frozenset({".txt"}),
    media_types=frozenset({WHATSAPP_TYPE}),
    read=_read_whatsapp,
    by_content=True,
)
TELEGRAM = Format(
    name="telegram",
    label="Telegram chat",
    suffixes=frozenset({".json"}),
    media_types=frozenset({TELEGRAM_TYPE}),
    read=_read_telegram,
    by_content=True,
)
