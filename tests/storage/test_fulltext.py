"""Full-text search on a real vault: free text always becomes a valid FTS5 query, typed FTS5
syntax is taken as words, matching ignores diacritics, and snippets mark what matched."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.storage import fulltext
from cairn.storage.fulltext import HIGHLIGHT_END, HIGHLIGHT_START, match_expression
from tests.conftest import Opened, create_service

SCOPES = ["personal"]
STATUSES = ["active"]

MEMORIES = [
    ("Note", "Le café de Flore", "We met at the café on Boulevard Saint-Germain."),
    ("Note", "Tea with Zoë", "Zoë prefers green tea AND oat milk; NEAR the river."),
    ("Person", "Ann Example", "Nurse at the hospital."),
    ("Note", "Résumé", "Update the résumé before Friday (text: draft 3)."),
    ("Note", "Straße und Übung", "Notizen zur Übung über die Straße."),
]


def _write_memories(svc: Opened) -> dict[str, int]:
    """Writes MEMORIES; returns each title's seq."""
    ids = {title: svc.service.write(t, title, body).node.id for t, title, body in MEMORIES}
    with svc.vault.read() as conn:
        return {
            title: conn.execute("SELECT seq FROM nodes WHERE id = ?", (node_id,)).fetchone()[0]
            for title, node_id in ids.items()
        }


@pytest.fixture(scope="module")
def fts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Opened, dict[str, int]]]:
    """One vault for the read-only tests of this module (nothing here writes to it)."""
    path = tmp_path_factory.mktemp("fts") / "fts.cairn"
    with create_service(path, None) as svc:
        yield svc, _write_memories(svc)


def _search(svc: Opened, query: str, limit: int = 10) -> list[int]:
    expression = match_expression(query)
    if expression is None:
        return []
    with svc.vault.read() as conn:
        return fulltext.search(conn, expression, SCOPES, STATUSES, limit)


def _snippets(svc: Opened, query: str, seqs: list[int]) -> dict[int, str]:
    expression = match_expression(query)
    assert expression is not None
    with svc.vault.read() as conn:
        return fulltext.snippets(conn, expression, seqs)


# -- any text is a valid query ------------------------------------------------------------------


def test_any_text_is_a_valid_query(vault_path: Path) -> None:
    with create_service(vault_path, None) as svc:
        seqs = _write_memories(svc)
        with svc.vault.read() as conn:

            @settings(max_examples=300, deadline=None)
            @given(st.text())
            def check(text: str) -> None:
                expression = match_expression(text)
                if expression is None:
                    assert not any(ch.isalnum() or ch == "_" for ch in text)
                    return
                found = fulltext.search(conn, expression, SCOPES, STATUSES, 50)
                assert set(found) <= set(seqs.values())
                assert fulltext.snippets(conn, expression, found).keys() == set(found)
                unprefixed = match_expression(text, prefix_last=False)
                assert unprefixed is not None
                fulltext.search(conn, unprefixed, SCOPES, STATUSES, 50)

            check()


def test_words_are_found_whatever_surrounds_them(
    fts: tuple[Opened, dict[str, int]],
) -> None:
    svc, seqs = fts

    @settings(max_examples=100, deadline=None)
    @given(st.text(alphabet=st.characters(blacklist_categories=["L", "N"]), max_size=8))
    def check(noise: str) -> None:
        assert seqs["Ann Example"] in _search(svc, f"{noise}nurse{noise}")

    check()


# -- FTS5 syntax typed by a person --------------------------------------------------------------

TYPED = [
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "tea AND milk",
    "tea OR",
    "NOT tea",
    "AND OR NOT",
    "NEAR(tea milk, 2)",
    "NEAR(",
    '"',
    '"unterminated phrase',
    '"green tea"',
    '""',
    "*",
    "tea*",
    "*tea",
    "te*a",
    "(",
    ")",
    "(tea",
    "tea)",
    "((tea OR milk) AND",
    "text:",
    "text:café",
    "title:café",
    "{text}: tea",
    "-tea",
    "+tea",
    "^tea",
    "tea^",
    ":",
    "'",
    "tea's",
    "Zoë's café",
    "a:b:c",
    "rowid = 1",
    "search_index MATCH 'x'",
    "tea; DROP TABLE nodes; --",
    "\x00tea",
    "\x02tea\x03",
    "🙂 tea",
    "ÉCOLE",
    "_",
    "__init__",
    "x" * 2000,
    " ".join(["tea"] * 300),
]


@pytest.mark.parametrize("query", TYPED)
def test_typed_fts_syntax_never_raises(fts: tuple[Opened, dict[str, int]], query: str) -> None:
    svc, seqs = fts
    found = _search(svc, query)
    assert set(found) <= set(seqs.values())
    response = svc.service.search(query, scopes=SCOPES)  # the whole path a person's query takes
    assert {hit.id for hit in response.results} <= {
        row.node.id for row in svc.service.get(_all_ids(svc), scopes=SCOPES).nodes
    }


def _all_ids(svc: Opened) -> list[str]:
    with svc.vault.read() as conn:
        return [row[0] for row in conn.execute("SELECT id FROM nodes")]


def test_operators_are_words_not_syntax(fts: tuple[Opened, dict[str, int]]) -> None:
    svc, seqs = fts
    # As FTS5 syntax "tea NOT milk" would exclude the note that has both; as words it finds it.
    assert seqs["Tea with Zoë"] in _search(svc, "tea NOT milk")
    # "AND" and "NEAR" appear as words in that note's body.
    assert _search(svc, "AND") == [seqs["Tea with Zoë"]]
    assert _search(svc, "NEAR") == [seqs["Tea with Zoë"]]
    # A column filter is a word too: "text" occurs only in the résumé note.
    assert _search(svc, "text:zzzz") == [seqs["Résumé"]]


def test_match_expression_quotes_dedupes_and_prefixes_the_last_word() -> None:
    assert match_expression("") is None
    assert match_expression("  ?! -- ") is None
    assert match_expression('Tea "AND" tea milk') == '"tea" OR "and" OR "milk"*'
    assert match_expression("tea milk", prefix_last=False) == '"tea" OR "milk"'
    assert match_expression("tea m") == '"tea" OR "m"'  # a one-letter prefix would match too much
    assert match_expression("NEAR(x*)") == '"near" OR "x"'


def test_a_repeated_last_word_does_not_move_the_prefix() -> None:
    # A one-letter prefix matches far too much; the code means to never make one.
    assert '"m"*' not in (match_expression("tea m tea") or "")
    # "tea" was not the last word typed, so it is not the one to complete.
    assert '"tea"*' not in (match_expression("milk tea milk") or "")


def test_the_last_word_matches_as_a_prefix(fts: tuple[Opened, dict[str, int]]) -> None:
    svc, seqs = fts
    assert _search(svc, "hosp") == [seqs["Ann Example"]]
    assert _search(svc, "hosp nothing") == []


# -- diacritics and case --------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["cafe", "café", "CAFE", "Café", "CAFÉ", "cafe\u0301"])
def test_matching_ignores_diacritics_and_case(
    fts: tuple[Opened, dict[str, int]], query: str
) -> None:
    svc, seqs = fts
    assert _search(svc, query) == [seqs["Le café de Flore"]]


def test_diacritics_in_the_query_match_plain_text(
    fts: tuple[Opened, dict[str, int]],
) -> None:
    svc, seqs = fts
    assert _search(svc, "resume") == [seqs["Résumé"]]
    assert _search(svc, "zoe") == [seqs["Tea with Zoë"]]
    assert _search(svc, "übung") == _search(svc, "ubung") == [seqs["Straße und Übung"]]
    assert _search(svc, "Strasse") == []  # ß is a letter of its own, not "ss"


# -- snippets -------------------------------------------------------------------------------------


def test_snippets_mark_the_matched_word(fts: tuple[Opened, dict[str, int]]) -> None:
    svc, seqs = fts
    seq = seqs["Le café de Flore"]
    snippet = _snippets(svc, "cafe", [seq])[seq]
    # The marker wraps the word as written (with its accent), once per occurrence.
    assert f"{HIGHLIGHT_START}café{HIGHLIGHT_END}" in snippet
    assert snippet.count(HIGHLIGHT_START) == snippet.count(HIGHLIGHT_END) == 2
    for marked in snippet.split(HIGHLIGHT_START)[1:]:
        assert marked.split(HIGHLIGHT_END)[0].lower() == "café"
    assert "Flore" in snippet


def test_snippets_mark_every_matched_word_and_only_those(
    fts: tuple[Opened, dict[str, int]],
) -> None:
    svc, seqs = fts
    seq = seqs["Tea with Zoë"]
    snippet = _snippets(svc, "zoe milk", [seq])[seq]
    marked = [part.split(HIGHLIGHT_END)[0] for part in snippet.split(HIGHLIGHT_START)[1:]]
    assert sorted(marked) == ["Zoë", "Zoë", "milk"]
    assert "tea" in snippet and f"{HIGHLIGHT_START}tea" not in snippet


def test_snippets_only_for_asked_and_matching_rows(
    fts: tuple[Opened, dict[str, int]],
) -> None:
    svc, seqs = fts
    asked = [seqs["Le café de Flore"], seqs["Ann Example"]]
    assert set(_snippets(svc, "cafe", asked)) == {seqs["Le café de Flore"]}
    assert _snippets(svc, "cafe", []) == {}


def test_a_long_text_gets_a_short_snippet_around_the_match(vault_path: Path) -> None:
    with create_service(vault_path, None) as svc:
        filler = " ".join(f"word{i}" for i in range(400))
        node_id = svc.service.write("Note", "Long", f"{filler} needle {filler}").node.id
        with svc.vault.read() as conn:
            seq = conn.execute("SELECT seq FROM nodes WHERE id = ?", (node_id,)).fetchone()[0]
        snippet = _snippets(svc, "needle", [seq])[seq]
        assert f"{HIGHLIGHT_START}needle{HIGHLIGHT_END}" in snippet
        assert len(snippet.split()) <= fulltext.SNIPPET_TOKENS + 2
        assert snippet.startswith("…") and snippet.endswith("…")


def test_scores_of_gives_the_asked_memories_their_search_scores(
    fts: tuple[Opened, dict[str, int]],
) -> None:
    svc, seqs = fts
    with svc.vault.read() as conn:
        query = fulltext.plan(conn, "green tea at the café")
        assert query is not None and query.ranked
        ranked = dict(fulltext.search_scored(conn, query, SCOPES, STATUSES, 10))
        scored = fulltext.scores_of(conn, query, list(seqs.values()))
        common = fulltext.TextQuery(query.expression, ranked=False, terms=query.terms)
        unranked = fulltext.scores_of(conn, common, list(seqs.values()))
    # The two that match hold the same scores as in the search; the rest match no word.
    assert set(scored) == {seqs["Tea with Zoë"], seqs["Le café de Flore"]} == set(ranked)
    for seq, score in scored.items():
        assert score == pytest.approx(ranked[seq])
    assert unranked == {}  # a query too common to rank ranks nothing


def test_word_shares_count_the_query_words_each_memory_holds(
    fts: tuple[Opened, dict[str, int]],
) -> None:
    svc, seqs = fts
    with svc.vault.read() as conn:
        query = fulltext.plan(conn, "green tea and the river ")
        assert query is not None and len(query.terms) == 3  # "and", "the" are not asked by
        shares = fulltext.word_shares(conn, query, list(seqs.values()))
        common = fulltext.TextQuery(query.expression, ranked=False, terms=query.terms)
        assert fulltext.word_shares(conn, common, list(seqs.values())) == {}
    assert shares == {seqs["Tea with Zoë"]: 1.0}
    with svc.vault.read() as conn:
        query = fulltext.plan(conn, "tea at the café ")
        assert query is not None
        shares = fulltext.word_shares(conn, query, list(seqs.values()))
    assert shares == {seqs["Tea with Zoë"]: 0.5, seqs["Le café de Flore"]: 0.5}


# -- the index follows the nodes ------------------------------------------------------------------


def test_scope_and_status_filters_apply(vault_path: Path) -> None:
    with create_service(vault_path, None) as svc:
        svc.service.add_scope("work")
        mine = svc.service.write("Note", "Lighthouse visit").node.id
        theirs = svc.service.write("Note", "Lighthouse budget", scope="work").node.id
        svc.service.archive(mine, scopes=["personal"])
        expression = match_expression("lighthouse")
        assert expression is not None
        with svc.vault.read() as conn:
            seq_of = dict(
                conn.execute(
                    "SELECT id, seq FROM nodes WHERE id IN (?, ?)", (mine, theirs)
                ).fetchall()
            )

            def find(scopes: list[str], statuses: list[str]) -> list[Any]:
                return fulltext.search(conn, expression, scopes, statuses, 10)

            assert find(["personal"], ["active"]) == []
            assert find(["personal"], ["archived"]) == [seq_of[mine]]
            assert find(["work"], ["active"]) == [seq_of[theirs]]
            assert find([], ["active"]) == []
            assert find(["work"], []) == []
            assert set(find(["personal", "work"], ["active", "archived"])) == set(seq_of.values())


def test_index_replaces_and_deleting_a_node_leaves_the_index(vault_path: Path) -> None:
    with create_service(vault_path, None) as svc:
        node_id = svc.service.write("Note", "Old words").node.id
        with svc.vault.write() as conn:
            seq = conn.execute("SELECT seq FROM nodes WHERE id = ?", (node_id,)).fetchone()[0]
            fulltext.index(conn, seq, "New words entirely")
            assert fulltext.indexed_text(conn, seq) == "New words entirely"
            assert fulltext.indexed_count(conn) == 1
        assert _search(svc, "old") == []
        assert _search(svc, "entirely") == [seq]
        with svc.vault.write() as conn:
            conn.execute("DELETE FROM nodes WHERE id = ?", (node_id,))
            assert fulltext.indexed_text(conn, seq) is None
            assert fulltext.indexed_count(conn) == 0
        assert _search(svc, "entirely") == []
