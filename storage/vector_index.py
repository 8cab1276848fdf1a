"""The in-memory vector index of one space, searched at runtime and rebuilt at every open.

At open the space's rows (``vectors``) load into one int8 matrix with a scale per row, and each
vector's sign bits beside it; cosine similarity is a matrix-vector product. Up to 20k vectors
every one is scored; above, the sign bits pick a shortlist that is then scored from the codes
(``search``). It lives in memory only: there is no second index on disk to keep consistent.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt

from cairn.storage import vector_codes
from cairn.storage.connection import Connection
from cairn.storage.vector_codes import Coded, CodeMatrix, FloatMatrix, hamming, sign_words

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


class LoadStopped(Exception):
    """The vault closed while its vectors were loading."""


_Fetched = tuple[npt.NDArray[np.int64], bytes]


def _fetch_rows(
    open_reader: Callable[[], Any], space: str, rowids: tuple[int, int], stop: threading.Event
) -> _Fetched:
    """The seqs and the concatenated rows of a rowid range.

    Concatenated by SQLite (``group_concat`` over the blobs, cast back to a blob): one step
    that decrypts and copies without the GIL, where a row-by-row fetch would build 100k Python
    objects and hand the GIL back and forth between the loading threads. Both aggregates run
    over the same scan, so the nth seq belongs to the nth vector.
    """
    if stop.is_set():
        return np.zeros(0, dtype=np.int64), b""
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
    return _integers(seqs_csv), blob


def _integers(csv: str) -> npt.NDArray[np.int64]:
    """Comma-separated integers, parsed in C: 1M in 20 ms, where split() takes 150."""
    return np.fromstring(csv, dtype=np.int64, sep=",")


def _node_meta(conn: Connection) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int8], list[str]]:
    """Every node's scope code and status code, indexed by seq (-1 where no node), and the
    scopes in code order: one pass over the (scope, status) index, a list of seqs per pair."""
    groups = [
        (scope, status, _integers(seqs))
        for scope, status, seqs in conn.execute(
            "SELECT scope, status, group_concat(seq) FROM nodes INDEXED BY nodes_by_scope_status "
            "GROUP BY scope, status"
        )
    ]
    top = max((int(seqs.max()) for _, _, seqs in groups if seqs.size), default=0)
    scope_of = np.full(top + 1, -1, dtype=np.int32)
    status_of = np.full(top + 1, -1, dtype=np.int8)
    names = sorted({scope for scope, _, _ in groups})
    code = {name: i for i, name in enumerate(names)}
    for scope, status, seqs in groups:
        scope_of[seqs] = code[scope]
        status_of[seqs] = STATUS_CODES[status]
    return scope_of, status_of, names


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


def _code_matrix(rows: int, dim: int) -> CodeMatrix:
    """Row-major: each vector contiguous, so the rows a shortlist picks are gathered in a few
    hundred microseconds (2,000 rows of 384: 0.3 ms; from a column-major matrix, 24 ms). A large
    index never multiplies the whole matrix (see ``search``). Zeroed pages past the rows in use
    are not touched, so spare capacity costs address space, not memory."""
    return np.zeros((rows, dim), dtype=np.int8)


def _scores(codes: CodeMatrix, scales: FloatMatrix, query: FloatMatrix) -> FloatMatrix:
    """Cosines of a unit query with the rows ``codes * scales``. einsum, not BLAS: it reads the
    int8 codes without a float copy of them, and BLAS's threads spin on the other core after
    each product, taking it from the text leg beside this one."""
    out: FloatMatrix = np.einsum("ij,j->i", codes, query) * scales
    return out


# -- the in-memory index ----------------------------------------------------------------------

# What a search reads, taken under the lock: codes, scales, sign bits and seqs.
_Snapshot = tuple[CodeMatrix, FloatMatrix, npt.NDArray[np.uint64], npt.NDArray[np.int64]]


class VectorIndex:
    """Cosine search over one space, filtered by scope and status.

    Thread-safe: writers add under a lock, into spare rows past the current size (growing
    replaces the arrays with larger copies); a search takes the size and the arrays under the
    lock and reads only the rows that existed then.
    """

    def __init__(self, space: str, dim: int) -> None:
        self.space = space
        self.dim = dim
        self._lock = threading.Lock()
        self._size = 0
        self._live = 0
        self._words = -(-dim // 64)
        self._allocate(_INITIAL_CAPACITY)
        self._row_by_seq = np.full(_INITIAL_CAPACITY, -1, dtype=np.int32)
        self._scope_codes: dict[str, int] = {}
        self._seen_rowid = 0  # the newest vector row this index has read from the file

    def _allocate(self, capacity: int) -> None:
        self._codes = _code_matrix(capacity, self.dim)
        self._scales = np.zeros(capacity, dtype=np.float32)
        self._signs = _sign_matrix(capacity, self._words)
        self._seqs = np.zeros(capacity, dtype=np.int64)
        self._scopes = np.zeros(capacity, dtype=np.int32)
        self._statuses = np.zeros(capacity, dtype=np.int8)

    def __len__(self) -> int:
        return self._live

    @classmethod
    def load(
        cls,
        open_reader: Callable[[], Any],
        space: str,
        dim: int,
        parts: int = LOAD_PARTS,
        stop: threading.Event | None = None,
    ) -> VectorIndex:
        """Read the space's vectors with ``parts`` connections at once; raises ``LoadStopped``
        if ``stop`` is set meanwhile.

        Reading is bound by decrypting the pages (every page's HMAC is checked), which SQLite
        does without holding the GIL: on two cores two readers take about half the time. Each
        range's rows are copied into place as it arrives and then dropped, so the rows are
        held twice only one range at a time.
        """
        stop = stop or threading.Event()
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
            halt = threading.Event()  # the ranges not yet read are not read after a failure
            with ThreadPoolExecutor(max_workers=parts) as pool:

                def fetch(rowids: tuple[int, int]) -> Future[_Fetched]:
                    return pool.submit(_fetch_rows, open_reader, space, rowids, halt)

                # A range is read while the one before is copied into place, and no more
                # are read ahead than the readers can keep busy: a range read is held until
                # it is copied, so reading every range first would hold the space twice.
                waiting = deque(fetch(rowids) for rowids in ranges[: parts + 1])
                later = iter(ranges[parts + 1 :])
                seqs: list[npt.NDArray[np.int64]] = []
                try:
                    scope_of, status_of, scope_names = _node_meta(conn)
                    # Rowids count every space's rows: an upper bound on this space's. A
                    # quarter more leaves room for the writes that follow the open, so the
                    # first of them does not copy the whole index; untouched rows cost nothing.
                    index._allocate((high - low + 1) * 5 // 4 + _INITIAL_CAPACITY)
                    while waiting:
                        seqs.append(index._take(waiting.popleft().result(), stop))
                        if (rowids := next(later, None)) is not None:
                            waiting.append(fetch(rowids))
                finally:
                    halt.set()
        finally:
            conn.close()
        index._finish(np.concatenate(seqs), scope_of, status_of, scope_names)
        return index

    def _take(self, fetched: _Fetched, stop: threading.Event) -> npt.NDArray[np.int64]:
        """Copy one range's rows into place after those already taken; their seqs."""
        if stop.is_set():
            raise LoadStopped
        seqs, blob = fetched
        if not seqs.size:
            return seqs
        codes, scales = vector_codes.split_rows(blob, self.dim)
        rows = slice(self._size, self._size + len(seqs))
        self._codes[rows] = codes
        self._scales[rows] = scales
        self._signs[rows] = sign_words(codes)
        self._size += len(seqs)
        return seqs

    def _finish(
        self,
        seqs: npt.NDArray[np.int64],
        scope_of: npt.NDArray[np.int32],
        status_of: npt.NDArray[np.int8],
        scope_names: list[str],
    ) -> None:
        """Give the loaded rows their scopes and statuses, and drop the rows of nodes not in
        the snapshot read: the readers ran side by side, so a node written meanwhile by another
        program may have a vector but no row here. It is picked up at the next open."""
        self._scope_codes = {name: i for i, name in enumerate(scope_names)}
        where = np.minimum(seqs, len(scope_of) - 1)
        known = (seqs < len(scope_of)) & (scope_of[where] >= 0)
        count = int(known.sum())
        if count < len(seqs):
            columns: tuple[npt.NDArray[Any], ...] = (self._codes, self._scales, self._signs)
            for column in columns:
                column[:count] = column[: len(seqs)][known]
            seqs = seqs[known]
        self._seqs[:count] = seqs
        self._scopes[:count] = scope_of[seqs]
        self._statuses[:count] = status_of[seqs]
        self._size = self._live = count
        self._row_by_seq = np.full(
            max(_INITIAL_CAPACITY, len(scope_of) * 5 // 4), -1, dtype=np.int32
        )
        self._row_by_seq[seqs] = np.arange(count, dtype=np.int32)

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
            self.add_coded(seq, vector_codes.coded_row(blob, self.dim), scope, status)
            with self._lock:
                self._seen_rowid = max(self._seen_rowid, rowid)
        return len(rows)

    def _scope_code(self, scope: str) -> int:
        return self._scope_codes.setdefault(scope, len(self._scope_codes))

    def _row_of(self, seq: int) -> int:
        return int(self._row_by_seq[seq]) if 0 <= seq < len(self._row_by_seq) else -1

    def add(
        self, seq: int, vector: FloatMatrix, scope: str, status: str, rowid: int | None = None
    ) -> None:
        """Add or replace one vector (see ``add_coded``)."""
        self.add_coded(seq, vector_codes.quantize(vector), scope, status, rowid)

    def add_coded(
        self, seq: int, coded: Coded, scope: str, status: str, rowid: int | None = None
    ) -> None:
        """Add or replace one vector given as its codes (``vector_codes.quantize``: a writer
        that stored them, or a row read back). ``rowid``, when it is the next row after those
        already read, saves ``catch_up`` from reading this program's own writes back."""
        codes, scales = coded
        with self._lock:
            if rowid is not None and rowid == self._seen_rowid + 1:
                self._seen_rowid = rowid
            row = self._row_of(seq)
            if row < 0:
                if self._size == len(self._seqs):
                    self._grow()
                if seq >= len(self._row_by_seq):
                    grown = np.full(max(seq + 1, len(self._row_by_seq) * 2), -1, dtype=np.int32)
                    grown[: len(self._row_by_seq)] = self._row_by_seq
                    self._row_by_seq = grown
                row = self._size
                self._size += 1
                self._live += 1
                self._row_by_seq[seq] = row
            self._codes[row] = codes[0]
            self._scales[row] = scales[0]
            self._signs[row] = sign_words(codes)[0]
            self._seqs[row] = seq
            self._scopes[row] = self._scope_code(scope)
            self._statuses[row] = STATUS_CODES[status]

    def _columns(self) -> tuple[npt.NDArray[Any], ...]:
        """Every per-row array, in one order (``_grow`` copies them all)."""
        return (self._codes, self._scales, self._signs, self._seqs, self._scopes, self._statuses)

    def _grow(self) -> None:
        old = self._columns()
        self._allocate(max(_INITIAL_CAPACITY, len(self._seqs) * 2))
        for before, after in zip(old, self._columns(), strict=True):
            after[: self._size] = before[: self._size]

    def set_status(self, seq: int, status: str) -> None:
        with self._lock:
            row = self._row_of(seq)
            if row >= 0:
                self._statuses[row] = STATUS_CODES[status]

    def remove(self, seq: int) -> None:
        """Forget a vector: its row is marked with a status no search asks for."""
        with self._lock:
            row = self._row_of(seq)
            if row >= 0:
                self._row_by_seq[seq] = -1
                self._live -= 1
                self._statuses[row] = -1
                self._codes[row] = 0
                self._scales[row] = 0.0

    def vectors_of(self, seqs: Iterable[int]) -> dict[int, FloatMatrix]:
        """The vectors of ``seqs`` (those indexed), as float32 again."""
        with self._lock:
            found = [(seq, row) for seq in seqs if (row := self._row_of(seq)) >= 0]
            rows = [row for _, row in found]
            vectors = vector_codes.dequantize(self._codes[rows], self._scales[rows])
        return dict(zip((seq for seq, _ in found), vectors, strict=True))

    def contains(self, seq: int) -> bool:
        return self._row_of(seq) >= 0

    def search(
        self,
        query: FloatMatrix,
        scopes: Iterable[str],
        statuses: Sequence[str],
        k: int,
    ) -> list[tuple[int, float]]:
        """The k most similar (seq, cosine) in the given scopes and statuses, best first;
        equal scores put the newer (higher seq) first, so the result is a total order.

        Every visible row is scored up to ``EXACT_ROWS``. Above, reading the whole matrix would
        cost more than a search may, so the sign bits (48 bytes a vector) pick a shortlist of
        2% of them, at least ``SEARCH_SHORTLIST`` (a shortlist that size still fits the
        processor's cache: 4,750 rows take ten times as long to gather as 2,000), and those
        are scored from their codes. On the Vaswani abstracts with real vectors a shortlist of
        1,000 in 11,429 held 99.9% of the exact top 30, one of 2,000 all of it.
        """
        visible = self._visible(scopes, statuses, k)
        if visible is None:
            return []
        snapshot, candidates = visible
        if candidates.size > EXACT_ROWS:
            shortlist = max(SEARCH_SHORTLIST, candidates.size // 50)
            return self._shortlisted(snapshot, candidates, query, k, shortlist)
        codes, scales, _, seqs = snapshot
        # One product over every row, then pick the visible ones: gathering the visible rows
        # first would copy most of the matrix on each search.
        scores = _scores(codes[: len(seqs)], scales[: len(seqs)], query)[candidates]
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
    ) -> tuple[_Snapshot, Any] | None:
        """The arrays as they are now (rows past the size are not read) and the row numbers
        in ``scopes`` and ``statuses``; None when there are none."""
        with self._lock:
            size = self._size
            snapshot = (self._codes, self._scales, self._signs[:size], self._seqs[:size])
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
        snapshot: _Snapshot,
        candidates: Any,
        query: FloatMatrix,
        k: int,
        shortlist: int,
    ) -> list[tuple[int, float]]:
        codes, scales, signs, seqs = snapshot
        distance = hamming(signs, sign_words(np.asarray(query).reshape(1, -1))[0])
        if candidates.size < distance.size:
            distance = distance[candidates]
        if candidates.size > shortlist:
            # Keep every row tied with the cut, so no tie is broken by a partition's whim. The
            # cut is the shortlist-th smallest distance; distances are small integers, so
            # counting them finds it faster than partitioning them.
            at_most = np.cumsum(np.bincount(distance))
            cut = int(np.searchsorted(at_most, shortlist))
            candidates = candidates[np.flatnonzero(distance <= cut)]
        scores = _scores(codes[candidates], scales[candidates], query)
        return _best(scores, candidates, seqs, k)
