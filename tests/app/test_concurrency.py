"""Several readers, a passphrase change, and another program writing the same vault."""

from __future__ import annotations

import threading
from pathlib import Path

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.service import MemoryService
from tests.app.embedding.test_embedding_space import OtherModel
from tests.conftest import PASSPHRASE

ALL = ["personal"]


def test_reads_go_on_while_the_passphrase_changes(service: MemoryService) -> None:
    service.write("Note", "Spare key", "Under the blue flowerpot.")
    errors: list[BaseException] = []
    found: list[int] = []
    stop = threading.Event()

    def keep_reading() -> None:
        while not stop.is_set():
            try:
                found.append(len(service.search("flowerpot", scopes=ALL).results))
            except BaseException as exc:  # any failure is the finding
                errors.append(exc)
                return

    readers = [threading.Thread(target=keep_reading) for _ in range(3)]
    for reader in readers:
        reader.start()
    for i in range(3):
        service.change_passphrase(f"phrase number {i}")
    stop.set()
    for reader in readers:
        reader.join(timeout=60)
    assert errors == []
    assert found and set(found) == {1}


def test_memories_written_by_another_program_reach_the_vector_leg(
    service: MemoryService, vault_path: Path, embedder: MiniLMEmbedder
) -> None:
    service.search("warm up", scopes=ALL)  # the index is loaded and in use
    with compose.open_vault(vault_path, PASSPHRASE, embedder=embedder) as other:
        written = other.write("Note", "Greenhouse", "Tomatoes ripen under glass.").node
    hits = service.search("vegetables growing indoors", scopes=ALL).results
    assert hits[0].id == written.id
    assert hits[0].ranks["vector"] == 1


def test_a_space_missing_what_another_embedder_stored_is_not_ready(
    vault_path: Path, embedder: MiniLMEmbedder
) -> None:
    with compose.create_vault(vault_path, PASSPHRASE, embedder=embedder) as svc:
        svc.write("Note", "First", "written with the bundled model")
    with compose.open_vault(vault_path, PASSPHRASE, embedder=OtherModel()) as svc:
        svc.rebuild_vectors()
        svc.write("Note", "Second", "written with another model")
    with compose.open_vault(vault_path, PASSPHRASE, embedder=embedder) as svc:
        assert svc.vector_search_ready is False
        assert svc.rebuild_vectors() == 2  # its space was dropped by the other rebuild
        assert svc.vector_search_ready is True
