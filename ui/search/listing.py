"""What the result list shows for a query and the library's choice, fetched in a worker: the
hits grouped one row per memory, the newest memories of a shelf, the inbox or the review
queue, with a heading and the sentence shown when there is nothing to list.

A query that is near nothing (``SearchResponse.nothing_close``) is not offered as matches: the
list says so, and keeps the nearest memories for a person who asks to see them anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cairn.app.api import FILTER_KINDS, SHELVED_STATUSES, MemoryService, SearchFilter, SearchHit
from cairn.ui.rows.results_model import (
    ResultRow,
    row_from_inbox,
    row_from_node,
    row_from_review,
    rows_from_hits,
    type_plural,
)

RESULT_LIMIT = 25  # the service's maximum
NOTHING_YET = (
    "No memories yet: drop files here, write a note (Ctrl+Shift+N), or see Help › Welcome."
)


@dataclass(frozen=True)
class Listing:
    """What the list shows for one query and filter: rows, a heading above them, and the
    sentence shown instead of the list when there are no rows."""

    query: str
    rows: list[ResultRow]
    heading: str = ""
    empty_text: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    # Answered from the words alone while the vectors load: asked again once they have.
    awaiting_vectors: bool = False
    # Nothing is close to the query: ``rows`` are only the nearest, shown on request.
    nothing_close: bool = False


def normalized_filter(value: SearchFilter | None) -> SearchFilter:
    """``value`` as the list uses it: a type only for the kind "type", which needs one."""
    wanted = value or SearchFilter()
    if wanted.kind not in FILTER_KINDS:
        raise ValueError(f"unknown filter kind {wanted.kind!r}")
    if wanted.kind != "type":
        return SearchFilter(wanted.kind)
    return wanted if wanted.type else SearchFilter()


def fetch_listing(service: MemoryService, query: str, wanted: SearchFilter) -> Listing:
    """The rows for ``query`` under the filter ``wanted``. Runs in a worker."""
    scopes = service.scopes()
    kind, shelf = wanted.kind, wanted.type
    if kind == "inbox":
        return _inbox(service, scopes, query)
    if kind == "review":
        return _review(service, scopes, query)
    if not query:
        return _browse(service, scopes, kind, shelf)
    response = service.search(
        query, scopes=scopes, limit=RESULT_LIMIT, include_archived=kind == "archive"
    )
    hits = response.results
    quoted = f"“{query}”"
    if kind == "archive":
        hits = [hit for hit in hits if hit.status == "archived"]
        empty = f"No archived memory matches {quoted}."
    elif kind == "type":
        hits = [hit for hit in hits if on_shelf(hit, str(shelf))]
        empty = (
            f"No {type_plural(str(shelf)).lower()} among the best matches for {quoted}. "
            "Try more specific words, or look under All."
        )
    else:
        empty = f"Nothing matches {quoted}. Try other words, or look in the Archive."
    # Vector search is usable but this answer went without it: the index is still loading.
    awaiting = service.vector_search_ready and not response.vector_search
    if awaiting:
        empty = (
            f"No memory has the words {quoted}. Matches by meaning join in a moment, "
            "once the vectors have loaded."
        )
    far = response.nothing_close and bool(hits)
    if far:
        empty = (
            f"Nothing close to {quoted}: no memory has these words together, and none is "
            "near in meaning. Try other words."
        )
    return Listing(
        query,
        rows_from_hits(hits),
        "Not close: the nearest memories, by meaning" if far else "",
        empty,
        response.notes,
        awaiting_vectors=awaiting,
        nothing_close=far,
    )


def on_shelf(hit: SearchHit, shelf: str) -> bool:
    """A hit of ``shelf``: its own shelf, or the shelf of the note or document it is part of."""
    return hit.shelf == shelf or (hit.part_of is not None and hit.part_of.shelf == shelf)


def _browse(service: MemoryService, scopes: list[str], kind: str, shelf: str | None) -> Listing:
    """An empty query: the newest memories of the chosen kind."""
    if kind == "archive":
        archived = service.list_memories(scopes=scopes, statuses=["archived"], limit=RESULT_LIMIT)
        rows = [row_from_node(node) for node in archived]
        empty = "Nothing is archived. Archiving hides a memory from search without deleting it."
        return Listing("", rows, "Archived memories, newest first", empty)
    # The possible duplicates the person has not settled: shown among the rest, marked.
    pending = service.pending(scopes=scopes, kinds=["duplicate"])
    waiting = {item.node.id for item in pending if item.node is not None}
    if kind == "type":
        plural = type_plural(str(shelf)).lower()
        nodes = service.list_memories(
            scopes=scopes, shelf=str(shelf), statuses=SHELVED_STATUSES, limit=RESULT_LIMIT
        )
        rows = [row_from_node(node, node.id in waiting) for node in nodes]
        return Listing("", rows, f"Your newest {plural}", f"No {plural} yet.")
    # Stubs (names linked before anyone described them) are not memories a person wrote: the
    # review panel asks about them, search finds them; the newest memories are the person's.
    newest = service.list_memories(scopes=scopes, statuses=SHELVED_STATUSES, limit=RESULT_LIMIT)
    rows = [row_from_node(node, node.id in waiting) for node in newest]
    return Listing("", rows, "Your newest memories", NOTHING_YET)


def _inbox(service: MemoryService, scopes: list[str], query: str) -> Listing:
    rows = [row_from_inbox(item) for item in service.inbox_list(scopes=scopes)]
    if query:
        needle = query.casefold()
        rows = [r for r in rows if needle in r.title.casefold() or needle in r.snippet.casefold()]
        return Listing(query, rows, "", f"No capture in the inbox mentions “{query}”.")
    return Listing("", rows, "Inbox", "The inbox is empty. Press Ctrl+N to capture a thought.")


def _review(service: MemoryService, scopes: list[str], query: str) -> Listing:
    rows = [row_from_review(item) for item in service.pending(scopes=scopes)]
    if query:
        needle = query.casefold()
        rows = [r for r in rows if needle in r.title.casefold() or needle in r.snippet.casefold()]
        return Listing(query, rows, "", f"Nothing waiting for review mentions “{query}”.")
    return Listing("", rows, "Waiting for your decision", "Nothing is waiting for review.")
