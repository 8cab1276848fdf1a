"""Which community each node of the graph view belongs to, for the overview's colours.

Communities maximise modularity: networkx's ``louvain_communities`` (as the design says) up to
``NX_LOUVAIN_MAX_NODES`` nodes; above that igraph's Leiden (Louvain with a refinement step that
keeps each community connected), in C. Measured on this 2-core machine: networkx took 5.3 s for
20,000 nodes, igraph 0.2 s, and the 20,000-node overview must be on screen within 10 s.
networkx also builds a Python object per node and edge, and from a few thousand nodes on the
garbage collector's full passes over them took 60-150 ms, holding the interpreter lock and so
freezing the window. igraph's calls hold that lock while they run in C: Leiden for about 40 ms
at 5,000 nodes, in one pass; from ``CHILD_FROM`` nodes it runs in a child process
(``leiden_process``), where it holds only the child's.
"""

from __future__ import annotations

import logging

import networkx as nx
import numpy as np
import numpy.typing as npt

from cairn.app.graphview import leiden_process
from cairn.app.graphview.layout import EdgeArray, seeded_igraph, simple_edges

NX_LOUVAIN_MAX_NODES = 1_000
CHILD_FROM = 8_000  # nodes; below, one in-process pass stays under about 60 ms

log = logging.getLogger(__name__)


class Finding:
    """Communities being found: from ``CHILD_FROM`` nodes in a child process that starts at
    once (the caller lays the graph out meanwhile), else here when ``result`` is asked."""

    def __init__(self, count: int, edges: EdgeArray, seed: int) -> None:
        self.count, self.seed = count, seed
        self.pairs = simple_edges(edges)
        self._child: leiden_process.Child | None = None
        if count >= CHILD_FROM:
            try:
                self._child = leiden_process.Child(count, self.pairs, seed)
            except leiden_process.ChildFailed as error:
                log.warning("communities will be found in-process: %s", error)

    def result(self) -> npt.NDArray[np.int64]:
        """Each node's community, numbered by size: 0 is the largest. A node without edges
        is a community of its own."""
        membership = None
        if self._child is not None:
            try:
                membership = self._child.membership()
            except leiden_process.ChildFailed as error:
                # Still right, only the window may hitch while it runs here.
                log.warning("communities found in-process: the child failed (%s)", error)
        if membership is None:
            membership = _here(self.count, self.pairs, self.seed)
        return _numbered_by_size(membership)

    def close(self) -> None:
        """Give up: end the child, if there is one."""
        if self._child is not None:
            self._child.close()
            self._child = None


def start(count: int, edges: EdgeArray, *, seed: int = 0) -> Finding:
    return Finding(count, edges, seed)


def communities(count: int, edges: EdgeArray, *, seed: int = 0) -> npt.NDArray[np.int64]:
    return Finding(count, edges, seed).result()


def _here(count: int, pairs: EdgeArray, seed: int) -> npt.NDArray[np.int64]:
    if count <= NX_LOUVAIN_MAX_NODES:
        graph = nx.Graph()
        graph.add_nodes_from(range(count))
        graph.add_edges_from(pairs.tolist())
        membership = np.empty(count, dtype=np.int64)
        for number, group in enumerate(nx.community.louvain_communities(graph, seed=seed)):
            membership[list(group)] = number
        return membership
    with seeded_igraph(seed):
        found = leiden_process.run_leiden(count, pairs, seed, passes=1)
    return np.asarray(found, dtype=np.int64)


def _numbered_by_size(membership: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    count = len(membership)
    if count == 0:
        return membership
    sizes = np.bincount(membership)
    first = np.full(len(sizes), count, dtype=np.int64)
    np.minimum.at(first, membership, np.arange(count))
    rank = np.empty(len(sizes), dtype=np.int64)
    rank[np.lexsort((first, -sizes))] = np.arange(len(sizes))  # by size, then first member
    return rank[membership]
