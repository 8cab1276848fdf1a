"""Leiden community detection in a child process, for the overview of a large vault.

igraph runs Leiden in C without letting go of the interpreter lock, so while it runs no other
thread of the process runs Python, the window's included: at 20,000 nodes that froze the window
for 90-150 ms at a stretch here (``bench/graph_line.py``). In a child process it holds only the
child's lock. Starting the child costs about half a second, which is why only large graphs go
there (``community_detection.CHILD_FROM``).

Only the edges travel, as pairs of node numbers through a pipe: no text, no id. The child
imports igraph and numpy, nothing of the vault. Spawned, not forked: the parent holds threads
and an open vault that a fork would copy.
"""

from __future__ import annotations

import multiprocessing
import random
from typing import Any

import igraph
import numpy as np
import numpy.typing as npt

from cairn.app.process import privacy
from cairn.ingest import lifetime

TIMEOUT_S = 120.0
PASSES = 2  # the child may take its time: the window does not wait for it


class ChildFailed(RuntimeError):
    """The child could not start or did not answer; the caller computes in-process."""


class Child:
    """A child process computing Leiden for one graph; started at once, so the caller can lay
    the graph out meanwhile, and asked for the answer with ``membership``."""

    def __init__(self, count: int, pairs: npt.NDArray[np.int64], seed: int) -> None:
        self.count = count
        self._answered = False
        context = multiprocessing.get_context("spawn")
        self._receiving, sending = context.Pipe(duplex=False)
        edges = np.ascontiguousarray(pairs, dtype="<i8").tobytes()
        self._process = context.Process(target=_run, args=(sending, count, edges, seed))
        self._process.daemon = True
        try:
            self._process.start()
        except OSError as error:
            self._receiving.close()
            raise ChildFailed(str(error)) from error
        finally:
            sending.close()

    def membership(self) -> npt.NDArray[np.int64]:
        """Each node's community number (arbitrary order). Raises ChildFailed."""
        try:
            if not self._receiving.poll(TIMEOUT_S):
                raise ChildFailed(f"no answer within {TIMEOUT_S:.0f} s")
            answer = self._receiving.recv_bytes()
            self._answered = True
        except (OSError, EOFError) as error:
            raise ChildFailed(str(error) or type(error).__name__) from error
        finally:
            self.close()
        membership = np.frombuffer(answer, dtype="<i8").astype(np.int64)
        if len(membership) != self.count:
            raise ChildFailed("the answer has the wrong length")
        return membership

    def close(self) -> None:
        """Wait briefly for the child to exit, then end it."""
        self._receiving.close()
        self._process.join(timeout=5 if self._answered else 0)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()


def run_leiden(count: int, pairs: npt.NDArray[np.int64], seed: int, passes: int) -> list[int]:
    """Leiden (modularity) with igraph's random numbers drawn from a generator seeded by
    ``seed``; the caller holds the lock that guards igraph's generator when in-process."""
    igraph.set_random_number_generator(random.Random(seed))  # noqa: S311 (repeatable, not secret)
    try:
        graph = igraph.Graph(n=count)
        for start in range(0, len(pairs), 8_192):  # a slice at a time: see graph_layout
            graph.add_edges(pairs[start : start + 8_192])
        found = graph.community_leiden(objective_function="modularity", n_iterations=passes)
        return list(found.membership)
    finally:
        igraph.set_random_number_generator(random)


def _run(connection: Any, count: int, edges: bytes, seed: int) -> None:
    lifetime.end_with_parent()  # a window killed mid-layout takes this child with it
    privacy.protect()  # a spawned child is dumpable again: see process_privacy
    pairs = np.frombuffer(edges, dtype="<i8").reshape(-1, 2).astype(np.int64)
    membership = run_leiden(count, pairs, seed, PASSES)
    connection.send_bytes(np.asarray(membership, dtype="<i8").tobytes())
    connection.close()
