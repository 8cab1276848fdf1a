"""Hybrid search: a vector leg and a BM25 leg fused by reciprocal rank (DESIGN §5)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cairn.app.embeddings import EmbeddingSpace
from cairn.app.errors import InvalidRequest
from cairn.app.models import ALL_STATUSES, VISIBLE_STATUSES, SearchHit, SearchResponse
from cairn.storage import fulltext, graph_rows
from cairn.storage.vault import Vault

# Each leg contributes its top 30; RRF's k=60 is the constant from Cormack et al. (2009), which
# keeps one leg's first place from drowning agreement between the legs.
LEG_DEPTH = 30
RRF_K = 60
MAX_LIMIT = 25
SNIPPET_FALLBACK_CHARS = 180


@dataclass(frozen=True)
class SearchOptions:
    limit: int = 10
    include_archived: bool = False
    include_history: bool = False  # superseded memories too

    def statuses(self) -> tuple[str, ...]:
        statuses = list(VISIBLE_STATUSES)
        if self.include_archived:
            statuses.append("archived")
        if self.include_history:
            statuses.append("superseded")
        return tuple(s for s in ALL_STATUSES if s in statuses)


def rrf(legs: Sequence[Sequence[int]], k: int = RRF_K) -> dict[int, float]:
    """Reciprocal rank fusion: each item scores the sum of 1 / (k + rank) over the legs."""
    scores: dict[int, float] = {}
    for leg in legs:
        for rank, item in enumerate(leg, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores


def search(
    vault: Vault,
    space: EmbeddingSpace,
    query: str,
    scopes: Sequence[str],
    options: SearchOptions,
    counts: fulltext.DocumentCounts | None = None,
) -> SearchResponse:
    if not 1 <= options.limit <= MAX_LIMIT:
        raise InvalidRequest(f"A search returns between 1 and {MAX_LIMIT} results.")
    scopes = list(scopes)
    statuses = options.statuses()
    notes = [note] if (note := space.status_note()) else []
    with vault.read() as conn:
        space.catch_up(conn)
        vector_future = space.nearest_soon(query, scopes, statuses, LEG_DEPTH)
        text_query = fulltext.plan(conn, query, counts)
        text_leg = (
            fulltext.search(conn, text_query, scopes, statuses, LEG_DEPTH) if text_query else []
        )
        nearest = vector_future.result()
        vector_leg = nearest or []
        fused = rrf([vector_leg, text_leg])
        rows = {r["seq"]: r for r in graph_rows.nodes_by_seqs(conn, list(fused), scopes)}
        # A node can change between the legs and this read; keep only what is still visible.
        fused = {
            seq: score
            for seq, score in fused.items()
            if rows.get(seq, {}).get("status") in statuses
        }
        ranked = total_order(fused, rows)
        top = ranked[: options.limit]
        # The planned words: the query's rare words are the ones worth showing, and matching
        # its common ones again would cost what planning saved.
        snippets = fulltext.snippets(conn, text_query.expression, top) if text_query else {}
    vector_rank = {seq: i for i, seq in enumerate(vector_leg, start=1)}
    text_rank = {seq: i for i, seq in enumerate(text_leg, start=1)}
    hits = []
    for seq in top:
        row = rows[seq]
        snippet, spans = _snippet(snippets.get(seq), row)
        hits.append(
            SearchHit(
                id=row["id"],
                type=row["type"],
                title=row["title"],
                snippet=snippet,
                highlights=spans,
                score=round(fused[seq], 8),
                scope=row["scope"],
                status=row["status"],
                source=row["source"],
                recorded_at=row["recorded_at"],
                ranks={"vector": vector_rank.get(seq), "text": text_rank.get(seq)},
            )
        )
    return SearchResponse(query, hits, vector_search=nearest is not None, notes=tuple(notes))


def total_order(scores: dict[int, float], rows: dict[int, dict[str, Any]]) -> list[int]:
    """Best score first; equal scores newer first, then by id: a total order (invariant I7).

    Three stable sorts, last key first.
    """
    ranked = sorted(scores, key=lambda seq: rows[seq]["id"])
    ranked.sort(key=lambda seq: rows[seq]["recorded_at"], reverse=True)
    ranked.sort(key=lambda seq: scores[seq], reverse=True)
    return ranked


def _snippet(marked: str | None, row: dict[str, Any]) -> tuple[str, list[tuple[int, int]]]:
    """Plain snippet text plus the spans that matched the query."""
    if not marked:
        text = " ".join((row["body"] or row["title"]).split())
        if len(text) > SNIPPET_FALLBACK_CHARS:
            text = text[:SNIPPET_FALLBACK_CHARS].rsplit(" ", 1)[0] + " …"
        return text, []
    plain: list[str] = []
    spans: list[tuple[int, int]] = []
    position = 0
    start = 0
    for char in marked:
        if char == fulltext.HIGHLIGHT_START:
            start = position
        elif char == fulltext.HIGHLIGHT_END:
            spans.append((start, position))
        else:
            plain.append(char)
            position += 1
    return "".join(plain), spans
