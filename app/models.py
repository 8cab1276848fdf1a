"""Plain values that cross the service boundary. Every one has ``as_dict`` for JSON."""

from __future__ import annotations

import copy
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from cairn.storage.rows import NodeRow

# What a default read shows; archived and superseded memories are asked for explicitly.
# 'pending' is only found in vaults older than schema 10, and their upgrade makes it active.
VISIBLE_STATUSES: tuple[str, ...] = ("active", "stub")
ALL_STATUSES: tuple[str, ...] = ("active", "pending", "superseded", "archived", "stub")


@dataclass(frozen=True)
class Node:
    id: str
    type: str
    title: str
    body: str
    attrs: dict[str, Any]
    status: str
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
            status=row["status"],
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

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class EdgeSummary:
    type: str
    layer: str
    direction: str  # 'out' when the node we look from is the source
    other_id: str
    other_type: str
    other_title: str
    rationale: str | None

    def as_dict(self) -> dict[str, Any]:
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

    outcome: str
    node: Node | None
    embedded: bool
    degree: int
    warnings: tuple[str, ...] = ()
    verdict: str | None = None  # the review item of a pending write
    matched: dict[str, Any] | None = None  # the memory it was compared with, and how
    flags: tuple[str, ...] = ()  # e.g. possible_contradiction
    suggestion: str | None = None
    resonance: list[dict[str, Any]] = field(default_factory=list)
    possible_duplicate_of: list[dict[str, Any]] = field(default_factory=list)
    label_conflict: list[dict[str, Any]] = field(default_factory=list)
    revive_candidate: list[dict[str, Any]] = field(default_factory=list)
    did_you_mean: list[dict[str, Any]] = field(default_factory=list)
    orphan_warning: bool = False
    suggested_relations: list[dict[str, Any]] = field(default_factory=list)
    relations_from_tags: list[dict[str, Any]] = field(default_factory=list)
    links: list[dict[str, Any]] = field(default_factory=list)  # edges made from [[links]]
    stubs_created: list[dict[str, Any]] = field(default_factory=list)
    enrich_hints: list[dict[str, Any]] = field(default_factory=list)

    @property
    def id(self) -> str | None:
        return None if self.node is None else self.node.id

    def as_dict(self) -> dict[str, Any]:
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

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


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

    def as_dict(self) -> dict[str, Any]:
        # Copied field by field: ``asdict`` deep-copies every span and dict through its
        # generic recursion, half a millisecond for a page of ten hits on the server.
        data = dict(vars(self))
        data["highlights"] = [list(span) for span in self.highlights]
        data["ranks"] = dict(self.ranks)
        data["collapsed"] = list(self.collapsed)
        data["diagnostics"] = copy.deepcopy(self.diagnostics)
        return data


@dataclass(frozen=True)
class SearchResponse:
    query: str
    results: list[SearchHit]
    vector_search: bool
    notes: tuple[str, ...] = ()
    profile: str = "balanced"
    as_of: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "results": [hit.as_dict() for hit in self.results],
            "vector_search": self.vector_search,
            "notes": list(self.notes),
            "profile": self.profile,
            "as_of": self.as_of,
        }


@dataclass(frozen=True)
class NodeDetail:
    node: Node
    edges: list[EdgeSummary]  # at most EDGES_PER_DIRECTION in and as many out
    edges_truncated: bool
    edge_counts: dict[str, int] = field(default_factory=dict)  # all edges: {'in': n, 'out': n}
    addenda: list[dict[str, Any]] = field(default_factory=list)
    # Ids of memories merged into this one (a read by one of them finds it). Not the names
    # a memory answers to: those are its ``aliases`` attribute.
    merged_ids: list[str] = field(default_factory=list)
    requested_as: str | None = None  # the merged id it was asked for by, if any
    enrich_hint: str | None = None
    # A possible duplicate not yet settled: the review item, the memory it may repeat
    # (other_id, other_title) and why; None when nothing waits.
    awaiting_review: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        data = self.node.as_dict()
        data["edges"] = [edge.as_dict() for edge in self.edges]
        data["edges_truncated"] = self.edges_truncated
        data["edge_counts"] = dict(self.edge_counts)
        data["addenda"] = list(self.addenda)
        data["merged_ids"] = list(self.merged_ids)
        data["requested_as"] = self.requested_as
        data["enrich_hint"] = self.enrich_hint
        data["awaiting_review"] = dict(self.awaiting_review) if self.awaiting_review else None
        return data


@dataclass(frozen=True)
class GetResponse:
    nodes: list[NodeDetail]
    missing: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {"nodes": [n.as_dict() for n in self.nodes], "missing": list(self.missing)}


@dataclass(frozen=True)
class Reached:
    id: str
    type: str
    title: str
    status: str
    depth: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TraverseResponse:
    start: str
    nodes: list[Reached]
    edges: list[dict[str, str]]
    truncated: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "nodes": [n.as_dict() for n in self.nodes],
            "edges": list(self.edges),
            "truncated": self.truncated,
        }


@dataclass(frozen=True)
class InboxItem:
    id: str
    text: str
    scope: str
    captured_at: str
    state: str
    node_id: str | None
    decided_at: str | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class VerifyReport:
    integrity_problems: list[str]
    receipts: dict[str, Any]
    index_problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.integrity_problems and self.receipts["ok"] and not self.index_problems

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "integrity_problems": self.integrity_problems,
            "receipts": self.receipts,
            "index_problems": self.index_problems,
        }


@dataclass(frozen=True)
class ReviewItem:
    """A decision waiting for the person: a possible duplicate, a label conflict, or an
    archived memory a new one may revive."""

    id: str
    kind: str
    node: dict[str, Any]  # id, type, title, status, text, recorded_at, source of the new one
    other: dict[str, Any]  # ... and of the one it resembles
    score: float | None
    reason: str
    flags: list[str]
    state: str
    decision: str | None
    created_at: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


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
    changes: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class History:
    """A memory's supersede chain, oldest first; ``position`` is the asked-for memory's index."""

    chain: list[HistoryEntry]
    position: int

    def as_dict(self) -> dict[str, Any]:
        return {"chain": [e.as_dict() for e in self.chain], "position": self.position}


@dataclass(frozen=True)
class Briefing:
    """What to look at first: commitments due, recent memories, reviews waiting, stubs."""

    today: str
    due: list[dict[str, Any]]
    recent: list[dict[str, Any]]
    reviews: list[dict[str, Any]]
    review_count: int
    stubs_to_enrich: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
