"""The dedup gate (DESIGN §4): is a new memory something the vault already holds?

Candidates come from the vector index (same scope, same type family). The best candidate's
cosine places the write in a band:

- at or above ``dedup_high``, the same topic. Its words are compared with the candidate's
  *cluster* (the candidate, its ``same_topic`` siblings and the addenda of both): a word-set
  Jaccard at or above ``dedup_jaccard`` means nothing new, and the write is *absorbed* (the
  old memory stands and keeps the new wording as an addendum); otherwise it is *merge-linked*:
  its own node, joined to the candidate by ``same_topic``.
- between ``dedup_low`` and ``dedup_high``, *pending*: the person decides.
- below, a new memory.

A rewording that keeps only the names and figures ("Hana has been vegetarian since 2015" /
"Hana stopped eating meat in 2015") scores lower than the small model's paraphrase band, so a
pair that shares its anchors (``anchors.share_anchors``) waits for review from
``dedup_anchored_low`` (0.75) up. Pending costs the person a decision, never a memory.

Two statements that differ in a number, a date or a negation are never absorbed, whatever the
cosine: to an embedding "the rent is 900" and "the rent is 950" are the same sentence. Such a
pair is at most merge-linked and flagged ``possible_contradiction``, with a suggestion to
supersede. Entities are not banded here: for them similar meaning only warns (the resolver
decides by name).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cairn.app.anchors import share_anchors
from cairn.app.embeddings import EmbeddingSpace
from cairn.app.packs import Pack
from cairn.app.settings import MemorySettings
from cairn.app.statements import contradiction, jaccard, word_set
from cairn.app.text import searchable_text
from cairn.storage import dedup_rows, graph_rows

# How many nearest memories are looked at: enough for the same-family best and a resonance list
# after other families are set aside.
NEAREST = 24
RESONANCE_SIZE = 5
# Statuses a new memory is compared against: what default reads show.
COMPARED_STATUSES = ("active", "stub")
POSSIBLE_CONTRADICTION = "possible_contradiction"


@dataclass(frozen=True)
class Candidate:
    seq: int
    id: str
    type: str
    title: str
    status: str
    family: str
    score: float

    def brief(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "title": self.title, "score": self.score}


@dataclass(frozen=True)
class Verdict:
    outcome: str  # inserted, absorbed, merge_linked, pending
    candidate: Candidate | None
    reason: str
    jaccard: float | None = None
    contradiction: str | None = None
    identical: bool = False  # absorbed word for word: no addendum needed

    @property
    def flags(self) -> tuple[str, ...]:
        return (POSSIBLE_CONTRADICTION,) if self.contradiction else ()


def as_document_part(verdict: Verdict) -> Verdict:
    """The verdict for a passage of a document, which must stay whole: what would be absorbed
    is linked instead, and the pending band is an ordinary insert."""
    if verdict.outcome == "absorbed":
        return Verdict(
            "merge_linked",
            verdict.candidate,
            "says what is already kept; kept as part of its document",
            verdict.jaccard,
        )
    if verdict.outcome == "pending":
        return Verdict("inserted", verdict.candidate, "similar, not the same")
    return verdict


def nearest(
    conn: Any, space: EmbeddingSpace, pack: Pack, vector: Any, scope: str
) -> list[Candidate]:
    """The memories nearest to ``vector`` in ``scope``, best first, of any family."""
    if vector is None or space.index is None or not space.ready:
        return []
    space.catch_up(conn)
    hits = space.index.near(vector, [scope], COMPARED_STATUSES, NEAREST)
    rows = {r["seq"]: r for r in graph_rows.nodes_by_seqs(conn, [s for s, _ in hits], [scope])}
    found = []
    for seq, score in hits:
        row = rows.get(seq)
        if row is None or row["status"] not in COMPARED_STATUSES:
            continue  # changed since the index saw it
        family = pack.node_types[row["type"]].family if row["type"] in pack.node_types else ""
        found.append(
            Candidate(
                seq, row["id"], row["type"], row["title"], row["status"], family, round(score, 4)
            )
        )
    return found


def decide(
    text: str, best: Candidate | None, cluster: Sequence[str], settings: MemorySettings
) -> Verdict:
    """The band and outcome for a memory with searchable ``text`` against its best same-family
    candidate, whose cluster statements are ``cluster`` (the candidate's own text first)."""
    if best is None or best.score < lowest_band(settings):
        return Verdict("inserted", None, "nothing similar" if best is None else "below the band")
    if best.score < settings.dedup_low and not (cluster and share_anchors(text, cluster[0])):
        return Verdict("inserted", None, "below the band")
    words = word_set(text)
    overlaps = [jaccard(words, word_set(statement)) for statement in cluster]
    closest = max(range(len(cluster)), key=lambda i: overlaps[i]) if cluster else None
    overlap = overlaps[closest] if closest is not None else 0.0
    compared = cluster[closest] if closest is not None else ""
    clash = contradiction(text, compared) if compared else None
    if best.score < settings.dedup_high:
        reason = f"similar ({best.score:.2f}): waiting for review"
        if best.score < settings.dedup_low:
            reason = f"names the same people and figures, similar ({best.score:.2f}): for review"
        return Verdict("pending", best, reason, overlap, clash)
    if clash:
        return Verdict("merge_linked", best, f"same topic, but {clash}", overlap, clash)
    if overlap >= settings.dedup_jaccard:
        identical = _plain(text) in {_plain(statement) for statement in cluster}
        return Verdict("absorbed", best, "says what is already kept", overlap, None, identical)
    return Verdict("merge_linked", best, "same topic with something new", overlap, None)


def lowest_band(settings: MemorySettings) -> float:
    """Below this cosine nothing is a duplicate candidate."""
    return min(settings.dedup_low, settings.dedup_anchored_low)


def cluster_statements(conn: Any, candidate: Candidate, scopes: Sequence[str]) -> list[str]:
    """The candidate's text, its same_topic siblings' texts, and the addenda of all of them."""
    ids = [candidate.id] + [
        e["other_id"]
        for e in graph_rows.edges_touching(
            conn, [candidate.id], scopes, edge_types=["same_topic"], statuses=COMPARED_STATUSES
        )
    ]
    rows = {r["id"]: r for r in graph_rows.nodes_by_ids(conn, ids, scopes)}
    statements = [
        searchable_text(rows[i]["title"], rows[i]["body"], json.loads(rows[i]["attrs"]))
        for i in ids
        if i in rows
    ]
    statements += [a["text"] for a in dedup_rows.addenda_of(conn, ids)]
    return statements


def resonance(
    candidates: Sequence[Candidate], floor: float, exclude: set[str]
) -> list[dict[str, Any]]:
    """Related memories worth showing beside a new one: above the floor, never itself."""
    return [c.brief() for c in candidates if c.score >= floor and c.id not in exclude][
        :RESONANCE_SIZE
    ]


def _plain(text: str) -> str:
    return " ".join(text.casefold().split())
