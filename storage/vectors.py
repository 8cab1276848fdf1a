"""Embedding vectors: their rows in the vault and the in-memory index searched at runtime.

Vectors are float32 little-endian, L2-normalised, keyed by (space, node seq); a space is one
embedder identity. At open the active space loads into one NumPy matrix, with each vector's
sign bits beside it; cosine similarity is a matrix-vector product. Up to 20k vectors every one
is scored; above, the sign bits pick a shortlist that is then scored exactly (``search``).
Both live in memory only and are rebuilt from the vault at open: there is no second index on
disk to keep consistent.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from cairn.storage.connection import Connection, placeholders
from cairn.storage.rows import EmbedRow, SpaceRow
from cairn.storage.sentinel import ENGINE_SCOPE

FloatMatrix = npt.NDArray[np.float32]

# Statuses as small integer codes, so filtering is one vectorised comparison.
STATUS_CODES = {"active": 0, "pending": 1, "superseded": 2, "archived": 3, "stub": 4}
_INITIAL_CAPACITY = 1024
# Connections that read the vectors at open, in parallel (see VectorIndex.load).
LOAD_PARTS = 2
# Rows whose exact cosine ``near`` computes after the sign-bit comparison.
NEAR_SHORTLIST = 256
# Above this many visible vectors, search scores a sign-bit shortlist instead of every row.
EXACT_ROWS = 20_000
SEARCH_SHORTLIST = 2_000
LOAD_ROWS_PER_QUERY = 50_000


# -- rows -------------------------------------------------------------------------------------


def ensure_space(conn: Connection, name: str, dim: int, state: str, created_at: str) -> str:
    """Create the space if needed; returns its state."""
    conn.execute(
        "INSERT INTO embedding_spaces(name, dim, state, created_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(name) DO NOTHING",
        (name, dim, state, created_at),
    )
    return str(
        conn.execute("SELECT state FROM embedding_spaces WHERE name = ?", (name,)).fetchone()[0]
    )


def space_state(conn: Connection, name: str) -> str | None:
    row = conn.execute("SELECT state FROM embedding_spaces WHERE name = ?", (name,)).fetchone()
    return None if row is None else str(row[0])


def set_space_state(conn: Connection, name: str, state: str) -> None:
    conn.execute("UPDATE embedding_spaces SET state = ? WHERE name = ?", (state, name))


def drop_other_spaces(conn: Connection, keep: str) -> None:
    """Vectors of other embedders are derived data; once a rebuild is done they go."""
    conn.execute("DELETE FROM embedding_spaces WHERE name <> ?", (keep,))


def spaces(conn: Connection) -> list[SpaceRow]:
    return [
        cast(SpaceRow, dict(row))
        for row in conn.execute(
            "SELECT s.name, s.dim, s.state, (SELECT count(*) FROM vectors AS v "
            "WHERE v.space = s.name) AS vectors FROM embedding_spaces AS s ORDER BY s.name"
        )
    ]


def store(conn: Connection, space: str, seq: int, vector: FloatMatrix) -> int:
    """Insert or replace one vector; returns its row id."""
    blob = np.ascontiguousarray(vector, dtype="<f4").tobytes()
    row = conn.execute(
        "INSERT INTO vectors(node_seq, space, vector) VALUES (?, ?, ?) "
        "ON CONFLICT(space, node_seq) DO UPDATE SET vector = excluded.vector RETURNING rowid",
        (seq, space, blob),
    ).fetchone()
    return int(row[0])


def seqs_without_vector(conn: Connection, space: str, limit: int = -1) -> list[int]:
    # The engine's sentinel is never searched, so it needs no vector (see ``sentinel``).
    return [
        row[0]
        for row in conn.execute(
            "SELECT n.seq FROM nodes AS n WHERE n.scope <> ? AND NOT EXISTS (SELECT 1 "
            "FROM vectors AS v WHERE v.space = ? AND v.node_seq = n.seq) ORDER BY n.seq LIMIT ?",
            (ENGINE_SCOPE, space, limit),
        )
    ]


def mark_other_spaces_incomplete(conn: Connection, keep: str) -> None:
    conn.execute(
        "UPDATE embedding_spaces SET state = 'building' WHERE name <> ? AND state <> 'building'",
        (keep,),
    )


def mark_all_spaces_incomplete(conn: Connection) -> None:
    """A memory was stored without a vector: no space covers every memory any more."""
    conn.execute("UPDATE embedding_spaces SET state = 'building' WHERE state <> 'building'")


def nodes_to_embed(conn: Connection, seqs: Sequence[int]) -> list[EmbedRow]:
    marks = placeholders(seqs)
    return [
        cast(EmbedRow, dict(row))
        for row in conn.execute(
            f"SELECT seq, id, title, body, attrs, scope, status FROM nodes WHERE seq IN ({marks}) "
            "ORDER BY seq",
            list(seqs),
        )
    ]


def vector_of(conn: Connection, space: str, seq: int) -> FloatMatrix | None:
    row = conn.execute(
        "SELECT vector FROM vectors WHERE space = ? AND node_seq = ?", (space, seq)
    ).fetchone()
    return None if row is None else np.frombuffer(row[0], dtype="<f4").astype(np.float32)


def _fetch_vectors(
    open_reader: Callable[[], Any], space: str, rowids: tuple[int, int]
) -> tuple[npt.NDArray[np.int64], bytes]:
    """The seqs and the concatenated vectors of the rows in a rowid range.

    Concatenated by SQLite (``group_concat`` over the blobs, cast back to a blob): one step
    that decrypts and copies without the GIL, where a row-by-row fetch would build 100k Python
    objects and hand the GIL back and forth between the loading threads. Both aggregates run
    over the same scan, so the nth seq belongs to the nth vector.
    """
    conn = open_reader()
    try:
        seqs_csv, blob = conn.execute(
            "SELECT group_concat(node_seq), CAST(group_concat(vector, x'') AS BLOB) "
            "FROM vectors NOT INDEXED WHERE rowid >= ? AND rowid < ? AND space = ?",
            (*rowids, space),
        ).fetchone()
    finally:
        conn.close()
    if seqs_csv is None:
        return np.zeros(0, dtype=np.int64), b""
    return np.array(seqs_csv.split(","), dtype=np.int64), bytes(blob)


def _sign_words(vectors: FloatMatrix) -> npt.NDArray[np.uint64]:
    """Each vector's signs, one bit per dimension, packed into 64-bit words. Two vectors'
    Hamming distance over these bits estimates the angle between them (SimHash)."""
    bits = np.packbits(np.asarray(vectors) > 0, axis=1)
    pad = (-bits.shape[1]) % 8
    if pad:
        bits = np.pad(bits, ((0, 0), (0, pad)))
    return np.ascontiguousarray(bits).view(np.uint64)


def _hamming(signs: npt.NDArray[np.uint64], mine: npt.NDArray[np.uint64]) -> Any:
    """Every row's Hamming distance from ``mine``, one contiguous column of words at a time:
    two small arrays reused, where XOR-ing the whole matrix at once allocates two copies of
    it (at 100k, 2 ms of the vector leg's 5)."""
    rows, words = signs.shape
    distance = np.zeros(rows, dtype=np.uint16)  # up to 65,535 bits: any model's dimensions
    scratch = np.empty(rows, dtype=np.uint64)
    counts = np.empty(rows, dtype=np.uint8)
    for word in range(words):
        np.bitwise_xor(signs[:, word], mine[word], out=scratch)
        distance += np.bitwise_count(scratch, out=counts)
    return distance


def _best(
    scores: FloatMatrix, rows: Any, seqs: npt.NDArray[np.int64], k: int
) -> list[tuple[int, float]]:
    """The k best (seq, score) of ``rows`` (scored ``scores``), best first; equal scores put
    the newer (higher seq) first."""
    take = min(k, scores.size)
    if take < scores.size:
        # Keep every row tied with the k-th best, so the cut falls by the tie-break below
        # and not wherever the partition happened to put tied rows.
        kth_best = np.partition(scores, scores.size - take)[scores.size - take]
        top = np.flatnonzero(scores >= kth_best)
        scores, rows = scores[top], rows[top]
    order = np.lexsort((-seqs[rows], -scores))[:take]
    return [(int(seqs[rows[i]]), float(scores[i])) for i in order]


def _sign_matrix(rows: int, words: int) -> npt.NDArray[np.uint64]:
    """Column-major: each word of every row contiguous, so comparing a query's signs with all
    rows streams a few contiguous columns."""
    return np.zeros((rows, words), dtype=np.uint64, order="F")


def _matrix(rows: int, dim: int) -> FloatMatrix:
    """Row-major: each vector contiguous, so the rows a shortlist picks are gathered in a few
    hundred microseconds (2,000 rows of 384: 0.3 ms; from a column-major matrix, 24 ms). A large
    index never multiplies the whole matrix (see ``search``)."""
    return np.zeros((rows, dim), dtype=np.float32)


# -- the in-memory index ----------------------------------------------------------------------


class VectorIndex:
    """Exact cosine search over one space, filtered by scope and status.

    Thread-safe: writers add under a lock, into spare rows past the current size (growing
    replaces the arrays with larger copies); a search takes the size and the arrays under the
    lock and reads only the rows that existed then.
    """

    def __init__(self, space: str, dim: int) -> None:
        self.space = space
        self.dim = dim
        self._lock = threading.Lock()
        self._size = 0
        self._matrix: FloatMatrix = _matrix(_INITIAL_CAPACITY, dim)
        self._words = -(-dim // 64)
        self._signs = _sign_matrix(_INITIAL_CAPACITY, self._words)
        self._seqs = np.zeros(_INITIAL_CAPACITY, dtype=np.int64)
        self._scopes = np.zeros(_INITIAL_CAPACITY, dtype=np.int32)
        self._statuses = np.zeros(_INITIAL_CAPACITY, dtype=np.int8)
        self._row_of: dict[int, int] = {}
        self._scope_codes: dict[str, int] = {}
        self._seen_rowid = 0  # the newest vector row this index has read from the file

    def __len__(self) -> int:
        return len(self._row_of)

    @classmethod
    def load(
        cls, open_reader: Callable[[], Any], space: str, dim: int, parts: int = LOAD_PARTS
    ) -> VectorIndex:
        """Read the space's vectors with ``parts`` connections at once.

        Reading is bound by decrypting the pages (every page's HMAC is checked), which SQLite
        does without holding the GIL: on two cores two readers take about half the time.
        """
        index = cls(space, dim)
        conn = open_reader()
        try:
            low, high = conn.execute("SELECT min(rowid), max(rowid) FROM vectors").fetchone()
            if low is None:
                return index
            index._seen_rowid = high
            # At least ``parts`` ranges, and none so large that its concatenation nears
            # SQLite's string limit.
            pieces = max(parts, -(-(high - low + 1) // LOAD_ROWS_PER_QUERY))
            step = (high - low) // pieces + 1
            ranges = [(low + i * step, low + (i + 1) * step) for i in range(pieces)]
            with ThreadPoolExecutor(max_workers=parts) as pool:
                fetched = [pool.submit(_fetch_vectors, open_reader, space, r) for r in ranges]
                meta = conn.execute("SELECT seq, scope, status FROM nodes").fetchall()
                chunks = [future.result() for future in fetched]
        finally:
            conn.close()
        seqs = np.concatenate([chunk_seqs for chunk_seqs, _ in chunks])
        meta_seqs = np.fromiter((row[0] for row in meta), dtype=np.int64, count=len(meta))
        codes = {name: index._scope_code(name) for name in sorted({row[1] for row in meta})}
        meta_scopes = np.fromiter((codes[row[1]] for row in meta), dtype=np.int32, count=len(meta))
        meta_statuses = np.fromiter(
            (STATUS_CODES[row[2]] for row in meta), dtype=np.int8, count=len(meta)
        )
        order = np.argsort(meta_seqs)
        meta_seqs, meta_scopes, meta_statuses = (
            meta_seqs[order],
            meta_scopes[order],
            meta_statuses[order],
        )
        where = np.minimum(np.searchsorted(meta_seqs, seqs), max(len(meta_seqs) - 1, 0))
        # The readers ran side by side: a node written meanwhile by another program may have
        # a vector but no row in the snapshot read here. It is picked up at the next open.
        known = meta_seqs[where] == seqs if len(meta_seqs) else np.zeros(len(seqs), dtype=bool)
        count = int(known.sum())
        if count == 0:
            return index
        capacity = max(_INITIAL_CAPACITY, count * 5 // 4)
        index._matrix = _matrix(capacity, dim)
        filled = 0
        for _, blob in chunks:  # copied straight into place, without an intermediate join
            rows = np.frombuffer(blob, dtype="<f4").reshape(-1, dim)
            index._matrix[filled : filled + len(rows)] = rows
            filled += len(rows)
        if count < len(seqs):
            index._matrix[:count] = index._matrix[:filled][known]
        index._matrix[count:] = 0.0
        index._signs = _sign_matrix(capacity, index._words)
        index._signs[:count] = _sign_words(index._matrix[:count])
        index._seqs = np.zeros(capacity, dtype=np.int64)
        index._seqs[:count] = seqs[known]
        index._scopes = np.zeros(capacity, dtype=np.int32)
        index._scopes[:count] = meta_scopes[where[known]]
        index._statuses = np.zeros(capacity, dtype=np.int8)
        index._statuses[:count] = meta_statuses[where[known]]
        index._row_of = {seq: i for i, seq in enumerate(index._seqs[:count].tolist())}
        index._size = count
        return index

    def catch_up(self, conn: Connection) -> int:
        """Add vectors stored since this index was loaded by another connection or program;
        returns how many. One indexed lookup when there are none."""
        rows = conn.execute(
            "SELECT v.rowid, v.node_seq, v.vector, n.scope, n.status FROM vectors AS v "
            "JOIN nodes AS n ON n.seq = v.node_seq WHERE v.rowid > ? AND +v.space = ? "
            "ORDER BY v.rowid",
            (self._seen_rowid, self.space),
        ).fetchall()
        for rowid, seq, blob, scope, status in rows:
            self.add(seq, np.frombuffer(blob, dtype="<f4"), scope, status)
            with self._lock:
                self._seen_rowid = max(self._seen_rowid, rowid)
        return len(rows)

    def _scope_code(self, scope: str) -> int:
        return self._scope_codes.setdefault(scope, len(self._scope_codes))

    def add(
        self, seq: int, vector: FloatMatrix, scope: str, status: str, rowid: int | None = None
    ) -> None:
        """Add or replace one vector. ``rowid``, when it is the next row after those already
        read, saves ``catch_up`` from reading this program's own writes back."""
        with self._lock:
            if rowid is not None and rowid == self._seen_rowid + 1:
                self._seen_rowid = rowid
            row = self._row_of.get(seq)
            if row is None:
                if self._size == len(self._seqs):
                    self._grow()
                row = self._size
                self._size += 1
                self._row_of[seq] = row
            self._matrix[row] = vector
            self._signs[row] = _sign_words(np.asarray(vector).reshape(1, -1))[0]
            self._seqs[row] = seq
            self._scopes[row] = self._scope_code(scope)
            self._statuses[row] = STATUS_CODES[status]

    def _grow(self) -> None:
        capacity = max(_INITIAL_CAPACITY, len(self._seqs) * 2)
        matrix = _matrix(capacity, self.dim)
        matrix[: self._size] = self._matrix[: self._size]
        signs = _sign_matrix(capacity, self._words)
        signs[: self._size] = self._signs[: self._size]
        self._signs = signs
        seqs, scopes, statuses = (
            np.zeros(capacity, dtype=np.int64),
            np.zeros(capacity, dtype=np.int32),
            np.zeros(capacity, dtype=np.int8),
        )
        seqs[: self._size] = self._seqs[: self._size]
        scopes[: self._size] = self._scopes[: self._size]
        statuses[: self._size] = self._statuses[: self._size]
        self._matrix, self._seqs, self._scopes, self._statuses = matrix, seqs, scopes, statuses

    def set_status(self, seq: int, status: str) -> None:
        with self._lock:
            row = self._row_of.get(seq)
            if row is not None:
                self._statuses[row] = STATUS_CODES[status]

    def remove(self, seq: int) -> None:
        """Forget a vector: its row is marked with a status no search asks for."""
        with self._lock:
            row = self._row_of.pop(seq, None)
            if row is not None:
                self._statuses[row] = -1
                self._matrix[row] = 0.0

    def vectors_of(self, seqs: Iterable[int]) -> dict[int, FloatMatrix]:
        with self._lock:
            known = [seq for seq in seqs if seq in self._row_of]
            rows = self._matrix[[self._row_of[seq] for seq in known]]  # one gather, a copy
        return dict(zip(known, rows, strict=True))

    def contains(self, seq: int) -> bool:
        return seq in self._row_of

    def search(
        self,
        query: FloatMatrix,
        scopes: Iterable[str],
        statuses: Sequence[str],
        k: int,
    ) -> list[tuple[int, float]]:
        """The k most similar (seq, cosine) in the given scopes and statuses, best first;
        equal scores put the newer (higher seq) first, so the result is a total order.

        Exact up to ``EXACT_ROWS`` visible vectors: every one is scored. Above, reading the
        whole matrix would cost more than a search may (100k vectors are 150 MB), so the sign
        bits (48 bytes a vector) pick a shortlist of 2% of them, at least ``SEARCH_SHORTLIST``
        (a shortlist that size still fits the processor's cache: 4,750 rows take ten times as
        long to gather as 2,000), and those are scored exactly. On the Vaswani abstracts with
        real vectors a shortlist of 1,000 in 11,429 held 99.9% of the exact top 30, one of
        2,000 all of it.
        """
        visible = self._visible(scopes, statuses, k)
        if visible is None:
            return []
        snapshot, candidates = visible
        if candidates.size > EXACT_ROWS:
            shortlist = max(SEARCH_SHORTLIST, candidates.size // 50)
            return self._shortlisted(snapshot, candidates, query, k, shortlist)
        matrix, _, seqs = snapshot
        # One product over every row, then pick the visible ones: gathering the visible rows
        # first would copy most of the matrix on each search.
        # einsum, not BLAS: BLAS's threads spin on the other core after each product, taking
        # it from the text leg beside this one (a search at 100k: p95 24 ms with, 18 without).
        scores = np.einsum("ij,j->i", matrix[: len(seqs)], query)[candidates]
        return _best(scores, candidates, seqs, k)

    def near(
        self,
        query: FloatMatrix,
        scopes: Iterable[str],
        statuses: Sequence[str],
        k: int,
        shortlist: int = NEAR_SHORTLIST,
    ) -> list[tuple[int, float]]:
        """Like ``search``, for finding near-duplicates fast: the ``shortlist`` rows whose sign
        bits are closest to the query's (a few bytes per vector, not the whole matrix), then
        exact cosines on those. Near neighbours are not missed in practice: at cosine 0.75
        two vectors differ in about a quarter of their bits, unrelated ones in half, so the
        ones that matter sit far ahead of the cut. Ties as in ``search``."""
        visible = self._visible(scopes, statuses, k)
        if visible is None:
            return []
        snapshot, candidates = visible
        return self._shortlisted(snapshot, candidates, query, k, shortlist)

    def _visible(
        self, scopes: Iterable[str], statuses: Sequence[str], k: int
    ) -> tuple[tuple[FloatMatrix, npt.NDArray[np.uint64], npt.NDArray[np.int64]], Any] | None:
        """The arrays as they are now (rows past the size are not read) and the row numbers
        in ``scopes`` and ``statuses``; None when there are none."""
        with self._lock:
            size = self._size
            snapshot = (self._matrix, self._signs[:size], self._seqs[:size])
            scope_col, status_col = self._scopes[:size], self._statuses[:size]
            scope_codes = [self._scope_codes[s] for s in scopes if s in self._scope_codes]
            code_count = len(self._scope_codes)
        if size == 0 or not scope_codes or k <= 0:
            return None
        # Lookup tables indexed by the code: one gather per column, where np.isin would
        # compare the whole column once per wanted code (a tenth of a search at 100k).
        wanted_scopes = np.zeros(code_count, dtype=bool)
        wanted_scopes[scope_codes] = True
        wanted_statuses = np.zeros(max(STATUS_CODES.values()) + 2, dtype=bool)
        wanted_statuses[[STATUS_CODES[s] + 1 for s in statuses]] = True  # + 1: removed is -1
        mask = wanted_scopes[scope_col] & wanted_statuses[status_col.astype(np.int16) + 1]
        candidates = np.flatnonzero(mask)
        return (snapshot, candidates) if candidates.size else None

    @staticmethod
    def _shortlisted(
        snapshot: tuple[FloatMatrix, npt.NDArray[np.uint64], npt.NDArray[np.int64]],
        candidates: Any,
        query: FloatMatrix,
        k: int,
        shortlist: int,
    ) -> list[tuple[int, float]]:
        matrix, signs, seqs = snapshot
        distance = _hamming(signs, _sign_words(np.asarray(query).reshape(1, -1))[0])
        if candidates.size < distance.size:
            distance = distance[candidates]
        if candidates.size > shortlist:
            # Keep every row tied with the cut, so no tie is broken by a partition's whim. The
            # cut is the shortlist-th smallest distance; distances are small integers, so
            # counting them finds it faster than partitioning them.
            at_most = np.cumsum(np.bincount(distance))
            cut = int(np.searchsorted(at_most, shortlist))
            candidates = candidates[np.flatnonzero(distance <= cut)]
        scores = np.einsum("ij,j->i", matrix[candidates], query)  # not BLAS: see search
        return _best(scores, candidates, seqs, k)
