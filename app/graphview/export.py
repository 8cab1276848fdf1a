"""The graph as networkx sees it, for the graph server's exports (node-link JSON, GraphML).

Reads only: no layout is computed or cached (the window's views do that), so an export through
the server never writes to the vault. A memory that waits for review (it may repeat another)
carries ``awaiting_review``, as it does in search results and in the window's graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import networkx as nx

from cairn.app.models import VISIBLE_STATUSES, Node, TraverseResponse
from cairn.storage import dedup_rows, layout_rows
from cairn.storage.vault import Vault


def whole(vault: Vault, scopes: Sequence[str]) -> nx.MultiDiGraph:
    """Every visible memory of ``scopes`` (ids, types, titles) and the edges between them."""
    view = layout_rows.ViewFilter(scopes=list(scopes), statuses=VISIBLE_STATUSES)
    with vault.read() as conn:
        ids, types, titles = layout_rows.nodes(conn, view)
        sources, targets, layers = layout_rows.edges(conn, view)
        waiting = dedup_rows.awaiting_ids(conn, scopes)
    graph = nx.MultiDiGraph()
    for node_id, type_name, title in zip(ids, types, titles, strict=True):
        graph.add_node(node_id, type=type_name, title=title, awaiting_review=node_id in waiting)
    for src, dst, layer in zip(sources, targets, layers, strict=True):
        graph.add_edge(src, dst, layer=layer)
    return graph


def from_traverse(
    reach: TraverseResponse, start: Node | None = None, awaiting: frozenset[str] = frozenset()
) -> nx.MultiDiGraph:
    """What a walk reached, with the edges it crossed; ``start`` names where it began (the
    walk lists only what it reached, so without it the start would be a bare id); ``awaiting``
    holds the ids that wait for review."""
    graph = nx.MultiDiGraph(root=reach.start, truncated=reach.truncated)
    if start is not None:
        graph.add_node(
            start.id,
            type=start.type,
            title=start.title,
            status=start.status,
            depth=0,
            awaiting_review=start.id in awaiting,
        )
    for node in reach.nodes:
        graph.add_node(
            node.id,
            type=node.type,
            title=node.title,
            status=node.status,
            depth=node.depth,
            awaiting_review=node.id in awaiting,
        )
    for edge in reach.edges:
        graph.add_edge(edge["src"], edge["dst"], type=edge["type"])
    return graph


def node_link(graph: nx.MultiDiGraph) -> dict[str, Any]:
    data: dict[str, Any] = nx.node_link_data(graph, edges="links")
    return data


def graphml(graph: nx.MultiDiGraph) -> str:
    return "\n".join(nx.generate_graphml(graph)) + "\n"
