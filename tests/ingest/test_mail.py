"""E-mail: a message's headers as metadata, its text, its attachments read by the extractors
given, forwarded messages; a mailbox split into its messages, a bad message left out alone;
what is not mail fails with a message."""

from __future__ import annotations

import io
from datetime import datetime, timedelta, timezone

import pytest

from cairn.ingest import mail, odt, textfile
from cairn.ingest.document import ExtractedDocument, ExtractionError
from tests.app import hostile_files as hostile
from tests.ingest import kept_files as kept

WHEN = datetime(2024, 3, 5, 9, 30, tzinfo=timezone(timedelta(hours=1)))


def read_text_only(data: bytes, name: str) -> ExtractedDocument | None:
    """The app hands its extractors; here only text files are read, anything else skipped."""
    return textfile.extract(data, name) if name.endswith(".txt") else None


def test_a_message_keeps_its_headers_its_text_and_its_attachments() -> None:
    message = kept.email_message(
        "The lease",
        "Hello Charles,\n\nThe lease of the flat runs out in May.\n",
        cc="Mary Somerville <mary@example.org>",
        sent=WHEN,
        attachments=[
            ("inventory.txt", b"One sofa.\n\nTwo chairs with broken legs.", "text/plain"),
            ("photo.png", b"\x89PNG\r\n", "image/png"),
        ],
    )
    doc = mail.extract_message(bytes(message), "lease.eml", read_text_only)
    assert doc.title == "The lease"
    assert doc.media_type == "message/rfc822"
    assert doc.metadata == {
        "sender": "Ada Lovelace <ada@example.org>",
        "recipients": [
            "Charles Babbage <charles@example.org>",
            "Mary Somerville <mary@example.org>",
        ],
        "subject": "The lease",
        "created": "2024-03-05T09:30:00+01:00",
    }
    texts = [(s.text, s.locator.heading) for s in doc.segments]
    assert texts[0][0].startswith("From: Ada Lovelace <ada@example.org>\nTo: Charles Babbage")
    assert "Subject: The lease" in texts[0][0]
    assert texts[1:] == [
        ("Hello Charles,", ()),
        ("The lease of the flat runs out in May.", ()),
        ("One sofa.", ("inventory.txt",)),
        ("Two chairs with broken legs.", ("inventory.txt",)),
    ]
    assert not doc.warnings


def test_an_html_only_message_is_read_as_html_and_a_forward_as_a_message() -> None:
    inner = kept.email_message("Boat times", "The ferry leaves at noon.")
    message = kept.email_message("Fwd: Boat times", "See below.", forwarded=inner)
    doc = mail.extract_message(bytes(message), "fwd.eml")
    assert ("The ferry leaves at noon.", ("Forwarded: Boat times",)) in [
        (s.text, s.locator.heading) for s in doc.segments
    ]
    html_only = kept.email_message("News", "")
    html_only.clear_content()
    page = "<html><body><nav>Menu</nav><p>The <b>market</b> opens.</p></body></html>"
    html_only.set_content(page, subtype="html")
    texts = [s.text for s in mail.extract_message(bytes(html_only), "news.eml").segments]
    assert texts[1:] == ["The market opens."]


def test_an_attachment_that_cannot_be_read_is_a_warning_not_a_failure() -> None:
    def refuse(data: bytes, name: str) -> ExtractedDocument | None:
        raise ExtractionError(f"{name} is damaged.")

    message = kept.email_message(
        "Report", "Attached.", attachments=[("report.txt", b"x", "text/plain")]
    )
    doc = mail.extract_message(bytes(message), "report.eml", refuse)
    assert [s.text for s in doc.segments][1:] == ["Attached."]
    assert doc.warnings == ("its attachment report.txt could not be read: report.txt is damaged.",)


def read_documents(data: bytes, name: str) -> ExtractedDocument | None:
    """The app's extractors for OpenDocument and text attachments."""
    return odt.extract(data, name) if name.endswith(".odt") else textfile.extract(data, name)


ODT_TYPE = "application/vnd.oasis.opendocument.text"
# Sections nested deeper than the reader's recursion goes: a failure of the attachment alone,
# which says how deep it is nested.
NESTED_ODT = kept.odt_bytes(
    "<text:section>" * 5000 + "<text:p>x</text:p>" + "</text:section>" * 5000
)


def test_an_attachment_that_is_damaged_or_breaks_its_reader_costs_only_itself() -> None:
    damaged = kept.with_damaged_part(kept.odt_bytes("<text:p>Plans</text:p>"), "content.xml")
    message = kept.email_message(
        "Garden",
        "Three files attached.",
        attachments=[
            ("nested.odt", NESTED_ODT, ODT_TYPE),
            ("damaged.odt", damaged, ODT_TYPE),
            ("notes.txt", b"Sow the beans in May.", "text/plain"),
        ],
    )
    doc = mail.extract_message(bytes(message), "garden.eml", read_documents)
    assert [s.text for s in doc.segments][1:] == ["Three files attached.", "Sow the beans in May."]
    assert len(doc.warnings) == 2
    assert doc.warnings[0].startswith(
        "its attachment nested.odt could not be read: nested.odt is nested 5,004 levels deep "
    )
    assert doc.warnings[1].startswith(
        "its attachment damaged.odt could not be read: damaged.odt is damaged (content.xml: "
    )
    # In a mailbox, the message is kept too, with its warnings numbered.
    box = mail.extract_mailbox(
        kept.mbox_bytes([message, kept.email_message("Next", "Fine.")]), "box.mbox", read_documents
    )
    assert [p.title for p in box.parts] == ["Garden", "Next"]
    assert [w[:45] for w in box.warnings] == [
        "message 1: its attachment nested.odt could no",
        "message 1: its attachment damaged.odt could n",
    ]


def test_a_mailbox_is_one_part_per_message_numbered() -> None:
    messages = [
        kept.email_message("First", "From the start, it rained.\n", sent=WHEN),
        kept.email_message("Second", "The roof held.", sender="charles@example.org"),
        kept.email_message("", "No subject here."),
    ]
    box = mail.extract_mailbox(kept.mbox_bytes(messages), "Archive.mbox", read_text_only)
    assert box.title == "Archive"
    assert box.media_type == "application/mbox"
    assert box.segments == ()
    assert [p.title for p in box.parts] == ["First", "Second", "Message from Ada Lovelace"]
    assert box.parts[1].metadata["sender"] == "charles@example.org"
    assert box.warnings == ()
    # An mboxrd ">From " line is the body's "From " again.
    assert "From the start, it rained." in [s.text for s in box.parts[0].segments]
    for number, part in enumerate(box.parts, start=1):
        assert {s.locator.message for s in part.segments} == {number}


def test_a_bad_message_in_a_mailbox_is_left_out_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A Content-Type the standard library's parser fails on (IndexError, found by fuzzing)
    costs that message only; the warning is a sentence, and the error's kind and place are
    left for a developer."""
    good = kept.mbox_bytes([kept.email_message("Kept", "This one is fine.")])
    bad = b"From x Tue Mar  5 09:30:00 2024\nFrom: a@b\nContent-Type: =b;b*\n\nbody\n"
    box = mail.extract_mailbox(bad + good + bad, "box.mbox")
    assert [p.title for p in box.parts] == ["Kept"]
    assert box.warnings == (
        "message 1 could not be read (the reader stopped on something in it that it did not "
        "expect)",
        "message 3 could not be read (the reader stopped on something in it that it did not "
        "expect)",
    )
    traces = [r for r in caplog.records if r.name == "cairn.ingest"]
    assert len(traces) == 2
    assert "unexpected IndexError" in traces[0].getMessage()
    assert "email" in traces[0].getMessage()  # where: the standard library's mail package


def test_a_message_nested_deeper_than_the_parser_goes_says_how_deep() -> None:
    """3,000 multiparts inside each other, and 3,000 messages forwarded inside each other:
    the parser's recursion gives out; the failure is a sentence with the depth, read from
    the boundaries and headers, and in a mailbox it costs that message only."""
    multiparts = hostile.nested_multipart_mail(3000)
    with pytest.raises(ExtractionError) as failed:
        mail.extract_message(multiparts, "deep.eml")
    assert str(failed.value).startswith(
        "deep.eml is nested 3,001 levels deep (parts inside parts), more than Cairn reads"
    )
    assert "Save the message again from your mail program" in str(failed.value)
    with pytest.raises(ExtractionError, match=r"^fwd\.eml is nested 3,001 levels deep"):
        mail.extract_message(hostile.nested_forwards_mail(3000), "fwd.eml")
    good = kept.email_message("Kept", "This one is fine.")
    box = mail.extract_mailbox(
        kept.mbox_bytes([good]) + b"From x Tue Mar  5 09:30:00 2024\n" + multiparts, "box.mbox"
    )
    assert [p.title for p in box.parts] == ["Kept"]
    assert box.warnings == (
        "message 2 is nested 3,001 levels deep (parts inside parts), more than Cairn reads, "
        "and was left out",
    )
    # A message nested as mail is (an attachment in a mixed part beside its alternatives) is
    # measured as it nests, and read.
    ordinary = kept.email_message(
        "Plans",
        "See the list.",
        html="<p>See the list.</p>",
        attachments=[("a.txt", b"x", "text/plain")],
    )
    assert mail.part_depth(bytes(ordinary)) == 3
    assert mail.extract_message(bytes(ordinary), "plans.eml").title == "Plans"


def test_headers_beyond_repair_do_not_fail_the_message() -> None:
    raw = (
        b"From: =?utf-8?q?broken\r\nTo: <<<>>>\r\nDate: not a date\r\nSubject: =?x-unknown?q?"
        b"Hi?=\r\nContent-Type: text/plain; charset=x-no-such-charset\r\n\r\nBody text\xff.\r\n"
    )
    doc = mail.extract_message(raw, "odd.eml")
    assert "created" not in doc.metadata
    assert doc.segments[-1].text.startswith("Body text")


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        (b"", "empty.eml", "empty"),
        (b"\x00\x01\x02binary\xff" * 20, "blob.eml", "not an e-mail message"),
        (b"Just a note, not mail.\n", "note.eml", "not an e-mail message"),
        (b"From: a@b\nContent-Type: =b;b*\n\nbody\n", "odd.eml", "malformed e-mail message"),
        (b"Subject: hi\n\nbody", "box.mbox", "not an mbox mailbox"),
        (b"  \n", "blank.mbox", "empty"),
    ],
)
def test_what_is_not_mail_fails_with_a_message(data: bytes, name: str, message: str) -> None:
    extract = mail.extract_mailbox if name.endswith(".mbox") else mail.extract_message
    with pytest.raises(ExtractionError, match=message):
        extract(data, name)


def test_a_message_s_warnings_are_the_mailbox_s(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mail, "MAX_ATTACHMENT_BYTES", 1024)
    big = kept.email_message(
        "Big", "See the log.", attachments=[("log.txt", b"line\n" * 1000, "text/plain")]
    )
    anonymous = kept.email_message("", "Who wrote this?", sender="")
    box = mail.extract_mailbox(kept.mbox_bytes([big, anonymous]), "box.mbox", read_text_only)
    assert box.warnings == (
        "message 1: its attachment log.txt is larger than 0 MB and was not read; save it and "
        "add it on its own",
    )
    assert box.parts[1].title == "Message 2"


def test_an_oversized_attachment_is_skipped_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mail, "MAX_ATTACHMENT_BYTES", 1024)
    message = kept.email_message(
        "Big", "See the log.", attachments=[("log.txt", b"line\n" * 1000, "text/plain")]
    )
    doc = mail.extract_message(bytes(message), "big.eml", read_text_only)
    assert [s.text for s in doc.segments][1:] == ["See the log."]
    assert "log.txt is larger than" in doc.warnings[0]


def test_a_mailbox_is_read_from_a_stream_with_each_message_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A message past the size limit (here one long line without a break) is skipped unread,
    and the messages after it are kept."""
    monkeypatch.setattr(mail, "MAX_MESSAGE_BYTES", 1 << 20)
    small = kept.mbox_bytes([kept.email_message("Small", "Kept.")])
    huge = b"From x Tue Mar  5 09:30:00 2024\nSubject: Huge\n\n" + b"a" * (3 << 20) + b"\n"
    box = mail.extract_mailbox(io.BytesIO(small + huge + small), "box.mbox")
    assert [p.title for p in box.parts] == ["Small", "Small"]
    assert [s.locator.message for p in box.parts for s in p.segments][-1] == 3
    assert box.warnings == (
        "message 2 is larger than 1 MB and was left out; save it from your mail program and "
        "add it on its own",
    )


def test_a_mailbox_with_more_text_than_a_file_keeps_says_to_split_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mail, "MAX_TEXT_CHARS", 1000)
    messages = [kept.email_message(f"Day {n}", "word " * 100) for n in range(10)]
    box = mail.extract_mailbox(kept.mbox_bytes(messages), "diary.mbox")
    assert 1 < len(box.parts) < 10
    assert box.warnings[-1].startswith(f"only its first {len(box.parts)} messages were read")
