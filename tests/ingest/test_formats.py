"""The formats' declarations and their registry: which reader reads which file, the files
that share a suffix told apart by what they hold, and declarations that cannot both hold."""

from __future__ import annotations

import pytest

from cairn.ingest import chat, formats
from cairn.ingest.document import ExtractedDocument
from cairn.ingest.format_declaration import Format, Reading
from cairn.ingest.formats import Formats
from tests.ingest import kept_files as kept

CHAT = [
    ("2023-12-31T21:41", "Ada Lovelace", "Shall we meet at the harbour?"),
    ("2023-12-31T21:43", "Ben", "Yes: at ten."),
]
# Every suffix Cairn reads, and the format that reads it.
READ = {
    "text": ".txt .text .md .markdown .mdown .mkd .rst .org",
    "html": ".html .htm .xhtml",
    "docx": ".docx",
    "odt": ".odt",
    "epub": ".epub",
    "email": ".eml",
    "mailbox": ".mbox",
    "pdf": ".pdf",
    "image": ".png .jpg .jpeg .tif .tiff .bmp .gif .webp",
    "audio": ".mp3 .wav .flac .m4a .ogg .oga .opus .aac .mp4 .mkv .webm .mov .avi .m4v",
    "code": ".py .js .ts .tsx .jsx .java .c .h .cpp .hpp .rs .go .rb .sh .sql .toml .yaml .yml "
    ".json .css .kt .swift .cs",
}


def test_each_suffix_is_read_by_its_format() -> None:
    registry = formats.registry()
    expected = {suffix: name for name, suffixes in READ.items() for suffix in suffixes.split()}
    assert registry.suffixes == expected.keys()
    for suffix, name in expected.items():
        found = registry.by_name(f"file{suffix.upper()}")
        assert found is not None and found.name == name, suffix
    assert registry.by_name("notes.doc") is None and registry.by_name("README") is None


def test_formats_are_found_by_media_type() -> None:
    registry = formats.registry()
    assert registry.by_media_type("application/pdf") is not None
    for media_type, name in [
        ("application/PDF", "pdf"),
        ("text/html; charset=utf-8", "html"),
        ("image/jpeg", "image"),
        ("video/mp4", "audio"),
        ("message/rfc822", "email"),
        ("text/x-whatsapp-chat", "whatsapp"),
    ]:
        found = registry.by_media_type(media_type)
        assert found is not None and found.name == name, media_type
    assert registry.by_media_type("application/x-unknown") is None


def _read(name: str, data: bytes) -> ExtractedDocument:
    registry = formats.registry()
    format_ = registry.by_name(name)
    assert format_ is not None
    return registry.read(format_, data, name, Reading())


def test_a_chat_export_is_told_from_the_files_that_share_its_suffix() -> None:
    assert _read("chat.txt", kept.whatsapp_android(CHAT)).media_type == chat.WHATSAPP_TYPE
    assert _read("plain.txt", b"A plain note.\n").media_type == "text/plain"
    telegram = kept.telegram_chat("Ada", "personal_chat", [("2024-02-01T10:00:00", "Ada", "Hi")])
    assert _read("result.json", kept.telegram_bytes(telegram)).media_type == chat.TELEGRAM_TYPE
    assert _read("data.json", b'{"messages": 3}').media_type == "text/x-text"


def _format(name: str, suffixes: set[str], by_content: bool = False) -> Format:
    return Format(
        name=name,
        label=name,
        suffixes=frozenset(suffixes),
        media_types=frozenset({f"application/x-{name}"}),
        read=lambda data, file_name, reading: None,
        by_content=by_content,
    )


def test_declarations_that_cannot_both_hold_are_refused() -> None:
    with pytest.raises(ValueError, match=r"\.txt is read by a too"):
        Formats([_format("a", {".txt"}), _format("b", {".txt"})])
    with pytest.raises(ValueError, match=r"no format reads every \.log file"):
        Formats([_format("a", {".log"}, by_content=True)])
    with pytest.raises(ValueError, match="lower case with its dot"):
        _format("a", {"TXT"})
    Formats([_format("a", {".txt"}), _format("b", {".txt"}, by_content=True)])
