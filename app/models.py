"""Plain values that cross the service boundary. Every one has ``as_dict`` for JSON.

An answer is made of named parts (a ``Link``, an ``EntityMatch``...), each a frozen dataclass
whose fields are the keys its ``as_dict`` gives: the JSON the command line and the graph
server print is the same as when the parts were dicts. Only what a pack lets a memory hold
(``Node.attrs``, ``Node.locator``) and the diagnostic numbers stay open maps.
"""

from __future__ import annotations

import copy
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, cast, get_args

from cairn.storage.rows import NodeRow, SourceRow

# An answer as JSON: what ``as_dict`` gives, for ``--json`` and the graph server.
JsonObject = dict[str, Any]

NodeStatus = Literal["active", "pending", "superseded", "archived", "stub"]
# What a write did (``WriteResult.outcome``); ``distinct`` and ``merged`` settle a review.
WriteOutcome = Literal[
    "inserted", "absorbed", "merge_linked", "pending", "enriched", "blocked", "distinct", "merged"
]
ReviewKind = Literal["duplicate", "label_conflict", "revive_candidate"]
ReviewState = Literal["open", "resolved"]
ReviewDecision = Literal["distinct", "merged", "dismissed"]
EdgeDirection = Literal["out", "in"]
FilterKind = Literal["all", "inbox", "type", "archive", "review"]
FILTER_KINDS: tuple[FilterKind, ...] = get_args(FilterKind)

# What a default read shows; archived and superseded memories are asked for explicitly.
# 'pending' is only found in vaults older than schema 10, and their upgrade makes it active.
VISIBLE_STATUSES: tuple[NodeStatus, ...] = ("active", "stub")
SHELVED_STATUSES: tuple[NodeStatus, ...] = ("active",)  # what a shelf lists and counts
ALL_STATUSES: tuple[NodeStatus, ...] = ("active", "pending", "superseded", "archived", "stub")


@dataclass(frozen=True)
class Node:
    id: str
    type: str
    title: str
    body: str
    attrs: dict[str, Any]
    status: NodeStatus
    scope: str
    source: str | None
    locator: dict[str, Any] | None
    valid_from: str | None
    valid_to: str | None
    recorded_at: str
    updated_at: str
    importance: float
    stability: float
    last_access: str | None
    access_count: int
    retention_label: str | None

    @classmethod
    def from_row(cls, row: NodeRow) -> Node:
        return cls(
            id=row["id"],
            type=row["type"],
            title=row["title"],
            body=row["body"],
            attrs=json.loads(row["attrs"]),
            status=cast(NodeStatus, row["status"]),  # the schema's trigger allows no other
            scope=row["scope"],
            source=row["source"],
            locator=json.loads(row["locator"]) if row["locator"] else None,
            valid_from=row["valid_from"],
            valid_to=row["valid_to"],
            recorded_at=row["recorded_at"],
            updated_at=row["updated_at"],
            importance=row["importance"],
            stability=row["stability"],
            last_access=row["last_access"],
            access_count=row["access_count"],
            retention_label=row["retention_label"],
        )

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class EdgeSummary:
    type: str
    layer: str
    direction: EdgeDirection  # 'out' when the node we look from is the source
    other_id: str
    other_type: str
    other_title: str
    rationale: str | None

    def as_dict(self) -> JsonObject:
        return asdict(self)


# -- the parts of a write's answer -----------------------------------------------------------


@dataclass(frozen=True)
class Similar:
    """A memory close in meaning to the one written (``resonance``)."""

    id: str
    type: str
    title: str
    score: float

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class MemoryMatch:
    """The memory a write was compared with by the dedup gate, and how alike they are."""

    id: str
    type: str
    title: str
    score: float
    jaccard: float
    reason: str

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class EntityMatch:
    """An entity a name may mean: the same name, an alias, a spelling, a similar meaning."""

    id: str
    type: str
    title: str
    status: NodeStatus
    score: float  # 1.0 for the same name; how alike otherwise
    reason: str

    def as_dict(self) -> JsonObject:
        return asdict(self)


# What ``WriteResult.matched`` holds: a memory the gate compared, or the entity resolved to.
Matched = MemoryMatch | EntityMatch


@dataclass(frozen=True)
class Relation:
    """An edge a write made from a tag, or one it suggests making."""

    edge_type: str
    id: str
    type: str
    title: str
    reason: str

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class Link:
    """An edge made from a ``[[link]]``: ``type`` is the edge's, ``target_type`` the node's."""

    id: str
    type: str
    title: str
    target_type: str

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class StubCreated:
    """An entity stored as a stub because a link named it before it was described."""

    id: str
    type: str
    title: str

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class EnrichHint:
    """A stub many memories point to, and what to do about it."""

    id: str
    title: str
    hint: str

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class WriteResult:
    """What a write did, and what it means for the graph (DESIGN §4, item 4).

    ``outcome`` is one of:

    - ``inserted``: a new node;
    - ``absorbed``: it restated a memory already kept; ``node`` is that memory, which may have
      gained the new wording as an addendum;
    - ``merge_linked``: the same topic with something new: its own node, joined by ``same_topic``;
    - ``pending``: a possible duplicate; stored and searchable at once (status ``active``),
      marked awaiting review until ``resolve_duplicate`` (``verdict`` names the review item);
    - ``enriched``: an entity that was a stub (a name linked before it was described) got
      its description;
    - ``blocked``: in the resolver's block mode, a likely duplicate entity was not stored
      (``node`` is None; see ``did_you_mean``).
    """

    outcome: WriteOutcome
    node: Node | None
    embedded: bool
    degree: int
    warnings: tuple[str, ...] = ()
    verdict: str | None = None  # the review item of a pending write
    matched: Matched | None = None  # the memory it was compared with, and how
    flags: tuple[str, ...] = ()  # e.g. possible_contradiction
    suggestion: str | None = None
    resonance: list[Similar] = field(default_factory=list)
    possible_duplicate_of: list[EntityMatch] = field(default_factory=list)
    label_conflict: list[EntityMatch] = field(default_factory=list)
    revive_candidate: list[EntityMatch] = field(default_factory=list)
    did_you_mean: list[EntityMatch] = field(default_factory=list)
    orphan_warning: bool = False
    suggested_relations: list[Relation] = field(default_factory=list)
    relations_from_tags: list[Relation] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)  # edges made from [[links]]
    stubs_created: list[StubCreated] = field(default_factory=list)
    enrich_hints: list[EnrichHint] = field(default_factory=list)

    @property
    def id(self) -> str | None:
        return None if self.node is None else self.node.id

    def as_dict(self) -> JsonObject:
        data = asdict(self)
        data["node"] = None if self.node is None else self.node.as_dict()
        data["id"] = self.id
        data["warnings"] = list(self.warnings)
        data["flags"] = list(self.flags)
        return data


@dataclass(frozen=True)
class LinkResult:
    src: str
    dst: str
    type: str
    layer: str
    created: bool  # False when the same edge already existed

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class DocumentRef:
    """The note or document a section belongs to, as a hit names it."""

    id: str
    title: str
    shelf: str  # "Note" for a note file, else "Document" (``app/text/shelves.py``)

    def as_dict(self) -> JsonObject:
        return dict(vars(self))


@dataclass(frozen=True)
class SearchHit:
    id: str
    type: str
    title: str
    snippet: str
    highlights: list[tuple[int, int]]  # [start, end) spans of ``snippet`` that matched
    score: float
    scope: str
    status: str
    source: str | None
    recorded_at: str
    ranks: dict[str, int | None]  # each leg's 1-based rank, None when the leg missed it
    collapsed: list[str] = field(default_factory=list)  # near-identical hits folded into this
    diagnostics: dict[str, Any] | None = None  # each leg's numbers, when asked for
    awaiting_review: bool = False  # kept, but may repeat another memory (an open review item)
    shelf: str = ""  # what the person sees it as (``app/text/shelves.py``): "Note" for a note file
    part_of: DocumentRef | None = None  # a section's note or document
    position: int | None = None  # a section's place among its document's sections, from 0

    def as_dict(self) -> JsonObject:
        # Copied field by field: ``asdict`` deep-copies every span and dict through its
        # generic recursion, half a millisecond for a page of ten hits on the server.
        data = dict(vars(self))
        data["highlights"] = [list(span) for span in self.highlights]
        data["ranks"] = dict(self.ranks)
        data["collapsed"] = list(self.collapsed)
        data["diagnostics"] = copy.deepcopy(self.diagnostics)
        data["part_of"] = self.part_of.as_dict() if self.part_of else None
        return data


@dataclass(frozen=True)
class SearchResponse:
    query: str
    results: list[SearchHit]
    vector_search: bool
    notes: tuple[str, ...] = ()
    profile: str = "balanced"
    as_of: str | None = None
    # Nothing matched the words, and nothing is near in meaning: the results are only the
    # least far, and a window says so instead of offering them as matches.
    nothing_close: bool = False

    def as_dict(self) -> JsonObject:
        return {
            "query": self.query,
            "results": [hit.as_dict() for hit in self.results],
            "vector_search": self.vector_search,
            "notes": list(self.notes),
            "profile": self.profile,
            "as_of": self.as_of,
            "nothing_close": self.nothing_close,
        }


@dataclass(frozen=True)
class EdgeCounts:
    """How many edges a memory has each way, all of them (not only those listed)."""

    incoming: int = 0
    outgoing: int = 0

    def as_dict(self) -> JsonObject:
        return {"in": self.incoming, "out": self.outgoing}


@dataclass(frozen=True)
class Addendum:
    """Words a memory gained from a restatement absorbed into it, or a memory merged in."""

    text: str
    origin: str  # absorbed, merged
    source: str | None
    recorded_at: str

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class AwaitingReview:
    """A possible duplicate not yet settled: the review item, the memory it may repeat, why."""

    item: str
    other_id: str
    other_title: str
    reason: str

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class NodeDetail:
    node: Node
    edges: list[EdgeSummary]  # at most EDGES_PER_DIRECTION in and as many out
    edges_truncated: bool
    edge_counts: EdgeCounts = field(default_factory=EdgeCounts)  # all edges, each way
    addenda: list[Addendum] = field(default_factory=list)
    # Ids of memories merged into this one (a read by one of them finds it). Not the names
    # a memory answers to: those are its ``aliases`` attribute.
    merged_ids: list[str] = field(default_factory=list)
    requested_as: str | None = None  # the merged id it was asked for by, if any
    enrich_hint: str | None = None
    # A possible duplicate not yet settled; None when nothing waits.
    awaiting_review: AwaitingReview | None = None

    def as_dict(self) -> JsonObject:
        data = self.node.as_dict()
        data["edges"] = [edge.as_dict() for edge in self.edges]
        data["edges_truncated"] = self.edges_truncated
        data["edge_counts"] = self.edge_counts.as_dict()
        data["addenda"] = [addendum.as_dict() for addendum in self.addenda]
        data["merged_ids"] = list(self.merged_ids)
        data["requested_as"] = self.requested_as
        data["enrich_hint"] = self.enrich_hint
        waiting = self.awaiting_review
        data["awaiting_review"] = None if waiting is None else waiting.as_dict()
        return data


@dataclass(frozen=True)
class GetResponse:
    nodes: list[NodeDetail]
    missing: list[str]

    def as_dict(self) -> JsonObject:
        return {"nodes": [n.as_dict() for n in self.nodes], "missing": list(self.missing)}


@dataclass(frozen=True)
class Reached:
    id: str
    type: str
    title: str
    status: str
    depth: int

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class TraverseResponse:
    start: str
    nodes: list[Reached]
    edges: list[dict[str, str]]
    truncated: bool

    def as_dict(self) -> JsonObject:
        return {
            "start": self.start,
            "nodes": [n.as_dict() for n in self.nodes],
            "edges": list(self.edges),
            "truncated": self.truncated,
        }


@dataclass(frozen=True)
class Forgotten:
    """What a forget deleted: how many memories (a Document with its parts) and its title."""

    forgotten: int
    title: str
    note: str | None = None  # the file could not be compacted at once: when it will be

    def as_dict(self) -> JsonObject:
        data: JsonObject = {"forgotten": self.forgotten, "title": self.title}
        if self.note is not None:  # said only when there is something to say
            data["note"] = self.note
        return data


@dataclass(frozen=True)
class TrackedFile:
    """A file the vault keeps track of: where it is, its state and, if it failed, why."""

    path: str
    scope: str
    state: str  # ingested, failed, duplicate or missing
    sha256: str | None
    size: int | None
    mtime_ns: int | None
    media_type: str | None
    document_id: str | None
    passages: int
    warnings: list[str]
    error: str | None
    first_seen: str
    updated_at: str
    path_bytes: str | None  # a name that is not UTF-8: its exact bytes, as hex

    @classmethod
    def from_row(cls, row: SourceRow) -> TrackedFile:
        raw = row["path_bytes"]
        return cls(
            path=row["path"],
            scope=row["scope"],
            state=row["state"],
            sha256=row["sha256"],
            size=row["size"],
            mtime_ns=row["mtime_ns"],
            media_type=row["media_type"],
            document_id=row["document_id"],
            passages=row["passages"],
            warnings=row["warnings"],
            error=row["error"],
            first_seen=row["first_seen"],
            updated_at=row["updated_at"],
            path_bytes=raw.hex() if raw else None,  # as hex for JSON
        )

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class InboxItem:
    id: str
    text: str
    scope: str
    captured_at: str
    state: str
    node_id: str | None
    decided_at: str | None

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class PackName:
    name: str
    version: int

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class SpaceCount:
    """An embedding space and, for a caller who sees every scope, how many vectors it holds."""

    name: str
    dim: int
    state: str  # building or ready
    vectors: int | None = None  # None: counted over scopes this caller does not see

    def as_dict(self) -> JsonObject:
        data: JsonObject = {"name": self.name, "dim": self.dim, "state": self.state}
        if self.vectors is not None:
            data["vectors"] = self.vectors
        return data


@dataclass(frozen=True)
class VaultStats:
    """Counts and sizes of a vault as the caller's scopes see it. The ``nodes_by_*`` maps
    are keyed by what the vault holds (type names, statuses, scope names)."""

    vault: str
    file_bytes: int
    pack: PackName
    nodes_by_type: dict[str, int]
    nodes_by_status: dict[str, int]
    nodes_by_scope: dict[str, int]
    edges: int
    embedder: str | None
    vector_search: bool
    embedding_spaces: list[SpaceCount]
    receipts: int
    # What a person sees: the active memories by shelf (``app/text/shelves.py``); the sections
    # of documents and stubs (names linked, not yet described: the review panel asks about
    # them) left out; what the library and the status bar count.
    shelves: dict[str, int]

    @property
    def memories(self) -> int:
        """Every memory a person sees, on any shelf."""
        return sum(self.shelves.values())

    def as_dict(self) -> JsonObject:
        data = dict(vars(self))
        data["pack"] = self.pack.as_dict()
        for counts in ("nodes_by_type", "nodes_by_status", "nodes_by_scope", "shelves"):
            data[counts] = dict(data[counts])
        data["embedding_spaces"] = [space.as_dict() for space in self.embedding_spaces]
        return data


@dataclass(frozen=True)
class VerifyReport:
    integrity_problems: list[str]
    receipts: dict[str, Any]
    index_problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.integrity_problems and self.receipts["ok"] and not self.index_problems

    def as_dict(self) -> JsonObject:
        return {
            "ok": self.ok,
            "integrity_problems": self.integrity_problems,
            "receipts": self.receipts,
            "index_problems": self.index_problems,
        }


@dataclass(frozen=True)
class MemoryPreview:
    """One side of a review item: the memory and the start of its text."""

    id: str
    type: str
    title: str
    status: NodeStatus
    text: str  # the first ``review.PREVIEW_CHARS`` characters of its body
    recorded_at: str
    source: str | None
    shelf: str  # what a person calls it (a note read from a file is a Note, not a Document)

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class ReviewItem:
    """A decision waiting for the person: a possible duplicate, a label conflict, or an
    archived memory a new one may revive."""

    id: str
    kind: ReviewKind
    node: MemoryPreview | None  # the new one; None when the caller's scopes do not see it
    other: MemoryPreview | None  # the one it resembles
    score: float | None
    reason: str
    flags: list[str]
    state: ReviewState
    decision: ReviewDecision | None
    created_at: str

    def as_dict(self) -> JsonObject:
        data = asdict(self)
        # A side not seen is an empty object, as it always was in the JSON.
        data["node"] = {} if self.node is None else self.node.as_dict()
        data["other"] = {} if self.other is None else self.other.as_dict()
        return data


@dataclass(frozen=True)
class HistoryEntry:
    id: str
    type: str
    title: str
    status: str
    valid_from: str | None
    valid_to: str | None
    recorded_at: str
    body: str = ""
    # The words this version changed from the one before it in the chain, git's word-diff
    # style: "[-removed-]{+added+}" around what changed, the rest as it was; None for the first.
    # A changed attribute of a memory or an entity counts ("phone: [-0611-] {+0622+}").
    changes: str | None = None
    attrs: dict[str, Any] = field(default_factory=dict)  # what this version's attributes were

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class History:
    """A memory's supersede chain, oldest first; ``position`` is the asked-for memory's index."""

    chain: list[HistoryEntry]
    position: int

    def as_dict(self) -> JsonObject:
        return {"chain": [e.as_dict() for e in self.chain], "position": self.position}


@dataclass(frozen=True)
class DueItem:
    """A commitment due within the briefing's week, or overdue."""

    id: str
    type: str
    title: str
    recorded_at: str
    due: str
    overdue: bool

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class RecentItem:
    """One of the newest memories, marked if it may repeat another (an open review item)."""

    id: str
    type: str
    title: str
    recorded_at: str
    awaiting_review: bool

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class ReviewSummary:
    """A review item as the briefing lists it; ``pending`` gives the whole item."""

    id: str
    kind: ReviewKind
    reason: str
    score: float | None

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class StubToEnrich:
    """A stub many memories link to, with how many edges it has."""

    id: str
    type: str
    title: str
    degree: int

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class Briefing:
    """What to look at first: commitments due, recent memories, reviews waiting, stubs."""

    today: str
    due: list[DueItem]
    recent: list[RecentItem]
    reviews: list[ReviewSummary]
    review_count: int
    stubs_to_enrich: list[StubToEnrich]

    def as_dict(self) -> JsonObject:
        return asdict(self)


@dataclass(frozen=True)
class SearchFilter:
    """What the window's list of memories is narrowed to: every memory, the inbox, one type
    (``type`` names it), the archive or the review queue."""

    kind: FilterKind = "all"
    type: str | None = None  # for the kind "type" only

    @property
    def key(self) -> str:
        """The filter in short: "all", "inbox", "archive", "review" or "type:Note"."""
        return f"type:{self.type}" if self.kind == "type" else self.kind
