"""Vectors belong to the embedder that made them: another embedder turns vector search off
until a rebuild has embedded every memory into its space."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from tests.conftest import PASSPHRASE

ALL = ["personal"]


class OtherModel:
    """A second, different embedding model: deterministic vectors from a hash of the text.
    It stands in for "some other embedder", not for the real one (which the tests also use)."""

    identity = "test/hash-embedder/1"
    dim = 384

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            rows.append(vector / np.linalg.norm(vector))
        return np.array(rows, dtype=np.float32).reshape(len(texts), self.dim)


def test_another_embedder_turns_vector_search_off_until_rebuilt(
    vault_path: Path, embedder: MiniLMEmbedder
) -> None:
    with compose.create_vault(vault_path, PASSPHRASE, embedder=embedder) as svc:
        for title in ("Boiler service", "Chimney sweep", "Gutter cleaning"):
            svc.write("Note", title, f"{title} is due in autumn.")
    with compose.open_vault(vault_path, PASSPHRASE, embedder=OtherModel()) as svc:
        assert svc.vector_search_ready is False
        response = svc.search("boiler", scopes=ALL)
        assert response.vector_search is False
        assert "rebuilt" in response.notes[0]
        assert [h.title for h in response.results] == ["Boiler service"]  # words still work
        new = svc.write("Note", "Window putty", "Replace the putty.")
        assert new.embedded is True
        progress: list[tuple[int, int]] = []
        assert svc.rebuild_vectors(lambda done, total: progress.append((done, total))) == 3
        assert progress[0] == (0, 3) and progress[-1] == (3, 3)
        assert svc.vector_search_ready is True
        assert svc.search("boiler", scopes=ALL).vector_search is True
        spaces = svc.stats(scopes=ALL).embedding_spaces
        assert [(s.name, s.vectors) for s in spaces] == [(OtherModel.identity, 4)]
    # Back to the real model: its space was dropped with the rebuild, so it is rebuilt too.
    with compose.open_vault(vault_path, PASSPHRASE, embedder=embedder) as svc:
        assert svc.vector_search_ready is False
        svc.rebuild_vectors()
        hits = svc.search("heating maintenance", scopes=ALL).results
        assert hits[0].title == "Boiler service"
        assert hits[0].ranks["vector"] == 1


def test_a_write_without_embedder_says_so_and_marks_the_space_incomplete(
    vault_path: Path, embedder: MiniLMEmbedder
) -> None:
    with compose.create_vault(vault_path, PASSPHRASE, embedder=embedder) as svc:
        svc.write("Note", "First", "embedded")
    with compose.open_vault(vault_path, PASSPHRASE, with_embedder=False) as svc:
        result = svc.write("Note", "Second", "not embedded")
        assert result.embedded is False
    with compose.open_vault(vault_path, PASSPHRASE, embedder=embedder) as svc:
        assert svc.vector_search_ready is False
        assert svc.rebuild_vectors() == 1
        assert svc.vector_search_ready is True


def test_a_vault_of_the_previous_model_is_rebuilt_into_the_int8_space(
    vault_path: Path, embedder: MiniLMEmbedder
) -> None:
    # The file Cairn shipped before the int8 build (bench's "before"; requirements-dev.lock).
    from bench.embedders import PreviousEmbedder

    previous = PreviousEmbedder()
    assert previous.identity != embedder.identity
    with compose.create_vault(vault_path, PASSPHRASE, embedder=previous) as svc:
        for title in ("Boiler service", "Chimney sweep", "Gutter cleaning"):
            svc.write("Note", title, f"{title} is due in autumn.")
    with compose.open_vault(vault_path, PASSPHRASE, embedder=embedder) as svc:
        response = svc.search("heating maintenance", scopes=ALL)
        assert response.vector_search is False  # never compared with the old model's vectors
        assert "Rebuild vectors" in response.notes[0] and "cairn reindex" in response.notes[0]
        progress: list[tuple[int, int]] = []
        assert svc.rebuild_vectors(lambda done, total: progress.append((done, total))) == 3
        assert progress[-1] == (3, 3)
        hits = svc.search("heating maintenance", scopes=ALL).results
        assert hits[0].title == "Boiler service" and hits[0].ranks["vector"] == 1
        spaces = svc.stats(scopes=ALL).embedding_spaces
        assert [(s.name, s.vectors) for s in spaces] == [(embedder.identity, 3)]
