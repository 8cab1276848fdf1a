"""Ranking metrics for a test collection with binary relevance (Vaswani/NPL qrels).

Pure functions over document identifiers: a ranked list (best first) and the set of documents
judged relevant. They follow the usual trec_eval definitions, so the numbers can be compared
with published runs on the same collection:

- nDCG@k: gain 1 for a relevant document, discount 1 / log2(rank + 1), normalised by the best
  possible ranking of the judged relevant documents (the ideal comes from the qrels, not from
  what the engine returned, so missing a relevant document costs).
- average precision: the mean, over all relevant documents, of the precision at the rank where
  each is found (0 for those never found). MAP averages it over the judged queries.
- Recall@k: the share of relevant documents found in the first k.

A document repeated in a ranking gains only at its first rank; the repeat still takes up its
place, as it does on the screen, so returning a hit twice can never score more.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Collection, Mapping, Sequence


def _gains(ranked: Sequence[str], relevant: Collection[str], k: int | None) -> list[bool]:
    """For each of the first ``k`` ranks (all when None): is it a relevant document seen for
    the first time?"""
    seen: set[str] = set()
    gains = []
    for doc in ranked if k is None else ranked[:k]:
        gains.append(doc in relevant and doc not in seen)
        seen.add(doc)
    return gains


def _discount(rank: int) -> float:
    """Rank 1 counts fully, rank 2 by 1/log2(3), ... (Järvelin and Kekäläinen, 2002)."""
    return 1.0 / math.log2(rank + 1)


def ndcg_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """nDCG@k with binary gains; 0.0 for a query with no relevant document."""
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    if not relevant:
        return 0.0
    dcg = sum(
        _discount(rank) for rank, gain in enumerate(_gains(ranked, relevant, k), start=1) if gain
    )
    ideal = sum(_discount(rank) for rank in range(1, min(k, len(relevant)) + 1))
    return dcg / ideal


def average_precision(
    ranked: Sequence[str], relevant: Collection[str], k: int | None = None
) -> float:
    """Average precision over the first ``k`` results (all when None); 0.0 with no relevant."""
    if not relevant:
        return 0.0
    found = 0
    total = 0.0
    for rank, gain in enumerate(_gains(ranked, relevant, k), start=1):
        if gain:
            found += 1
            total += found / rank
    return total / len(relevant)


def recall_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Share of the relevant documents among the first ``k``; 0.0 with no relevant."""
    if not relevant:
        return 0.0
    return sum(_gains(ranked, relevant, k)) / len(relevant)


def evaluate(
    runs: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Collection[str]],
    *,
    ndcg_k: int = 10,
    depth: int = 100,
) -> dict[str, float | int]:
    """Mean nDCG@ndcg_k, MAP and Recall@depth over the queries with a relevant document.

    A judged query the engine returned nothing for (or that is missing from ``runs``) scores
    0 on every metric; queries without relevant documents are left out, as trec_eval does.
    """
    judged = [qid for qid, relevant in qrels.items() if relevant]
    if not judged:
        raise ValueError("no query has a relevant document: nothing to evaluate")
    ndcg, ap, recall = [], [], []
    for qid in judged:
        ranked, relevant = runs.get(qid, ()), qrels[qid]
        ndcg.append(ndcg_at_k(ranked, relevant, ndcg_k))
        ap.append(average_precision(ranked, relevant, depth))
        recall.append(recall_at_k(ranked, relevant, depth))
    return {
        f"ndcg@{ndcg_k}": statistics.fmean(ndcg),
        "map": statistics.fmean(ap),
        f"recall@{depth}": statistics.fmean(recall),
        "queries": len(judged),
    }
