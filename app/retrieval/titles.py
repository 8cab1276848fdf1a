"""The titles a person may be typing, from the whole vault: what the note editor's ``[[``
completion offers as the name after ``[[`` grows.

A title matches when it holds what was typed, whatever the case (Unicode case folding, not
only ASCII's). The titles that start with it come first, then those with a word that starts
with it ("Quer" finds "Queries", then "Advanced Queries" and "Community/Query sprint"), then
the rest that merely contain it; shorter titles first within each, then in alphabetical order.
Only active memories are offered, and not the sections of a document (a link names the whole
note or file). The SQL filter is a superset (``LIKE`` folds only ASCII letters, so any other
letter typed matches any one character there) and the exact test is made here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cairn.app.errors import InvalidRequest
from cairn.app.packs import Pack
from cairn.app.text.shelves import SECTION
from cairn.storage import title_rows
from cairn.storage.vault import Vault

MAX_LIMIT = 50
# Titles fetched to rank at most: bounds the cost of one or two letters in a large vault. When
# more contain the text, the titles that start with it are fetched first, so the best stay.
CANDIDATES = 2_000
# A stub is a name linked already, before anyone described it: the next [[link]] to it should
# be offered too, so both link to the one stub.
STATUSES = ("active", "stub")
STARTS, WORD_STARTS, CONTAINS = 0, 1, 2


def titles_like(
    vault: Vault, pack: Pack, text: str, scopes: Sequence[str], limit: int
) -> list[str]:
    """Up to ``limit`` titles of active memories in ``scopes`` that match ``text``, best
    first (see the module); none for empty text."""
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidRequest(f"limit must be between 1 and {MAX_LIMIT}.")
    typed = text.strip()
    if not typed or not scopes:
        return []
    types = [name for name in pack.node_types if name != SECTION]

    def fetch(pattern: str) -> list[str]:
        return title_rows.titles_like(
            conn, pattern, scopes=scopes, statuses=STATUSES, types=types, limit=CANDIDATES
        )

    with vault.read() as conn:
        found = fetch(f"%{like_pattern(typed)}%")
        if len(found) >= CANDIDATES:
            found = fetch(f"{like_pattern(typed)}%") + found
    return ranked(typed, found)[:limit]


def like_pattern(typed: str) -> str:
    """``typed`` for SQL ``LIKE``: its wildcards escaped, and each letter whose case ``LIKE``
    cannot fold (anything but ASCII) as ``_``, any one character."""
    out: list[str] = []
    for char in typed:
        if char in ("%", "_", title_rows.LIKE_ESCAPE):
            out.append(title_rows.LIKE_ESCAPE + char)
        elif char.isascii():
            out.append(char)
        else:
            out.append("_")
    return "".join(out)


def match_rank(typed: str, title: str) -> int | None:
    """How ``title`` matches ``typed``: ``STARTS``, ``WORD_STARTS``, ``CONTAINS``, or None."""
    needle, haystack = typed.casefold(), title.casefold()
    at = haystack.find(needle)
    if at < 0:
        return None
    if at == 0:
        return STARTS
    while at >= 0:
        if not haystack[at - 1].isalnum():
            return WORD_STARTS
        at = haystack.find(needle, at + 1)
    return CONTAINS


def ranked(typed: str, titles: Iterable[str]) -> list[str]:
    """The titles that match ``typed``, each once, best first (see the module)."""
    keyed: dict[str, tuple[int, int, str, str]] = {}
    for title in titles:
        rank = match_rank(typed, title)
        if rank is not None:
            keyed[title] = (rank, len(title), title.casefold(), title)
    return sorted(keyed, key=keyed.__getitem__)
