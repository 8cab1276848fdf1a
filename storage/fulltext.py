"""The FTS5 full-text index: one row per node (rowid = nodes.seq), ranked with BM25.

BM25 costs time in proportion to the number of memories that contain the query's words, and a
word found in thousands of memories ("the", "of", "results") adds almost nothing to the ranking
(its inverse document frequency is near zero). So a query is planned first: its words are
weighed by how many memories contain them, and the commonest are
left out once the rarer ones already bring enough candidates (counted from each word's
document list). This keeps the text leg's cost
flat as a vault grows. A query made only of very common words lists the newest memories that
contain its rarest word; ranking among thousands of equal matches would be noise anyway.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from cairn.storage.connection import Connection, placeholders

# Snippet markers: control characters that never occur in text, turned into spans by app.
HIGHLIGHT_START = "\x02"
HIGHLIGHT_END = "\x03"
SNIPPET_TOKENS = 24
# How many matching memories BM25 may score per query: bounds the cost at any vault size.
POSTINGS_BUDGET = 2_000
# The text leg ranks this many times its limit in FTS5 before filtering by scope and status.
RANK_DEPTH_FACTOR = 4
MAX_RANK_DEPTH = 50_000
# A word still being typed matches as a prefix once it has this many characters.
MIN_PREFIX = 3

_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class TextQuery:
    expression: str  # FTS5 MATCH expression
    ranked: bool  # False: too common to rank, newest matches first
    # The quoted words of the expression, each a MATCH of its own: how it was built, not what it
    # asks, so two plans of the same expression are equal.
    terms: tuple[str, ...] = field(default=(), compare=False)


def match_expression(query: str, *, prefix_last: bool = True) -> str | None:
    """An FTS5 MATCH expression for free text: any of the words, the last one also as a prefix.

    Words are quoted, so FTS5 operators typed by a user (AND, NEAR, ``*``, quotes) are taken as
    words and can never make the query fail. OR semantics let BM25 rank partial matches.
    """
    terms = _terms(query, prefix_last=prefix_last)
    return " OR ".join(_quoted(term, prefix) for term, prefix in terms) if terms else None


def _terms(query: str, *, prefix_last: bool) -> list[tuple[str, bool]]:
    words = [word.lower() for word in _WORD.findall(query)]
    if not words:
        return []
    last = words[-1]  # the word being typed: it is the one matched as a prefix
    terms = [(word, False) for word in dict.fromkeys(words) if word != last]
    terms.append((last, prefix_last and len(last) >= MIN_PREFIX))
    return terms


def _quoted(term: str, prefix: bool) -> str:
    return f'"{term}"*' if prefix else f'"{term}"'


# English function words: in nearly every memory, so never worth even counting unless a query
# has nothing else.
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in into
    is it its itself just me more most my myself no nor not now of off on once only or other our
    ours ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself""".split()  # noqa: SIM905 (a word list reads better as text)
)


class DocumentCounts:
    """How many memories contain each query word, remembered between searches.

    Search-as-you-type asks for the same words keystroke after keystroke; counting a common
    word reads its whole document list. Planning needs only the order of magnitude, so a count
    is reused until the vault has grown by a tenth since it was taken.
    """

    MAX_TERMS = 20_000
    REFRESH_GROWTH = 1.1

    def __init__(self) -> None:
        self._counts: OrderedDict[tuple[str, bool], tuple[int, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, conn: Connection, term: str, prefix: bool, vault_size: int) -> int:
        key = (term, prefix)
        with self._lock:
            cached = self._counts.get(key)
            if cached is not None and vault_size <= cached[1] * self.REFRESH_GROWTH:
                self._counts.move_to_end(key)
                return cached[0]
        # Counting reads only the word's document list, which is cheap next to ranking
        # (BM25 looks up the length of every matching memory), and stops past the budget: a
        # word in more memories than that is too common to rank by, however many it is in.
        count = int(
            conn.execute(
                "SELECT count(*) FROM (SELECT rowid FROM search_index WHERE search_index "
                "MATCH ? LIMIT ?)",
                (_quoted(term, prefix), POSTINGS_BUDGET + 1),
            ).fetchone()[0]
        )
        with self._lock:
            self._counts[key] = (count, max(vault_size, 1))
            self._counts.move_to_end(key)
            while len(self._counts) > self.MAX_TERMS:
                self._counts.popitem(last=False)
        return count


def plan(conn: Connection, query: str, counts: DocumentCounts | None = None) -> TextQuery | None:
    """The words worth matching, rarest first, within the postings budget."""
    terms = _terms(query, prefix_last=not query[-1:].isspace())
    if not terms:
        return None
    terms = [t for t in terms if t[0] not in STOPWORDS] or terms
    counts = counts or DocumentCounts()
    vault_size = int(conn.execute("SELECT coalesce(max(seq), 0) FROM nodes").fetchone()[0])
    counted = sorted(
        ((counts.get(conn, term, prefix, vault_size), term, prefix) for term, prefix in terms),
        key=lambda item: (item[0], item[1]),
    )
    chosen: list[str] = []
    total = 0
    for count, term, prefix in counted:
        if chosen and total + count > POSTINGS_BUDGET:
            break
        chosen.append(_quoted(term, prefix))
        total += count
    return TextQuery(" OR ".join(chosen), ranked=total <= POSTINGS_BUDGET, terms=tuple(chosen))


def index(conn: Connection, seq: int, text: str) -> None:
    """Put (or replace) the searchable text of node ``seq``."""
    conn.execute("DELETE FROM search_index WHERE rowid = ?", (seq,))
    conn.execute("INSERT INTO search_index(rowid, text) VALUES (?, ?)", (seq, text))


def search(
    conn: Connection,
    query: TextQuery | str,
    scopes: Sequence[str],
    statuses: Sequence[str],
    limit: int,
) -> list[int]:
    """Node seqs best first (BM25, then newer first: a total order)."""
    return [seq for seq, _ in search_scored(conn, query, scopes, statuses, limit)]


def search_scored(
    conn: Connection,
    query: TextQuery | str,
    scopes: Sequence[str],
    statuses: Sequence[str],
    limit: int,
) -> list[tuple[int, float]]:
    """Node seqs best first, each with its BM25 score (higher is better; 0.0 for all when the
    query is too common to rank, newest first)."""
    if isinstance(query, str):
        query = TextQuery(query, ranked=True)
    if not scopes or not statuses:
        return []
    scope_marks = placeholders(scopes)
    status_marks = placeholders(statuses)
    inner_order = "rank, rowid DESC" if query.ranked else "rowid DESC"
    outer_order = "f.rank, n.seq DESC" if query.ranked else "n.seq DESC"
    score = "-f.rank" if query.ranked else "0.0"
    # Rank inside FTS5 first and join only the best: joining every match to nodes to filter
    # by scope before ranking costs a row lookup per match. If the filter leaves too few, look
    # deeper, until the matches run out.
    depth = limit * RANK_DEPTH_FACTOR
    while True:
        rows = conn.execute(
            f"SELECT n.seq, {score} FROM (SELECT rowid, rank FROM search_index WHERE "
            f"search_index MATCH ? ORDER BY {inner_order} LIMIT ?) AS f "
            f"JOIN nodes AS n ON n.seq = f.rowid "
            f"WHERE +n.scope IN ({scope_marks}) AND +n.status IN ({status_marks}) "
            f"ORDER BY {outer_order} LIMIT ?",
            (query.expression, depth, *scopes, *statuses, limit),
        ).fetchall()
        if len(rows) >= limit or depth >= MAX_RANK_DEPTH:
            return [(row[0], float(row[1])) for row in rows]
        matched = conn.execute(
            "SELECT count(*) FROM search_index WHERE search_index MATCH ?", (query.expression,)
        ).fetchone()[0]
        if matched <= depth:
            return [(row[0], float(row[1])) for row in rows]
        depth *= 8


def snippets(conn: Connection, expression: str, seqs: Sequence[int]) -> dict[int, str]:
    """Best matching fragment of each node's text, matches wrapped in the highlight markers."""
    if not seqs:
        return {}
    marks = placeholders(seqs)
    # +rowid: walk the expression's matches once and keep the wanted rows. Handed to FTS5 as
    # a rowid constraint, the IN list becomes one lookup per row, each reading the words'
    # whole document lists again (2.3 ms for ten hits at 100k, against 0.9).
    rows = conn.execute(
        f"SELECT rowid, snippet(search_index, 0, ?, ?, '…', ?) FROM search_index "
        f"WHERE search_index MATCH ? AND +rowid IN ({marks})",
        (HIGHLIGHT_START, HIGHLIGHT_END, SNIPPET_TOKENS, expression, *seqs),
    )
    return {row[0]: row[1] for row in rows}


def scores_of(conn: Connection, query: TextQuery, seqs: Sequence[int]) -> dict[int, float]:
    """The BM25 score (higher is better) of each of ``seqs`` that matches ``query``, as
    ``search_scored`` would give it: a memory that matches none of its words has none. Empty
    for a query too common to rank. The plan keeps the matches within ``POSTINGS_BUDGET``, so
    this costs about what the search did, whatever the vault's size."""
    if not seqs or not query.ranked:
        return {}
    rows = conn.execute(
        f"SELECT rowid, -rank FROM search_index WHERE search_index MATCH ? "
        f"AND +rowid IN ({placeholders(seqs)})",
        (query.expression, *seqs),
    )
    return {row[0]: float(row[1]) for row in rows}


def word_shares(conn: Connection, query: TextQuery, seqs: Sequence[int]) -> dict[int, float]:
    """The share of ``query``'s words each of ``seqs`` holds (those holding none are left
    out). Empty for a query too common to rank: its words are in too many memories to say
    much, and matching each would cost what planning saved."""
    if not seqs or not query.ranked or not query.terms:
        return {}
    held: dict[int, int] = {}
    for term in query.terms:
        rows = conn.execute(
            f"SELECT rowid FROM search_index WHERE search_index MATCH ? "
            f"AND +rowid IN ({placeholders(seqs)})",
            (term, *seqs),
        )
        for (seq,) in rows:
            held[seq] = held.get(seq, 0) + 1
    return {seq: count / len(query.terms) for seq, count in held.items()}


def covering(conn: Connection, query: TextQuery, seqs: Sequence[int]) -> list[int]:
    """Which of ``seqs`` hold every word ``query`` matches by, not just one of them."""
    if not seqs or not query.terms:
        return []
    rows = conn.execute(
        f"SELECT rowid FROM search_index WHERE search_index MATCH ? "
        f"AND +rowid IN ({placeholders(seqs)})",
        (" AND ".join(query.terms), *seqs),
    )
    return [row[0] for row in rows]


def indexed_text(conn: Connection, seq: int) -> str | None:
    row = conn.execute("SELECT text FROM search_index WHERE rowid = ?", (seq,)).fetchone()
    return None if row is None else str(row[0])


def indexed_count(conn: Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM search_index").fetchone()[0])
