"""Opening with the vector index loading in the background (the window's open): searches
answer from the words at once and say so, whatever needs the index waits for it, and closing
stops the load. The reading is held back by a gate on the vault's own scan connections, so
each state is seen for certain rather than raced."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.ingestion.extraction import ExtractionSettings
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.conftest import PASSPHRASE

SCOPES = ["personal"]


@pytest.fixture
def held(
    vault_path: Path, embedder: MiniLMEmbedder
) -> Iterator[tuple[MemoryService, threading.Event]]:
    """A vault with three notes, opened with its vectors loading behind a closed gate."""
    with compose.create_vault(vault_path, PASSPHRASE, embedder=embedder) as made:
        made.write("Note", "Sourdough", "Flour, water, salt and a starter fed the night before.")
        made.write("Note", "Boiler", "The boiler in the cellar needs a new valve next winter.")
        made.write("Note", "Rent", "The landlord raised the rent to 950 euros a month.")
    gate = threading.Event()
    vault = Vault.open(vault_path, PASSPHRASE)
    opens_reader = vault.new_read_only_connection

    def held_reader(**options: Any) -> Any:
        gate.wait(timeout=30)
        return opens_reader(**options)

    vault.new_read_only_connection = held_reader  # type: ignore[method-assign]
    service = compose.service_for(vault, embedder, ExtractionSettings(), vectors_in_background=True)
    try:
        yield service, gate
    finally:
        gate.set()
        service.close()


def test_search_answers_from_the_words_while_the_vectors_load(
    held: tuple[MemoryService, threading.Event],
) -> None:
    service, gate = held
    assert service.vectors_loading and service.vector_search_ready

    early = service.search("sourdough starter", scopes=SCOPES)
    assert [hit.title for hit in early.results][:1] == ["Sourdough"]
    assert not early.vector_search
    assert any("still loading" in note for note in early.notes)
    # A question only meaning answers finds nothing yet, and says why.
    assert not service.search("bread baking", scopes=SCOPES).results

    gate.set()
    service.wait_for_vectors()
    assert not service.vectors_loading
    later = service.search("bread baking", scopes=SCOPES)
    assert later.vector_search and not later.notes
    assert later.results[0].title == "Sourdough"


def test_a_write_waits_for_the_index_and_is_found_by_meaning(
    held: tuple[MemoryService, threading.Event],
) -> None:
    service, gate = held
    done = threading.Event()

    def write() -> None:
        service.write("Note", "Dentist", "The check-up moved to Thursday at half past three.")
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    # The gate compares the new memory with the vectors: it cannot run before they are in.
    assert not done.wait(timeout=0.5)
    gate.set()
    writer.join(timeout=30)
    assert done.is_set()
    found = service.search("teeth appointment", scopes=SCOPES)
    assert found.vector_search and found.results[0].title == "Dentist"


def test_closing_while_the_vectors_load_stops_the_load(
    held: tuple[MemoryService, threading.Event],
) -> None:
    service, gate = held
    threading.Timer(0.2, gate.set).start()
    service.close()  # returns once the loader has stopped: nothing reads the closed vault
    assert service._space._index is None


def test_a_load_that_fails_leaves_the_words_and_says_why(
    vault_path: Path, embedder: MiniLMEmbedder
) -> None:
    """The vault's scan connection fails while the window's open loads the vectors (a file
    gone unreadable): searches still answer from the words, the note names the failure, and
    a write, which needs the index, raises it rather than storing half a memory."""
    with compose.create_vault(vault_path, PASSPHRASE, embedder=embedder) as made:
        made.write("Note", "Sourdough", "Flour, water, salt and a starter fed the night before.")
    vault = Vault.open(vault_path, PASSPHRASE)

    def unreadable(**options: Any) -> Any:
        raise OSError("the disk holding the vault stopped answering")

    vault.new_read_only_connection = unreadable  # type: ignore[method-assign]
    service = compose.service_for(vault, embedder, ExtractionSettings(), vectors_in_background=True)
    try:
        service.wait_for_vectors()
        found = service.search("sourdough starter", scopes=SCOPES)
        assert [hit.title for hit in found.results] == ["Sourdough"]
        assert not found.vector_search
        assert any(
            "could not be read" in note and "stopped answering" in note for note in found.notes
        )
        with pytest.raises(OSError, match="stopped answering"):
            service.write("Note", "Boiler", "The boiler needs a new valve next winter.")
        assert [hit.title for hit in service.search("boiler", scopes=SCOPES).results] == []
    finally:
        service.close()
