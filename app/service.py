"""``MemoryService``: the one contract. The window, the CLI and the graph server call this and
nothing else; none of them has memory semantics of its own and none writes SQL.

A thin facade over named collaborators, wired by the composition root (``compose``): each
method checks the scopes a call names (``Scopes``) and hands over to the collaborator that does
the work: the writer, review, history and revisions, recall (the reads), the inbox, the graph
views, the ingestor, the watched folders, upkeep (settings, checks, receipts, backups, the
passphrase, the vector index), transfers (export and import), tokens, retention and the
sample vault.
Every read names the scopes it may see; rows outside them do not exist for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from cairn.app.answering import extract
from cairn.app.answering.extract import Answer
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest
from cairn.app.graphview import data
from cairn.app.graphview.views import GraphViews
from cairn.app.ingestion.extraction import ExtractionSettings
from cairn.app.ingestion.pipeline import Ingestor
from cairn.app.ingestion.process import ApartRuns
from cairn.app.ingestion.report import CancelToken, IngestReport, ProgressSink
from cairn.app.ingestion.request import IngestRequest
from cairn.app.ingestion.watch_control import WatchControl
from cairn.app.ingestion.watch_list import WatchedFolder
from cairn.app.ingestion.watching import BatchSink, ProblemSink
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
    VaultStats,
    VerifyReport,
    WriteResult,
)
from cairn.app.packs import NodeType, Pack
from cairn.app.portability import exporting, jsonl_import
from cairn.app.portability.transfers import Transfers
from cairn.app.retention import forgetting
from cairn.app.retention.supervisor import PassReport, Proposal, Retention
from cairn.app.retrieval import search as retrieval
from cairn.app.retrieval import titles
from cairn.app.retrieval.outside_writes import OutsideWrites
from cairn.app.retrieval.recall import Recall
from cairn.app.text import statements
from cairn.app.upkeep import backups, receipts
from cairn.app.upkeep.maintenance import Upkeep
from cairn.app.upkeep.sample_vault import SampleAdded, SampleRemoved, SampleVault
from cairn.app.upkeep.scopes import Scopes
from cairn.app.upkeep.tokens import Token, Tokens
from cairn.app.writing.history import HistoryKeeper
from cairn.app.writing.inbox import Inbox
from cairn.app.writing.review import Review
from cairn.app.writing.revisions import Revisions
from cairn.app.writing.undoing import Undoing
from cairn.app.writing.unmerge import Unmerges
from cairn.app.writing.writer import NewMemory, Writer
from cairn.storage.rows import RetentionEntryRow
from cairn.storage.vault import Vault


class MemoryService:
    def __init__(
        self,
        *,
        vault: Vault,
        pack: Pack,
        space: EmbeddingSpace,
        scopes: Scopes,
        writer: Writer,
        review: Review,
        history: HistoryKeeper,
        revisions: Revisions,
        undoing: Undoing,
        unmerges: Unmerges,
        recall: Recall,
        outside_writes: OutsideWrites,
        inbox: Inbox,
        graph_views: GraphViews,
        ingestor: Ingestor,
        extraction: ExtractionSettings,
        apart_runs: ApartRuns | None,
        watch: WatchControl,
        upkeep: Upkeep,
        transfers: Transfers,
        tokens: Tokens,
        retention: Retention,
        sample: SampleVault,
    ) -> None:
        """Built by ``compose.service_for``. ``apart_runs`` runs an ingest in a child process
        (``ingest(separate_process=True)``); without it such a run is refused."""
        self._vault = vault  # closed last, by ``close``
        self._pack = pack
        self._space = space
        self._known_scopes = scopes
        self._writer = writer
        self._review = review
        self._history = history
        self._revisions = revisions
        self._undoing = undoing  # unlink, unrevise
        self._unmerges = unmerges
        self._recall = recall
        self._outside_writes = outside_writes
        self._inbox = inbox
        self._graph_views = graph_views
        self._ingestor = ingestor
        self._extraction = extraction
        self._apart_runs = apart_runs
        self._watch = watch
        self._upkeep = upkeep
        self._transfers = transfers
        self._tokens = tokens
        self._retention = retention  # the supervisor: labels, uses, its pass, log
        self._sample = sample

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

    def unfinished_ingests(self) -> list[IngestRequest]:
        """The runs that were stopped (or ended with their process) before they finished, a
        request per scope: ingesting one again adds what was not read (see
        ``ingestion.unfinished``)."""
        return self._ingestor.unfinished()

    def forget_unfinished_ingests(self) -> None:
        """The person does not want the unfinished runs resumed; what they stored is kept."""
        self._ingestor.forget_unfinished()

    def sources(
        self, *, scopes: Sequence[str] | None = None, states: Sequence[str] | None = None
    ) -> list[TrackedFile]:
        """The files the vault keeps track of in ``scopes`` (default: all), with their state
        and, if they failed, why."""
        return self._recall.sources(scopes, states)

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

    def revise(
        self,
        node_id: str,
        title: str,
        body: str,
        *,
        scopes: Sequence[str],
        attrs: Mapping[str, Any] | None = None,
    ) -> History:
        """Edit a memory: the text becomes a new version that supersedes ``node_id``, both in
        one transaction (either both happen or neither). The new version keeps the old one's
        type, attributes (``attrs`` changes the ones it names; one named with ``None`` is
        removed), scope and source; the old one stays as history. The pack says which types
        have versions (the personal pack: every type but Passage)."""
        return self._revisions.revise(node_id, title, body, self._scopes(scopes), attrs)

    def unrevise(self, node_id: str, *, scopes: Sequence[str]) -> History:
        """Take back the edit that made ``node_id`` (the undo of ``revise``): that version is
        forgotten and the one it replaced is current again, its links and review items as they
        were; returns the history of that older version. Refused when something came to rest
        on the newer version since (a newer edit, a merge into it); see ``writing/undoing``.
        The redo is ``revise`` again."""
        return self._undoing.unrevise(node_id, self._scopes(scopes))

    def unmerge(self, item_id: str, *, scopes: Sequence[str]) -> Node:
        """Undo the merge that settled review item ``item_id`` (``resolve_duplicate(...,
        "merge")``): the folded memory comes back with its own id, title, text, attributes
        and links, the kept one loses what the merge gave it, and the item is open again.
        Returns the memory brought back. The redo is ``resolve_duplicate`` again."""
        return self._unmerges.unmerge(item_id, self._scopes(scopes))

    def history(self, node_id: str, *, scopes: Sequence[str]) -> History:
        """A memory's versions, oldest first, walking ``supersedes`` both ways."""
        return self._history.history(node_id, self._scopes(scopes))

    def briefing(self, *, scopes: Sequence[str], today: str | None = None) -> Briefing:
        return self._recall.briefing(scopes, today)

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

    def unlink(self, src: str, dst: str, type: str, *, scopes: Sequence[str]) -> bool:
        """Remove exactly the link ``src -type-> dst`` (the undo of ``link``), nothing else;
        False when there was no such link."""
        return self._undoing.unlink(src, dst, type, self._scopes(scopes))

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
        shelf: str | None = None,
    ) -> list[Node]:
        """The newest memories of ``types`` in ``statuses``: what a library shelf shows before
        a word is typed. Without ``types``, the newest of ``shelf`` (``app/text/shelves.py``:
        "Note" also lists the note files read from a notes folder, "Document" the other files),
        or of every shelf, sections of documents left out. ``limit`` is at most 500."""
        return self._recall.newest(scopes, types=types, statuses=statuses, limit=limit, shelf=shelf)

    def sections(
        self, document_id: str, *, scopes: Sequence[str], limit: int = 1_000
    ) -> list[Node]:
        """The sections of a note or document (its Passages, or a file's part Documents) in
        their order in it: how a person reaches them from the memory. Reading them is not a
        use of them. ``limit`` is at most 5,000."""
        return self._recall.sections(document_id, scopes, limit)

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
        return self._recall.search(query, scopes, options)

    def ask(self, question: str, *, scopes: Sequence[str], as_of: str | None = None) -> Answer:
        """The sentences of the memories in ``scopes`` that answer ``question``, each cited, or
        an abstention naming the closest (``answering.extract``)."""
        chosen = self._known_scopes.checked(scopes)
        return extract.ask(self._vault, self._space, question, chosen, as_of=as_of)

    def get(self, ids: Sequence[str], *, scopes: Sequence[str], use: bool = True) -> GetResponse:
        """The memories ``ids`` with their links. Each one found counts as used (retention)
        unless ``use`` is False: the graph server's reads, which never write."""
        return self._recall.get(ids, scopes, use=use)

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
        return self._recall.traverse(
            start,
            scopes,
            depth=depth,
            direction=direction,
            edge_types=edge_types,
            include_archived=include_archived,
            as_of=as_of,
        )

    def titles_like(self, text: str, *, scopes: Sequence[str], limit: int = 20) -> list[str]:
        """Titles of active memories in ``scopes`` that hold ``text`` in any case, those
        that start with it first, then those with a word that does, then the rest (sections
        of documents left out): the names a person may be typing after ``[[``, from the whole
        vault. ``limit`` is at most 50. Reading them is not a use of the memories."""
        return titles.titles_like(self._vault, self._pack, text, self._scopes(scopes), limit)

    def changed_elsewhere(self) -> bool:
        """Whether another program (the command line, a folder watcher, an import, an ingest
        run apart) committed to the vault since the last call; this service's own writes do
        not count. When one did, the vector index has taken in the vectors it stored. Costs a
        few microseconds when nothing changed: the window asks about once a second."""
        return self._outside_writes.check()

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
        body: str | None = None,
        attrs: Mapping[str, Any] | None = None,
    ) -> WriteResult:
        """Turn a capture into a memory of ``type``; ``body`` is its text as edited, if it was,
        ``attrs`` the attributes filled in for it (a person's email, a task's due date)."""
        return self._inbox.promote(
            item_id, self._scopes(scopes), type_name=type, title=title, body=body, attrs=attrs
        )

    def inbox_discard(self, item_id: str, *, scopes: Sequence[str]) -> InboxItem:
        return self._inbox.discard(item_id, self._scopes(scopes))

    def inbox_restore(self, item_id: str, *, scopes: Sequence[str]) -> InboxItem:
        """Put a discarded capture back in the inbox, open again (the undo of a discard)."""
        return self._inbox.restore(item_id, self._scopes(scopes))

    # -- scopes and settings ------------------------------------------------------------------

    def scopes(self) -> list[str]:
        return self._known_scopes.names()

    def add_scope(self, name: str) -> bool:
        """Create a scope; False if it existed."""
        return self._known_scopes.add(name)

    def _scopes(self, scopes: Sequence[str]) -> list[str]:
        """The scopes a call names, each of which must exist (a typo is not an empty vault)."""
        return self._known_scopes.checked(scopes)

    def settings(self) -> dict[str, Any]:
        """The vault's memory settings (dedup bands, resolver mode, tag anchoring)."""
        return self._upkeep.settings()

    def change_setting(self, name: str, value: Any) -> dict[str, Any]:
        return self._upkeep.change_setting(name, value)

    # -- watched folders ----------------------------------------------------------------------

    def watched_folders(self) -> list[WatchedFolder]:
        """The folders watched while the vault is open (kept in the vault's settings)."""
        return self._watch.folders()

    def watch_folder(self, path: str | Path, *, scope: str = "personal") -> list[WatchedFolder]:
        """Add a folder to watch; its files go to ``scope``. Takes effect at the next
        ``start_watching`` (the window restarts its watcher)."""
        return self._watch.add(path, scope)

    def unwatch_folder(self, path: str | Path) -> list[WatchedFolder]:
        """Stop watching a folder; what was read from it is kept."""
        return self._watch.remove(path)

    def start_watching(
        self,
        on_batch: BatchSink,
        on_problem: ProblemSink,
        *,
        catch_up: bool = True,
        quiet: float | None = None,
        max_wait: float | None = None,
    ) -> list[WatchedFolder]:
        """Watch the vault's folders until ``stop_watching`` or ``close``; each batch of
        changes goes to ``on_batch`` to be ingested (see ``WatchControl.start``)."""
        return self._watch.start(
            on_batch, on_problem, catch_up=catch_up, quiet=quiet, max_wait=max_wait
        )

    def stop_watching(self) -> None:
        """Stop the watcher, if one runs: before the vault locks or closes."""
        self._watch.stop()

    # -- the vector index ---------------------------------------------------------------------

    @property
    def vector_search_ready(self) -> bool:
        return self._space.ready

    @property
    def vectors_loading(self) -> bool:
        """The vector index is still loading in the background (see ``compose.open_vault``)."""
        return self._space.loading

    def wait_for_vectors(self) -> None:
        self._space.wait_until_loaded()

    def rebuild_vectors(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every memory lacking a vector in the active space; turns vector search on."""
        return self._upkeep.rebuild_vectors(progress)

    # -- the vault: checks, receipts, copies, the passphrase ----------------------------------

    def stats(self, *, scopes: Sequence[str]) -> VaultStats:
        return self._upkeep.stats(self._scopes(scopes))

    def verify(self) -> VerifyReport:
        """The file's integrity checks, the receipt chain, and index consistency."""
        return self._upkeep.verify()

    def export_receipts(self) -> receipts.ChainExport:
        """The receipt chain's head hash and count (kept elsewhere, they later prove history
        was only appended to) and its content-free receipts; not ok if the chain is broken."""
        return self._upkeep.export_receipts()

    def verify_receipts(
        self, *, head: str | None = None, count: int | None = None
    ) -> receipts.ChainReport:
        """Walk the receipt chain; with an exported ``head`` and ``count``, also check that
        receipt number ``count`` still has hash ``head`` (see ``receipts.verify_against``)."""
        return self._upkeep.verify_receipts(head=head, count=count)

    def backup(self, dest: Path | str, *, overwrite: bool = False) -> backups.CopyResult:
        """A consistent encrypted copy of the vault at ``dest`` while it stays open, checked
        before it takes its name (see ``app.backups``)."""
        return self._upkeep.backup(dest, overwrite=overwrite)

    def change_passphrase(self, new_passphrase: str) -> None:
        self._upkeep.change_passphrase(new_passphrase)

    def export(
        self,
        dest: Path | str,
        *,
        format: str,
        scopes: Sequence[str] | None = None,
        progress: exporting.Progress | None = None,
    ) -> exporting.ExportReport:
        """The memories of ``scopes`` (default: all) as plaintext files in the new folder
        ``dest``, ``markdown`` or ``jsonl`` (see ``Transfers.export``)."""
        return self._transfers.export(dest, format=format, scopes=scopes, progress=progress)

    def import_jsonl(
        self,
        path: Path | str,
        *,
        progress: Callable[[int], None] | None = None,
        embed_progress: Callable[[int, int], None] | None = None,
    ) -> jsonl_import.ImportReport:
        """Restore a JSON Lines export into this vault, which holds no memories yet, then
        embed every memory (see ``Transfers.import_jsonl``)."""
        return self._transfers.import_jsonl(path, progress=progress, embed_progress=embed_progress)

    # -- the graph server's tokens ------------------------------------------------------------

    def create_token(self, scopes: Sequence[str], *, name: str = "") -> tuple[Token, str]:
        """A bearer token that reads ``scopes`` (each must exist), and its secret: shown once,
        never kept."""
        return self._tokens.create(scopes, name=name)

    def list_tokens(self) -> list[Token]:
        return self._tokens.listed()

    def revoke_token(self, token_id: str) -> Token:
        return self._tokens.revoke(token_id)

    def verify_token(self, secret: str) -> Token | None:
        """The live token whose secret this is, or None."""
        return self._tokens.verify(secret)

    def any_live_token(self) -> bool:
        return self._tokens.any_live()

    # -- the retention supervisor -------------------------------------------------------------

    def run_retention(self, *, dry_run: bool = False, now: str | None = None) -> PassReport:
        """The supervisor's pass: label what is not yet labelled, then archive (or, as the
        settings say, propose) the ephemeral memories that have faded."""
        return self._retention.run(dry_run=dry_run, now=now)

    def retention_proposals(
        self, *, scopes: Sequence[str], now: str | None = None
    ) -> list[Proposal]:
        """The faded ephemeral memories the supervisor proposes to archive."""
        return self._retention.proposals(self._scopes(scopes), now)

    def archive_proposal(self, node_id: str, *, scopes: Sequence[str]) -> None:
        """Archive a proposed memory (the person agreed); reversible with ``unarchive``."""
        self._retention.archive(node_id, self._scopes(scopes))

    def keep(self, node_id: str, *, scopes: Sequence[str]) -> None:
        """The person wants it kept: it counts as used and is no longer ephemeral."""
        self._retention.keep(node_id, self._scopes(scopes))

    def retention_log(
        self, *, scopes: Sequence[str], node_id: str | None = None, limit: int = 100
    ) -> list[RetentionEntryRow]:
        """What the supervisor and the person did, newest first."""
        return self._retention.log(self._scopes(scopes), node_id=node_id, limit=limit)

    # -- the sample vault ---------------------------------------------------------------------

    def add_sample(self, *, scope: str = "personal") -> SampleAdded:
        """Write the sample (a small invented world: people, a project, linked notes, a fact
        that was superseded, a commitment due soon) into ``scope``, every memory with the
        source ``sample``. Refused while the sample is in the vault."""
        self._scopes([scope])
        return self._sample.add(scope)

    def remove_sample(self) -> SampleRemoved:
        """Forget the sample's memories, and nothing of the person's: their own memories stay
        (a link of theirs to a sample memory goes), as do their edits of sample memories and
        the sample memories they added to (see ``upkeep.sample_vault``)."""
        return self._sample.remove()

    def sample_in_vault(self) -> bool:
        return self._sample.present()

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
        return self._graph_views.ego(
            node_id,
            self._scopes(scopes),
            depth=depth,
            node_types=node_types,
            edge_layers=edge_layers,
            expanded=expanded,
        )

    def subgraph_export(self, node_id: str, *, scopes: Sequence[str], depth: int) -> Any:
        """A memory and what a walk of ``depth`` steps reaches from it, as a networkx
        MultiDiGraph (read only): the graph server's subgraph."""
        return self._graph_views.subgraph(node_id, self._scopes(scopes), depth)

    def graph_export(self, *, scopes: Sequence[str]) -> Any:
        """Every visible memory of ``scopes`` and their edges as a networkx MultiDiGraph,
        read only (no layout is made or cached): the graph server's export."""
        return self._graph_views.whole(self._scopes(scopes))

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
        return self._graph_views.overview(
            self._scopes(scopes),
            node_types=node_types,
            edge_layers=edge_layers,
            linked_only=linked_only,
            cap=cap,
        )

    # -- closing ------------------------------------------------------------------------------

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


__all__ = ["ALL_STATUSES", "MemoryService"]
