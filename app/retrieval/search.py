"""Hybrid search (DESIGN §5): a vector leg and a BM25 leg fused by their scores with each hit's
context (``fusion``: its neighbours in time and its document or dated session), an optional
graph leg, read-time collapse of near-duplicates, and a total order.

Profiles: ``fast`` is the two legs alone; ``balanced`` has them look deeper and adds the graph
leg: the 1-hop entity-layer neighbours of the top hits (the person a note involves, the notes of
a project) with a score decayed from the hit's and damped by how many neighbours the hit has, so
a hub adds little; and the memories by or about someone the question names (``who``).

Collapse: of two hits whose vectors are at least ``dedup_high`` alike, only the better one is
shown (the other is listed in its ``collapsed``), unless the two are joined by ``same_topic``,
``relates_to`` or ``supersedes``: the person (or the gate) said they are different, so both are
shown.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cairn.app import memory_settings
from cairn.app.clock import utc_stamp
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest
from cairn.app.models import ALL_STATUSES, VISIBLE_STATUSES, SearchHit, SearchResponse
from cairn.app.retrieval import fusion, hit_faces, timing, who
from cairn.app.text.statements import occasions
from cairn.storage import dedup_rows, fulltext, graph_rows, source_rows
from cairn.storage.connection import Connection
from cairn.storage.rows import HeadRow, Validity
from cairn.storage.vault import Vault

# Each leg contributes its top 30 under ``fast``, 60 under ``balanced``: once each leg scores
# every candidate (``fusion``), a deeper list is no longer mostly noise. On the dev conversations
# 60 adds 0.9 points of Recall@10 and 1.7 of Recall@20 to 30 (100: 1.5 and 2.4), at about a
# quarter more search CPU at 10,000 memories. RRF's k=60 is the constant from Cormack et al.
# (2009); ``rrf`` remains for evaluation, the search fuses scores (``fusion``).
LEG_DEPTH = {"fast": 30, "balanced": 60}
RRF_K = 60
MAX_LIMIT = 25  # what a caller may ask for
MAX_EVAL_LIMIT = 100  # what evaluation (Recall@100) may ask of this module directly
PROFILES = ("fast", "balanced")
LEGS = ("vector", "text")
# The graph leg: the top hits it expands, the neighbours taken from each, and how much of a
# hit's score a neighbour inherits (before damping by the hit's neighbour count).
GRAPH_SEEDS = 5
NEIGHBOURS_PER_SEED = 8
GRAPH_DECAY = 0.5
GRAPH_LAYER = "entity"
# Pairs never collapsed: the gate or the person declared them different memories. A version
# and the one it superseded are two states of a fact (often one number apart, so their vectors
# are nearly equal): a history or as-of read that asked for both must show both.
KEPT_APART = ("same_topic", "relates_to", "supersedes")
# A query is near a memory in meaning when its cosine with the memory reaches this; below it, and
# with no text hit holding all the query's words, what comes back is only the least far. A
# query whose words the model mostly does not know (spelled out in pieces: "xqzv", a name it
# never saw) is near nothing by meaning at any cosine; only its words can find it.
# ``python -m bench.closeness``: at 0.25, "nothing close" is said of 0% of 93 physics queries,
# 238 note titles and 149 chat questions asked of their own material; of 62%, 34% and 74%
# asked of the wrong vault; and of all 50 random strings. A higher floor says it of more of the
# wrong vault's queries, but also hides short real ones ("vegetable garden" is at 0.33 from a
# note about sowing tomatoes, "gardening" at 0.29).
CLOSE_COSINE = 0.25
KNOWN_WORDS_MIN = 0.5  # the share of a query's words the model must know to vouch by meaning
COVER_CHECKED = 5  # the best text hits asked whether they hold all the query's words
# An as-of read looks deeper, since some of each leg's hits fall outside the time.
AS_OF_DEPTH_FACTOR = 3


@dataclass(frozen=True)
class SearchOptions:
    limit: int = 10
    include_archived: bool = False
    include_history: bool = False  # superseded memories too
    profile: str = "balanced"
    as_of: str | None = None  # the state of things at this date or time (valid time)
    diagnostics: bool = False
    legs: tuple[str, ...] = LEGS  # evaluation runs one leg alone
    collapse: bool = True

    def statuses(self) -> tuple[str, ...]:
        statuses = list(VISIBLE_STATUSES)
        if self.include_archived:
            statuses.append("archived")
        if self.include_history or self.as_of:
            statuses.append("superseded")
        return tuple(s for s in ALL_STATUSES if s in statuses)


def as_of_instant(as_of: str) -> str:
    """A comparable ISO instant for ``as_of``; a bare date means the end of that day."""
    # Stamps are compared as text and recorded_at is UTC: a time given with another offset
    # (or in the compact form 20240101T1200) must be written the same way first, else
    # "01:00+02:00" sorts after "00:00+00:00" although it is an hour earlier.
    stamp = utc_stamp(as_of)
    if stamp is None:
        raise InvalidRequest(f"as_of is a date (YYYY-MM-DD) or ISO time, not {as_of!r}.")
    return f"{stamp}T23:59:59.999999+00:00" if len(stamp) == 10 else stamp


def valid_at(row: Validity, instant: str) -> bool:
    """Whether a memory held at ``instant``: from its valid_from (else when it was recorded)
    until its valid_to (set when it was superseded)."""
    start = row["valid_from"] or row["recorded_at"]
    return start <= instant and (row["valid_to"] is None or row["valid_to"] > instant)


def rrf(legs: Sequence[Sequence[int]], k: int = RRF_K) -> dict[int, float]:
    """Reciprocal rank fusion: each item scores the sum of 1 / (k + rank) over the legs."""
    scores: dict[int, float] = {}
    for leg in legs:
        for rank, item in enumerate(leg, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores


def check(options: SearchOptions, max_limit: int = MAX_EVAL_LIMIT) -> None:
    if not 1 <= options.limit <= max_limit:
        raise InvalidRequest(f"A search returns between 1 and {max_limit} results.")
    if options.profile not in PROFILES:
        raise InvalidRequest(f"The search profile is {' or '.join(PROFILES)}.")
    if not options.legs or any(leg not in LEGS for leg in options.legs):
        raise InvalidRequest(f"Search legs are among {', '.join(LEGS)}.")


def search(
    vault: Vault,
    space: EmbeddingSpace,
    query: str,
    scopes: Sequence[str],
    options: SearchOptions,
    counts: fulltext.DocumentCounts | None = None,
) -> SearchResponse:
    check(options)
    scopes = list(scopes)
    statuses = options.statuses()
    instant = as_of_instant(options.as_of) if options.as_of else None
    asked = timing.read_question(query, timing.asked_on(instant))
    deeper = max(AS_OF_DEPTH_FACTOR if instant else 1, asked.depth_factor())
    depth = max(LEG_DEPTH[options.profile], options.limit) * deeper
    # While the vector index loads in the background (the window's open), the words answer.
    loading = space.answers_without_vectors()
    wanted = "vector" in options.legs
    notes = [note] if (wanted and (note := space.status_note(loading))) else []
    with vault.read() as conn:
        high = memory_settings.read(conn).dedup_high
        vector_future = None
        if wanted and not loading:
            space.catch_up(conn)
            vector_future = space.nearest_soon(query, scopes, statuses, depth)
        text_query = fulltext.plan(conn, query, counts) if "text" in options.legs else None
        text_scored = (
            fulltext.search_scored(conn, text_query, scopes, statuses, depth) if text_query else []
        )
        text_leg = [seq for seq, _ in text_scored]
        found_near = vector_future.result() if vector_future is not None else None
        nearest = found_near.hits if found_near is not None else None
        vector_leg = [seq for seq, _ in nearest or []]
        # A question naming someone the vault knows as an entity also weighs that entity's
        # memories, whether or not a leg ranked them (``who``).
        asked_who = who.named(conn, query, scopes) if options.profile == "balanced" else None
        by_entity = (
            who.entity_memories(conn, asked_who, scopes, statuses)
            if asked_who and asked_who.entities
            else {}
        )
        found = set(vector_leg) | set(text_leg) | set(by_entity)
        rows = {r["seq"]: r for r in graph_rows.heads_by_seqs(conn, list(found), scopes)}
        # A node can change between the legs and this read; keep only what is still visible.
        shown = {seq for seq in found if _shown(rows.get(seq), statuses, instant)}
        spoken = who.spoken_by(conn, asked_who, shown) if asked_who else {}
        # Who is asked about is matched by the tie below; what is asked, by meaning alone: a
        # name in the question pulls its vector towards every line that names them.
        what = who.what_is_asked(query, asked_who, spoken) if asked_who else query
        if found_near is not None and what != query:
            found_near = space.nearest_soon(what, scopes, statuses, depth).result()
            nearest = found_near.hits if found_near is not None else None
            vector_leg = [seq for seq, _ in nearest or []]
            more = set(vector_leg) - found
            found |= more
            rows.update((r["seq"], r) for r in graph_rows.heads_by_seqs(conn, list(more), scopes))
            more = {seq for seq in more if _shown(rows.get(seq), statuses, instant)}
            shown |= more
            spoken |= who.spoken_by(conn, asked_who, more) if asked_who else {}
        legs = [
            {seq: score for seq, score in nearest or [] if seq in shown},
            {seq: score for seq, score in text_scored if seq in shown},
        ]
        neighbours, groups = _context(conn, shown, rows, scopes)
        # Each leg also scores what it did not rank: the other leg's hits, and the visible
        # neighbours that lend them context (``fusion``).
        around = {n for sides in neighbours.values() for n in sides}
        others = shown | {n for n in around if _shown(rows.get(n), statuses, instant)}
        unranked = [
            space.cosines(found_near.vector, sorted(others - legs[0].keys()))
            if found_near is not None
            else {},
            fulltext.scores_of(conn, text_query, sorted(others - legs[1].keys()))
            if text_query
            else {},
        ]
        # An entity's memory no leg ranked is scored by each leg as the others are.
        for leg, scored in zip(legs, unranked, strict=True):
            leg.update({seq: scored[seq] for seq in by_entity if seq in shown and seq in scored})
        coverage = fulltext.word_shares(conn, text_query, sorted(shown)) if text_query else None
        fused = fusion.combine(legs, neighbours, groups, unranked=unranked)
        timed = timing.matches(conn, asked, rows, shown, scopes)
        fused = timing.raised(fused, timed, timing.TIME_WEIGHT)
        graph_scores: dict[int, float] = {}
        via: dict[int, str] = {}
        if options.profile == "balanced" and fused:
            graph_scores, via = _graph_leg(conn, fused, rows, scopes, statuses, instant)
        tied = {seq: name for seq, name in (spoken | by_entity).items() if seq in fused}
        scores = fusion.covered(fused, coverage or {})
        for seq, extra in graph_scores.items():
            scores[seq] = scores.get(seq, 0.0) + extra
        for seq in tied:
            scores[seq] += who.WHO_WEIGHT
        # A stub holds nothing but its name: it answers a search for that name, and a longer
        # question that names it is answered by its memories (``who``), not by the name card.
        scores = {seq: v for seq, v in scores.items() if not who.only_named(rows[seq], query)}
        ranked = total_order(scores, rows)
        collapsed: dict[int, list[str]] = {}
        if options.collapse:
            ranked, collapsed = _collapse(conn, space, ranked, rows, high, options.limit)
        top = ranked[: options.limit]
        # The planned words: the query's rare words are the ones worth showing, and matching
        # its common ones again would cost what planning saved.
        snippets = fulltext.snippets(conn, text_query.expression, top) if text_query else {}
        # A hit the text leg did not match shows the start of its text instead.
        bodies = graph_rows.bodies(conn, top)
        waiting = dedup_rows.awaiting_review(conn, [rows[seq]["id"] for seq in top], scopes)
        shown_as = hit_faces.faces(conn, [rows[seq] for seq in top], scopes)
        # Words that all meet in one of the best text hits are a match, however far in meaning.
        covered = (
            bool(fulltext.covering(conn, text_query, text_leg[:COVER_CHECKED]))
            if (text_query and len(text_query.terms) > 0)
            else False
        )
    ranks = {
        "vector": {seq: i for i, seq in enumerate(vector_leg, start=1)},
        "text": {seq: i for i, seq in enumerate(text_leg, start=1)},
        "graph": {seq: i for i, seq in enumerate(total_order(graph_scores, rows), start=1)},
    }
    cosines = dict(nearest or [])
    hits = []
    for seq in top:
        row = rows[seq]
        face = shown_as[row["id"]]
        snippet, spans = hit_faces.snippet(
            snippets.get(seq), row["title"], bodies.get(seq, ""), face.hidden
        )
        diagnostics = None
        if options.diagnostics:
            diagnostics = {
                "fused": round(fused.get(seq, 0.0), 8),
                "words": round(
                    scores[seq]
                    - fused.get(seq, 0.0)
                    - graph_scores.get(seq, 0.0)
                    - (who.WHO_WEIGHT if seq in tied else 0.0),
                    8,
                ),
                "graph": round(graph_scores.get(seq, 0.0), 8),
                "graph_via": via.get(seq),
                "who": tied.get(seq),
                "time_match": seq in timed,
                "cosine": round(cosines[seq], 6) if seq in cosines else None,
                "collapsed": collapsed.get(seq, []),
            }
        hits.append(
            SearchHit(
                id=row["id"],
                type=row["type"],
                title=row["title"],
                snippet=snippet,
                highlights=spans,
                score=round(scores[seq], 8),
                scope=row["scope"],
                status=row["status"],
                source=row["source"],
                recorded_at=row["recorded_at"],
                ranks={leg: ranks[leg].get(seq) for leg in ("vector", "text", "graph")},
                collapsed=collapsed.get(seq, []),
                diagnostics=diagnostics,
                awaiting_review=row["id"] in waiting,
                shelf=face.shelf,
                part_of=face.part_of,
                position=face.position,
            )
        )
    return SearchResponse(
        query,
        hits,
        vector_search=nearest is not None,
        notes=tuple(notes),
        profile=options.profile,
        as_of=options.as_of,
        # A hit by or about someone the question names is close, whatever the cosine of what
        # is asked of them.
        nothing_close=bool(top)
        and not covered
        and not any(seq in tied for seq in top)
        and _far(space, query, cosines),
    )


def _far(space: EmbeddingSpace, query: str, cosines: Mapping[int, float]) -> bool:
    """No memory is near the query in meaning (see ``CLOSE_COSINE``); with the vectors not
    searched, nothing can be said, so nothing is."""
    if not cosines:
        return False
    known = space.known_word_share(query)
    return (known is not None and known < KNOWN_WORDS_MIN) or max(cosines.values()) < CLOSE_COSINE


def _context(
    conn: Connection, seqs: set[int], rows: dict[int, HeadRow], scopes: list[str]
) -> tuple[dict[int, list[int]], dict[int, tuple[Hashable, ...]]]:
    """What surrounds each hit: its neighbours in time that share its context (the passages
    written before and after it in the same document, or the memories of the same dated
    session: titles that name one occasion, "Ines, 3:10 pm on 4 March, 2024"), and its group
    (that document or session). A memory in neither has no neighbours and no group."""
    around = graph_rows.written_around(conn, list(seqs))
    missing = {n for pair in around.values() for n in pair if n is not None and n not in rows}
    for row in graph_rows.heads_by_seqs(conn, list(missing), scopes):
        rows[row["seq"]] = row
    # A source is a document only when it names a file the vault read: "cli", "inbox" and
    # the like name how unrelated notes arrived, not a text they are parts of.
    files = source_rows.known(conn, (row["source"] for row in rows.values() if row["source"]))
    groups = {seq: group for seq in seqs if (group := _group(rows[seq], files)) is not None}
    context: dict[int, list[int]] = {}
    for seq, pair in around.items():
        if seq not in groups:
            continue
        sides = [
            n for n in pair if n is not None and n in rows and _group(rows[n], files) == groups[seq]
        ]
        if sides:
            context[seq] = sides
    return context, groups


def _group(row: HeadRow, files: set[str]) -> tuple[Hashable, ...] | None:
    """The document (same source file) or the dated session (same occasion in the title) a
    memory belongs to, within its scope; None for a memory in neither. A session's key opens
    with ``fusion.OCCASION``: its lines lift each other more than a document's passages."""
    if row["source"] in files:
        return (row["scope"], row["source"])
    occasion = _title_occasion(row["title"])
    return (fusion.OCCASION, row["scope"], occasion) if occasion else None


@functools.lru_cache(maxsize=4096)
def _title_occasion(title: str) -> frozenset[str]:
    # Most titles name no date or time; only those with a digit are worth the parse.
    return occasions(title) if any(ch.isdigit() for ch in title) else frozenset()


def _shown(row: HeadRow | None, statuses: Sequence[str], instant: str | None) -> bool:
    if row is None or row["status"] not in statuses:
        return False
    if instant is None:
        # Superseded memories are history: shown when asked for history, never as current.
        return True
    return valid_at(row, instant)


def _graph_leg(
    conn: Connection,
    fused: dict[int, float],
    rows: dict[int, HeadRow],
    scopes: list[str],
    statuses: Sequence[str],
    instant: str | None,
) -> tuple[dict[int, float], dict[int, str]]:
    """Scores the top hits pass to their entity-layer neighbours, and which hit each came by."""
    seeds = total_order(fused, rows)[:GRAPH_SEEDS]
    scores: dict[int, float] = {}
    via: dict[int, str] = {}
    reached = graph_rows.neighbours_by_layer(
        conn,
        [rows[seed]["id"] for seed in seeds],
        GRAPH_LAYER,
        scopes,
        statuses,
        NEIGHBOURS_PER_SEED,
    )
    for seed in seeds:
        neighbours = reached[rows[seed]["id"]]
        if not neighbours:
            continue
        # Damped by the square root of the neighbour count: a hit with one neighbour passes
        # it half its score, one with eight passes each about a sixth.
        share = fused[seed] * GRAPH_DECAY / math.sqrt(len(neighbours))
        for n in neighbours:
            if share > scores.get(n["seq"], 0.0):
                scores[n["seq"]] = share
                via[n["seq"]] = rows[seed]["id"]
    missing = [seq for seq in scores if seq not in rows]
    for row in graph_rows.heads_by_seqs(conn, missing, scopes):
        rows[row["seq"]] = row
    keep = {seq for seq in scores if _shown(rows.get(seq), statuses, instant)}
    return {seq: s for seq, s in scores.items() if seq in keep}, via


def _collapse(
    conn: Connection,
    space: EmbeddingSpace,
    ranked: list[int],
    rows: dict[int, HeadRow],
    high: float,
    limit: int,
) -> tuple[list[int], dict[int, list[str]]]:
    """Drop hits nearly identical to a better one, unless the two were kept apart on purpose."""
    window = ranked[: limit + 10]
    vectors = space.vectors_of(window)
    if len(vectors) < 2:
        return ranked, {}
    apart = graph_rows.pairs_joined(conn, [rows[s]["id"] for s in window], KEPT_APART)
    # Every pair's cosine at once; the greedy walk below only reads it.
    with_vector = [seq for seq in window if seq in vectors]
    position = {seq: i for i, seq in enumerate(with_vector)}
    matrix = np.stack([vectors[seq] for seq in with_vector])
    alike = np.einsum("ik,jk->ij", matrix, matrix) >= high  # not BLAS: see vectors.search
    kept: list[int] = []
    collapsed: dict[int, list[str]] = {}
    for seq in window:
        into = None
        if seq in position:
            row = alike[position[seq]]
            for other in kept:
                if (
                    other in position
                    and row[position[other]]
                    and frozenset((rows[seq]["id"], rows[other]["id"])) not in apart
                ):
                    into = other
                    break
        if into is None:
            kept.append(seq)
            if len(kept) == limit:
                break
        else:
            collapsed.setdefault(into, []).append(rows[seq]["id"])
    return kept, collapsed


def total_order(scores: dict[int, float], rows: Mapping[int, HeadRow]) -> list[int]:
    """Best score first; equal scores newer first, then by id: a total order (invariant I7).

    Three stable sorts, last key first.
    """
    ranked = sorted(scores, key=lambda seq: rows[seq]["id"])
    ranked.sort(key=lambda seq: rows[seq]["recorded_at"], reverse=True)
    ranked.sort(key=lambda seq: scores[seq], reverse=True)
    return ranked
