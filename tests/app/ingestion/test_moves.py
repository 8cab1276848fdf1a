"""A moved file's memory follows it (``ingestion.moves``), with the real vault, embedder and
ingest: a renamed folder of notes is embedded outside the write lock and written a batch at a
time (another writer gets in, a Stop keeps what was written, a rerun moves the rest), and a
moved mailbox takes its messages and every one of their passages along."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from cairn.app.ingestion import pipeline
from cairn.app.ingestion.report import CancelToken, IngestProgress
from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService
from cairn.storage.errors import VaultBusy
from cairn.storage.vault import Vault
from tests.app import ingest_files as files
from tests.ingest import kept_files as kept

ALL = ["personal"]


def _rows(vault: Vault, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with vault.read() as conn:
        return [tuple(row) for row in conn.execute(sql, args).fetchall()]


def _another_writer_gets_in(vault: Vault) -> bool:
    """Whether a writer on another thread gets the vault at once (not kept waiting)."""
    got: list[bool] = []

    def write() -> None:
        try:
            with vault.write(patient=False):
                got.append(True)
        except VaultBusy:
            got.append(False)

    thread = threading.Thread(target=write)
    thread.start()
    thread.join(timeout=30)
    return got == [True]


def test_a_renamed_folder_moves_in_batches_outside_the_write_lock(
    service: MemoryService, vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline, "BATCH_FILES", 2)
    folder = tmp_path / "notes"
    names = [f"note {n}.txt" for n in range(5)]
    files.write(folder / "drafts", {name: files.prose(n, 1) + "\n" for n, name in enumerate(names)})
    service.ingest(IngestRequest.of([folder]))
    (folder / "drafts").rename(folder / "final")

    token = CancelToken()
    free_while_embedding: list[bool] = []

    def progress(event: IngestProgress) -> None:
        if event.stage == "embedding" and event.current:
            free_while_embedding.append(_another_writer_gets_in(vault))
        if event.stage == "writing":
            token.cancel()  # a Stop while the first batch is written: it is kept

    report = service.ingest(IngestRequest.of([folder]), progress=progress, cancel=token)
    assert free_while_embedding == [True]  # the first batch's embedding, lock free
    assert report.cancelled
    assert sorted(f.state for f in report.files) == ["cancelled"] * 3 + ["moved"] * 2
    moved = {f.path for f in report.files if f.state == "moved"}
    kept_at = {path for (path,) in _rows(vault, "SELECT path FROM sources")}
    assert moved <= kept_at and len(kept_at) == 5  # the others wait where they were

    rerun = service.ingest(IngestRequest.of([folder]))
    assert sorted(f.state for f in rerun.files) == ["moved"] * 3 + ["unchanged"] * 2
    paths = sorted(p for (p,) in _rows(vault, "SELECT path FROM sources"))
    assert paths == sorted(str(folder / "final" / name) for name in names)
    sources = {s for (s,) in _rows(vault, "SELECT source FROM nodes WHERE type = 'Document'")}
    assert sources == set(paths)


def test_a_moved_mailbox_takes_its_messages_and_their_passages(
    service: MemoryService, vault: Vault, tmp_path: Path
) -> None:
    messages = [
        kept.email_message("Boiler service", "The plumber services the boiler on Tuesday.\n"),
        kept.email_message("Choir rehearsal", "Rehearsal of the Brahms requiem moves hall.\n"),
    ]
    folder = files.write(tmp_path / "mail", {"Archive.mbox": kept.mbox_bytes(messages)})
    box = service.ingest(IngestRequest.of([folder])).files[0].document_id
    (folder / "Archive.mbox").rename(folder / "Old mail.mbox")
    report = service.ingest(IngestRequest.of([folder]))
    assert [(f.state, f.document_id) for f in report.files] == [("moved", box)]

    new = str(folder / "Old mail.mbox")
    nodes = _rows(
        vault, "SELECT type, source, attrs FROM nodes WHERE type IN ('Document', 'Passage')"
    )
    assert len([t for t, _, _ in nodes if t == "Document"]) == 3  # the mailbox, 2 messages
    assert {source for _, source, _ in nodes} == {new}  # every passage too: opened in place
    documents = [json.loads(attrs) for t, _, attrs in nodes if t == "Document"]
    assert {a["path"] for a in documents} == {new}
    hits = service.search("Brahms requiem rehearsal", scopes=ALL).results
    read = [h for h in hits if h.type in ("Document", "Passage")]  # not the stub "Brahms"
    assert read and {h.source for h in read} == {new}
