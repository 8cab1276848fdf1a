"""Fusing the search legs: scores, not only ranks, and what surrounds a memory.

Reciprocal rank fusion keeps only each hit's rank, so a leg's clear winner counts no more than
its tenth hit, and on real conversations it ranked below plain BM25's own list. Here each leg's
*scores* are scaled to [0, 1] over the candidates (min-max) and averaged (CombSUM): where one
leg is sure, it shows.

Before scaling, each memory's score in a leg is raised by ``CONTEXT_WEIGHT`` times the mean
score of its neighbours in time (``neighbours``: the memory written just before and just after
it in the same document, or in the same session of a dated log). An answer that only makes
sense in context ("Some fun ones like charades" after "What games did you play?") is found
through the turn that asked. A missing neighbour counts as the memory itself, so a memory
without context is only scaled, never moved.

Pure functions of the legs' scores; the legs and the neighbours come from ``retrieval``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# How much of its neighbours' mean score a memory takes: on the dev conversations 0.3-0.5 add
# 3-4 points of Recall@10, and a memory's own score still counts twice as much.
CONTEXT_WEIGHT = 0.5


def combine(
    legs: Sequence[Mapping[int, float]],
    neighbours: Mapping[int, Sequence[int]] | None = None,
    context_weight: float = CONTEXT_WEIGHT,
) -> dict[int, float]:
    """Each candidate's fused score in [0, 1]: the mean over the legs that found anything of
    its min-max scaled, context-raised score (0 in a leg that did not find it)."""
    used = [leg for leg in legs if leg]
    candidates = {seq for leg in used for seq in leg}
    if not used:
        return {}
    neighbours = neighbours or {}
    fused = dict.fromkeys(candidates, 0.0)
    for leg in used:
        raised = {seq: _raised(leg, seq, neighbours.get(seq, ()), context_weight) for seq in leg}
        low, high = min(raised.values()), max(raised.values())
        span = high - low
        for seq, value in raised.items():
            fused[seq] += (value - low) / span if span > 0 else 1.0
    return {seq: value / len(used) for seq, value in fused.items()}


def _raised(leg: Mapping[int, float], seq: int, around: Sequence[int], weight: float) -> float:
    own = max(leg[seq], 0.0)
    if not around or weight == 0.0:
        return own * (1.0 + weight)
    # Two sides: one without a neighbour (the first turn of a session) counts as the memory.
    sides = list(around)[:2]
    sides += [seq] * (2 - len(sides))
    context = sum(max(leg.get(side, 0.0), 0.0) if side != seq else own for side in sides) / 2
    return own + weight * context
