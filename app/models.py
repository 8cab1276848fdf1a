"""Plain values that cross the service boundary. Every one has ``as_dict`` for JSON."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

# What a default read shows; archived and superseded memories are asked for explicitly.
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
    def from_row(cls, row: dict[str, Any]) -> Node:
        values = {k: v for k, v in row.items() if k != "seq"}
        values["attrs"] = json.loads(row["attrs"])
        values["locator"] = json.loads(row["locator"]) if row["locator"] else None
        return cls(**values)

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
    """What a write did. ``outcome`` is 'inserted' here; the dedup gate adds the others."""

    outcome: str
    node: Node
    embedded: bool
    degree: int
    warnings: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "node": self.node.as_dict(),
            "id": self.node.id,
            "embedded": self.embedded,
            "degree": self.degree,
            "warnings": list(self.warnings),
        }


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

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["highlights"] = [list(span) for span in self.highlights]
        return data


@dataclass(frozen=True)
class SearchResponse:
    query: str
    results: list[SearchHit]
    vector_search: bool
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "results": [hit.as_dict() for hit in self.results],
            "vector_search": self.vector_search,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class NodeDetail:
    node: Node
    edges: list[EdgeSummary]
    edges_truncated: bool

    def as_dict(self) -> dict[str, Any]:
        data = self.node.as_dict()
        data["edges"] = [edge.as_dict() for edge in self.edges]
        data["edges_truncated"] = self.edges_truncated
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
