"""``python -m bench.conversations``: does a question find the turns of a real conversation that
answer it, and does a log of look-alike events stay findable? (``make bench-quality``)

1. The conversational recall protocol of the test corpus (``../shared/corpus/README.md``,
   "Conversational recall protocol"), on the LoCoMo conversations of
   ``07_conversations/locomo_dev``: one fresh encrypted vault per conversation, every turn
   written in order with ``MemoryService.write`` as a Note (title ``"{speaker}, {session
   date_time}"``, body ``"{speaker}: {text}"`` plus ``" [shares a photo: {caption}]"``), each
   turn kept with the memory its write ended in (an absorbed turn with the memory that absorbed
   it). Each question of categories 1-4 is searched, and Recall@5/10/20 is the share of its gold
   turns held by the first 5/10/20 memories (``bench.locomo``). Only the memories a search
   returns count: a memory folded into a hit by read-time collapse is not shown, so it does not.
   Reported with the write outcomes and the turns whose memory a default search cannot show.
2. The same questions against the same turns in other ways. Cairn: the default search
   (``balanced``), ``fast``, the default with one mechanism of the fusion switched off in turn
   (``ABLATIONS``: each leg's scores of the other's hits, the share of the question's words a
   memory holds, the session/document context, both contexts, score fusion itself, the time
   match of ``retrieval.timing``, the question's who of ``retrieval.who``), and each leg alone
   through ``retrieval.search``; and the default search as an as-of read (``--as-of`` the day
   after the run: every turn held then, so an as-of read must find what a plain one does,
   through its own path: validity checked per memory, deeper legs, the question's own time
   words resolved against that day). Baselines outside Cairn, with no gate (``bench.baselines``):
   plain BM25, plain dense cosine with the same model, and plain RRF of the two; their unit is
   the turn.
3. The templated workload (``bench.templated``): thousands of distinct look-alike events in one
   vault, then 200 questions each asking for one of them.

Prints a table per section and writes ``bench/results/conversations.json``. Without the corpus
the conversations are skipped with a message (the templated workload needs no corpus); the exit
status is 0 either way: it measures, it does not judge (an unknown ``--conversations`` id is
an error, status 2).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
import unittest.mock
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench import baselines, compact_recall, locomo, report, templated
from bench.build import PASSPHRASE
from bench.embedders import add_model_option, embedder_named
from bench.measure import load_average, machine, summary
from bench.writes import WriteLog, hidden, statuses_of
from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.retrieval import fusion, timing, who
from cairn.app.retrieval import search as retrieval
from cairn.app.service import MemoryService
from cairn.app.text.surface import searchable_text

SCOPE = "personal"
DEPTH = max(locomo.KS)  # memories (or turns) asked per question
EMBED_BATCH = 64
QUICK_TEMPLATED = 1_000
DEFAULT_TEMPLATED = 10_000
CAIRN = "cairn balanced (default)"
# What each mechanism of the fusion adds: the default search with that one switched off.
ABLATIONS: dict[str, dict[str, Any]] = {
    "cairn - other leg's scores": {"unranked": ()},
    "cairn - word coverage": {"coverage_weight": 0.0},  # fusion.covered's weight
    "cairn - group context": {"group_weight": 0.0},
    "cairn - both contexts": {"group_weight": 0.0, "context_weight": 0.0},
    "cairn rrf, no context": {"rrf": True},
    "cairn - time match": {"time_match": False},
    "cairn - who": {"who": False},  # no tie, no entity memories, the question asked whole
}
AS_OF = "cairn as of a later day"
CONFIGS = (CAIRN, "cairn fast", *ABLATIONS, AS_OF, "cairn text leg", "cairn vector leg")
BASELINES = ("bm25", "dense", "rrf(bm25, dense)")
JSON_PATH = report.RESULTS / "conversations.json"

Ranker = Callable[[str], list[str]]


def cairn_rankers(service: MemoryService) -> dict[str, Ranker]:
    """Each Cairn configuration as question -> memory ids, best first."""

    def through_service(profile: str, as_of: str | None = None) -> Ranker:
        def ranked(question: str) -> list[str]:
            response = service.search(
                question, scopes=[SCOPE], limit=DEPTH, profile=profile, as_of=as_of
            )
            return [hit.id for hit in response.results]

        return ranked

    def one_leg(leg: str) -> Ranker:
        options = retrieval.SearchOptions(limit=DEPTH, profile="fast", legs=(leg,))

        def ranked(question: str) -> list[str]:
            # The service always runs both legs; evaluation calls retrieval as bench.quality does.
            response = retrieval.search(service._vault, service._space, question, [SCOPE], options)
            return [hit.id for hit in response.results]

        return ranked

    def without(switches: dict[str, Any]) -> Ranker:
        search = through_service("balanced")
        fusion_switches = {
            k: v for k, v in switches.items() if k not in ("time_match", "coverage_weight", "who")
        }

        def ranked(question: str) -> list[str]:
            with contextlib.ExitStack() as patches:
                if fusion_switches:
                    patches.enter_context(
                        unittest.mock.patch.object(fusion, "combine", _ablated(fusion_switches))
                    )
                if "coverage_weight" in switches:
                    patches.enter_context(
                        unittest.mock.patch.object(
                            fusion, "COVERAGE_WEIGHT", switches["coverage_weight"]
                        )
                    )
                if switches.get("who") is False:
                    patches.enter_context(
                        unittest.mock.patch.object(who, "named", lambda *_: who.Named(frozenset()))
                    )
                if switches.get("time_match") is False:  # neither its weight nor its depth
                    patches.enter_context(unittest.mock.patch.object(timing, "TIME_WEIGHT", 0.0))
                    patches.enter_context(
                        unittest.mock.patch.object(timing, "TIME_DEPTH_FACTOR", 1)
                    )
                return search(question)

        return ranked

    return {
        CAIRN: through_service("balanced"),
        "cairn fast": through_service("fast"),
        **{name: without(switches) for name, switches in ABLATIONS.items()},
        AS_OF: through_service("balanced", as_of=_a_later_day()),
        "cairn text leg": one_leg("text"),
        "cairn vector leg": one_leg("vector"),
    }


def _a_later_day() -> str:
    """The day after today (UTC, as stamps are): every memory written by the run held then."""
    return (datetime.now(UTC).date() + timedelta(days=1)).isoformat()


def _ablated(switches: dict[str, Any]) -> Callable[..., dict[int, float]]:
    """``fusion.combine`` with some mechanism off: a context weight at 0, a leg's scores of
    the memories it did not rank left out, or reciprocal rank fusion of the legs' orders in
    place of their scores (with no context either)."""
    combine = fusion.combine

    def fused(legs: Sequence[dict[int, float]], *context: Any, **given: Any) -> dict[int, float]:
        if switches.get("rrf"):
            return retrieval.rrf([sorted(leg, key=lambda seq: -leg[seq]) for leg in legs])
        return combine(legs, *context, **(given | switches))

    return fused


def turn_texts(turns: Sequence[locomo.Turn]) -> list[str]:
    """The turns' searchable text: title and body, as Cairn indexes and embeds it."""
    return [searchable_text(turn.title, turn.body, {}) for turn in turns]


def baseline_rankers(
    turns: Sequence[locomo.Turn], embedder: MiniLMEmbedder, vectors: Any
) -> dict[str, Ranker]:
    """BM25, dense (over the turns' float32 ``vectors``) and RRF over the turns' searchable
    text, each as question -> turn ids, best first."""
    texts = turn_texts(turns)
    ids = [turn.dia_id for turn in turns]
    lexical = baselines.BM25(texts)
    dense = baselines.Dense(vectors)
    depth = baselines.FUSION_DEPTH

    def bm25(question: str) -> list[int]:
        return lexical.rank(question, depth)

    def cosine(question: str) -> list[int]:
        return dense.rank(embedder.embed([question])[0], depth)

    def fused(question: str) -> list[int]:
        return baselines.rrf([bm25(question), cosine(question)])

    def as_ids(rank: Callable[[str], list[int]]) -> Ranker:
        return lambda question: [ids[d] for d in rank(question)[:DEPTH]]

    return {"bm25": as_ids(bm25), "dense": as_ids(cosine), "rrf(bm25, dense)": as_ids(fused)}


def embed(embedder: MiniLMEmbedder, texts: Sequence[str]) -> Any:
    import numpy as np

    parts = [embedder.embed(texts[i : i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)]
    return np.concatenate(parts) if parts else np.zeros((0, embedder.dim), dtype=np.float32)


def run_conversation(
    conversation: locomo.Conversation, embedder: MiniLMEmbedder, folder: Path
) -> dict[str, Any]:
    """Write the turns into a fresh vault, then every question through every configuration."""
    start = time.perf_counter()
    service = compose.create_vault(
        folder / f"{conversation.sample_id}.cairn", PASSPHRASE, embedder=embedder
    )
    try:
        log = WriteLog()
        turn_memory = {
            turn.dia_id: log.record(service.write("Note", turn.title, turn.body))
            for turn in conversation.turns
        }
        write_s = time.perf_counter() - start
        statuses = statuses_of(service, [m for m in log.memories if m is not None], SCOPE)
        holds = locomo.holdings(turn_memory)
        scored = {
            name: _ask(conversation, rank, holds) for name, rank in cairn_rankers(service).items()
        }
    finally:
        service.close()
    turns = locomo.identity_holdings(turn.dia_id for turn in conversation.turns)
    vectors = embed(embedder, turn_texts(conversation.turns))
    for name, rank in baseline_rankers(conversation.turns, embedder, vectors).items():
        scored[name] = _ask(conversation, rank, turns)
    questions = embed(embedder, [question.text for question in conversation.questions])
    answers = frozenset().union(*(q.gold for q in conversation.questions))
    return {
        "turns": len(conversation.turns),
        "questions": len(conversation.questions),
        "skipped_questions": conversation.skipped_questions,
        "dropped_evidence": conversation.dropped_evidence,
        "writes": log.summary() | {"turns_hidden_at_end": hidden(log.memories, statuses)},
        "memories_holding_turns": len(holds),
        "answer_turns": len(answers),
        "short_answer_turns": len(answers & locomo.short_turns(conversation.turns)),
        "write_s": round(write_s, 1),
        "scored": scored,
        "compact_overlaps": compact_recall.overlaps(vectors, questions),
    }


def _ask(
    conversation: locomo.Conversation, rank: Ranker, holds: dict[str, set[str]]
) -> dict[str, Any]:
    short = locomo.short_turns(conversation.turns)
    scored, seconds = [], []
    for question in conversation.questions:
        start = time.perf_counter()
        ranked = rank(question.text)
        seconds.append(time.perf_counter() - start)
        scored.append(locomo.score(conversation.sample_id, question, ranked, holds, short))
    return {"questions": scored, "latency": summary(seconds)}


def conversations_section(
    chosen: list[locomo.Conversation], embedder: MiniLMEmbedder
) -> dict[str, Any]:
    per: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="cairn-conversations-") as folder:
        for conversation in chosen:
            _say(
                f"{conversation.sample_id}: {len(conversation.turns)} turns, "
                f"{len(conversation.questions)} questions"
            )
            per[conversation.sample_id] = run_conversation(conversation, embedder, Path(folder))
    names = (*CONFIGS, *BASELINES)
    pooled = {
        name: [s for line in per.values() for s in line["scored"][name]["questions"]]
        for name in names
    }
    overall = {name: locomo.summarize(pooled[name]) for name in names}
    for name in names:
        latencies = [line["scored"][name]["latency"]["p50_ms"] for line in per.values()]
        overall[name]["p50_ms_median_of_conversations"] = sorted(latencies)[len(latencies) // 2]
    writes = WriteLog()
    for line in per.values():
        writes.outcomes.update(line["writes"]["outcomes"])
        writes.contradictions += line["writes"]["possible_contradiction"]
    compact = {
        name: [x for line in per.values() for x in line["compact_overlaps"][name]]
        for name in ("codes", "shortlist")
    }
    return {
        "conversations": list(per),
        "compact_vectors": compact_recall.summarize(compact),
        "turns": sum(line["turns"] for line in per.values()),
        "questions": sum(line["questions"] for line in per.values()),
        "skipped_questions": sum(line["skipped_questions"] for line in per.values()),
        "short_answer_share": round(
            sum(line["short_answer_turns"] for line in per.values())
            / max(1, sum(line["answer_turns"] for line in per.values())),
            4,
        ),
        "writes": writes.summary()
        | {
            "turns_hidden_at_end": sum(
                line["writes"]["turns_hidden_at_end"] for line in per.values()
            )
        },
        "overall": overall,
        "per_conversation": {
            sample: {
                **{k: v for k, v in line.items() if k not in ("scored", "compact_overlaps")},
                "recall": {
                    name: locomo.summarize(line["scored"][name]["questions"]) for name in names
                },
            }
            for sample, line in per.items()
        },
        # Per question, so whoever tunes the gate or the ranking can see what a change moves.
        "per_question": {
            name: {
                f"{s.conversation}#{s.question}": [s.recall[k] for k in locomo.KS]
                for s in pooled[name]
            }
            for name in names
        },
    }


def templated_section(count: int, embedder: MiniLMEmbedder) -> dict[str, Any]:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cairn-templated-") as folder:
        service = compose.create_vault(Path(folder) / "events.cairn", PASSPHRASE, embedder=embedder)
        try:
            result = templated.run(service, count, _say)
        finally:
            service.close()
    return result | {"elapsed_s": round(time.perf_counter() - start, 1)}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.conversations", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--corpus", type=Path, default=locomo.LOCOMO_FILE, help="the LoCoMo file")
    parser.add_argument(
        "--conversations",
        help="comma-separated sample ids to run (e.g. conv-26,conv-30); all by default",
    )
    parser.add_argument(
        "--templated",
        type=int,
        metavar="N",
        help=f"events of the templated workload ({DEFAULT_TEMPLATED:,} by default, "
        f"{QUICK_TEMPLATED:,} with --quick)",
    )
    parser.add_argument("--skip-templated", action="store_true", help="leave the workload out")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"one conversation and {QUICK_TEMPLATED:,} templated events: a smoke run",
    )
    add_model_option(parser)
    args = parser.parse_args(argv)
    if args.templated is not None and args.templated < templated.QUERIES:
        parser.error(f"--templated needs at least {templated.QUERIES} events to ask about")
    return args


def choose(
    loaded: list[locomo.Conversation], wanted: str | None, quick: bool
) -> list[locomo.Conversation]:
    """The conversations named by ``--conversations`` (all when None), the first only when
    quick; raises ValueError naming the known ids for an unknown one."""
    chosen = loaded
    if wanted:
        by_id = {c.sample_id: c for c in loaded}
        names = [name.strip() for name in wanted.split(",") if name.strip()]
        unknown = [name for name in names if name not in by_id]
        if unknown:
            raise ValueError(
                f"no conversation {', '.join(unknown)} in the corpus; it has {', '.join(by_id)}"
            )
        chosen = [by_id[name] for name in dict.fromkeys(names)]
    return chosen[:1] if quick else chosen


def main(argv: list[str] | None = None) -> dict[str, Any]:
    from bench import conversations_report

    args = parse_args(argv)
    started = time.perf_counter()
    loaded = locomo.load(args.corpus)
    chosen: list[locomo.Conversation] = []
    if loaded is None:
        print(f"bench-quality: no LoCoMo conversations at {args.corpus}; recall not measured.")
    else:
        try:
            chosen = choose(loaded, args.conversations, args.quick)
        except ValueError as exc:
            print(
                f"bench-quality: {exc}. Name some of those with --conversations.", file=sys.stderr
            )
            sys.exit(2)
    count = args.templated or (QUICK_TEMPLATED if args.quick else DEFAULT_TEMPLATED)
    results: dict[str, Any] = {"machine": machine()}
    if not chosen and args.skip_templated:
        return results
    _say("loading the model")
    model_folder = tempfile.TemporaryDirectory(prefix="cairn-conversations-model-")
    embedder = embedder_named(args.model, model_folder.name)
    results["embedder"] = embedder.identity
    if chosen:
        results["conversations"] = conversations_section(chosen, embedder)
        results["conversations"]["elapsed_s"] = round(time.perf_counter() - started, 1)
    if not args.skip_templated:
        _say(f"templated workload: {count:,} events")
        results["templated"] = templated_section(count, embedder)
    results |= {
        "quick": args.quick,
        "load_average_at_end": load_average(),
        "elapsed_s": round(time.perf_counter() - started, 1),
    }
    report.write_json(results, JSON_PATH)
    if chosen:
        conversations_report.print_conversations(results["conversations"], CAIRN)
    if "templated" in results:
        conversations_report.print_templated(results["templated"])
    print(f"\nwhole run: {results['elapsed_s']:.0f} s; written to {JSON_PATH}")
    return results


def _say(message: str) -> None:
    print(f"[bench-conversations] {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
