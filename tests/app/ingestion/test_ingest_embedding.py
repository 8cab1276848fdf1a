"""Ingest embeds each file in one call, before the write lock is taken: a long ingest never
holds other writers (the window, a quick capture) behind the model."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.ingestion.request import IngestRequest
from tests.conftest import create_service


class WatchedEmbedder:
    """The real model, noting each call's size and whether the vault's write lock was held."""

    def __init__(self, real: MiniLMEmbedder) -> None:
        self.real = real
        self.identity = real.identity
        self.dim = real.dim
        self.calls: list[tuple[int, bool]] = []
        self.lock: object | None = None

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        held = bool(self.lock is not None and self.lock._is_owned())  # type: ignore[attr-defined]
        self.calls.append((len(texts), held))
        return self.real.embed(texts)


def test_each_file_is_embedded_in_one_call_outside_the_write_lock(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.md").write_text(
        "# Visit\n\nDr. Grace Hopper came to the Harvard University library.\n", encoding="utf-8"
    )
    (folder / "b.txt").write_text("Notes on the garden and the pond.\n" * 40, encoding="utf-8")
    watched = WatchedEmbedder(embedder)
    service, vault = create_service(tmp_path / "v.cairn", watched)
    try:
        watched.lock = vault._write_lock  # the writer's own lock: held while a write runs
        watched.calls.clear()
        report = service.ingest(IngestRequest.of([folder]))
        assert report.counts() == {"ingested": 2}
        assert report.stubs == 2  # Grace Hopper, Harvard University: embedded with the file
        assert len(watched.calls) == 2
        assert not any(held for _, held in watched.calls)
        # The Document, its passages and the new names, all in the file's one call.
        passages = sum(f.passages for f in report.files)
        assert sum(size for size, _ in watched.calls) == 2 + passages + 2
        hits = service.search("Grace Hopper", scopes=["personal"]).results
        assert any(hit.title == "Grace Hopper" and hit.type == "Person" for hit in hits)
    finally:
        service.close()
