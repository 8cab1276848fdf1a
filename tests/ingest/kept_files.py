"""Files people keep, made on the spot for the tests: EPUB books, OpenDocument texts, e-mail
(single messages and mbox mailboxes, built with the standard library's ``email``), WhatsApp
and Telegram chat exports. Each is built the way the program that writes it lays it out."""

from __future__ import annotations

import io
import json
import struct
import zipfile
from collections.abc import Sequence
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>"""


def epub_bytes(
    title: str,
    chapters: Sequence[tuple[str, str]],
    *,
    author: str = "Ann Author",
    epub3: bool = True,
    encrypted: bool = False,
) -> bytes:
    """A book of ``chapters`` (name, body HTML), with a table of contents naming them: EPUB 3's
    navigation page, or EPUB 2's NCX."""
    items, spine, nav, ncx = [], [], [], []
    for number, (name, _) in enumerate(chapters, start=1):
        items.append(
            f'<item id="c{number}" href="text/chapter{number}.xhtml" '
            'media-type="application/xhtml+xml"/>'
        )
        spine.append(f'<itemref idref="c{number}"/>')
        nav.append(f'<li><a href="text/chapter{number}.xhtml">{name}</a></li>')
        ncx.append(
            f'<navPoint id="n{number}" playOrder="{number}"><navLabel><text>{name}</text>'
            f'</navLabel><content src="text/chapter{number}.xhtml"/></navPoint>'
        )
    if epub3:
        items.append('<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" '
                     'properties="nav"/>')  # fmt: skip
        spine.insert(0, '<itemref idref="nav" linear="no"/>')
    else:
        items.append('<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>')
    opf = f"""<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="{3 if epub3 else 2}.0">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:title>{title}</dc:title><dc:creator>{author}</dc:creator><dc:language>en</dc:language>
  </metadata>
  <manifest>{"".join(items)}</manifest>
  <spine{"" if epub3 else ' toc="ncx"'}>{"".join(spine)}</spine>
</package>"""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/container.xml", CONTAINER)
        archive.writestr("OEBPS/content.opf", opf)
        for number, (_, body) in enumerate(chapters, start=1):
            archive.writestr(
                f"OEBPS/text/chapter{number}.xhtml",
                '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
                f"<head><title>{title}</title></head><body>{body}</body></html>",
            )
        archive.writestr(
            "OEBPS/nav.xhtml",
            '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml" '
            'xmlns:epub="http://www.idpf.org/2007/ops"><body><nav epub:type="toc"><ol>'
            f"{''.join(nav)}</ol></nav></body></html>",
        )
        archive.writestr(
            "OEBPS/toc.ncx",
            '<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" '
            f'version="2005-1"><navMap>{"".join(ncx)}</navMap></ncx>',
        )
        if encrypted:
            archive.writestr(
                "META-INF/encryption.xml",
                '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
                '<enc:CipherData><enc:CipherReference URI="OEBPS/text/chapter1.xhtml"/>'
                "</enc:CipherData></enc:EncryptedData></encryption>",
            )
    return buffer.getvalue()


# The ways a real zip's part goes bad, each raising something different in zipfile.
DAMAGES = ("deflate", "lzma", "bzip2", "encrypted", "method")
_METHODS = {"lzma": zipfile.ZIP_LZMA, "bzip2": zipfile.ZIP_BZIP2}


def with_damaged_part(data: bytes, part: str, how: str = "deflate") -> bytes:
    """The zip ``data`` packed again with ``part`` damaged as a file on a failing disk or from
    another program can be: its compressed stream garbled ("deflate", "lzma", "bzip2"), marked
    as encrypted with a password ("encrypted"), or compressed by a method zipfile lacks, as
    AES-encrypted zips say ("method")."""
    source = zipfile.ZipFile(io.BytesIO(data))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            method = _METHODS.get(how, zipfile.ZIP_DEFLATED) if info.filename == part else None
            archive.writestr(info.filename, source.read(info), compress_type=method)
    raw = bytearray(buffer.getvalue())
    info = zipfile.ZipFile(io.BytesIO(bytes(raw))).getinfo(part)
    # The part's entry in the central directory: its signature, then its name at offset 46.
    central = raw.index(b"PK\x01\x02", info.header_offset + 30 + info.compress_size)
    while raw[central + 46 : central + 46 + len(part)] != part.encode():
        central = raw.index(b"PK\x01\x02", central + 4)
    if how == "encrypted":
        raw[central + 8] |= 0x01  # the general purpose flag's "encrypted" bit
    elif how == "method":
        struct.pack_into("<H", raw, central + 10, 99)
    else:  # the stream after its own header (LZMA's 9 bytes, bzip2's 4) made garbage
        name_length, extra_length = struct.unpack_from("<HH", raw, info.header_offset + 26)
        start = (
            info.header_offset
            + 30
            + name_length
            + extra_length
            + {"lzma": 9, "bzip2": 4}.get(how, 0)
        )
        end = info.header_offset + 30 + name_length + extra_length + info.compress_size
        raw[start:end] = b"\xff" * (end - start)
    return bytes(raw)


ODT_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" '
    'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" '
    'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"'
)


def odt_bytes(body_xml: str, *, title: str | None = None, encrypted: bool = False) -> bytes:
    """An OpenDocument text whose ``office:text`` holds ``body_xml``, laid out as LibreOffice
    writes it (mimetype first and stored, a manifest, content and meta parts)."""
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ODT_NS} '
        f'office:version="1.3"><office:body><office:text>{body_xml}</office:text>'
        "</office:body></office:document-content>"
    )
    meta_title = f"<dc:title>{title}</dc:title>" if title else ""
    meta = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-meta {ODT_NS}><office:meta>'
        f"{meta_title}<meta:initial-creator>Olga Writer</meta:initial-creator>"
        "<dc:language>en-GB</dc:language></office:meta></office:document-meta>"
    )
    encryption = "<manifest:encryption-data/>" if encrypted else ""
    manifest = (
        f'<?xml version="1.0" encoding="UTF-8"?><manifest:manifest {ODT_NS}>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">'
        f"{encryption}</manifest:file-entry></manifest:manifest>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "mimetype", "application/vnd.oasis.opendocument.text", compress_type=zipfile.ZIP_STORED
        )
        archive.writestr("META-INF/manifest.xml", manifest)
        archive.writestr("content.xml", "garbled\x00" if encrypted else content)
        archive.writestr("meta.xml", meta)
    return buffer.getvalue()


def email_message(
    subject: str,
    body: str,
    *,
    sender: str = "Ada Lovelace <ada@example.org>",
    to: str = "Charles Babbage <charles@example.org>",
    cc: str | None = None,
    sent: datetime | None = None,
    html: str | None = None,
    attachments: Sequence[tuple[str, bytes, str]] = (),
    forwarded: EmailMessage | None = None,
) -> EmailMessage:
    """A message as a mail program sends it; attachments are (file name, bytes, MIME type)."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    if cc:
        message["Cc"] = cc
    message["Date"] = format_datetime(sent or datetime(2024, 3, 5, 9, 30, tzinfo=UTC))
    message["Subject"] = subject
    message.set_content(body)
    if html is not None:
        message.add_alternative(html, subtype="html")
    for filename, data, mime in attachments:
        main, sub = mime.split("/")
        message.add_attachment(data, maintype=main, subtype=sub, filename=filename)
    if forwarded is not None:
        message.add_attachment(forwarded)
    return message


def mbox_bytes(messages: Sequence[EmailMessage]) -> bytes:
    """An mbox mailbox (mboxrd: a body line starting "From " is written ">From ")."""
    out = []
    for message in messages:
        raw = message.as_bytes(policy=message.policy.clone(linesep="\n"))
        escaped = b"\n".join(
            b">" + line if line.lstrip(b">").startswith(b"From ") else line
            for line in raw.split(b"\n")
        )
        out.append(b"From MAILER-DAEMON Tue Mar  5 09:30:00 2024\n" + escaped.rstrip(b"\n"))
    return b"\n\n".join(out) + b"\n"


def whatsapp_android(lines: Sequence[tuple[str, str, str]]) -> bytes:
    """An Android export in the US format: ``12/31/23, 9:41 PM - Ada: text``; ``lines`` are
    (ISO date and time, speaker or "", text)."""
    out = []
    for when, speaker, text in lines:
        at = datetime.fromisoformat(when)
        stamp = f"{at.month}/{at.day}/{at:%y}, {at.hour % 12 or 12}:{at:%M} {at:%p}"
        out.append(f"{stamp} - {speaker}: {text}" if speaker else f"{stamp} - {text}")
    return ("\n".join(out) + "\n").encode()


def whatsapp_iphone(lines: Sequence[tuple[str, str, str]]) -> bytes:
    """An iPhone export in a European format: ``[31.12.23, 21:41:05] Ada: text``."""
    out = []
    for when, speaker, text in lines:
        at = datetime.fromisoformat(when)
        stamp = f"[{at:%d.%m.%y, %H:%M:%S}]"
        out.append(f"\u200e{stamp} {speaker}: {text}" if speaker else f"{stamp} {text}")
    return ("\r\n".join(out) + "\r\n").encode()


def telegram_chat(name: str, kind: str, messages: Sequence[tuple[str, str, Any]]) -> dict[str, Any]:
    """One chat as Telegram Desktop exports it; ``messages`` are (ISO date, sender, text), the
    text a string or a list of strings and formatted pieces."""
    return {
        "name": name,
        "type": kind,
        "id": abs(hash(name)) % 10**9,
        "messages": [
            {
                "id": number,
                "type": "message",
                "date": when,
                "date_unixtime": str(int(datetime.fromisoformat(when).timestamp())),
                "from": sender,
                "from_id": f"user{abs(hash(sender)) % 10**6}",
                "text": text,
                "text_entities": [],
            }
            for number, (when, sender, text) in enumerate(messages, start=1)
        ],
    }


def telegram_bytes(root: dict[str, Any]) -> bytes:
    return json.dumps(root, ensure_ascii=False, indent=1).encode()
