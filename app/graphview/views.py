"""The graph as the window and the graph server see it, for the service: a memory's
neighbourhood and the overview laid out (``data``), a walk or every memory as a networkx
graph (``export``). Every call takes the scopes the service already checked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cairn.app.graphview import data, export
from cairn.app.packs import Pack
from cairn.app.retrieval.recall import Recall
from cairn.storage import dedup_rows
from cairn.storage.vault import Vault


class GraphViews:
    def __init__(self, vault: Vault, pack: Pack, recall: Recall) -> None:
        self._vault = vault
        self._pack = pack
        self._recall = recall  # a subgraph is a walk, and its start read to name it

    def ego(
        self,
        node_id: str,
        chosen: list[str],
        *,
        depth: int,
        node_types: Sequence[str] | None,
        edge_layers: Sequence[str] | None,
        expanded: Sequence[str],
    ) -> data.ViewGraph:
        kept = data.GraphFilter.of(node_types, edge_layers, linked_only=False)
        return data.ego(
            self._vault, self._pack, node_id, chosen, kept, depth=depth, expanded=expanded
        )

    def overview(
        self,
        chosen: list[str],
        *,
        node_types: Sequence[str] | None,
        edge_layers: Sequence[str] | None,
        linked_only: bool,
        cap: int,
    ) -> data.ViewGraph | data.TooManyNodes:
        kept = data.GraphFilter.of(node_types, edge_layers, linked_only=linked_only)
        return data.overview(self._vault, self._pack, chosen, kept, cap=cap)

    def subgraph(self, node_id: str, chosen: list[str], depth: int) -> Any:
        reach = self._recall.traverse(node_id, chosen, depth=depth)
        # The walk lists what it reached, not where it started: the start is read to name it.
        found = self._recall.get([node_id], chosen, use=False)
        start = found.nodes[0].node if found.nodes else None
        with self._vault.read() as conn:
            waiting = frozenset(dedup_rows.awaiting_ids(conn, chosen))
        return export.from_traverse(reach, start, waiting)

    def whole(self, chosen: list[str]) -> Any:
        return export.whole(self._vault, chosen)
