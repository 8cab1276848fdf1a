"""Fusing the search legs: scores, not only ranks, and what surrounds a memory.

Reciprocal rank fusion keeps only each hit's rank, so a leg's clear winner counts no more than
its tenth hit, and on real conversations it ranked below plain BM25's own list. Here each leg's
*scores* are scaled to [0, 1] over the candidates (min-max) and averaged (CombSUM): where one
leg is sure, it shows.

Before scaling, each memory's score in a leg is raised by what surrounds it:

- ``CONTEXT_WEIGHT`` times the better score of its neighbours in time (``neighbours``: the
  memory written just before and just after it in the same document, or in the same session of
  a dated log). An answer that only makes sense in context ("Some fun ones like charades" after
  "What games did you play?") is found through the turn that asked. The better one, not their
  mean: a turn answers the one before it and is answered by the one after, so what asks or
  continues it is on one side, and the mean halved it by whatever stood on the other (on the
  dev conversations the better side adds 0.9 points of Recall@10, every category up).
- A share of the best score in the leg of its group (``groups``: its document, or its session
  of a dated log): ``OCCASION_WEIGHT`` for a session, ``GROUP_WEIGHT`` for a document. A turn
  of the session the question is about outranks an equally worded turn of another session.

A missing neighbour counts as the memory itself, and a memory alone in its group is its group's
best, so a memory without context is only scaled, never moved against another without.

Every leg scores every candidate (``unranked``: a leg's scores of the memories it did not rank
itself, the other legs' hits and the neighbours). A text hit the vector leg did not rank in its
top 30 still has a cosine, often just below its 30th; counted as 0 it fell below every vector
hit, however well it matched the words, and a vector hit matching no word of the question rose
over text hits that matched them all. Scored by both legs, a memory found by one moves by what
the other really says of it. On the dev conversations this adds 2.9 points of Recall@5 and 2.3
of Recall@10 (``bench.conversations``, "cairn - other leg's scores").

Last, each candidate gains ``COVERAGE_WEIGHT`` times the share of the query's words it holds
(``covered``): BM25 sums what each word adds, so one rare word repeated can outrank a memory
holding all the words, and the vector leg does not count words at all. A memory that holds
every word the question asks by is the text leg's surest kind of hit, and it is no longer
displaced by one near in meaning that holds few of them.

Together, on the dev conversations: Recall@5 0.637 to 0.678, Recall@10 0.735 to 0.759, every
category up at 5, 10 and 20, and the text leg alone better than the fusion at k=5 on 14
questions instead of 37; Vaswani's hybrid nDCG@10 0.4732 to 0.4790.

Pure functions of the legs' scores; the legs, neighbours and groups come from ``retrieval``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

# How much of its better neighbour's score a memory takes: on the dev conversations 0.5 is best
# (0.3 and 0.7 give 0.7 and 0.5 points less Recall@10), and a memory's own score still counts
# twice as much as its context.
CONTEXT_WEIGHT = 0.5
# How much of its group's best score a memory of a document takes: 0.5-1.0 add about 2 points
# of Recall@10 on the dev conversations (a plateau); the low end, so a long document's best
# passage does not lift the rest of it over other documents' own matches.
GROUP_WEIGHT = 0.5
# The same for a dated session (``OCCASION``, the first part of its group's key): one occasion,
# a few dozen lines about what was said then, answers together. With the better neighbour as
# context, 0.8 is best on the dev conversations (0.7 and 0.9 give 0.2-0.4 points less Recall@10,
# 0.5 a point less).
OCCASION_WEIGHT = 0.8
OCCASION = "occasion"
# How much the share of the query's words a memory holds adds. On the dev conversations 0.1
# gives 0.5 points more Recall@10 than 0.2 and the same Recall@5 (0.15-0.3 was a plateau while
# context was the neighbours' mean); on Vaswani 0.4770 against 0.4790 nDCG@10 (without it,
# each leg scoring every candidate costs 0.3 there).
COVERAGE_WEIGHT = 0.1


def combine(
    legs: Sequence[Mapping[int, float]],
    neighbours: Mapping[int, Sequence[int]] | None = None,
    groups: Mapping[int, Hashable] | None = None,
    context_weight: float = CONTEXT_WEIGHT,
    group_weight: float | None = None,
    unranked: Sequence[Mapping[int, float]] = (),
) -> dict[int, float]:
    """Each candidate's fused score in [0, 1]: the mean over the legs that found anything of
    its min-max scaled, context-raised score. The candidates are every leg's hits; a leg scores
    one it did not rank by ``unranked`` (the leg's list, by position), else as 0.
    ``group_weight`` None weighs each group by its kind (``lift``), a number every group."""
    used = [(leg, unranked[i] if i < len(unranked) else {}) for i, leg in enumerate(legs) if leg]
    candidates = {seq for leg, _ in used for seq in leg}
    if not used:
        return {}
    neighbours = neighbours or {}
    groups = groups or {}
    fused = dict.fromkeys(candidates, 0.0)
    for leg, others in used:
        scores = {**others, **leg}
        best = _group_best(scores, candidates, groups)
        raised = {}
        for seq in candidates:
            own = max(scores.get(seq, 0.0), 0.0)
            group = best.get(groups[seq], own) if seq in groups else own
            share = lift(groups.get(seq)) if group_weight is None else group_weight
            raised[seq] = (
                _with_neighbours(scores, seq, neighbours.get(seq, ()), context_weight)
                + share * group
            )
        low, high = min(raised.values()), max(raised.values())
        span = high - low
        for seq, value in raised.items():
            fused[seq] += (value - low) / span if span > 0 else 1.0
    return {seq: value / len(used) for seq, value in fused.items()}


def lift(group: Hashable | None) -> float:
    """The share of its group's best score a memory takes: a dated session's lines more than a
    document's passages (a memory in no group is its own group's best)."""
    occasion = isinstance(group, tuple) and bool(group) and group[0] == OCCASION
    return OCCASION_WEIGHT if occasion else GROUP_WEIGHT


def covered(
    scores: Mapping[int, float], coverage: Mapping[int, float], weight: float | None = None
) -> dict[int, float]:
    """Each score plus ``weight`` (``COVERAGE_WEIGHT`` when None) times the share of the
    query's words that memory holds (``coverage``; none when it is not there). Search adds it
    last, so what the graph leg passes on is the legs' score, not the words a hit holds."""
    weight = COVERAGE_WEIGHT if weight is None else weight
    return {seq: score + weight * coverage.get(seq, 0.0) for seq, score in scores.items()}


def _group_best(
    scores: Mapping[int, float], candidates: set[int], groups: Mapping[int, Hashable]
) -> dict[Hashable, float]:
    best: dict[Hashable, float] = {}
    for seq in candidates:
        if seq in groups:
            key = groups[seq]
            best[key] = max(best.get(key, 0.0), scores.get(seq, 0.0))
    return best


def _with_neighbours(
    scores: Mapping[int, float], seq: int, around: Sequence[int], weight: float
) -> float:
    own = max(scores.get(seq, 0.0), 0.0)
    if not around or weight == 0.0:
        return own * (1.0 + weight)
    # Two sides: one without a neighbour (the first turn of a session) counts as the memory.
    sides = list(around)[:2]
    sides += [seq] * (2 - len(sides))
    context = max(max(scores.get(side, 0.0), 0.0) if side != seq else own for side in sides)
    return own + weight * context
