"""``MemoryService``: the one contract. The window, the CLI and the graph server call this and
nothing else; none of them has memory semantics of its own and none writes SQL.

A thin facade: each method checks what the contract promises about its arguments and hands over
to the feature module that does the work (writer, retrieval, graph, inbox, embeddings).
Every read names the scopes it may see; rows outside them do not exist for it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from cairn.app.dedup.review import Review
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest, NodeNotFound
from cairn.app.graphview import data, export
from cairn.app.ingestion.extraction import ExtractionSettings
from cairn.app.ingestion.pipeline import Ingestor
from cairn.app.ingestion.process import ApartRuns, ServiceFactory
from cairn.app.ingestion.report import CancelToken, IngestReport, ProgressSink
from cairn.app.ingestion.request import IngestRequest
from cairn.app.models import (
    ALL_STATUSES,
    Briefing,
    Forgotten,
    GetResponse,
    History,
    InboxItem,
    LinkResult,
    Node,
    ReviewItem,
    SearchResponse,
    TrackedFile,
    TraverseResponse,
    WriteResult,
)
from cairn.app.packs import NodeType, Pack
from cairn.app.portability.leftovers import ExportLedger
from cairn.app.retention import forgetting
from cairn.app.retrieval import briefing, graph_reads
from cairn.app.retrieval import search as retrieval
from cairn.app.text import statements
from cairn.app.upkeep.vault_upkeep import VaultUpkeep
from cairn.app.writing.history import HistoryKeeper
from cairn.app.writing.inbox import Inbox
from cairn.app.writing.writer import NewMemory, Writer
from cairn.storage import dedup_rows, fulltext, graph_rows, source_rows
from cairn.storage.connection import Connection
from cairn.storage.rows import NodeRow
from cairn.storage.vault import Vault


class MemoryService(VaultUpkeep):
    def __init__(
        self,
        vault: Vault,
        pack: Pack,
        space: EmbeddingSpace,
        extraction: ExtractionSettings | None = None,
        open_in_child: ServiceFactory | None = None,
        exports: ExportLedger | None = None,
    ) -> None:
        """``open_in_child`` builds the service of the vault a child process opens, for runs
        apart (``ingest(separate_process=True)``); without it such a run is refused.
        ``exports`` records where an export stages its plaintext (``portability.leftovers``);
        without it an export is refused."""
        self._vault = vault
        self._pack = pack
        self._space = space
        self._writer = Writer(vault, pack, space)
        self._inbox = Inbox(vault, self._writer)
        self._review = Review(vault, pack, space, self._writer)
        self._history = HistoryKeeper(vault, pack, space)
        self._term_counts = fulltext.DocumentCounts()
        self._extraction = extraction or ExtractionSettings()
        self._ingestor = Ingestor(vault, pack, space, self._writer, self._history, self._extraction)
        self._apart_runs = ApartRuns(open_in_child) if open_in_child else None
        self._retention = self._writer.retention  # the supervisor: labels, uses, its pass, log
        self._watcher = None  # watched folders, while the window asks (``start_watching``)
        self._watch_lock = threading.Lock()
        self._exports = exports

    # -- writes -------------------------------------------------------------------------------

    def ingest(
        self,
        request: IngestRequest,
        *,
        progress: ProgressSink | None = None,
        cancel: CancelToken | None = None,
        separate_process: bool = False,
    ) -> IngestReport:
        """Read files and folders into the vault as ``request`` says (see ``ingestion``).
        Failures are reported per file and never stop the run. ``separate_process`` runs it
        in a child process (the window's way: see ``ingestion.process``); closing the service
        stops such a run first."""
        if not request.paths:
            raise InvalidRequest("Name at least one file or folder to add.")
        self._scopes([request.scope])
        if not separate_process:
            return self._ingestor.run(request, progress=progress, cancel=cancel)
        if self._apart_runs is None:
            raise InvalidRequest("This service cannot run an ingest apart; run it in process.")
        return self._apart_runs.run(
            self._vault,
            self._space.embedder,
            self._extraction,
            request,
            progress=progress,
            cancel=cancel,
        )

    def sources(
        self, *, scopes: Sequence[str] | None = None, states: Sequence[str] | None = None
    ) -> list[TrackedFile]:
        """The files the vault keeps track of in ``scopes`` (default: all), with their state
        and, if they failed, why."""
        chosen = self._scopes(scopes) if scopes is not None else self.scopes()
        with self._vault.read() as conn:
            rows = source_rows.listed(conn, states=states, scopes=chosen)
        # A name that is not UTF-8 comes with its exact bytes, as hex for JSON.
        return [TrackedFile.from_row(row) for row in rows]

    def write(
        self,
        type: str,
        title: str,
        body: str = "",
        *,
        attrs: Mapping[str, Any] | None = None,
        scope: str = "personal",
        source: str | None = None,
        locator: Mapping[str, Any] | None = None,
        valid_from: str | None = None,
        valid_to: str | None = None,
        force_new: bool = False,
        dedup: bool = True,
    ) -> WriteResult:
        """Store a memory through the dedup gate and the entity resolver (see ``WriteResult``).

        ``force_new`` stores an entity that block mode would hold back as a likely duplicate.
        ``dedup=False`` skips the gate: for importers that recognise repeats by other means
        (a file's hash) and for a supersede, which states the new version on purpose.
        """
        memory = NewMemory(type, title, body, attrs, scope, source, locator, valid_from, valid_to)
        if not dedup:
            return self._writer.add_ungated(memory)
        return self._writer.add(memory, force_new=force_new)

    def pending(
        self, *, scopes: Sequence[str], kinds: Sequence[str] | None = None
    ) -> list[ReviewItem]:
        """Decisions waiting for the person: possible duplicates (resolve with
        ``resolve_duplicate``), label conflicts and revive candidates."""
        return self._review.pending(self._scopes(scopes), kinds)

    def resolve_duplicate(
        self, verdict: str, decision: str, *, scopes: Sequence[str]
    ) -> WriteResult:
        """Settle a pending duplicate: ``distinct`` keeps both, joined by ``relates_to``;
        ``merge`` folds the new memory into the old one (its text becomes an addendum, its id
        an alias that still finds it)."""
        return self._review.resolve_duplicate(verdict, decision, self._scopes(scopes))

    def dismiss(self, item_id: str, *, scopes: Sequence[str]) -> ReviewItem:
        """Close a label conflict or revive candidate: the two are different things."""
        return self._review.dismiss(item_id, self._scopes(scopes))

    def supersede(self, old_id: str, new_id: str, *, scopes: Sequence[str]) -> History:
        """``new_id`` replaces ``old_id``: the old memory becomes history (superseded, still
        found by ``include_history`` and ``as_of`` reads), joined by a ``supersedes`` edge."""
        return self._history.supersede(old_id, new_id, self._scopes(scopes))

    def revise(self, node_id: str, title: str, body: str, *, scopes: Sequence[str]) -> History:
        """Edit a memory: the text becomes a new version that supersedes ``node_id``, both in
        one transaction (either both happen or neither). The new version keeps the old one's
        type, attributes, scope and source; the old one stays as history."""
        chosen = self._scopes(scopes)
        if not title.strip():
            raise InvalidRequest("A memory needs a title.")
        found = self.get([node_id], scopes=chosen, use=False)
        if not found.nodes:
            raise NodeNotFound(node_id)
        old = found.nodes[0].node
        versions: list[History] = []

        def supersede(conn: Connection, row: NodeRow) -> None:
            versions.append(self._history.supersede_in(conn, old.id, row["id"], chosen))

        memory = NewMemory(
            old.type, title.strip(), body, old.attrs, old.scope, old.source, old.locator
        )
        # A new version says much the same as the old one on purpose: no duplicate check.
        self._writer.add_version(memory, supersede)
        return versions[0]

    def history(self, node_id: str, *, scopes: Sequence[str]) -> History:
        """A memory's versions, oldest first, walking ``supersedes`` both ways."""
        return self._history.history(node_id, self._scopes(scopes))

    def briefing(self, *, scopes: Sequence[str], today: str | None = None) -> Briefing:
        return briefing.briefing(self._vault, self._pack, self._scopes(scopes), today)

    def link(
        self,
        src: str,
        dst: str,
        type: str,
        *,
        scopes: Sequence[str],
        rationale: str | None = None,
    ) -> LinkResult:
        return self._writer.link(src, dst, type, self._scopes(scopes), rationale)

    def archive(self, node_id: str, *, scopes: Sequence[str]) -> Node:
        """Hide a memory from default reads; reversible with ``unarchive``."""
        return self._writer.set_status(node_id, "archived", self._scopes(scopes), "archive")

    def list_memories(
        self,
        *,
        scopes: Sequence[str],
        types: Sequence[str] | None = None,
        statuses: Sequence[str] = ("active", "stub"),
        limit: int = 50,
    ) -> list[Node]:
        """The newest memories of ``types`` (any type if None) in ``statuses``: what a library
        shelf shows before a word is typed. ``limit`` is at most 500."""
        if not 1 <= limit <= 500:
            raise InvalidRequest("limit must be between 1 and 500.")
        unknown = [s for s in statuses if s not in ALL_STATUSES]
        if unknown:
            raise InvalidRequest(f"Unknown status {unknown[0]!r}.")
        chosen = self._scopes(scopes)
        with self._vault.read() as conn:
            rows = graph_rows.newest(conn, chosen, list(statuses), types, limit)
        return [Node.from_row(row) for row in rows]

    def forget(self, node_id: str, *, scopes: Sequence[str]) -> Forgotten:
        """Delete a memory for good (a Document with its passages): the only deletion, always
        the person's explicit act. Returns how many nodes went; the receipt holds no text."""
        return forgetting.forget(self._vault, self._space, node_id, self._scopes(scopes))

    def unarchive(self, node_id: str, *, scopes: Sequence[str]) -> Node:
        return self._writer.set_status(
            node_id, "active", self._scopes(scopes), "unarchive", only_from="archived"
        )

    # -- reads --------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        scopes: Sequence[str],
        limit: int = 10,
        include_archived: bool = False,
        include_history: bool = False,
        profile: str = "balanced",
        as_of: str | None = None,
        diagnostics: bool = False,
    ) -> SearchResponse:
        """Hybrid search; ``profile`` fast (two legs) or balanced (plus graph neighbours);
        ``as_of`` the state of things at a date; ``diagnostics`` each leg's numbers."""
        options = retrieval.SearchOptions(
            limit, include_archived, include_history, profile, as_of, diagnostics
        )
        retrieval.check(options, retrieval.MAX_LIMIT)
        return retrieval.search(
            self._vault, self._space, query, self._scopes(scopes), options, self._term_counts
        )

    def get(self, ids: Sequence[str], *, scopes: Sequence[str], use: bool = True) -> GetResponse:
        """The memories ``ids`` with their links. Each one found counts as used (retention)
        unless ``use`` is False: the graph server's reads, which never write."""
        chosen = self._scopes(scopes)
        got = self._review.marked(graph_reads.get(self._vault, ids, chosen), chosen)
        if use and got.nodes:
            self._retention.opened([detail.node.id for detail in got.nodes])
        return got

    def traverse(
        self,
        start: str,
        *,
        scopes: Sequence[str],
        depth: int = 1,
        direction: str = "both",
        edge_types: Sequence[str] | None = None,
        include_archived: bool = False,
        as_of: str | None = None,
    ) -> TraverseResponse:
        """Graph reach from ``start``; ``as_of`` walks the graph as it stood at that date."""
        options = retrieval.SearchOptions(include_archived=include_archived, as_of=as_of)
        statuses = options.statuses()
        valid_at = None
        if as_of is not None:
            valid_at = functools.partial(retrieval.valid_at, instant=retrieval.as_of_instant(as_of))
        return graph_reads.traverse(
            self._vault,
            self._pack,
            start,
            self._scopes(scopes),
            depth=depth,
            direction=direction,
            edge_types=edge_types,
            statuses=statuses,
            valid_at=valid_at,
        )

    # -- inbox --------------------------------------------------------------------------------

    def inbox_capture(self, text: str, *, scope: str = "personal") -> InboxItem:
        return self._inbox.capture(text, scope)

    def inbox_list(
        self, *, scopes: Sequence[str], include_decided: bool = False
    ) -> list[InboxItem]:
        return self._inbox.list(self._scopes(scopes), include_decided=include_decided)

    def inbox_promote(
        self,
        item_id: str,
        *,
        scopes: Sequence[str],
        type: str = "Note",
        title: str | None = None,
    ) -> WriteResult:
        return self._inbox.promote(item_id, self._scopes(scopes), type_name=type, title=title)

    def inbox_discard(self, item_id: str, *, scopes: Sequence[str]) -> InboxItem:
        return self._inbox.discard(item_id, self._scopes(scopes))

    # -- scopes -------------------------------------------------------------------------------

    def close(self) -> None:
        self.stop_watching()  # no new run starts once the vault begins to close
        if self._apart_runs is not None:
            self._apart_runs.stop_all()  # a child writing to the vault stops before the key goes
        self._retention.save_uses_before_close()
        self._space.close()
        self._vault.close()
        statements.forget_texts()  # what the gate read of memories leaves the process too

    def __enter__(self) -> MemoryService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the pack: what kinds of memory and link this vault knows ----------------------------

    def node_types(self) -> Mapping[str, NodeType]:
        """The vault pack's node types by name, read only."""
        return MappingProxyType(self._pack.node_types)

    def edge_types(self) -> list[str]:
        return sorted(self._pack.edge_types)

    def pack_rules(self) -> Pack:
        """The vault's pack as a description to read: its types, edge types and which edges
        may join which kinds (the window offers only the links the pack allows)."""
        return self._pack

    # -- graph view ---------------------------------------------------------------------------

    def graph_ego(
        self,
        node_id: str,
        *,
        scopes: Sequence[str],
        depth: int = data.EGO_DEPTH,
        node_types: Sequence[str] | None = None,
        edge_layers: Sequence[str] | None = None,
        expanded: Sequence[str] = (),
    ) -> data.ViewGraph:
        """A memory and what it reaches in ``depth`` steps, plus the neighbours of each of
        ``expanded``, laid out (positions cached in the vault). ``None``: every type/layer."""
        chosen = data.GraphFilter.of(node_types, edge_layers, linked_only=False)
        return data.ego(
            self._vault,
            self._pack,
            node_id,
            self._scopes(scopes),
            chosen,
            depth=depth,
            expanded=expanded,
        )

    def subgraph_export(self, node_id: str, *, scopes: Sequence[str], depth: int) -> Any:
        """A memory and what a walk of ``depth`` steps reaches from it, as a networkx
        MultiDiGraph (read only): the graph server's subgraph."""
        chosen = self._scopes(scopes)
        reach = self.traverse(node_id, scopes=chosen, depth=depth)
        # The walk lists what it reached, not where it started: the start is read to name it.
        found = self.get([node_id], scopes=chosen, use=False)
        start = found.nodes[0].node if found.nodes else None
        with self._vault.read() as conn:
            waiting = frozenset(dedup_rows.awaiting_ids(conn, chosen))
        return export.from_traverse(reach, start, waiting)

    def graph_export(self, *, scopes: Sequence[str]) -> Any:
        """Every visible memory of ``scopes`` and their edges as a networkx MultiDiGraph,
        read only (no layout is made or cached): the graph server's export."""
        return export.whole(self._vault, self._scopes(scopes))

    def graph_overview(
        self,
        *,
        scopes: Sequence[str],
        node_types: Sequence[str] | None = None,
        edge_layers: Sequence[str] | None = None,
        linked_only: bool = False,
        cap: int = data.OVERVIEW_NODE_CAP,
    ) -> data.ViewGraph | data.TooManyNodes:
        """Every visible memory the filters keep, laid out and coloured by community; above
        ``cap`` memories, how many there are instead (never a silent sample)."""
        chosen = data.GraphFilter.of(node_types, edge_layers, linked_only=linked_only)
        return data.overview(self._vault, self._pack, self._scopes(scopes), chosen, cap=cap)


__all__ = ["ALL_STATUSES", "MemoryService"]
