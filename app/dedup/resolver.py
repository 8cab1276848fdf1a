"""The entity resolver: is this name someone (or something) the vault already knows?

Pure, deterministic helpers (normalisation, one-slip variants, trigram similarity, initials)
and the policy that turns lookups into findings. The policy, from DESIGN §4:

- a near-certain lexical match (the same normalised name or alias) *connects*;
- a similar spelling, an acronym or a similar meaning only *warns* (``possible_duplicate_of``);
- the same name under another entity type is a *label conflict*;
- the same name on an archived entity is a *revive candidate*, never linked silently.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from cairn.app.models import EntityMatch, NodeStatus
from cairn.app.text.names import normalize
from cairn.storage import name_index
from cairn.storage.connection import Connection
from cairn.storage.rows import NameRow

# Small words that an acronym skips: "Bank for International Settlements" is "BIS".
_ACRONYM_SKIPS = frozenset({"of", "the", "and", "for", "a", "an", "de", "la", "le", "du", "von"})

# A name shorter than this is matched exactly only: one slip in "Ann" or "Ivo" makes another
# common name, not a misspelling. Names longer than MAX_VARIANT_LENGTH are exact only too
# (their variant keys would cost more than a typo in them is likely to matter).
MIN_FUZZY_LENGTH = 5
MAX_VARIANT_LENGTH = 40
# An acronym must have at least this many letters to count ("EU" would match half a vault).
MIN_ACRONYM = 3
# How many warnings a write reports at most.
MAX_FINDINGS = 5


@functools.lru_cache(maxsize=4096)
def trigrams(norm: str) -> frozenset[str]:
    """The name's trigrams, each word padded as pg_trgm does (two spaces before, one after), so
    short words and word starts count."""
    grams: set[str] = set()
    for word in norm.split():
        padded = f"  {word} "
        grams.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return frozenset(grams)


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def initials(norm: str) -> str | None:
    """The acronym a multi-word name may go by ("world health organization" -> "who")."""
    words = [w for w in norm.split() if w not in _ACRONYM_SKIPS]
    if len(words) < MIN_ACRONYM:
        return None
    return "".join(word[0] for word in words)


def variants(norm: str) -> set[str]:
    """The name and every form of it with one character left out (a deletion neighbourhood):
    two names share one when a single slip separates them. Empty for names too short to tell
    apart by spelling, or too long to be worth it."""
    if not MIN_FUZZY_LENGTH <= len(norm) <= MAX_VARIANT_LENGTH:
        return set()
    return {norm} | {norm[:i] + norm[i + 1 :] for i in range(len(norm))}


def sorted_words(norm: str) -> str | None:
    """The words in sorted order, for a name of several words ("smith john" = "john smith")."""
    words = norm.split()
    return " ".join(sorted(words)) if len(words) > 1 else None


def index_entries(title: str, aliases: Iterable[str]) -> tuple[list[tuple[str, str]], set[str]]:
    """What the name index holds for an entity: (norm, kind) names and the variant keys."""
    entries: list[tuple[str, str]] = []
    keys: set[str] = set()
    for kind, name in [("title", title), *(("alias", alias) for alias in aliases)]:
        norm = normalize(name)
        if not norm:
            continue
        entries.append((norm, kind))
        keys |= variants(norm)
        acronym = initials(norm)
        if acronym:
            entries.append((acronym, "initials"))
        reordered = sorted_words(norm)
        if reordered:
            entries.append((reordered, "words"))
    return entries, keys


@dataclass(frozen=True)
class NameMatch:
    """An entity a name resolved to, and how."""

    id: str
    type: str
    title: str
    status: str
    score: float  # 1.0 for the same name; trigram similarity for a spelling
    reason: str  # same name, alias, acronym, same words, similar spelling (or similar meaning)
    seq: int

    @property
    def exact(self) -> bool:
        return self.reason in ("same name", "alias")

    def as_entity(self) -> EntityMatch:
        """What a write's answer says of this match (its row number left out)."""
        status = cast(NodeStatus, self.status)
        return EntityMatch(self.id, self.type, self.title, status, self.score, self.reason)


def lookup(
    conn: Connection, names: Sequence[str], scopes: Sequence[str], *, fuzzy: bool = True
) -> list[NameMatch]:
    """Entities in ``scopes`` that ``names`` (a title and its aliases) may refer to, best first.

    Exact names and aliases first (score 1), then acronyms, then similar spellings. One entity
    appears once, with its best finding.
    """
    norms = [n for n in dict.fromkeys(normalize(name) for name in names) if n]
    if not norms:
        return []
    found: dict[int, NameMatch] = {}
    acronyms = {a for a in (initials(n) for n in norms) if a}
    reordered = {w for w in (sorted_words(n) for n in norms) if w}
    for row in name_index.exact(conn, sorted(set(norms) | acronyms | reordered), scopes):
        if row["kind"] == "words":
            if row["norm"] in reordered:  # the same words in another order: only a warning
                _keep(found, row, 0.95, "same words")
            continue
        if row["norm"] in norms and row["kind"] != "initials":
            reason = "same name" if row["kind"] == "title" else "alias"
            _keep(found, row, 1.0, reason)
        elif row["kind"] == "initials" and row["norm"] not in norms:
            # Fix: two names that merely share initials ("Wildlife Habitat Office" and "World
            # Health Organization", both "who") are not each other's acronym; only a name
            # spelled as the other's initials is.
            continue
        elif len(row["norm"]) >= MIN_ACRONYM:
            # One side is the other's initials: "WHO" and "World Health Organization".
            _keep(found, row, 0.9, "acronym")
    if fuzzy:
        keys = sorted(set().union(*(variants(norm) for norm in norms)))
        candidates = name_index.sharing_variants(conn, keys, scopes)
        grams = [trigrams(norm) for norm in norms]
        for rows in name_index.names_of(conn, candidates, scopes).values():
            # One slip apart by the shared key; the trigram similarity is the score shown.
            best = max(
                (
                    similarity(mine, trigrams(row["norm"]))
                    for mine in grams
                    for row in rows
                    if row["kind"] in ("title", "alias")
                ),
                default=0.0,
            )
            _keep(found, rows[0], round(best, 4), "similar spelling")
    order = {"same name": 0, "alias": 1, "acronym": 2, "same words": 3, "similar spelling": 4}
    return sorted(found.values(), key=lambda m: (order[m.reason], -m.score, -m.seq))


def _keep(found: dict[int, NameMatch], row: NameRow, score: float, reason: str) -> None:
    current = found.get(row["seq"])
    if current is None or score > current.score:
        found[row["seq"]] = NameMatch(
            row["id"], row["type"], row["title"], row["status"], score, reason, row["seq"]
        )
