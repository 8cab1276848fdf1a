"""Reading memories back for the service: search, get, the walk from a memory, the newest of
a shelf, the briefing and the files the vault keeps track of. Every call names the scopes it
may see, each of which must exist; rows outside them do not exist for it."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest
from cairn.app.models import (
    ALL_STATUSES,
    Briefing,
    GetResponse,
    Node,
    SearchResponse,
    TrackedFile,
    TraverseResponse,
)
from cairn.app.packs import Pack
from cairn.app.retention.supervisor import Retention
from cairn.app.retrieval import briefing, graph_reads
from cairn.app.retrieval import search as retrieval
from cairn.app.text import shelves
from cairn.app.upkeep.scopes import Scopes
from cairn.storage import fulltext, graph_rows, shelf_rows, source_rows
from cairn.storage.vault import Vault

MAX_SECTIONS = 5_000  # a 6,000-page scan's pages are listed in parts, not all at once


class Recall:
    def __init__(
        self,
        vault: Vault,
        pack: Pack,
        space: EmbeddingSpace,
        scopes: Scopes,
        retention: Retention,
    ) -> None:
        self._vault = vault
        self._pack = pack
        self._space = space
        self._scopes = scopes
        self._retention = retention  # a memory opened counts as used
        self._term_counts = fulltext.DocumentCounts()

    def search(
        self, query: str, scopes: Sequence[str], options: retrieval.SearchOptions
    ) -> SearchResponse:
        retrieval.check(options, retrieval.MAX_LIMIT)
        chosen = self._scopes.checked(scopes)
        return retrieval.search(self._vault, self._space, query, chosen, options, self._term_counts)

    def get(self, ids: Sequence[str], scopes: Sequence[str], *, use: bool = True) -> GetResponse:
        """The memories ``ids`` with their links; each one found counts as used unless
        ``use`` is False."""
        chosen = self._scopes.checked(scopes)
        got = graph_reads.marked_for_review(
            self._vault, graph_reads.get(self._vault, ids, chosen), chosen
        )
        if use and got.nodes:
            self._retention.opened([detail.node.id for detail in got.nodes])
        return got

    def traverse(
        self,
        start: str,
        scopes: Sequence[str],
        *,
        depth: int = 1,
        direction: str = "both",
        edge_types: Sequence[str] | None = None,
        include_archived: bool = False,
        as_of: str | None = None,
    ) -> TraverseResponse:
        options = retrieval.SearchOptions(include_archived=include_archived, as_of=as_of)
        statuses = options.statuses()
        valid_at = None
        if as_of is not None:
            valid_at = functools.partial(retrieval.valid_at, instant=retrieval.as_of_instant(as_of))
        return graph_reads.traverse(
            self._vault,
            self._pack,
            start,
            self._scopes.checked(scopes),
            depth=depth,
            direction=direction,
            edge_types=edge_types,
            statuses=statuses,
            valid_at=valid_at,
        )

    def newest(
        self,
        scopes: Sequence[str],
        *,
        types: Sequence[str] | None,
        statuses: Sequence[str],
        limit: int,
        shelf: str | None = None,
    ) -> list[Node]:
        """See ``MemoryService.list_memories``."""
        if not 1 <= limit <= 500:
            raise InvalidRequest("limit must be between 1 and 500.")
        unknown = [s for s in statuses if s not in ALL_STATUSES]
        if unknown:
            raise InvalidRequest(f"Unknown status {unknown[0]!r}.")
        chosen = self._scopes.checked(scopes)
        with self._vault.read() as conn:
            if shelf is None and types is not None:
                rows = graph_rows.newest(conn, chosen, list(statuses), types, limit)
            else:
                wanted = shelves.shelf_filter(shelf)
                rows = shelf_rows.newest(conn, wanted, chosen, list(statuses), limit)
        return [Node.from_row(row) for row in rows]

    def sections(self, document_id: str, scopes: Sequence[str], limit: int) -> list[Node]:
        """See ``MemoryService.sections``."""
        if not 1 <= limit <= MAX_SECTIONS:
            raise InvalidRequest(f"limit must be between 1 and {MAX_SECTIONS}.")
        chosen = self._scopes.checked(scopes)
        with self._vault.read() as conn:
            return [
                Node.from_row(row) for row in shelf_rows.parts(conn, document_id, chosen, limit)
            ]

    def briefing(self, scopes: Sequence[str], today: str | None) -> Briefing:
        return briefing.briefing(self._vault, self._pack, self._scopes.checked(scopes), today)

    def sources(
        self, scopes: Sequence[str] | None, states: Sequence[str] | None
    ) -> list[TrackedFile]:
        """The files the vault keeps track of in ``scopes`` (None: every scope), with their
        state and, if they failed, why."""
        chosen = self._scopes.checked_or_all(scopes)
        with self._vault.read() as conn:
            rows = source_rows.listed(conn, states=states, scopes=chosen)
        # A name that is not UTF-8 comes with its exact bytes, as hex for JSON.
        return [TrackedFile.from_row(row) for row in rows]
