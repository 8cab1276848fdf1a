"""Reading the graph: full nodes with their edges (``get``) and bounded reach (``traverse``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, cast

from cairn.app.errors import InvalidRequest, NodeNotFound
from cairn.app.linking import stubs
from cairn.app.models import (
    ALL_STATUSES,
    Addendum,
    AwaitingReview,
    EdgeCounts,
    EdgeDirection,
    EdgeSummary,
    GetResponse,
    Node,
    NodeDetail,
    Reached,
    TraverseResponse,
)
from cairn.app.packs import Pack
from cairn.storage import dedup_rows, graph_rows
from cairn.storage.rows import TouchingEdgeRow, Validity
from cairn.storage.vault import Vault

MAX_GET = 25
EDGES_PER_DIRECTION = 10  # a hub's edge list is capped each way; the response says so
MAX_DEPTH = 4
MAX_REACHED = 500  # traverse stops here and says so, instead of walking a whole hub
DIRECTIONS = ("out", "in", "both")
SUPERSEDES = "supersedes"  # the history chain's edge (``history.EDGE``)


def get(vault: Vault, ids: Sequence[str], scopes: Sequence[str]) -> GetResponse:
    """Full nodes with capped edge summaries. An id that a merge folded into another memory
    finds that memory (``requested_as`` names the id asked for)."""
    ids = list(dict.fromkeys(ids))
    if not 1 <= len(ids) <= MAX_GET:
        raise InvalidRequest(f"Get takes between 1 and {MAX_GET} ids.")
    scopes = list(scopes)
    with vault.read() as conn:
        merged = dedup_rows.resolve_aliases(conn, ids)
        wanted = [merged.get(node_id, node_id) for node_id in ids]
        rows = {r["id"]: r for r in graph_rows.nodes_by_ids(conn, wanted, scopes)}
        edges = graph_rows.edges_touching(conn, list(rows), scopes, statuses=ALL_STATUSES)
        addenda: dict[str, list[Addendum]] = {}
        for a in dedup_rows.addenda_of(conn, list(rows)):
            addendum = Addendum(a["text"], a["origin"], a["source"], a["recorded_at"])
            addenda.setdefault(a["node_id"], []).append(addendum)
        merged_ids = {node_id: dedup_rows.aliases_of(conn, node_id) for node_id in rows}
        hints = {node_id: stubs.enrich_hint(conn, node_id) for node_id in rows}
        replaced_by = {
            e["other_id"]: graph_rows.newest_edge_source(conn, e["other_id"], SUPERSEDES)
            for e in edges
            if e["other_status"] == "superseded"
        }
    held = {(e["near_id"], e["type"], e["direction"], e["other_id"]) for e in edges}
    by_node: dict[str, list[EdgeSummary]] = {node_id: [] for node_id in rows}
    for e in edges:
        newer = replaced_by.get(e["other_id"])
        if newer is not None and (e["near_id"], e["type"], e["direction"], newer) in held:
            # The version that replaced the other end holds this link too (supersede gives
            # it every link, ``history.supersede_in``): it is shown once, on the newest.
            continue
        by_node[e["near_id"]].append(
            EdgeSummary(
                e["type"],
                e["layer"],
                cast(EdgeDirection, e["direction"]),  # edges_touching says 'out' or 'in'
                e["other_id"],
                e["other_type"],
                e["other_title"],
                e["rationale"],
            )
        )
    details = []
    for asked, node_id in zip(ids, wanted, strict=True):
        if node_id not in rows:
            continue
        summaries = by_node[node_id][::-1]  # newest edges first: a hub shows its latest
        counts = EdgeCounts(
            incoming=sum(1 for e in summaries if e.direction == "in"),
            outgoing=sum(1 for e in summaries if e.direction == "out"),
        )
        shown = [e for e in summaries if e.direction == "out"][:EDGES_PER_DIRECTION] + [
            e for e in summaries if e.direction == "in"
        ][:EDGES_PER_DIRECTION]
        details.append(
            NodeDetail(
                Node.from_row(rows[node_id]),
                shown,
                max(counts.incoming, counts.outgoing) > EDGES_PER_DIRECTION,
                counts,
                addenda.get(node_id, []),
                merged_ids[node_id],
                asked if asked != node_id else None,
                hints[node_id],
            )
        )
    missing = [asked for asked, node_id in zip(ids, wanted, strict=True) if node_id not in rows]
    return GetResponse(details, missing)


def traverse(
    vault: Vault,
    pack: Pack,
    start: str,
    scopes: Sequence[str],
    *,
    depth: int = 1,
    direction: str = "both",
    edge_types: Sequence[str] | None = None,
    statuses: Sequence[str],
    valid_at: Callable[[Validity], bool] | None = None,
) -> TraverseResponse:
    """Breadth-first reach from ``start``: each node once, at its shortest depth.

    Only nodes the caller may see (scopes) and would find by search (statuses) are reached or
    walked through, so every node traverse returns is also found by search (invariant I4).
    Undirected edge types are followed both ways whatever ``direction`` says. ``valid_at``
    (an as-of read) keeps only the memories that held at that time.
    """
    if not 1 <= depth <= MAX_DEPTH:
        raise InvalidRequest(f"Traverse depth is between 1 and {MAX_DEPTH}.")
    if direction not in DIRECTIONS:
        raise InvalidRequest(f"Direction is one of {', '.join(DIRECTIONS)}.")
    unknown = [t for t in edge_types or () if t not in pack.edge_types]
    if unknown:
        raise InvalidRequest(f"Unknown edge type(s): {', '.join(unknown)}.")
    scopes = list(scopes)
    with vault.read() as conn:
        start_rows = graph_rows.nodes_by_ids(conn, [start], scopes)
        # A superseded version (one ``history`` lists) is a place to start from too: its
        # links lead to what replaced it. What is reached still obeys ``statuses``.
        startable = (*statuses, "superseded")
        if not start_rows or start_rows[0]["status"] not in startable:
            raise NodeNotFound(start)
        seen = {start: 0}
        reached: list[Reached] = []
        edges: list[dict[str, str]] = []
        edge_seen: set[int] = set()
        frontier = [start]
        truncated = False
        for level in range(1, depth + 1):
            if not frontier or truncated:
                break
            rows = graph_rows.edges_touching(
                conn, frontier, scopes, edge_types=edge_types, statuses=statuses
            )
            next_frontier = []
            for e in rows:
                undirected = not pack.edge_types[e["type"]].directed
                if direction != "both" and e["direction"] != direction and not undirected:
                    continue
                if e["seq"] not in edge_seen:
                    edge_seen.add(e["seq"])
                    edges.append({"src": e["src"], "dst": e["dst"], "type": e["type"]})
                other = e["other_id"]
                if other in seen or (valid_at is not None and not valid_at(_other_row(e))):
                    continue
                if len(reached) >= MAX_REACHED:
                    truncated = True
                    break
                seen[other] = level
                reached.append(
                    Reached(other, e["other_type"], e["other_title"], e["other_status"], level)
                )
                next_frontier.append(other)
            frontier = next_frontier
    kept = set(seen)
    edges = [e for e in edges if e["src"] in kept and e["dst"] in kept]
    return TraverseResponse(start, reached, edges, truncated)


def _other_row(edge: TouchingEdgeRow) -> Validity:
    """The validity stamps of an edge's far end, under the names a node row has."""
    return {
        "valid_from": edge["other_valid_from"],
        "valid_to": edge["other_valid_to"],
        "recorded_at": edge["other_recorded_at"],
    }


def marked_for_review(vault: Vault, got: GetResponse, scopes: list[str]) -> GetResponse:
    """``got`` with each memory that awaits review marked (its item, the memory it may repeat,
    and why), all read at once."""
    if not got.nodes:
        return got
    with vault.read() as conn:
        waiting = dedup_rows.awaiting_review(conn, [d.node.id for d in got.nodes], scopes)
    if not waiting:
        return got
    nodes = [
        replace(d, awaiting_review=_awaiting(waiting[d.node.id])) if d.node.id in waiting else d
        for d in got.nodes
    ]
    return GetResponse(nodes, got.missing)


def _awaiting(row: dict[str, Any]) -> AwaitingReview:
    return AwaitingReview(row["id"], row["other_id"], row["other_title"], row["reason"])
