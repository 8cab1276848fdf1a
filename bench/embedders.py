"""Embedders for the benchmark: a fast random one for the scale lines, and a timing wrapper."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from cairn.app.embedding_model import Embedder

RANDOM_IDENTITY = "bench/random-unit/384"
DIM = 384


class RandomEmbedder:
    """Deterministic pseudo-random unit vectors, seeded by a hash of each text.

    Implements the ``Embedder`` protocol (identity, dim, embed) at a fraction of the model's
    cost, so 100k memories are built in minutes; a query is mapped into the same space, so the
    vector leg does exactly the work it does with real vectors.
    """

    identity: str = RANDOM_IDENTITY
    dim: int = DIM

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single string")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
            rng = np.random.default_rng(int.from_bytes(digest, "little"))
            vector = rng.standard_normal(self.dim, dtype=np.float32)
            out[row] = vector / np.linalg.norm(vector)
        return out


class TimedEmbedder:
    """Wraps an embedder (same identity, so the vault's space is unchanged) and records how
    long each ``embed`` call took, to split a write's latency into embedding and storage."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.identity: str = inner.identity
        self.dim: int = inner.dim
        self.durations: list[float] = []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        start = time.perf_counter()
        try:
            return self._inner.embed(texts)
        finally:
            self.durations.append(time.perf_counter() - start)

    def last(self) -> float:
        """Seconds taken by the latest ``embed`` call (0 if none)."""
        return self.durations[-1] if self.durations else 0.0


class ModelCostEmbedder:
    """The random embedder's vectors at the real model's cost: each call also runs the bundled
    model on the same texts. A vault built with ``RandomEmbedder`` then answers searches whose
    query embedding takes as long as a person's would (the window's search latency line)."""

    identity: str = RANDOM_IDENTITY
    dim: int = DIM

    def __init__(self, model: Embedder) -> None:
        self._model = model
        self._vectors = RandomEmbedder()

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self._model.embed(texts)
        return self._vectors.embed(texts)
