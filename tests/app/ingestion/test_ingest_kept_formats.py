"""EPUB, OpenDocument, e-mail and chat exports through the real ingest (real vault, embedder and
worker): a mailbox is one source with a Document per message; chat speakers become Person
entities the conversation mentions; re-reading an unchanged archive does nothing, a changed one
replaces all its messages; a damaged file of each kind fails alone with its reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.ingestion.report import CancelToken, IngestProgress, IngestReport
from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.app import ingest_files as files
from tests.conftest import create_service
from tests.ingest import kept_files as kept

ALL = ["personal"]
CHAPTERS = [
    ("Arrival", "<h1>Arrival</h1><p>The keeper rowed out to the lighthouse rock at dawn.</p>"),
    ("The Storm", "<p>Waves broke over the lamp room while the keeper trimmed the wick.</p>"),
]
ODT = (
    '<text:h text:outline-level="1">Allotment</text:h>'
    "<text:p>Sow the broad beans along the north fence in late autumn.</text:p>"
)
MESSAGES = [
    kept.email_message(
        "Boiler service",
        "The plumber comes on Tuesday to service the boiler.\n",
        attachments=[("quote.txt", b"Annual boiler service: ninety pounds.", "text/plain")],
    ),
    kept.email_message(
        "Choir rehearsal",
        "Rehearsal of the Brahms requiem moves to the church hall.\n",
        sender="Mary Somerville <mary@example.org>",
    ),
]
CHAT = [
    ("2023-12-31T21:41", "Ada Lovelace", "Shall we take the ferry to the island on Sunday?"),
    ("2023-12-31T21:43", "Benjamin Franklin", "Yes, the early ferry, and bring the kite."),
]
TELEGRAM = kept.telegram_chat(
    "Rowing club",
    "private_group",
    [("2024-01-03T18:00:00", "Grace Hopper", "Training on the river moves to Friday evening.")],
)


def folder_files() -> dict[str, str | bytes]:
    return {
        "book.epub": kept.epub_bytes("The Lighthouse", CHAPTERS),
        "allotment.odt": kept.odt_bytes(ODT, title="Allotment plans"),
        "lease.eml": bytes(
            kept.email_message("The lease", "The lease of the flat on Mill Lane ends in May.\n")
        ),
        "Mail/Archive.mbox": kept.mbox_bytes(MESSAGES),
        "WhatsApp Chat with Ben.txt": kept.whatsapp_android(CHAT),
        "telegram/result.json": kept.telegram_bytes(TELEGRAM),
        "todo.txt": "Ring the dentist.\n\nBuy stamps.\n",
        # Dated lines with "Word:" in them, but not WhatsApp's line shapes: text, not chats.
        "journal.txt": "2024-03-01 09:15 Todo: buy milk\n"
        "2024-03-01 18:30 Meeting with Ann: the lease ends in May\n",
        "server.txt": "2023-01-02 10:11:12 INFO server: started\n"
        "2023-01-02 10:11:13 WARN cache: 3 entries dropped\n",
    }


@pytest.fixture(scope="module")
def ingested(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder
) -> Iterator[tuple[MemoryService, Path, IngestReport, str, Vault]]:
    root = tmp_path_factory.mktemp("kept")
    folder = files.write(root / "folder", folder_files())
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CAIRN_DATA_DIR", str(root / "data"))
        service, vault = create_service(root / "vault.cairn", embedder)
    # Someone the vault knows already: the chat's speaker of that name is this entity.
    ada = service.write("Person", "Ada Lovelace").node
    assert ada is not None
    report = service.ingest(IngestRequest.of([folder]))
    yield service, folder.resolve(), report, ada.id, vault
    service.close()


def _outcome(report: IngestReport, folder: Path, name: str) -> Any:
    return next(o for o in report.files if o.path == str(folder / name))


def _node(service: MemoryService, node_id: str) -> Any:
    return service.get([node_id], scopes=ALL).nodes[0].node


def _rows(vault: Vault, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with vault.read() as conn:
        return [tuple(row) for row in conn.execute(sql, args).fetchall()]


def _parts(service: MemoryService, vault: Vault, document_id: str, node_type: str) -> list[Any]:
    rows = _rows(
        vault,
        "SELECT n.id FROM edges AS e JOIN nodes AS n ON n.id = e.src "
        "WHERE e.dst = ? AND e.type = 'part_of' AND n.type = ? ORDER BY n.seq",
        document_id,
        node_type,
    )
    return [_node(service, node_id) for (node_id,) in rows]


def test_every_kind_is_read(ingested) -> None:
    service, folder, report, _, vault = ingested
    assert report.counts() == {"ingested": 9}, [(o.path, o.error) for o in report.files]
    media = {
        "book.epub": "application/epub+zip",
        "allotment.odt": "application/vnd.oasis.opendocument.text",
        "lease.eml": "message/rfc822",
        "Mail/Archive.mbox": "application/mbox",
        "WhatsApp Chat with Ben.txt": "text/x-whatsapp-chat",
        "telegram/result.json": "application/x-telegram-chat",
        "todo.txt": "text/plain",  # a text file that is no chat stays text
        "journal.txt": "text/plain",
        "server.txt": "text/plain",
    }
    for name, media_type in media.items():
        outcome = _outcome(report, folder, name)
        assert _node(service, outcome.document_id).attrs["media_type"] == media_type, name
    people = {title for (title,) in _rows(vault, "SELECT title FROM nodes WHERE type = 'Person'")}
    assert not people & {"Todo", "Meeting with Ann", "INFO server", "WARN cache"}, people
    book = _node(service, _outcome(report, folder, "book.epub").document_id)
    assert book.title == "The Lighthouse" and book.attrs["author"] == "Ann Author"
    passages = _parts(service, vault, book.id, "Passage")
    assert [p.locator["heading"] for p in passages] == [["Arrival"], ["The Storm"]]
    odt = _node(service, _outcome(report, folder, "allotment.odt").document_id)
    assert odt.title == "Allotment plans"
    assert "broad beans" in _parts(service, vault, odt.id, "Passage")[0].body


def test_a_message_is_a_document_with_its_headers(ingested) -> None:
    service, folder, report, _, _ = ingested
    lease = _node(service, _outcome(report, folder, "lease.eml").document_id)
    assert lease.title == "The lease"
    assert lease.attrs["sender"] == "Ada Lovelace <ada@example.org>"
    assert lease.attrs["recipients"] == ["Charles Babbage <charles@example.org>"]
    assert lease.attrs["subject"] == "The lease"
    assert lease.attrs["created"] == "2024-03-05T09:30:00+00:00"


def test_a_mailbox_is_one_source_and_a_document_per_message(ingested) -> None:
    service, folder, report, _, vault = ingested
    outcome = _outcome(report, folder, "Mail/Archive.mbox")
    box = _node(service, outcome.document_id)
    assert box.title == "Archive" and box.source == str(folder / "Mail/Archive.mbox")
    messages = _parts(service, vault, box.id, "Document")
    assert [m.title for m in messages] == ["Boiler service", "Choir rehearsal"]
    assert messages[1].attrs["sender"] == "Mary Somerville <mary@example.org>"
    assert all(m.source == box.source and "sha256" not in m.attrs for m in messages)
    first = _parts(service, vault, messages[0].id, "Passage")
    assert first and all(p.locator["message"] == 1 for p in first)
    assert any("ninety pounds" in p.body for p in first)  # the attachment, under its name
    assert first[0].title.startswith("Boiler service — ")
    assert outcome.passages == sum(len(_parts(service, vault, m.id, "Passage")) for m in messages)
    rows = {row.path: row for row in service.sources()}
    assert rows[box.source].document_id == box.id and rows[box.source].state == "ingested"
    hits = service.search("Brahms requiem church hall", scopes=ALL).results
    passage = _parts(service, vault, messages[1].id, "Passage")[0]
    assert passage.id in [hit.id for hit in hits[:3]]


def test_chat_speakers_are_people_the_conversation_mentions(ingested) -> None:
    service, folder, report, ada_id, vault = ingested
    chat = _node(service, _outcome(report, folder, "WhatsApp Chat with Ben.txt").document_id)
    people = _rows(
        vault,
        "SELECT n.id, n.title FROM edges AS e JOIN nodes AS n ON n.id = e.dst "
        "WHERE e.src = ? AND e.type = 'mentions' AND n.type = 'Person' ORDER BY n.title",
        chat.id,
    )
    assert [title for _, title in people] == ["Ada Lovelace", "Benjamin Franklin"]
    assert dict((t, i) for i, t in people)["Ada Lovelace"] == ada_id  # known: not made twice
    assert _rows(vault, "SELECT count(*) FROM nodes WHERE title = 'Ada Lovelace'") == [(1,)]
    passage = _parts(service, vault, chat.id, "Passage")[0]
    assert passage.locator == {"heading": ["2023-12-31"], "line_start": 1, "line_end": 2,
                               "message": 1}  # fmt: skip
    assert "21:41 Ada Lovelace: Shall we take the ferry" in passage.body
    assert passage.title == "WhatsApp Chat with Ben — 2023-12-31"
    mentioned = _rows(
        vault, "SELECT dst FROM edges WHERE src = ? AND type = 'mentions'", passage.id
    )
    assert (ada_id,) in mentioned
    group = _node(service, _outcome(report, folder, "telegram/result.json").document_id)
    assert group.title == "Rowing club"
    assert [t for _, t in _rows(
        vault,
        "SELECT n.id, n.title FROM edges AS e JOIN nodes AS n ON n.id = e.dst "
        "WHERE e.src = ? AND e.type = 'mentions'",
        group.id,
    )] == ["Grace Hopper"]  # fmt: skip


def test_an_unchanged_archive_is_not_read_again_and_a_changed_one_replaces_its_messages(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    service, vault = create_service(tmp_path / "vault.cairn", embedder)
    try:
        box = tmp_path / "in" / "Archive.mbox"
        files.write(tmp_path / "in", {"Archive.mbox": kept.mbox_bytes(MESSAGES)})
        first = service.ingest(IngestRequest.of([box.parent]))
        before = files.node_count(vault)
        again = service.ingest(IngestRequest.of([box.parent]))
        assert again.counts() == {"unchanged": 1}
        assert files.node_count(vault) == before
        more = [*MESSAGES, kept.email_message("Bin day", "The bins go out on Thursday night.\n")]
        box.write_bytes(kept.mbox_bytes(more))
        changed = service.ingest(IngestRequest.of([box.parent]))
        assert changed.counts() == {"replaced": 1}
        old_id, new_id = first.files[0].document_id, changed.files[0].document_id
        old_parts = [_node(service, n) for (n,) in _rows(
            vault, "SELECT src FROM edges WHERE dst = ? AND type = 'part_of'", old_id
        )]  # fmt: skip
        assert old_parts and {n.status for n in old_parts} == {"superseded"}
        old_passages = _rows(
            vault,
            "SELECT p.status FROM edges AS e JOIN nodes AS p ON p.id = e.src "
            "WHERE e.type = 'part_of' AND p.type = 'Passage' AND e.dst IN "
            "(SELECT src FROM edges WHERE dst = ? AND type = 'part_of')",
            old_id,
        )
        assert old_passages and {s for (s,) in old_passages} == {"superseded"}
        assert [m.title for m in _parts(service, vault, new_id, "Document")] == [
            "Boiler service", "Choir rehearsal", "Bin day"
        ]  # fmt: skip
        active = _rows(
            vault,
            "SELECT count(*) FROM nodes WHERE type = 'Document' AND status = 'active' "
            "AND source = ?",
            str(box),
        )
        assert active == [(4,)]  # the mailbox and its three messages
        assert not service.pending(scopes=ALL)  # its own old version is history, not a copy
    finally:
        service.close()


def test_damaged_files_of_each_kind_fail_alone(tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    service, vault = create_service(tmp_path / "vault.cairn", embedder)
    try:
        book = kept.epub_bytes("Cut", CHAPTERS)
        damaged_book = kept.with_damaged_part(book, "OEBPS/content.opf")
        folder = files.write(
            tmp_path / "in",
            {
                "cut.epub": book[: len(book) // 2],
                "drm.epub": kept.epub_bytes("Locked", CHAPTERS, encrypted=True),
                "bomb.odt": files.docx_zip_bomb(),
                "random.odt": files.binary_bytes(),
                "binary.eml": files.binary_bytes(seed=3),
                "notes.mbox": b"Dear diary, no mail here.\n",
                "fine.eml": bytes(kept.email_message("Still here", "This one is kept.\n")),
                # One damaged part costs only itself: a chapter, an attachment.
                "torn.epub": kept.with_damaged_part(book, "OEBPS/text/chapter1.xhtml"),
                "attached.eml": bytes(
                    kept.email_message(
                        "Two files",
                        "The notes and a damaged book are attached.\n",
                        attachments=[
                            ("book.epub", damaged_book, "application/epub+zip"),
                            ("notes.txt", b"Feed the hens at seven.", "text/plain"),
                        ],
                    )
                ),
            },
        )
        report = service.ingest(IngestRequest.of([folder]))
        outcomes = {Path(o.path).name: o for o in report.files}
        assert outcomes["fine.eml"].state == "ingested"
        torn, attached = outcomes["torn.epub"], outcomes["attached.eml"]
        assert torn.state == "ingested" and torn.passages == 1
        assert [w[:30] for w in torn.warnings] == ["chapter 1 (OEBPS/text/chapter1"]
        assert attached.state == "ingested"
        assert [w[:39] for w in attached.warnings] == ["its attachment book.epub could not be r"]
        hens = _parts(service, vault, attached.document_id, "Passage")
        assert any("Feed the hens at seven." in p.body for p in hens)
        expected = {
            "cut.epub": "not a readable EPUB book",
            "drm.epub": "DRM",
            "bomb.odt": "would unpack to",
            "random.odt": "not a readable OpenDocument text",
            "binary.eml": "not an e-mail message",
            "notes.mbox": "not an mbox mailbox",
        }
        for name, words in expected.items():
            assert outcomes[name].state == "failed", name
            assert words in (outcomes[name].error or ""), (name, outcomes[name].error)
            assert name in (outcomes[name].error or "")
    finally:
        service.close()


def test_a_long_mailbox_stopped_between_parts_is_finished_by_a_rerun(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """More passages than one write holds: the mailbox is written part by part; a Stop after
    the first part leaves it unfinished, and a rerun goes on with the same message Documents,
    writing each missing passage once."""
    messages = [
        kept.email_message(f"Note {n}", files.prose(n, sentences=2) + "\n") for n in range(300)
    ]
    box = files.write(tmp_path / "in", {"Long.mbox": kept.mbox_bytes(messages)}) / "Long.mbox"
    service, vault = create_service(tmp_path / "vault.cairn", embedder)
    try:
        cancel = CancelToken()

        def progress(event: IngestProgress) -> None:
            if event.stage == "writing" and event.current == str(box):
                cancel.cancel()  # the first part is written; the run stops before the next

        stopped = service.ingest(IngestRequest.of([box.parent]), progress=progress, cancel=cancel)
        assert stopped.cancelled and stopped.counts() == {"cancelled": 1}
        row = next(r for r in service.sources() if r.path == str(box))
        assert row.state == "failed" and row.document_id
        begun = _rows(vault, "SELECT count(*) FROM nodes WHERE type = 'Passage'")[0][0]
        assert 0 < begun < 300
        rerun = service.ingest(IngestRequest.of([box.parent]))
        assert rerun.counts() == {"ingested": 1}
        assert rerun.files[0].document_id == row.document_id  # the same mailbox, finished
        parts = _parts(service, vault, row.document_id, "Document")
        assert [p.title for p in parts] == [f"Note {n}" for n in range(300)]
        ordinals = sorted(
            p.attrs["ordinal"] for part in parts for p in _parts(service, vault, part.id, "Passage")
        )
        assert ordinals == list(range(rerun.files[0].passages)) and len(ordinals) >= 300
        assert _rows(vault, "SELECT count(*) FROM nodes WHERE type = 'Document'") == [(301,)]
    finally:
        service.close()


def test_forgetting_a_mailbox_takes_its_messages_and_their_passages(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    service, vault = create_service(tmp_path / "vault.cairn", embedder)
    try:
        folder = files.write(tmp_path / "in", {"Archive.mbox": kept.mbox_bytes(MESSAGES)})
        box = service.ingest(IngestRequest.of([folder])).files[0].document_id
        passages = _rows(vault, "SELECT count(*) FROM nodes WHERE type = 'Passage'")[0][0]
        assert passages > 0
        forgotten = service.forget(box, scopes=ALL)
        assert forgotten.forgotten == 1 + 2 + passages  # the mailbox, its messages, passages
        left = "SELECT count(*) FROM nodes WHERE type IN ('Document', 'Passage')"
        assert _rows(vault, left) == [(0,)]
        assert not service.search("Brahms requiem", scopes=ALL).results
    finally:
        service.close()


def test_past_the_passage_limit_the_messages_left_out_are_left_out_whole(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    service, vault = create_service(tmp_path / "vault.cairn", embedder)
    try:
        service.change_setting("ingest_max_passages", 3)
        messages = [kept.email_message(f"Day {n}", files.prose(n, 1) + "\n") for n in range(6)]
        folder = files.write(tmp_path / "in", {"Diary.mbox": kept.mbox_bytes(messages)})
        outcome = service.ingest(IngestRequest.of([folder])).files[0]
        assert outcome.passages == 3
        assert any("ingest_max_passages" in w for w in outcome.warnings)
        assert [m.title for m in _parts(service, vault, outcome.document_id, "Document")] == [
            "Day 0", "Day 1", "Day 2"
        ]  # fmt: skip
    finally:
        service.close()
