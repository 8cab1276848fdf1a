"""Planning the text leg: common words are left out once rare ones bring enough candidates,
so BM25's cost stays flat as the vault grows (storage/fulltext.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cairn.app.clock import new_id, now_iso
from cairn.app.service import MemoryService
from cairn.storage import fulltext, graph_rows, shelf_rows
from cairn.storage.vault import Vault

ALL = ["personal"]


@pytest.fixture
def vault_with_common_words(service: MemoryService, vault: Vault) -> MemoryService:
    with vault.write():  # one transaction: a savepoint per write, one fsync
        for i in range(40):
            service.write("Note", f"Weekly report {i}", "Ordinary weekly report text.", dedup=False)
        service.write("Note", "Quarterly audit", "The weekly report found an audit issue.")
    return service


def test_rare_words_are_kept_common_ones_dropped(
    vault_with_common_words: MemoryService, vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fulltext, "POSTINGS_BUDGET", 10)
    with vault.read() as conn:
        planned = fulltext.plan(conn, "weekly audit ")
    assert planned == fulltext.TextQuery('"audit"', ranked=True)


def test_stopwords_are_left_out_unless_there_is_nothing_else(
    service: MemoryService, vault: Vault
) -> None:
    service.write("Note", "To be or not to be", "The question.")
    with vault.read() as conn:
        assert fulltext.plan(conn, "the question ") == fulltext.TextQuery('"question"', True)
        only_stopwords = fulltext.plan(conn, "to be or not ")
    assert only_stopwords is not None and '"be"' in only_stopwords.expression


def test_a_word_too_common_to_rank_lists_the_newest_matches(
    vault_with_common_words: MemoryService, vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fulltext, "POSTINGS_BUDGET", 10)
    with vault.read() as conn:
        planned = fulltext.plan(conn, "report ")
        assert planned == fulltext.TextQuery('"report"', ranked=False)
        seqs = fulltext.search(conn, planned, ALL, ("active",), 5)
        newest = conn.execute("SELECT max(seq) FROM nodes").fetchone()[0]
    assert seqs == list(range(newest, newest - 5, -1))


def test_the_last_word_is_a_prefix_while_typing(service: MemoryService, vault: Vault) -> None:
    service.write("Note", "Strawberry jam", "Boil with sugar.")
    with vault.read() as conn:
        assert fulltext.plan(conn, "straw") == fulltext.TextQuery('"straw"*', True)
        assert fulltext.plan(conn, "straw ") == fulltext.TextQuery('"straw"', True)
    assert [h.title for h in service.search("strawb", scopes=ALL).results][:1] == ["Strawberry jam"]


def test_counts_are_remembered_until_the_vault_grows(service: MemoryService, vault: Vault) -> None:
    counts = fulltext.DocumentCounts()
    service.write("Note", "Lantern", "A lantern by the door.")
    with vault.read() as conn:
        assert counts.get(conn, "lantern", False, vault_size=10) == 1
    service.write("Note", "Second lantern", "Another lantern.")
    with vault.read() as conn:
        assert counts.get(conn, "lantern", False, vault_size=10) == 1  # remembered
        assert counts.get(conn, "lantern", False, vault_size=12) == 2  # grew by a tenth


def _fill(vault: Vault, count: int) -> list[str]:
    """``count`` memories written straight as rows (the search path only reads them)."""
    at = now_iso()
    ids = []
    with vault.write() as conn:
        for number in range(count):
            node_id = new_id()
            graph_rows.insert_node(
                conn,
                {"id": node_id, "type": "Note", "title": f"Note {number}", "body": "text",
                 "scope": "personal", "recorded_at": at, "updated_at": at},
            )  # fmt: skip
            ids.append(node_id)
    return ids


def _steps(conn: Any, call: Callable[[], object]) -> int:
    """SQLite's virtual-machine steps (in hundreds) that ``call`` takes: a cost a busy machine
    does not blur."""
    count = [0]

    def step() -> int:
        count[0] += 1
        return 0

    conn.set_progress_handler(step, 100)
    try:
        call()
    finally:
        conn.set_progress_handler(None, 0)
    return count[0]


def test_a_hits_attributes_cost_the_same_in_a_vault_ten_times_larger(
    service: MemoryService, vault: Vault
) -> None:
    """Every search reads its hits' attributes (their shelf, what their snippet leaves out):
    looked up by id, not by walking the scope."""
    first = _fill(vault, 300)
    with vault.read() as conn:
        small = _steps(conn, lambda: shelf_rows.attrs_of(conn, first[:10], ALL))
    _fill(vault, 2_700)
    with vault.read() as conn:
        found = shelf_rows.attrs_of(conn, first[:10], ALL)
        large = _steps(conn, lambda: shelf_rows.attrs_of(conn, first[:10], ALL))
    assert set(found) == set(first[:10])
    assert large <= 2 * small + 2, (small, large)
