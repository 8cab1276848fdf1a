"""What keeping vectors as int8 codes costs the vector leg: top-30 overlap with float32.

For each query, the 30 nearest documents by exact float32 cosine (the model's own vectors, in
NumPy) against the 30 the real index returns (``VectorIndex``: int8 codes with a scale, the
sign-bit shortlist where the index uses one). Overlap is the share of the float32 top 30 the
index returns; the target is 99% on the Vaswani abstracts and the dev conversations.

At these collections' sizes the index scores every row. Where a collection is large enough
(the Vaswani abstracts), a second figure makes the index score only its sign-bit shortlist of
``SEARCH_SHORTLIST`` rows, as it does above ``EXACT_ROWS`` memories, to show what that path
keeps on real vectors (2,000 of 11,429 here; 2% of the rows at a million).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt

from cairn.storage import vector_index
from cairn.storage.vector_index import VectorIndex

K = 30
SCOPE = "bench"


def overlaps(
    documents: npt.NDArray[np.float32], queries: npt.NDArray[np.float32], k: int = K
) -> dict[str, list[float]]:
    """Per query, the share of the float32 top k that the index returns: as the index searches
    at this size ("codes"), and, where the collection is at least twice the shortlist, through
    the sign-bit shortlist alone ("shortlist")."""
    documents = np.asarray(documents, dtype=np.float32)
    index = VectorIndex("compact-recall", documents.shape[1])
    for seq, vector in enumerate(documents, start=1):
        index.add(seq, vector, SCOPE, "active")
    take = min(k, len(documents))
    out: dict[str, list[float]] = {"codes": [], "shortlist": []}
    if take == 0:
        return out
    shortlist = vector_index.SEARCH_SHORTLIST
    for query in np.asarray(queries, dtype=np.float32):
        exact = set((np.argsort(-(documents @ query), kind="stable")[:take] + 1).tolist())
        found = {seq for seq, _ in index.search(query, [SCOPE], ["active"], take)}
        out["codes"].append(len(exact & found) / take)
        if len(documents) < 2 * shortlist:
            continue
        with _shortlist_of(shortlist):
            found = {seq for seq, _ in index.search(query, [SCOPE], ["active"], take)}
        out["shortlist"].append(len(exact & found) / take)
    return out


def summarize(pooled: dict[str, Sequence[float]]) -> dict[str, Any]:
    """Mean and worst overlap of each figure, over every query pooled."""
    return {
        "k": K,
        "queries": len(pooled.get("codes", ())),
        **{
            name: {
                "mean": round(statistics.fmean(values), 4) if values else None,
                "min": round(min(values), 4) if values else None,
            }
            for name, values in pooled.items()
            if values
        },
    }


@contextmanager
def _shortlist_of(rows: int) -> Iterator[None]:
    saved = vector_index.EXACT_ROWS, vector_index.SEARCH_SHORTLIST
    vector_index.EXACT_ROWS, vector_index.SEARCH_SHORTLIST = 0, rows
    try:
        yield
    finally:
        vector_index.EXACT_ROWS, vector_index.SEARCH_SHORTLIST = saved


def line(summary: dict[str, Any]) -> str:
    """One printed line: the overlap of the codes, and of a million-memory shortlist."""
    codes = summary["codes"]
    verdict = "meets" if (codes["mean"] or 0) >= 0.99 else "MISSES"
    out = (
        f"compact vectors (int8 codes), top-{summary['k']} overlap with float32 over "
        f"{summary['queries']} queries: mean {codes['mean']:.4f}, worst {codes['min']:.4f} "
        f"({verdict} the 0.99 target)"
    )
    if shortlist := summary.get("shortlist"):
        out += (
            f"; through the {vector_index.SEARCH_SHORTLIST:,}-row sign-bit shortlist: mean "
            f"{shortlist['mean']:.4f}, worst {shortlist['min']:.4f}"
        )
    return out
