"""Plain retrieval baselines, outside Cairn's write path and search: what the same texts give
when nothing is deduplicated, collapsed or planned.

- :class:`BM25`: Okapi BM25 (k1 = 1.2, b = 0.75) with the non-negative idf
  ``log(1 + (N - df + 0.5) / (df + 0.5))`` (as Lucene has it). Text is lower-cased and cut
  into ``\\w+`` words, then :data:`STOPWORDS` are dropped (a short list of English function
  words, written here so that a change to the engine's own list does not move the baseline).
  Each distinct query word counts once.
- :class:`Dense`: exact cosine over every document's unit vector (one matrix product).
- :func:`rrf`: reciprocal rank fusion, ``sum 1 / (k + rank)`` with k = 60 (Cormack et al.,
  2009) over each ranking's first :data:`FUSION_DEPTH` documents.

Documents are numbered by their place in the list given; rankings are lists of those numbers,
best first, ties broken by the lower number, so every ranking is deterministic.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

K1 = 1.2
B = 0.75
RRF_K = 60
FUSION_DEPTH = 100
_WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset(
    """a an and are as at be been but by did do does for from had has have he her him his how
    i if in into is it its me my no not of on or our she so than that the their them then there
    these they this those to was we were what when where which who why will with would you
    your""".split()  # noqa: SIM905 (a word list reads better as text)
)


def tokens(text: str) -> list[str]:
    """Lower-cased ``\\w+`` words without the stopwords."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


class BM25:
    def __init__(self, docs: Sequence[str], *, k1: float = K1, b: float = B) -> None:
        self._k1 = k1
        self._b = b
        self._count = len(docs)
        lengths = []
        self._postings: dict[str, list[tuple[int, int]]] = {}
        for number, doc in enumerate(docs):
            words = tokens(doc)
            lengths.append(len(words))
            for word, tf in Counter(words).items():
                self._postings.setdefault(word, []).append((number, tf))
        self._lengths = np.asarray(lengths, dtype=np.float64)
        self._average = float(self._lengths.mean()) if len(docs) and self._lengths.any() else 1.0

    def idf(self, word: str) -> float:
        df = len(self._postings.get(word, ()))
        return math.log(1.0 + (self._count - df + 0.5) / (df + 0.5))

    def scores(self, query: str) -> npt.NDArray[np.float64]:
        """Every document's score for ``query`` (0 for a document with none of its words)."""
        out = np.zeros(self._count, dtype=np.float64)
        norm = self._k1 * (1.0 - self._b + self._b * self._lengths / self._average)
        for word in dict.fromkeys(tokens(query)):
            postings = self._postings.get(word)
            if not postings:
                continue
            docs = np.fromiter((d for d, _ in postings), dtype=np.int64, count=len(postings))
            tf = np.fromiter((t for _, t in postings), dtype=np.float64, count=len(postings))
            out[docs] += self.idf(word) * tf * (self._k1 + 1.0) / (tf + norm[docs])
        return out

    def rank(self, query: str, depth: int) -> list[int]:
        """The first ``depth`` documents that match at least one query word, best first."""
        scores = self.scores(query)
        return [int(d) for d in _order(scores)[:depth] if scores[d] > 0.0]


class Dense:
    def __init__(self, vectors: npt.NDArray[np.float32]) -> None:
        self._vectors = np.asarray(vectors, dtype=np.float32)

    def rank(self, query_vector: npt.NDArray[np.float32], depth: int) -> list[int]:
        """The ``depth`` documents nearest ``query_vector`` by cosine (the vectors are unit
        length, so by dot product), best first."""
        scores = self._vectors @ np.asarray(query_vector, dtype=np.float32)
        return [int(d) for d in _order(scores)[:depth]]


def rrf(
    rankings: Sequence[Sequence[int]], *, k: int = RRF_K, depth: int = FUSION_DEPTH
) -> list[int]:
    """The fused ranking of ``rankings`` (each cut at ``depth``), best first."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking[:depth], start=1):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda doc: (-scores[doc], doc))


def _order(scores: npt.NDArray[np.floating]) -> npt.NDArray[np.int64]:
    # A stable sort of the negated scores: equal scores keep the lower document number first.
    return np.argsort(-scores, kind="stable")
