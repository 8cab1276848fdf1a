"""The graph as networkx sees it, for the graph server's exports (node-link JSON, GraphML).

Reads only: no layout is computed or cached (the window's views do that), so an export through
the server never writes to the vault.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import networkx as nx

from cairn.app.models import VISIBLE_STATUSES, Node, TraverseResponse
from cairn.storage import layout_rows
from cairn.storage.vault import Vault


def whole(vault: Vault, scopes: Sequence[str]) -> nx.MultiDiGraph:
    """Every visible memory of ``scopes`` (ids, types, titles) and the edges between them."""
    view = layout_rows.ViewFilter(scopes=list(scopes), statuses=VISIBLE_STATUSES)
    with vault.read() as conn:
        ids, types, titles = layout_rows.nodes(conn, view)
        sources, targets, layers = layout_rows.edges(conn, view)
    graph = nx.MultiDiGraph()
    for node_id, type_name, title in zip(ids, types, titles, strict=True):
        graph.add_node(node_id, type=type_name, title=title)
    for src, dst, layer in zip(sources, targets, layers, strict=True):
        graph.add_edge(src, dst, layer=layer)
    return graph


def from_traverse(reach: TraverseResponse, start: Node | None = None) -> nx.MultiDiGraph:
    """What a walk reached, with the edges it crossed; ``start`` names where it began (the
    walk lists only what it reached, so without it the start would be a bare id)."""
    graph = nx.MultiDiGraph(root=reach.start, truncated=reach.truncated)
    if start is not None:
        graph.add_node(start.id, type=start.type, title=start.title, status=start.status, depth=0)
    for node in reach.nodes:
        graph.add_node(
            node.id, type=node.type, title=node.title, status=node.status, depth=node.depth
        )
    for edge in reach.edges:
        graph.add_edge(edge["src"], edge["dst"], type=edge["type"])
    return graph


def node_link(graph: nx.MultiDiGraph) -> dict[str, Any]:
    data: dict[str, Any] = nx.node_link_data(graph, edges="links")
    return data


def graphml(graph: nx.MultiDiGraph) -> str:
    return "\n".join(nx.generate_graphml(graph)) + "\n"
