"""The vault's embedding space for the active embedder: its state, its index, its rebuild.

A vault's vectors belong to the embedder that made them (its identity names the space). When the
vault is opened with another embedder, or some memories were stored without a vector, vector
search stays off until ``rebuild`` has embedded every memory into the active space: a search
that compares vectors from two models, or silently skips memories, would be wrong without
saying so.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from cairn.app.clock import now_iso
from cairn.app.embedding.model import Embedder, usable_cores
from cairn.app.process import diagnostic_log
from cairn.app.text.surface import searchable_text
from cairn.storage import vector_codes, vectors
from cairn.storage.connection import Connection
from cairn.storage.vault import Vault
from cairn.storage.vector_codes import FloatMatrix
from cairn.storage.vector_index import LoadStopped, VectorIndex

FloatArray = FloatMatrix
Progress = Callable[[int, int], None]
REBUILD_BATCH = 64
# Threads that embed queries and search the index, one per core: searches that arrive together
# (the graph server's clients) run side by side instead of queueing behind one thread. The
# window searches one query at a time, and the pool starts a thread only when one is needed.
QUERY_WORKERS = usable_cores()


@dataclass(frozen=True)
class Nearest:
    """A query's nearest memories, best first with their cosines, and the query's vector (to
    score other memories the same way: ``EmbeddingSpace.cosines``)."""

    hits: list[tuple[int, float]]
    vector: FloatMatrix


class EmbeddingSpace:
    """``load_in_background``: the index loads on a thread while the vault is already in use
    (the window's open). Until it is loaded, searches answer from the words alone and say so;
    whatever needs the index (a write, the gate, a rebuild) waits for it."""

    def __init__(
        self, vault: Vault, embedder: Embedder | None, *, load_in_background: bool = False
    ) -> None:
        self._vault = vault
        self.embedder = embedder
        self.ready = False
        self._index: VectorIndex | None = None
        self._loaded = threading.Event()
        self._stop_loading = threading.Event()
        self._load_error: Exception | None = None
        self._loader: threading.Thread | None = None
        self._answers_while_loading = load_in_background
        self._worker: ThreadPoolExecutor | None = None
        self._worker_lock = threading.Lock()
        if embedder is None:
            self._loaded.set()
            return
        space = embedder.identity
        with vault.read() as conn:
            state = vectors.space_state(conn, space)
        if state != "ready":
            with vault.write() as conn:
                # Checking for memories without a vector scans the vault: only when in doubt.
                if not vectors.seqs_without_vector(conn, space, limit=1):
                    state = "ready"
                state = state or "building"
                vectors.ensure_space(conn, space, embedder.dim, state, now_iso())
                vectors.set_space_state(conn, space, state)
        _compact(vault, space, embedder.dim)
        self.ready = state == "ready"
        if load_in_background:
            self._loader = threading.Thread(
                target=self._load, name="cairn-vector-load", daemon=True
            )
            self._loader.start()
        else:
            self._load()
            if self._load_error is not None:
                raise self._load_error

    def _load(self) -> None:
        assert self.embedder is not None
        try:
            with diagnostic_log.timed("vector load") as counts:  # the rest of open-to-ready
                self._index = VectorIndex.load(
                    lambda: self._vault.new_read_only_connection(for_scan=True),
                    self.embedder.identity,
                    self.embedder.dim,
                    stop=self._stop_loading,
                )
                counts["vectors"] = len(self._index)
        except LoadStopped:
            pass  # the vault is closing
        except Exception as error:  # kept, and raised to whatever needs the index
            self._load_error = error
        finally:
            self._loaded.set()

    @property
    def index(self) -> VectorIndex | None:
        """The loaded index, waiting for it if it is still loading; None without an embedder
        or once the vault closed."""
        self._loaded.wait()
        if self._load_error is not None:
            raise self._load_error
        return self._index

    @property
    def loading(self) -> bool:
        return not self._loaded.is_set()

    def answers_without_vectors(self) -> bool:
        """A search now answers from the words alone: the index is loading in the background,
        or that load failed (the note says why; what needs the index raises the error)."""
        return self._answers_while_loading and (self.loading or self._load_error is not None)

    def wait_until_loaded(self) -> None:
        self._loaded.wait()

    @property
    def identity(self) -> str | None:
        return None if self.embedder is None else self.embedder.identity

    def status_note(self, still_loading: bool = False) -> str | None:
        """What a search says about its vector leg; ``still_loading`` when it answered
        without it because the index is loading (``answers_without_vectors``)."""
        if self.embedder is None:
            return "vector search is off: no embedder is loaded"
        if self._loaded.is_set() and self._load_error is not None:
            return (
                f"vector search is off: the vectors could not be read ({self._load_error}); "
                "`cairn doctor` checks the vault"
            )
        if still_loading:
            return (
                "vector search is still loading: these results match your words only, "
                "and results by meaning join them in a moment"
            )
        if not self.ready:
            # After a change of model too: the old vectors are of another space, never mixed in.
            return (
                "vector search is off until the vectors are rebuilt for this model (Settings › "
                "Search › Rebuild vectors, or `cairn reindex`)"
            )
        return None

    # -- write path ---------------------------------------------------------------------------

    def embed(self, text: str) -> FloatArray | None:
        """The vector for one memory's searchable text, or None without an embedder."""
        if self.embedder is None:
            return None
        vector: FloatArray = self.embedder.embed([text])[0]
        return vector

    def store(
        self, conn: Connection, seq: int, vector: FloatArray | None, scope: str, status: str
    ) -> None:
        """Inside the caller's transaction: persist the vector, and mirror it once committed."""
        if vector is None:
            # A memory without a vector makes every space incomplete until a rebuild.
            vectors.mark_all_spaces_incomplete(conn)
            self.ready = False
            return
        index = self.index
        assert self.embedder is not None and index is not None
        coded = vector_codes.quantize(vector)  # once: for the row and for the index
        rowid = vectors.store(conn, self.embedder.identity, seq, coded)
        # The other embedders' spaces now lack this memory: each needs a rebuild before use.
        vectors.mark_other_spaces_incomplete(conn, self.embedder.identity)
        self._vault.after_commit(lambda: index.add_coded(seq, coded, scope, status, rowid))

    def status_changed(self, seq: int, status: str) -> None:
        if self.index is not None:
            index = self.index
            self._vault.after_commit(lambda: index.set_status(seq, status))

    def removed(self, seq: int) -> None:
        """A node was deleted in the open transaction: drop its vector once committed."""
        if self.index is not None:
            index = self.index
            self._vault.after_commit(lambda: index.remove(seq))

    # -- read path ----------------------------------------------------------------------------

    def known_word_share(self, query: str) -> float | None:
        """How much of ``query`` the model knows as words (``MiniLMEmbedder.known_word_share``);
        None when it cannot tell (no words, or an embedder that does not say)."""
        share = getattr(self.embedder, "known_word_share", None)
        return share(query) if callable(share) else None

    def query_vector(self, query: str) -> FloatArray | None:
        if self.embedder is None or not self.ready:
            return None
        vector: FloatArray = self.embedder.embed([query])[0]
        return vector

    def nearest_soon(
        self, query: str, scopes: list[str], statuses: Sequence[str], k: int
    ) -> Future[Nearest | None]:
        """Embed ``query`` and find its k nearest memories on a worker thread.

        Search runs this beside the full-text leg: the embedding and the matrix product release
        the GIL, so on two cores the legs overlap instead of adding up. The result is None when
        vector search is off. The worker never touches the vault (call ``catch_up`` first).
        """
        with self._worker_lock:
            if self._worker is None:
                self._worker = ThreadPoolExecutor(QUERY_WORKERS, thread_name_prefix="cairn-vectors")
            return self._worker.submit(self._nearest, query, scopes, statuses, k)

    def _nearest(
        self, query: str, scopes: list[str], statuses: Sequence[str], k: int
    ) -> Nearest | None:
        vector = self.query_vector(query) if query.strip() else None
        if vector is None or self.index is None:
            return None
        return Nearest(self.index.search(vector, scopes, statuses, k), vector)

    def cosines(self, vector: FloatMatrix, seqs: Sequence[int]) -> dict[int, float]:
        """The cosine of ``vector`` (a query's) with each of ``seqs`` that has a vector, from
        the same codes the index searches, so it compares with the cosines of its hits."""
        found = self.vectors_of(seqs)
        if not found:
            return {}
        matrix = np.stack(list(found.values()))
        scores = np.einsum("ik,k->i", matrix, vector)  # not BLAS: see vector_index._scores
        return {seq: float(score) for seq, score in zip(found, scores, strict=True)}

    def vectors_of(self, seqs: Sequence[int]) -> dict[int, FloatArray]:
        """The indexed vectors of ``seqs`` (those it has)."""
        if self.answers_without_vectors():
            return {}
        return {} if self.index is None else self.index.vectors_of(seqs)

    def catch_up(self, conn: Connection) -> None:
        """Take in vectors another program (the CLI beside the window) stored since the index
        was loaded: a cheap look at the newest vector rows."""
        if self.index is not None and self.ready:
            self.index.catch_up(conn)

    def close(self) -> None:
        self._stop_loading.set()
        if self._loader is not None:
            self._loader.join()
        with self._worker_lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.shutdown(wait=True)
        # The index is the biggest thing a vault holds in memory (540 MB at a million). The
        # service around it may sit in a reference cycle until the collector runs: the index
        # goes now, so a lock and an unlock do not hold two of them.
        self._index = None

    # -- rebuild ------------------------------------------------------------------------------

    def rebuild(self, progress: Progress | None = None) -> int:
        """Embed every memory that lacks a vector in the active space; returns how many.

        Works in batches, each committed on its own, so an interrupted rebuild resumes where it
        stopped. Vectors of other spaces are dropped once this one is complete.
        """
        if self.embedder is None or self.index is None:
            return 0
        with diagnostic_log.timed("reindex") as counts:  # how long, how many
            counts["embedded"] = self._rebuild(progress)
        return int(counts["embedded"])

    def _rebuild(self, progress: Progress | None) -> int:
        assert self.embedder is not None
        space = self.embedder.identity
        with self._vault.read() as conn:
            missing = vectors.seqs_without_vector(conn, space)
        total = len(missing)
        done = 0
        if progress:
            progress(done, total)
        for start in range(0, total, REBUILD_BATCH):
            batch = missing[start : start + REBUILD_BATCH]
            with self._vault.read() as conn:
                rows = _texts_of(conn, batch)
            embedded = self.embedder.embed([text for _, text, _, _ in rows])
            with self._vault.write() as conn:
                for (seq, _, scope, status), vector in zip(rows, embedded, strict=True):
                    self.store(conn, seq, np.asarray(vector, dtype=np.float32), scope, status)
            done += len(batch)
            if progress:
                progress(done, total)
        with self._vault.write() as conn:
            complete = not vectors.seqs_without_vector(conn, space, limit=1)
            if complete:
                vectors.set_space_state(conn, space, "ready")
                vectors.drop_other_spaces(conn, space)
        self.ready = complete  # only once the new state is committed
        return total


def _compact(vault: Vault, space: str, dim: int) -> None:
    """Convert a space kept as float32 (a vault made before compact vectors) to int8 codes,
    once, in batches each committed, so an interrupted conversion resumes at the next open."""
    with vault.read() as conn:
        if vectors.space_encoding(conn, space) != vector_codes.FLOAT32:
            return
        last = vectors.last_vector_rowid(conn)
    after = 0
    while after < last:
        with vault.write() as conn:
            after = vectors.compact_rows(conn, space, dim, after, last)
    with vault.write() as conn:
        vectors.mark_compact(conn, space)


def _texts_of(conn: Connection, seqs: list[int]) -> list[tuple[int, str, str, str]]:
    rows = vectors.nodes_to_embed(conn, seqs)
    return [
        (
            r["seq"],
            searchable_text(r["title"], r["body"], json.loads(r["attrs"])),
            r["scope"],
            r["status"],
        )
        for r in rows
    ]
