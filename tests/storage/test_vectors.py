"""The in-memory vector index, checked against a brute-force NumPy reference over the vectors
it keeps (int8 codes, see ``test_vector_codes`` for what they cost against float32), and its
loading from the vectors stored in a real vault."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.service import MemoryService
from cairn.storage import vector_index, vectors
from cairn.storage.vault import Vault
from cairn.storage.vector_codes import dequantize, quantize
from cairn.storage.vector_index import STATUS_CODES, VectorIndex

STATUSES = tuple(STATUS_CODES)
SCOPES = ("personal", "work", "family")
TOLERANCE = 1e-5


def unit_vectors(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    matrix = rng.standard_normal((n, dim)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def kept(vector: np.ndarray) -> np.ndarray:
    """The vector an index holds for ``vector``: its int8 codes times its scale."""
    return dequantize(*quantize(vector))[0]


def reference(
    rows: dict[int, tuple[np.ndarray, str, str]],
    query: np.ndarray,
    scopes: list[str],
    statuses: list[str],
) -> list[tuple[int, float]]:
    """Brute force: every visible row's cosine with the vector the index keeps of it, best
    first, ties newer (higher seq) first."""
    scored = [
        (seq, float(np.dot(kept(vector).astype(np.float64), query.astype(np.float64))))
        for seq, (vector, scope, status) in rows.items()
        if scope in scopes and status in statuses
    ]
    scored.sort(key=lambda item: (-item[1], -item[0]))
    return scored


def assert_exact_top_k(
    got: list[tuple[int, float]], ranked: list[tuple[int, float]], k: int
) -> None:
    """``got`` is the first k of the brute-force ranking ``ranked``, allowing float32 rounding:
    the same scores in the same order, each returned seq scored as the reference scores it, and
    the same seq at every rank whose score is clearly apart from every other visible score.
    (Which of exactly tied rows a cut keeps is test_a_cut_through_a_tie_keeps_the_newest_seqs's
    business.)"""
    want = ranked[: max(k, 0)]
    assert len(got) == len(want)
    score_of = dict(ranked)
    assert len({seq for seq, _ in got}) == len(got)
    got_scores = [score for _, score in got]
    assert got_scores == sorted(got_scores, reverse=True)
    for (seq, score), (_, expected) in zip(got, want, strict=True):
        assert score == pytest.approx(expected, abs=TOLERANCE)
        assert score == pytest.approx(score_of[seq], abs=TOLERANCE)
    all_scores = [score for _, score in ranked]
    for i, (seq, score) in enumerate(want):
        if sum(abs(score - other) <= 2 * TOLERANCE for other in all_scores) == 1:
            assert got[i][0] == seq


# -- search is exact --------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(
    n=st.integers(min_value=0, max_value=60),
    dim=st.integers(min_value=1, max_value=24),
    k=st.integers(min_value=-1, max_value=70),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    scopes=st.lists(st.sampled_from((*SCOPES, "unknown")), min_size=0, max_size=4),
    statuses=st.lists(st.sampled_from(STATUSES), min_size=1, max_size=5),
)
def test_search_is_the_exact_top_k(
    n: int, dim: int, k: int, seed: int, scopes: list[str], statuses: list[str]
) -> None:
    rng = np.random.default_rng(seed)
    matrix = unit_vectors(rng, n, dim)
    seqs = rng.choice(10 * n + 10, size=n, replace=False) + 1
    index = VectorIndex("test", dim)
    rows = {}
    for seq, vector in zip(seqs.tolist(), matrix, strict=True):
        scope = str(rng.choice(SCOPES))
        status = str(rng.choice(STATUSES))
        index.add(seq, vector, scope, status)
        rows[seq] = (vector, scope, status)
    query = unit_vectors(rng, 1, dim)[0]

    got = index.search(query, scopes, statuses, k)

    assert_exact_top_k(got, reference(rows, query, scopes, statuses), k)
    assert all(isinstance(seq, int) and isinstance(score, float) for seq, score in got)
    assert len(index) == n


def test_an_identical_vector_scores_one() -> None:
    rng = np.random.default_rng(1)
    matrix = unit_vectors(rng, 20, 16)
    index = VectorIndex("test", 16)
    for seq, vector in enumerate(matrix, start=1):
        index.add(seq, vector, "personal", "active")
    for seq, vector in enumerate(matrix, start=1):
        best, score = index.search(vector, ["personal"], ["active"], 1)[0]
        assert best == seq
        assert score == pytest.approx(1.0, abs=1e-3)  # the codes round each component


def test_an_empty_index_finds_nothing() -> None:
    index = VectorIndex("test", 4)
    query = np.ones(4, dtype=np.float32) / 2
    assert index.search(query, ["personal"], ["active"], 5) == []
    assert len(index) == 0 and not index.contains(1)


# -- filters --------------------------------------------------------------------------------------


@pytest.fixture
def small() -> tuple[VectorIndex, dict[int, tuple[np.ndarray, str, str]]]:
    rng = np.random.default_rng(7)
    matrix = unit_vectors(rng, 30, 8)
    index = VectorIndex("test", 8)
    rows = {}
    for i, vector in enumerate(matrix):
        seq = 100 + i
        scope = SCOPES[i % 3]
        status = STATUSES[i % 5]
        index.add(seq, vector, scope, status)
        rows[seq] = (vector, scope, status)
    return index, rows


def test_the_scope_filter_excludes_other_scopes(
    small: tuple[VectorIndex, dict[int, tuple[np.ndarray, str, str]]],
) -> None:
    index, rows = small
    query = rows[100][0]
    got = index.search(query, ["work"], list(STATUSES), 30)
    assert {seq for seq, _ in got} == {seq for seq, row in rows.items() if row[1] == "work"}
    assert index.search(query, ["nowhere"], list(STATUSES), 30) == []
    assert index.search(query, [], list(STATUSES), 30) == []
    both = index.search(query, ["work", "family"], list(STATUSES), 30)
    assert {seq for seq, _ in both} == {s for s, row in rows.items() if row[1] != "personal"}


def test_the_status_filter_excludes_other_statuses(
    small: tuple[VectorIndex, dict[int, tuple[np.ndarray, str, str]]],
) -> None:
    index, rows = small
    query = rows[100][0]
    got = index.search(query, list(SCOPES), ["active", "stub"], 30)
    expected = {seq for seq, row in rows.items() if row[2] in ("active", "stub")}
    assert {seq for seq, _ in got} == expected
    assert index.search(query, list(SCOPES), [], 30) == []
    assert index.search(query, list(SCOPES), ["archived"], 0) == []


def test_set_status_and_remove_take_effect(
    small: tuple[VectorIndex, dict[int, tuple[np.ndarray, str, str]]],
) -> None:
    index, rows = small
    seq = 100  # personal, active
    query = rows[seq][0]
    assert index.search(query, ["personal"], ["active"], 1)[0][0] == seq

    index.set_status(seq, "archived")
    assert seq not in [s for s, _ in index.search(query, ["personal"], ["active"], 30)]
    assert index.search(query, ["personal"], ["archived"], 1)[0][0] == seq

    index.remove(seq)
    assert not index.contains(seq)
    for statuses in (["archived"], list(STATUSES)):
        assert seq not in [s for s, _ in index.search(query, list(SCOPES), statuses, 100)]
    index.remove(seq)  # removing twice is harmless
    index.set_status(seq, "active")  # and a status change of a removed vector changes nothing
    assert seq not in [s for s, _ in index.search(query, list(SCOPES), list(STATUSES), 100)]

    index.add(seq, query, "personal", "active")  # a removed vector can come back
    got = index.search(query, ["personal"], ["active"], 100)
    assert got[0][0] == seq
    assert [s for s, _ in got].count(seq) == 1


def test_adding_a_seq_again_replaces_its_vector() -> None:
    index = VectorIndex("test", 2)
    east, north = np.array([1, 0], np.float32), np.array([0, 1], np.float32)
    index.add(1, east, "personal", "active")
    index.add(2, north, "personal", "active")
    index.add(1, north, "work", "pending")
    assert len(index) == 2
    assert index.search(east, ["personal"], ["active"], 5) == [(2, 0.0)]
    assert index.search(north, ["work"], ["pending"], 5) == [(1, 1.0)]


def test_growth_beyond_the_initial_capacity_keeps_results_right() -> None:
    rng = np.random.default_rng(3)
    dim = 12
    n = 2600  # past 1024 and 2048: two reallocations
    matrix = unit_vectors(rng, n, dim)
    index = VectorIndex("test", dim)
    rows = {}
    for i, vector in enumerate(matrix):
        seq = 5 * i + 1
        scope = SCOPES[i % 2]
        index.add(seq, vector, scope, "active")
        rows[seq] = (vector, scope, "active")
    assert len(index) == n
    assert index.contains(1) and index.contains(5 * (n - 1) + 1)
    for query in unit_vectors(rng, 5, dim):
        got = index.search(query, ["personal"], ["active"], 25)
        assert_exact_top_k(got, reference(rows, query, ["personal"], ["active"]), 25)
    for i in (0, 1023, 1024, 2047, 2048, n - 1):
        seq = 5 * i + 1
        best = index.search(matrix[i], [SCOPES[i % 2]], ["active"], 1)
        assert best[0][0] == seq


# -- ties -----------------------------------------------------------------------------------------


def test_equal_scores_put_the_newer_seq_first() -> None:
    index = VectorIndex("test", 3)
    same = np.array([0.6, 0.8, 0.0], dtype=np.float32)
    for seq in (50, 7, 31, 2, 19):
        index.add(seq, same, "personal", "active")
    index.add(99, np.array([0, 0, 1], dtype=np.float32), "personal", "active")
    got = index.search(same, ["personal"], ["active"], 10)
    assert [seq for seq, _ in got] == [50, 31, 19, 7, 2, 99]
    assert index.search(same, ["personal"], ["active"], 10) == got  # and the same every time


def test_a_cut_through_a_tie_keeps_the_newest_seqs() -> None:
    index = VectorIndex("test", 4)
    same = np.array([1, 0, 0, 0], dtype=np.float32)
    for seq in range(1, 101):  # seqs grow as memories are written: the usual order
        index.add(seq, same, "personal", "active")
    got = index.search(same, ["personal"], ["active"], 3)
    assert [seq for seq, _ in got] == [100, 99, 98]


# -- loading from a vault -------------------------------------------------------------------------


def test_load_round_trips_the_stored_vectors(
    service: MemoryService, vault: Vault, embedder: MiniLMEmbedder
) -> None:
    service.add_scope("work")
    ids = [
        service.write("Note", "Bread recipe", "Flour, water, salt and yeast.").node.id,
        service.write("Person", "Ann", attrs={"occupation": "baker"}).node.id,
        service.write("Note", "Quarterly plan", "Ship the release.", scope="work").node.id,
        service.write("Event", "Trip to Lisbon", attrs={"date": "2024-06-01"}).node.id,
    ]
    service.archive(ids[3], scopes=["personal"])
    space, dim = embedder.identity, embedder.dim

    with vault.read() as conn:
        seq_of = {
            row[0]: row[1]
            for row in conn.execute(
                f"SELECT id, seq FROM nodes WHERE id IN ({','.join('?' * len(ids))})", ids
            )
        }
        stored = {seq: vectors.vector_of(conn, space, seq) for seq in seq_of.values()}
        reader = vault.new_read_only_connection
        index = VectorIndex.load(reader, space, dim)
        assert (
            VectorIndex.load(reader, "another-space", dim).search(
                stored[seq_of[ids[0]]], ["personal"], ["active"], 5
            )
            == []
        )

    assert len(index) == len(ids)
    assert all(
        v is not None and v.shape == (dim,) and v.dtype == np.float32 for v in stored.values()
    )
    everywhere = (["personal", "work"], list(STATUSES))
    for seq, vector in stored.items():
        assert index.contains(seq)
        got = index.search(vector, *everywhere, len(ids))
        assert got[0][0] == seq
        assert got[0][1] == pytest.approx(1.0, abs=TOLERANCE)
        # Every score is the dot product of the stored vectors: the loaded matrix is the stored one.
        for other, score in got:
            assert score == pytest.approx(float(stored[other] @ vector), abs=TOLERANCE)

    # Scopes and statuses came along with the vectors.
    query = stored[seq_of[ids[0]]]
    assert [s for s, _ in index.search(query, ["work"], list(STATUSES), 10)] == [seq_of[ids[2]]]
    assert [s for s, _ in index.search(query, ["personal"], ["archived"], 10)] == [seq_of[ids[3]]]
    active = {s for s, _ in index.search(query, ["personal"], ["active"], 10)}
    assert active == {seq_of[ids[0]], seq_of[ids[1]]}


def test_catch_up_reads_only_what_this_index_has_not_seen(
    vault: Vault, service, embedder, vault_path
) -> None:
    from cairn.app import compose
    from tests.conftest import PASSPHRASE

    service.write("Note", "Own write", "added through after_commit")
    index = service._space.index
    with vault.read() as conn:
        assert index.catch_up(conn) == 0  # own writes are known already
    with compose.open_vault(vault_path, PASSPHRASE, embedder=embedder) as other:
        other.write("Note", "Another program's write", "the index never saw it")
    with vault.read() as conn:
        assert index.catch_up(conn) == 1
        assert index.catch_up(conn) == 0


def test_near_finds_every_near_duplicate_the_exact_search_finds() -> None:
    """``near`` (sign-bit shortlist, then exact cosines) agrees with the exact search on every
    neighbour above the gate's lowest band, among thousands of unrelated vectors."""
    rng = np.random.default_rng(5)
    dim = 384
    index = VectorIndex("test", dim)
    base = unit_vectors(rng, 4000, dim)
    for seq, vector in enumerate(base, start=1):
        index.add(seq, vector, SCOPES[seq % 2], "active")
    # Near copies of the first 50 vectors, from very close to cosine ~0.7.
    queries = []
    for i in range(50):
        noise = unit_vectors(rng, 1, dim)[0] * (0.1 + i * 0.02)
        query = base[i] + noise
        queries.append((query / np.linalg.norm(query)).astype(np.float32))
    for query in queries:
        exact = index.search(query, ["personal", "work"], ["active"], 24)
        fast = index.near(query, ["personal", "work"], ["active"], 24)
        close = [(seq, round(score, 5)) for seq, score in exact if score >= 0.6]
        assert close, "each query has a near copy"
        assert [(seq, round(score, 5)) for seq, score in fast[: len(close)]] == close
    # Scopes and statuses filter as in the exact search.
    index.set_status(1, "archived")
    assert 1 not in [seq for seq, _ in index.near(queries[0], list(SCOPES), ["active"], 5)]
    assert all(seq % 2 == 1 for seq, _ in index.near(queries[1], ["work"], ["active"], 5))


def test_a_large_index_scores_a_shortlist_and_keeps_the_near_neighbours(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Above EXACT_ROWS the search scores a sign-bit shortlist: what it returns is exactly
    scored, in the exact order, and the close neighbours are all there."""
    monkeypatch.setattr(vector_index, "EXACT_ROWS", 500)
    monkeypatch.setattr(vector_index, "SEARCH_SHORTLIST", 200)
    rng = np.random.default_rng(9)
    index = VectorIndex("test", 128)
    base = unit_vectors(rng, 3000, 128)
    rows = {}
    for seq, vector in enumerate(base, start=1):
        index.add(seq, vector, "personal", "active")
        rows[seq] = (vector, "personal", "active")
    for i in range(20):
        query = base[i] + unit_vectors(rng, 1, 128)[0] * 0.6
        query = (query / np.linalg.norm(query)).astype(np.float32)
        found = index.search(query, ["personal"], ["active"], 10)
        exact = reference(rows, query, ["personal"], ["active"])
        assert found[0][0] == exact[0][0] == i + 1
        scores = [score for _, score in found]
        assert scores == sorted(scores, reverse=True)
        exact_score = dict(exact)
        assert all(abs(exact_score[seq] - score) < TOLERANCE for seq, score in found)
