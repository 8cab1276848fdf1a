"""The dedup gate (DESIGN §4): is a new memory something the vault already holds?

Candidates come from the vector index (same scope, same type family). The best candidate's
cosine places the write in a band, but first ``likeness.compare`` reads what the two actually
say, on their bodies when their titles only repeat a pattern (a speaker and a date):

- a *distinct event* (another date or time; or two things that happened, differing in who,
  where, how many or whether) is a new memory, joined to the candidate by ``relates_to`` when
  the two are very alike. Never absorbed, never waiting for review.
- a *changed value* (a standing statement whose number, name or negation changed: "the rent is
  900" / "the rent is 950") is merge-linked and flagged ``possible_contradiction``, with a
  suggestion to supersede.
- two memories under a pattern title whose bodies share few words are alike only in form: a
  new memory.

Otherwise the bands:

- at or above ``dedup_high``, the same topic. Its words are compared with the candidate's
  *cluster* (the candidate, its ``same_topic`` siblings and the addenda of both): a word-set
  Jaccard at or above ``dedup_jaccard`` means nothing new, and the write is *absorbed* (the
  old memory stands and keeps the new wording as an addendum); otherwise it is *merge-linked*:
  its own node, joined to the candidate by ``same_topic``. A pair that differs in a number, a
  date or a negation is never absorbed: to an embedding "the rent is 900" and "the rent is
  950" are the same sentence.
- between ``dedup_low`` and ``dedup_high``, *pending*: kept and searchable at once, and the
  person decides later whether it repeats the other (merge) or not (keep both).
- below, a new memory.

A rewording that keeps only the names and figures ("Hana has been vegetarian since 2015" /
"Hana stopped eating meat in 2015") scores lower than the small model's paraphrase band, so a
pair that shares its anchors (``anchors.share_anchors``) waits for review from
``dedup_anchored_low`` up.

The bands' defaults (``dedup_low`` 0.78, ``dedup_anchored_low`` 0.74) belong to the embedding
model. The int8 model's pair cosines sit a little below the fp32 model's (0.006 on average, up
to 0.03: ``python -m bench.dedup_calibration``), so both bands were measured again on the
labelled pairs (``python -m bench.dedup_quality``) from the fp32-era 0.80 and 0.75: these keep
every restatement, at least 90% of paraphrases and at least 70% of distinct events and turns
apart, as before. Entities
are not banded here: for them similar meaning only warns (the resolver decides by name).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from cairn.app.dedup import likeness
from cairn.app.dedup.anchors import share_anchors
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.memory_settings import MemorySettings
from cairn.app.models import EntityMatch, MemoryMatch, NodeStatus, Similar, WriteOutcome
from cairn.app.packs import Pack
from cairn.app.text.surface import searchable_text
from cairn.storage import dedup_rows, graph_rows
from cairn.storage.connection import Connection

# How many nearest memories are looked at: enough for the same-family best and a resonance list
# after other families are set aside.
NEAREST = 24
RESONANCE_SIZE = 5
# Statuses a new memory is compared against: what default reads show.
COMPARED_STATUSES = ("active", "stub")
POSSIBLE_CONTRADICTION = "possible_contradiction"
# Memories under a pattern title (a speaker and a date, "Meeting notes") are alike in form: the
# embedding of one is near every other's. They are the same topic only if their bodies share
# this much of their words. On the dev conversations most alike turns of one session share
# less (a third of them at 0.3 or more would wait for review: 1.3% of writes, 0.2% at 0.4),
# while a reworded note under one title ("The rent for the flat is 900 euros a month." / "Our
# monthly rent for the apartment comes to 900 euros.") shares 0.36.
PATTERN_OVERLAP = 0.3


@dataclass(frozen=True)
class Candidate:
    seq: int
    id: str
    type: str
    title: str
    status: str
    family: str
    score: float

    def brief(self) -> Similar:
        return Similar(self.id, self.type, self.title, self.score)

    def as_entity(self) -> EntityMatch:
        """The candidate as an entity a new one may repeat: alike in meaning."""
        return EntityMatch(
            self.id,
            self.type,
            self.title,
            cast(NodeStatus, self.status),
            self.score,
            "similar meaning",
        )

    def as_match(self, jaccard: float | None, reason: str) -> MemoryMatch:
        """The candidate as the memory a write was compared with."""
        return MemoryMatch(
            self.id, self.type, self.title, self.score, round(jaccard or 0.0, 4), reason
        )


@dataclass(frozen=True)
class Verdict:
    outcome: WriteOutcome  # inserted, absorbed, merge_linked, pending
    candidate: Candidate | None
    reason: str
    jaccard: float | None = None
    contradiction: str | None = None
    identical: bool = False  # absorbed word for word: no addendum needed
    related: bool = False  # inserted, and joined to the candidate by relates_to
    high: bool = False  # the candidate is in the same-topic band (at or above dedup_high)

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
    if verdict.outcome == "pending" or (
        verdict.contradiction is not None and verdict.outcome == "merge_linked" and not verdict.high
    ):
        # Likeness below the same-topic band is normal within a body of documents, and so are
        # its passages' differing figures: no review, no flag.
        return Verdict("inserted", verdict.candidate, "similar, not the same")
    return verdict


def nearest(
    conn: Connection, space: EmbeddingSpace, pack: Pack, vector: Any, scope: str
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
    if not cluster:
        cluster = [best.title]
    # The statement of the cluster closest in words decides (see ``likeness``).
    differences = [likeness.compare(text, statement) for statement in cluster]
    difference = max(differences, key=lambda found: found.overlap)
    overlap = difference.overlap
    if difference.kind == "distinct_event":
        # Another occasion: kept, never asked about; joined as related when very alike.
        related = best.score >= settings.dedup_high
        return Verdict(
            "inserted",
            best if related else None,
            f"a distinct event ({difference.reason})",
            overlap,
            related=related,
        )
    if difference.kind == "changed_value":
        reason = f"same statement, but {difference.reason}"
        high = best.score >= settings.dedup_high
        return Verdict("merge_linked", best, reason, overlap, difference.reason, high=high)
    if difference.titles_dropped and overlap < PATTERN_OVERLAP:
        return Verdict("inserted", None, "alike only in the pattern of its title")
    content, kept = difference.compared
    if best.score < settings.dedup_low and not share_anchors(content, kept):
        return Verdict("inserted", None, "below the band")
    if best.score < settings.dedup_high:
        reason = f"similar ({best.score:.2f}): waiting for review"
        if best.score < settings.dedup_low:
            reason = f"names the same people and figures, similar ({best.score:.2f}): for review"
        return Verdict("pending", best, reason, overlap)
    if difference.reason is not None:
        # Worded differently around a number, date or negation: never absorbed.
        return Verdict("merge_linked", best, f"same topic, but {difference.reason}", overlap)
    if overlap >= settings.dedup_jaccard:
        identical = _plain(text) in {_plain(statement) for statement in cluster}
        return Verdict("absorbed", best, "says what is already kept", overlap, None, identical)
    return Verdict("merge_linked", best, "same topic with something new", overlap, None)


def lowest_band(settings: MemorySettings) -> float:
    """Below this cosine nothing is a duplicate candidate."""
    return min(settings.dedup_low, settings.dedup_anchored_low)


def cluster_statements(conn: Connection, candidate: Candidate, scopes: Sequence[str]) -> list[str]:
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


def resonance(candidates: Sequence[Candidate], floor: float, exclude: set[str]) -> list[Similar]:
    """Related memories worth showing beside a new one: above the floor, never itself."""
    return [c.brief() for c in candidates if c.score >= floor and c.id not in exclude][
        :RESONANCE_SIZE
    ]


def _plain(text: str) -> str:
    return " ".join(text.casefold().split())
