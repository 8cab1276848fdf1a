"""E-mail: one message (``.eml``) or a mailbox of them (``.mbox``), with the standard library.

A message becomes a document titled by its subject, with its sender, recipients (To and Cc),
date and subject as metadata. Its first segment repeats those headers (so a search for "mail
from Ada about the lease" finds it), then its text: the plain-text body, or the HTML one read
by ``ingest.html`` when there is no plain text. Attachments are handed to ``read_attachment``
(the app's extractors for the kinds it reads; None for a kind it skips) and their text kept
under the attachment's name; a forwarded message attached whole is read as a message. What an
attachment could not give is a warning, never the message's failure.

A mailbox (mbox: messages each starting with a ``From`` line, ``>From`` in a body unescaped)
is read from a stream one message at a time, so a mailbox of gigabytes is never held whole;
each message is a part of the mailbox's document, located by its number. A message that cannot
be parsed, or is larger than ``MAX_MESSAGE_BYTES``, is left out with a warning; the others are
kept.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from email import policy
from email.message import EmailMessage, Message, MIMEPart
from email.parser import BytesParser
from email.utils import getaddresses, parsedate_to_datetime
from pathlib import PurePath
from typing import BinaryIO

from cairn.ingest import failures, html
from cairn.ingest.document import ExtractedDocument, ExtractionError, Locator, Segment
from cairn.ingest.format_declaration import Format, Reading

MESSAGE_TYPE = "message/rfc822"
MBOX_TYPE = "application/mbox"
MAX_ATTACHMENT_BYTES = 32 * 1024 * 1024
MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # a message with attachments; a larger one is left out
MAX_LINE_BYTES = 1024 * 1024
# A mailbox stops being read past this much text (far more than the passages one file keeps
# by default), so a huge archive is bounded in memory and says to split it.
MAX_TEXT_CHARS = 64 * 1024 * 1024
MAX_NESTING = 3  # a forwarded message inside a forwarded message inside ...
_HEADERS = ("From", "To", "Cc", "Date", "Subject")
_PARAGRAPHS = re.compile(r"\n\s*\n")

# bytes and a file name -> the attachment's document; None when its kind is not read.
ReadAttachment = Callable[[bytes, str], ExtractedDocument | None]


def extract_message(
    data: bytes, name: str, read_attachment: ReadAttachment | None = None
) -> ExtractedDocument:
    """One ``.eml`` file."""
    if not data.strip():
        raise ExtractionError(f"{name} is empty: there is nothing to keep.")
    try:
        message = _parse(data)
        if not any(_header(message, header) for header in _HEADERS):
            raise ExtractionError(
                f"{name} is not an e-mail message (it has no From, To, Date or Subject header). "
                "Save the message again from your mail program (File › Save as)."
            )
        return _message_document(message, name, read_attachment, None)
    except ExtractionError:
        raise
    except RecursionError:  # the parser and the part walks recurse once per level
        raise failures.too_deep(
            name,
            part_depth(data),
            "parts inside parts",
            "Save the message again from your mail program, or leave it out.",
        ) from None
    except Exception as exc:  # the standard library's parser fails on some malformed mail
        failures.trace(exc, "the e-mail reader")
        raise ExtractionError(
            f"{name} is a malformed e-mail message that Cairn's mail reader could not follow. "
            "Save it again from your mail program."
        ) from None


def extract_mailbox(
    source: bytes | BinaryIO, name: str, read_attachment: ReadAttachment | None = None
) -> ExtractedDocument:
    """An ``.mbox`` file (its bytes, or a stream that reads it): the mailbox, with one part per
    message. Read from a stream, only one message is held at a time."""
    stream = io.BytesIO(source) if isinstance(source, bytes) else source
    parts: list[ExtractedDocument] = []
    warnings: list[str] = []
    text = 0
    for number, raw in enumerate(_mbox_messages(stream, name), start=1):
        if raw is None:
            warnings.append(
                f"message {number} is larger than {MAX_MESSAGE_BYTES // 2**20} MB and was left "
                "out; save it from your mail program and add it on its own"
            )
            continue
        try:
            part = _message_document(_parse(raw), name, read_attachment, number)
        except RecursionError:
            warnings.append(
                f"message {number} is nested {part_depth(raw):,} levels deep (parts inside "
                "parts), more than Cairn reads, and was left out"
            )
            continue
        except Exception as exc:  # one malformed message (the parser's own bug): left out
            reason = failures.part_reason(exc, "the e-mail reader")
            warnings.append(f"message {number} could not be read ({reason})")
            continue
        parts.append(part)
        warnings += part.warnings  # the file's outcome reports them
        text += sum(len(segment.text) for segment in part.segments)
        if text > MAX_TEXT_CHARS:
            warnings.append(
                f"only its first {number:,} messages were read: they hold more text than one "
                "file keeps. Split the mailbox (by year, say) and add the parts."
            )
            break
    return ExtractedDocument(
        title=PurePath(name).stem,
        media_type=MBOX_TYPE,
        segments=(),
        metadata={"messages": len(parts)},
        warnings=tuple(warnings),
        parts=tuple(parts),
    )


def _mbox_messages(stream: BinaryIO, name: str) -> Iterator[bytes | None]:
    """Each message's bytes (None for one past ``MAX_MESSAGE_BYTES``, skipped unread), its
    ``From`` line dropped and ``>From`` lines unescaped. Lines are read at most
    ``MAX_LINE_BYTES`` at a time, so a file without line breaks cannot fill the memory."""
    lines: list[bytes] = []
    size = 0
    started = False
    at_line_start = True
    while chunk := stream.readline(MAX_LINE_BYTES):
        line_start, at_line_start = at_line_start, chunk.endswith(b"\n")
        if line_start and chunk.startswith(b"From "):
            if started:
                yield None if size > MAX_MESSAGE_BYTES else b"".join(lines)
            started, lines, size = True, [], 0
            continue
        if not started:
            if chunk.strip():
                raise ExtractionError(
                    f'{name} is not an mbox mailbox (it does not start with a "From " line). '
                    "Export the mailbox again from your mail program, or save its messages as "
                    ".eml files."
                )
            continue
        size += len(chunk)
        if size > MAX_MESSAGE_BYTES:
            lines = []  # the rest of this message is counted, never kept
            continue
        if line_start and chunk.startswith(b">") and chunk.lstrip(b">").startswith(b"From "):
            chunk = chunk[1:]
        lines.append(chunk)
    if not started:
        raise ExtractionError(f"{name} is empty: there is nothing to keep.")
    yield None if size > MAX_MESSAGE_BYTES else b"".join(lines)


def part_depth(data: bytes) -> int:
    """How deeply a message's parts nest (multiparts inside multiparts, messages forwarded
    inside messages), read from its header blocks and boundary lines: the email parser, which
    recurses once per level, cannot say it of a message nested deeper than it goes."""
    # What encloses the line being read: a multipart's boundary, or None for a forwarded
    # message (which ends where a boundary around it does).
    around: list[bytes | None] = []
    deepest = 0
    headers: list[bytes] | None = []  # the header block being read; None within a body
    for line in data.splitlines():
        if headers is not None:
            if line.strip():
                headers.append(line)
                continue
            kind, boundary = _content_type(headers)
            headers = None
            if kind.startswith(b"multipart/") and boundary:
                around.append(boundary)
            elif kind == b"message/rfc822":
                around.append(None)
                headers = []  # the forwarded message's own headers follow
            deepest = max(deepest, len(around))
            continue
        if not line.startswith(b"--"):
            continue
        delimiter = line[2:].rstrip()
        for level in range(len(around) - 1, -1, -1):
            boundary = around[level]
            if boundary is None:
                continue
            if delimiter == boundary:  # the next part of that multipart
                del around[level + 1 :]
                headers = []
                break
            if delimiter == boundary + b"--":  # its end
                del around[level:]
                break
    return deepest + 1  # the message itself is the first level


_CONTENT_TYPE = re.compile(rb"content-type:\s*([^;\s]+)(.*)", re.I | re.S)
_BOUNDARY = re.compile(rb'boundary\s*=\s*(?:"([^"]*)"|([^\s;]+))', re.I)


def _content_type(headers: list[bytes]) -> tuple[bytes, bytes | None]:
    """A header block's content type (lower case) and boundary; continued lines joined."""
    unfolded: list[bytes] = []
    for line in headers:
        if line[:1] in (b" ", b"\t") and unfolded:
            unfolded[-1] += b" " + line.strip()
        else:
            unfolded.append(line)
    for header in unfolded:
        match = _CONTENT_TYPE.match(header)
        if match:
            found = _BOUNDARY.search(match.group(2))
            boundary = (found.group(1) or found.group(2)) if found else None
            return match.group(1).lower(), boundary
    return b"text/plain", None


def _parse(data: bytes) -> EmailMessage:
    message = BytesParser(policy=policy.default).parsebytes(data)
    assert isinstance(message, EmailMessage)  # what policy.default makes
    return message


def _message_document(
    message: EmailMessage,
    name: str,
    read_attachment: ReadAttachment | None,
    number: int | None,
) -> ExtractedDocument:
    where = Locator(message=number)
    metadata = _headers(message)
    warnings: list[str] = []
    segments = [Segment(_header_text(message), where)]
    segments += _body(message, where, read_attachment, warnings, depth=0)
    sender = str(metadata.get("sender", "")).split("<")[0].strip()
    title = str(metadata.get("subject", "")) or (f"Message from {sender}" if sender else "")
    prefix = f"message {number}: " if number is not None else ""
    fallback = f"Message {number}" if number is not None else PurePath(name).stem
    return ExtractedDocument(
        title=title or fallback,
        media_type=MESSAGE_TYPE,
        segments=tuple(s for s in segments if s.text.strip()),
        metadata=metadata,
        warnings=tuple(prefix + warning for warning in warnings),
    )


def _headers(message: Message) -> dict[str, object]:
    found: dict[str, object] = {}
    sender = _addresses(message, "From")
    if sender:
        found["sender"] = sender[0]
    recipients = _addresses(message, "To") + _addresses(message, "Cc")
    if recipients:
        found["recipients"] = recipients
    subject = " ".join(_header(message, "Subject").split())
    if subject:
        found["subject"] = subject
    try:
        sent = parsedate_to_datetime(_header(message, "Date"))
    except (TypeError, ValueError, IndexError):
        sent = None
    if sent is not None:
        found["created"] = sent.replace(microsecond=0).isoformat()
    return found


def _header(message: Message, header: str) -> str:
    try:
        return str(message.get(header, "") or "")
    except Exception:  # a header the parser cannot make sense of reads as missing
        return ""


def _addresses(message: Message, header: str) -> list[str]:
    try:
        values = [str(value) for value in message.get_all(header, [])]
    except Exception:
        return []
    found = []
    for display, address in getaddresses(values):
        shown = f"{display} <{address}>" if display and address else display or address
        if shown.strip():
            found.append(shown.strip())
    return found


def _header_text(message: Message) -> str:
    lines = []
    for header in _HEADERS:
        value = " ".join(_header(message, header).split())
        if value:
            lines.append(f"{header}: {value}")
    return "\n".join(lines)


def _body(
    message: EmailMessage,
    where: Locator,
    read_attachment: ReadAttachment | None,
    warnings: list[str],
    depth: int,
) -> list[Segment]:
    segments: list[Segment] = []
    body = message.get_body(preferencelist=("plain", "html"))
    if body is not None:
        segments += _text_part(body, where)
    for index, part in enumerate(message.iter_attachments(), start=1):
        if not isinstance(part, EmailMessage):
            continue
        filename = f"attachment {index}"
        # One attachment that is damaged, or breaks a parser (the mail library's or an
        # extractor's), costs only itself: a warning, the message and its other parts kept.
        try:
            filename = part.get_filename() or filename
            segments += _attached(part, filename, where, read_attachment, warnings, depth)
        except Exception as exc:
            reason = failures.part_reason(exc, "the e-mail reader")
            warnings.append(f"its attachment {filename} could not be read: {reason}")
    return segments


def _attached(
    part: EmailMessage,
    filename: str,
    where: Locator,
    read_attachment: ReadAttachment | None,
    warnings: list[str],
    depth: int,
) -> list[Segment]:
    """An attachment's segments: a forwarded message read as a message, other kinds by
    ``read_attachment``."""
    if part.get_content_type() != MESSAGE_TYPE or depth >= MAX_NESTING:
        return _attachment(part, filename, where, read_attachment, warnings)
    inner = part.get_payload(0) if part.is_multipart() else None
    if not isinstance(inner, EmailMessage):
        return []
    heading = (f"Forwarded: {_header(inner, 'Subject') or filename}",)
    nested = [Segment(_header_text(inner), where)]
    nested += _body(inner, where, read_attachment, warnings, depth + 1)
    return [_under(s, heading) for s in nested]


def _text_part(part: MIMEPart, where: Locator) -> list[Segment]:
    payload = part.get_payload(decode=True)
    raw = payload if isinstance(payload, bytes) else b""
    if part.get_content_type() == "text/html":
        try:
            page = html.extract(raw, "message.html")
        except ExtractionError:
            return []
        return [
            Segment(s.text, Locator(heading=s.locator.heading, message=where.message))
            for s in page.segments
        ]
    charset = part.get_content_charset() or "utf-8"
    try:
        text = raw.decode(charset, errors="replace")
    except LookupError:  # a charset Python does not know: UTF-8 keeps most of it
        text = raw.decode("utf-8", errors="replace")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [Segment(p.strip(), where) for p in _PARAGRAPHS.split(text) if p.strip()]


def _attachment(
    part: EmailMessage,
    filename: str,
    where: Locator,
    read_attachment: ReadAttachment | None,
    warnings: list[str],
) -> list[Segment]:
    if read_attachment is None:
        return []
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes) or not payload:
        return []
    if len(payload) > MAX_ATTACHMENT_BYTES:
        warnings.append(
            f"its attachment {filename} is larger than {MAX_ATTACHMENT_BYTES // 2**20} MB and "
            "was not read; save it and add it on its own"
        )
        return []
    document = read_attachment(payload, filename)  # what it raises is the caller's warning
    if document is None:
        return []
    return [
        Segment(
            segment.text,
            Locator(
                page=segment.locator.page,
                heading=(filename, *segment.locator.heading),
                message=where.message,
            ),
        )
        for segment in document.segments
    ]


def _under(segment: Segment, heading: tuple[str, ...]) -> Segment:
    located = segment.locator
    return Segment(
        segment.text,
        Locator(page=located.page, heading=(*heading, *located.heading), message=located.message),
    )


def _read_message(data: bytes, name: str, reading: Reading) -> ExtractedDocument:
    return extract_message(data, name, reading.attachment)


def _read_mailbox(source: bytes | BinaryIO, name: str, reading: Reading) -> ExtractedDocument:
    return extract_mailbox(source, name, reading.attachment)


MESSAGE = Format(
    name="email",
    label="e-mail",
    suffixes=frozenset({".eml"}),
    media_types=frozenset({MESSAGE_TYPE}),
    read=_read_message,
)
# Read message by message from the open file: mailboxes run to gigabytes.
MAILBOX = Format(
    name="mailbox",
    label="e-mail",
    suffixes=frozenset({".mbox"}),
    media_types=frozenset({MBOX_TYPE}),
    read=_read_mailbox,
    read_stream=_read_mailbox,
)
