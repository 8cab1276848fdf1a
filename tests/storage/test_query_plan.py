"""Planning the text leg: common words are left out once rare ones bring enough candidates,
so BM25's cost stays flat as the vault grows (storage/fulltext.py)."""

from __future__ import annotations

import pytest

from cairn.app.service import MemoryService
from cairn.storage import fulltext
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
