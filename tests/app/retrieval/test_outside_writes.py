"""What other programs wrote (``MemoryService.changed_elsewhere``), on the real vault and
embedder: another service opened on the same file stands for ``cairn add`` beside the window
(its own ``Vault``, so its own connections, as another process has)."""

from __future__ import annotations

import threading
from pathlib import Path

from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.retrieval.outside_writes import OutsideWrites
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.conftest import open_service


def _seq(vault: Vault, node_id: str) -> int:
    with vault.read() as conn:
        return int(conn.execute("SELECT seq FROM nodes WHERE id = ?", (node_id,)).fetchone()[0])


def test_another_programs_write_is_news_once(
    service: MemoryService, vault_path: Path, embedder: MiniLMEmbedder
) -> None:
    assert service.changed_elsewhere() is False
    with open_service(vault_path, embedder) as other:
        other.service.write("Note", "Seed order", "Tomatoes and basil for the balcony boxes.")
        assert service.changed_elsewhere() is True
        assert service.changed_elsewhere() is False  # told once
        other.service.inbox_capture("Ask about the allotment waiting list")
        assert service.changed_elsewhere() is True
    service.changed_elsewhere()  # the other's close folds its log into the file: news or not
    # Its own writes and reads are not news: the window refreshes after those by itself.
    service.write("Note", "Bike lock code", "The code of the blue lock is on the receipt.")
    service.inbox_capture("Return the library books")
    assert service.search("balcony", scopes=service.scopes()).results
    assert service.changed_elsewhere() is False


def test_the_vector_index_takes_in_what_another_program_stored(
    vault: Vault, vault_path: Path, embedder: MiniLMEmbedder
) -> None:
    space = EmbeddingSpace(vault, embedder)
    outside = OutsideWrites(vault, space)
    with open_service(vault_path, embedder) as other:
        written = other.service.write("Note", "Seed order", "Tomatoes and basil for the balcony.")
    assert written.node is not None
    seq = _seq(vault, written.node.id)
    index = space.index
    assert index is not None and not index.contains(seq)  # loaded before the other wrote
    assert outside.check() is True
    assert index.contains(seq)
    space.close()


def test_the_vault_in_use_by_its_own_writer_is_asked_again_later(
    vault: Vault, vault_path: Path, embedder: MiniLMEmbedder
) -> None:
    """A question while this program writes is no news yet; the next one tells it."""
    space = EmbeddingSpace(vault, embedder)
    outside = OutsideWrites(vault, space)
    with open_service(vault_path, embedder) as other:
        other.service.write("Note", "Window cleaner", "Comes on the first Monday of the month.")
    writing, release = threading.Event(), threading.Event()

    def write_slowly() -> None:
        with vault.write():
            writing.set()
            release.wait(10)

    writer = threading.Thread(target=write_slowly)
    writer.start()
    try:
        assert writing.wait(10)
        assert outside.check() is False  # the writer is busy: not asked, and not lost
    finally:
        release.set()
        writer.join()
    assert outside.check() is True
    space.close()
