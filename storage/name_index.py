"""The entity name index: normalised names and their one-slip variants, kept beside the nodes.

The app decides what a name normalises to and which variants it has (``cairn.app.dedup.resolver``);
this module stores them and answers two lookups, both by key and never by a scan, so the cost
of resolving a name stays flat as the vault grows:

- ``exact``: entities that carry a given normalised name (or initials, or sorted words);
- ``sharing_variants``: entities one typing slip away, found through shared variant keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

from cairn.storage.connection import Connection, placeholders
from cairn.storage.rows import NameRow

# How many candidates a lookup passes on to be compared in full: a name one slip away from
# more entities than this is too common to tell apart by spelling anyway.
MAX_CANDIDATES = 24


def replace(
    conn: Connection,
    seq: int,
    scope: str,
    names: Iterable[tuple[str, str]],
    variants: Iterable[str],
) -> None:
    """Set node ``seq``'s names (norm, kind) and variant keys, replacing any it had."""
    conn.execute("DELETE FROM entity_names WHERE node_seq = ?", (seq,))
    conn.execute("DELETE FROM name_variants WHERE node_seq = ?", (seq,))
    conn.executemany(
        "INSERT OR IGNORE INTO entity_names(norm, node_seq, kind) VALUES (?, ?, ?)",
        [(norm, seq, kind) for norm, kind in names],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO name_variants(key, scope, node_seq) VALUES (?, ?, ?)",
        [(key, scope, seq) for key in sorted(set(variants))],
    )


def exact(conn: Connection, norms: Sequence[str], scopes: Sequence[str]) -> list[NameRow]:
    """Entities in ``scopes`` carrying one of ``norms``: rows of node fields plus norm, kind."""
    if not norms or not scopes:
        return []
    return _named(conn, "e.norm", norms, scopes)


def _named(
    conn: Connection, column: str, keys: Sequence[Any], scopes: Sequence[str]
) -> list[NameRow]:
    """Name rows with their node's fields, where ``column`` is one of ``keys``."""
    return [
        cast(NameRow, dict(row))
        for row in conn.execute(
            f"SELECT n.seq, n.id, n.type, n.title, n.status, n.scope, e.norm, e.kind "
            f"FROM entity_names AS e JOIN nodes AS n ON n.seq = e.node_seq "
            f"WHERE {column} IN ({placeholders(keys)}) AND +n.scope IN ({placeholders(scopes)}) "
            f"ORDER BY e.node_seq, e.kind, e.norm",
            (*keys, *scopes),
        )
    ]


def sharing_variants(conn: Connection, keys: Sequence[str], scopes: Sequence[str]) -> list[int]:
    """Seqs of entities in ``scopes`` with a variant key among ``keys``, sharing the most keys
    first, newer first among equals (a total order)."""
    if not keys or not scopes:
        return []
    return [
        row[0]
        for row in conn.execute(
            f"SELECT node_seq FROM name_variants WHERE key IN ({placeholders(keys)}) "
            f"AND scope IN ({placeholders(scopes)}) GROUP BY node_seq "
            f"ORDER BY count(*) DESC, node_seq DESC LIMIT ?",
            (*keys, *scopes, MAX_CANDIDATES),
        )
    ]


def names_of(
    conn: Connection, seqs: Sequence[int], scopes: Sequence[str]
) -> dict[int, list[NameRow]]:
    """Each entity's names with its node fields, for the visible ones among ``seqs``."""
    if not seqs or not scopes:
        return {}
    found: dict[int, list[NameRow]] = {}
    for row in _named(conn, "e.node_seq", seqs, scopes):
        found.setdefault(row["seq"], []).append(row)
    return found


def mentionable(conn: Connection, scopes: Sequence[str]) -> list[tuple[str, str, str]]:
    """(norm, node id, type) of every title and alias of a live entity in ``scopes``: what the
    ingest pipeline looks for in passages. One pass over the name index."""
    if not scopes:
        return []
    return [
        (row[0], row[1], row[2])
        for row in conn.execute(
            f"SELECT e.norm, n.id, n.type FROM entity_names AS e "
            f"JOIN nodes AS n ON n.seq = e.node_seq "
            f"WHERE e.kind IN ('title', 'alias') AND n.status IN ('active', 'stub') "
            f"AND n.scope IN ({placeholders(scopes)}) ORDER BY e.norm, n.seq",
            tuple(scopes),
        )
    ]
