"""Chat exports: WhatsApp text files in the formats phones write (date orders found from the
file), Telegram JSON (one chat, or the whole account); each message located, the speakers named
as people. Text files that only look a little like chats stay text."""

from __future__ import annotations

import time

import pytest

from cairn.ingest import chat
from cairn.ingest.document import ExtractionError
from tests.ingest import kept_files as kept

CHAT = [
    ("2023-12-31T21:41", "", "Messages and calls are end-to-end encrypted."),
    ("2023-12-31T21:41", "Ada Lovelace", "Shall we meet at the harbour?"),
    ("2023-12-31T21:43", "Ben", "Yes: at ten.\nBring the map."),
    ("2024-01-02T08:05", "Ada Lovelace", "<Media omitted>"),
]


# A dated journal and a log file: dates, times and "Word:" but not WhatsApp's line shapes.
JOURNAL = (
    "2024-03-01 09:15 Todo: buy milk\n"
    "2024-03-01 18:30 Meeting with Ann: the lease ends in May\n"
    "2024-03-02 08:00 Ran to the harbour and back.\n"
)
LOG = (
    "2023-01-02 10:11:12 INFO server: started\n"
    "2023-01-02 10:11:13 WARN cache: 3 entries dropped\n"
    "[2023-01-02 10:11:14] ERROR db: connection refused\n"
)


def test_an_android_export_is_one_message_per_segment_with_speaker_day_and_place() -> None:
    doc = chat.extract_whatsapp(kept.whatsapp_android(CHAT), "WhatsApp Chat with Ben.txt")
    assert doc.title == "WhatsApp Chat with Ben"
    assert doc.media_type == "text/x-whatsapp-chat"
    assert doc.people == ("Ada Lovelace", "Ben")
    assert doc.metadata == {"created": "2023-12-31T21:41:00"}
    assert [(s.text, s.locator.heading, s.locator.message) for s in doc.segments] == [
        ("21:41 Messages and calls are end-to-end encrypted.", ("2023-12-31",), 1),
        ("21:41 Ada Lovelace: Shall we meet at the harbour?", ("2023-12-31",), 2),
        ("21:43 Ben: Yes: at ten.\nBring the map.", ("2023-12-31",), 3),
        ("08:05 Ada Lovelace: <Media omitted>", ("2024-01-02",), 4),
    ]
    # Lines in the file: a message that goes on over two lines covers both.
    assert [(s.locator.line_start, s.locator.line_end) for s in doc.segments] == [
        (1, 1), (2, 2), (3, 4), (5, 5)
    ]  # fmt: skip


def test_an_iphone_export_with_a_european_date_and_seconds() -> None:
    doc = chat.extract_whatsapp(kept.whatsapp_iphone(CHAT[1:]), "_chat.txt")
    assert [(s.text, s.locator.heading) for s in doc.segments] == [
        ("21:41 Ada Lovelace: Shall we meet at the harbour?", ("2023-12-31",)),
        ("21:43 Ben: Yes: at ten.\nBring the map.", ("2023-12-31",)),
        ("08:05 Ada Lovelace: <Media omitted>", ("2024-01-02",)),
    ]


@pytest.mark.parametrize(
    ("lines", "days"),
    [
        # Day first: 13 can only be a day.
        (
            ["13/01/2024, 10:00 - Ada: a", "14/01/2024, 10:00 - Ben: b"],
            ["2024-01-13", "2024-01-14"],
        ),
        # Month first: 13 can only be a day, in second place.
        (["01/13/24, 10:00 - Ada: a", "01/14/24, 10:00 - Ben: b"], ["2024-01-13", "2024-01-14"]),
        # Year first (as an East Asian locale writes it; never ISO's dashes).
        (
            ["2024/02/03, 10:00 - Ada: a", "2024/02/04, 10:00 - Ben: b"],
            ["2024-02-03", "2024-02-04"],
        ),
        # Every date fits both orders: the one in which the chat runs forward in time wins.
        (
            ["02/01/24, 10:00 - Ada: a", "03/01/24, 10:00 - Ben: b", "04/01/24, 10:00 - Ada: c"],
            ["2024-01-02", "2024-01-03", "2024-01-04"],
        ),
        (
            ["01/02/24, 10:00 - Ada: a", "01/03/24, 10:00 - Ben: b", "02/01/24, 10:00 - Ada: c"],
            ["2024-01-02", "2024-01-03", "2024-02-01"],
        ),
    ],
    ids=["dmy", "mdy", "ymd", "forward-dmy", "forward-mdy"],
)
def test_the_date_order_is_found_from_the_file(lines: list[str], days: list[str]) -> None:
    doc = chat.extract_whatsapp("\n".join(lines).encode(), "chat.txt")
    assert [s.locator.heading[0] for s in doc.segments] == days


def test_a_twelve_hour_clock_reads_afternoons() -> None:
    data = "1/2/24, 12:05 AM - Ada: late\n1/2/24, 1:30\u202fPM - Ben: after lunch\n".encode()
    assert [s.text for s in chat.extract_whatsapp(data, "c.txt").segments] == [
        "00:05 Ada: late",
        "13:30 Ben: after lunch",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Shopping list\n\n12/31/23 eggs\n",
        "2023-12-31, 21:41 the server restarted\n2023-12-31, 21:42 it came back\n",
        "Meeting notes: 12/31/23, 9:41 PM - Ada: hello\n",
        "",
        JOURNAL,
        LOG,
        # WhatsApp's own shapes, but with an ISO date, which WhatsApp never writes.
        "2024-03-01, 09:15 - Todo: buy milk\n2024-03-02, 18:00 - Meeting with Ann: lease\n",
        "[2023-01-02, 10:11:12] INFO server: started\n",
        # A date and time without Android's " - " or iPhone's brackets.
        "03/01/24, 09:15 Todo: buy milk\n03/01/24, 18:00 Meeting with Ann: the lease\n",
    ],
    ids=["list", "iso-comma", "prefixed", "empty", "journal", "log", "iso-android",
         "iso-iphone", "no-dash"],
)  # fmt: skip
def test_text_that_only_looks_a_little_like_a_chat_is_not_one(text: str) -> None:
    assert not chat.is_whatsapp(text.encode())


def test_exports_are_recognised() -> None:
    assert chat.is_whatsapp(kept.whatsapp_android(CHAT))
    assert chat.is_whatsapp(kept.whatsapp_iphone(CHAT))


def test_a_message_of_many_lines_is_read_in_time_linear_in_its_size() -> None:
    """A pasted log or a long poem is one message of many lines; adding each line to a
    growing string took minutes for a few megabytes."""
    lines = 300_000
    data = ("1/2/24, 10:00 - Ada: start\n" + "a line pasted into the chat\n" * lines).encode()
    started = time.monotonic()
    doc = chat.extract_whatsapp(data, "c.txt")
    assert time.monotonic() - started < 10
    assert len(doc.segments) == 1 and doc.segments[0].text.count("\n") == lines
    assert doc.segments[0].locator.line_end == lines + 1


def test_a_telegram_chat_is_one_document_with_its_speakers() -> None:
    root = kept.telegram_chat(
        "Ada Lovelace",
        "personal_chat",
        [
            ("2024-02-01T10:00:00", "Ada Lovelace", "The engine computes Bernoulli numbers."),
            ("2024-02-01T10:01:00", "Charles", ["See ", {"type": "link", "text": "the notes"}]),
            ("2024-02-02T09:00:00", "Ada Lovelace", ""),  # a photo without a caption
        ],
    )
    root["messages"].append(
        {"id": 9, "type": "service", "date": "2024-02-02T09:30:00", "actor": "Charles",
         "action": "phone_call"}
    )  # fmt: skip
    doc = chat.telegram_export(kept.telegram_bytes(root), "result.json")
    assert doc is not None
    assert doc.title == "Chat with Ada Lovelace"
    assert doc.media_type == "application/x-telegram-chat"
    assert doc.people == ("Ada Lovelace", "Charles")
    assert [(s.text, s.locator.heading, s.locator.message) for s in doc.segments] == [
        ("10:00 Ada Lovelace: The engine computes Bernoulli numbers.", ("2024-02-01",), 1),
        ("10:01 Charles: See the notes", ("2024-02-01",), 2),
        ("09:30 Charles phone call", ("2024-02-02",), 3),
    ]


def test_a_whole_telegram_account_is_one_part_per_chat() -> None:
    chats = [
        kept.telegram_chat("Ada", "personal_chat", [("2024-01-01T10:00:00", "Ada", "Hello")]),
        kept.telegram_chat("Rowing club", "private_group",
                           [("2024-01-03T18:00:00", "Ben", "Training moved to Friday")]),
        kept.telegram_chat("Empty", "personal_chat", []),
    ]  # fmt: skip
    root = {"about": "Here is the data you requested.", "chats": {"list": chats}}
    doc = chat.telegram_export(kept.telegram_bytes(root), "result.json")
    assert doc is not None and doc.title == "Telegram export (result)"
    assert [(p.title, p.people) for p in doc.parts] == [
        ("Chat with Ada", ("Ada",)),
        ("Rowing club", ("Ben",)),
    ]


@pytest.mark.parametrize(
    "data",
    [
        b'{"name": "cairn", "version": "1.0"}',
        b"[1, 2, 3]",
        b'{"messages": 5}',
        b'{"messages": [{"role": "user", "content": "Summarise the lease."}]}',
        b'{"chats": {"list": [{"name": "x", "messages": [{"id": 1}]}]}}',
        b'{"messages": [',
        b"",
    ],
)
def test_other_json_is_not_a_telegram_export(data: bytes) -> None:
    try:
        assert chat.telegram_export(data, "package.json") is None
    except ExtractionError as exc:  # an empty file is refused as empty, like any text
        assert "empty" in str(exc)


def test_an_iphone_group_s_own_events_are_not_a_person() -> None:
    """iPhone exports write the group's events under its name, each marked with a direction
    mark; a person's picture is marked too, but that person also says something."""
    data = (
        "[31.12.23, 21:40:00] Ferry Trip: \u200eMessages and calls are end-to-end encrypted.\n"
        "[31.12.23, 21:40:01] Ferry Trip: \u200eAda created group \u201cFerry Trip\u201d\n"
        "[31.12.23, 21:41:05] Ada: \u200e<attached: 00000012-PHOTO-2023-12-31.jpg>\n"
        "[31.12.23, 21:41:09] Ada: The ferry at ten, then.\n"
    ).encode()
    doc = chat.extract_whatsapp(data, "_chat.txt")
    assert doc.people == ("Ada",)
    assert doc.segments[1].text == "21:40 Ferry Trip: Ada created group \u201cFerry Trip\u201d"
