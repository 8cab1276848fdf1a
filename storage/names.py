"""The entity name index: normalised names and their trigrams, kept beside the nodes.

The app decides what a name normalises to and which grams it has (``cairn.app.resolver``); this
module stores them and answers two lookups, both by index and never by a scan, so the cost of
resolving a name stays flat as the vault grows:

- ``exact``: entities that carry a given normalised name;
- ``sharing_grams``: entities that share the rarest of a name's trigrams. Rare grams are the
  ones that tell names apart, and their lists are short; each list read is capped as well, so a
  name made only of common grams costs no more than any other (it may miss a far spelling,
  never an exact one).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

# How many of a name's grams are probed (the rarest), how much of each list is read, and how
# many candidates go on to be compared in full.
PROBED_GRAMS = 4
POSTINGS_PER_GRAM = 250
MAX_CANDIDATES = 16


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


def replace(conn: Any, seq: int, names: Iterable[tuple[str, str]], grams: Iterable[str]) -> None:
    """Set node ``seq``'s names (norm, kind) and grams, replacing any it had."""
    conn.execute("DELETE FROM entity_names WHERE node_seq = ?", (seq,))
    conn.execute("DELETE FROM name_grams WHERE node_seq = ?", (seq,))
    conn.executemany(
        "INSERT OR IGNORE INTO entity_names(norm, node_seq, kind) VALUES (?, ?, ?)",
        [(norm, seq, kind) for norm, kind in names],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO name_grams(gram, node_seq) VALUES (?, ?)",
        [(gram, seq) for gram in sorted(set(grams))],
    )


def exact(conn: Any, norms: Sequence[str], scopes: Sequence[str]) -> list[dict[str, Any]]:
    """Entities in ``scopes`` carrying one of ``norms``: rows of node fields plus norm, kind."""
    if not norms or not scopes:
        return []
    return _named(conn, "e.norm", norms, scopes)


def _named(
    conn: Any, column: str, keys: Sequence[Any], scopes: Sequence[str]
) -> list[dict[str, Any]]:
    """Name rows with their node's fields, where ``column`` is one of ``keys``."""
    return [
        dict(row)
        for row in conn.execute(
            f"SELECT n.seq, n.id, n.type, n.title, n.status, n.scope, e.norm, e.kind "
            f"FROM entity_names AS e JOIN nodes AS n ON n.seq = e.node_seq "
            f"WHERE {column} IN ({_marks(keys)}) AND +n.scope IN ({_marks(scopes)}) "
            f"ORDER BY e.node_seq, e.kind, e.norm",
            (*keys, *scopes),
        )
    ]


def sharing_grams(conn: Any, grams: Sequence[str], scopes: Sequence[str]) -> list[int]:
    """Seqs of entities in ``scopes`` sharing the most of the rarest of ``grams``, most
    shared first. Scopes are applied inside each gram's capped list, so entities of other
    scopes never use up the cap."""
    if not grams or not scopes:
        return []
    counts = dict(
        conn.execute(
            f"SELECT gram, n FROM name_gram_counts WHERE gram IN ({_marks(grams)}) AND n > 0",
            tuple(grams),
        ).fetchall()
    )
    rarest = sorted(counts, key=lambda gram: (counts[gram], gram))[:PROBED_GRAMS]
    if not rarest:
        return []
    # One statement: each probed gram's list (capped), counted per entity inside SQLite. Most
    # grams shared first; newer entities first among equals (a total order).
    lists = " UNION ALL ".join(
        f"SELECT * FROM (SELECT g.node_seq FROM name_grams AS g JOIN nodes AS n "
        f"ON n.seq = g.node_seq WHERE g.gram = ? AND n.scope IN ({_marks(scopes)}) "
        f"ORDER BY g.node_seq DESC LIMIT ?)"
        for _ in rarest
    )
    params = [value for gram in rarest for value in (gram, *scopes, POSTINGS_PER_GRAM)]
    return [
        row[0]
        for row in conn.execute(
            f"SELECT node_seq FROM ({lists}) GROUP BY node_seq "
            f"ORDER BY count(*) DESC, node_seq DESC LIMIT ?",
            (*params, MAX_CANDIDATES),
        )
    ]


def names_of(
    conn: Any, seqs: Sequence[int], scopes: Sequence[str]
) -> dict[int, list[dict[str, Any]]]:
    """Each entity's names with its node fields, for the visible ones among ``seqs``."""
    if not seqs or not scopes:
        return {}
    found: dict[int, list[dict[str, Any]]] = {}
    for row in _named(conn, "e.node_seq", seqs, scopes):
        found.setdefault(row["seq"], []).append(row)
    return found
