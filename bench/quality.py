"""``python -m bench.quality``: retrieval quality on the Vaswani (NPL) test collection.

11,429 physics and electrical-engineering abstracts, 93 queries and their relevance judgements
(``../shared/corpus/02_ir/vaswani_npl``). The abstracts are loaded into a fresh encrypted vault
with the real model's vectors, then every query is run through ``retrieval.search`` in four
configurations (lexical only, vector only, hybrid, hybrid with graph expansion) and scored with
nDCG@10, MAP and Recall@100 (``bench.ir_metrics``). Prints a table, writes
``bench/results/quality.json``, and says loudly whether hybrid beats each single leg.

The documents are stored through the storage calls of the write path's insert (node row,
full-text entry, vector; a receipt per batch), in batches, and not one ``MemoryService.write``
each: the write path's dedup gate may absorb near-duplicate abstracts, and then the engine could
not return documents the judgements count on. Each node's ``source`` is ``vaswani:<docno>``,
which maps hits back to the qrels (``source`` is not searchable, so it cannot help the ranking).
Nothing links the abstracts, so the vault has no edges and the graph leg of hybrid+graph has
nothing to expand: that line measures what the ``balanced`` profile costs, not what it adds.

Without the corpus, the bench says so and exits 0 with nothing measured.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench import compact_recall, report
from bench.build import PASSPHRASE
from bench.corpus import VASWANI
from bench.embedders import add_model_option, embedder_named
from bench.ir_metrics import evaluate, ndcg_at_k
from bench.measure import load_average, machine, summary
from cairn.app import compose
from cairn.app.clock import new_id, now_iso
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.retrieval import search as retrieval
from cairn.app.service import MemoryService
from cairn.app.text.surface import searchable_text
from cairn.app.upkeep import receipts
from cairn.storage import fulltext, graph_rows

NDCG_K = 10
DEPTH = 100  # results asked per query: MAP and Recall are measured over the top 100
SCOPE = "personal"
NODE_TYPE = "Note"
SOURCE_PREFIX = "vaswani:"
TITLE_WORDS = 8
# Texts per embed call and per transaction: the model sorts a call's texts by length before
# padding, so bigger calls waste less; one commit per batch keeps the load to a few fsyncs.
EMBED_BATCH = 256
WARMUP_QUERIES = 3  # per configuration, not timed: the first searches start worker threads
_DOC = re.compile(r"<DOC>\s*<DOCNO>\s*(\d+)\s*</DOCNO>(.*?)</DOC>", re.S)
_QUERY = re.compile(r"<num>\s*(\d+)\s*</num>\s*<title>(.*?)</title>", re.S | re.I)


@dataclass(frozen=True)
class Config:
    """One way of searching: a named profile of ``retrieval`` and the legs it may use."""

    name: str
    profile: str
    legs: tuple[str, ...]


CONFIGS = (
    Config("lexical", "fast", ("text",)),
    Config("vector", "fast", ("vector",)),
    Config("hybrid", "fast", ("vector", "text")),
    Config("hybrid+graph", "balanced", ("vector", "text")),
)


@dataclass(frozen=True)
class Collection:
    docs: list[tuple[str, str]]  # (docno, text)
    queries: list[tuple[str, str]]  # (query id, text)
    qrels: dict[str, set[str]]  # query id -> relevant docnos


def load_collection(folder: Path) -> Collection | None:
    """The documents, queries and judgements, or None when any file is missing."""
    docs_file = folder / "corpus" / "doc-text.trec"
    queries_file, qrels_file = folder / "query-text.trec", folder / "qrels"
    if not all(f.is_file() for f in (docs_file, queries_file, qrels_file)):
        return None
    docs = [(no, _flat(text)) for no, text in _DOC.findall(docs_file.read_text(errors="replace"))]
    # Lower case, as bench.corpus does: the queries are written in capitals.
    queries = [(qid, _flat(text).lower()) for qid, text in _QUERY.findall(queries_file.read_text())]
    qrels: dict[str, set[str]] = {}
    for line in qrels_file.read_text().splitlines():
        if line.strip():  # "qid 0 docno relevance"
            qid, _, docno, relevance = line.split()
            if int(relevance) > 0:
                qrels.setdefault(qid, set()).add(docno)
    return Collection([d for d in docs if d[1]], [q for q in queries if q[1]], qrels)


def _flat(text: str) -> str:
    return " ".join(text.split())


def title_and_body(text: str) -> tuple[str, str]:
    """The first words as the title, the rest as the body.

    A memory's searchable text is its title, then its body: split this way that text is the
    abstract exactly once. A body holding the whole abstract would repeat the title's words and
    weigh them double in BM25 and in the embedding.
    """
    words = text.split()
    return " ".join(words[:TITLE_WORDS]), " ".join(words[TITLE_WORDS:])


def _row(docno: str, text: str) -> dict[str, Any]:
    """A node row as the write path builds it for a new memory."""
    title, body = title_and_body(text)
    now = now_iso()
    return {
        "id": new_id(),
        "type": NODE_TYPE,
        "title": title,
        "body": body,
        "attrs": "{}",
        "status": "active",
        "scope": SCOPE,
        "source": SOURCE_PREFIX + docno,
        "recorded_at": now,
        "updated_at": now,
    }


def build_vault(
    path: Path, docs: list[tuple[str, str]], embedder: MiniLMEmbedder
) -> tuple[float, Any]:
    """Create a vault at ``path`` holding ``docs``; returns the seconds it took and the model's
    float32 vectors of the documents (the vault keeps them as int8 codes)."""
    start = time.perf_counter()
    floats = []
    service = compose.create_vault(path, PASSPHRASE, embedder=embedder)
    try:
        space = service._space  # the store call of the write path; see the module docstring
        for first in range(0, len(docs), EMBED_BATCH):
            rows = [_row(docno, text) for docno, text in docs[first : first + EMBED_BATCH]]
            texts = [searchable_text(row["title"], row["body"], {}) for row in rows]
            vectors = embedder.embed(texts)  # before the write lock, as the write path does
            floats.append(np.asarray(vectors, dtype=np.float32))
            with service._vault.write() as conn:
                for row, text, vector in zip(rows, texts, vectors, strict=True):
                    seq = graph_rows.insert_node(conn, row)
                    fulltext.index(conn, seq, text)
                    space.store(conn, seq, vector, SCOPE, "active")
                receipts.append(conn, "write", {"nodes": len(rows)})
            done = first + len(rows)
            rate = done / (time.perf_counter() - start)
            _say(f"loaded {done:>6,}/{len(docs):,} abstracts ({rate:.0f}/s)")
        assert service.vector_search_ready, "the quality vault's vector space is not ready"
    finally:
        service.close()
    return time.perf_counter() - start, np.concatenate(floats)


def run_config(service: MemoryService, collection: Collection, config: Config) -> dict[str, Any]:
    """Every query once in ``config``: the ranked docnos per query and the latencies."""
    options = retrieval.SearchOptions(
        limit=DEPTH, profile=config.profile, legs=config.legs, diagnostics=False
    )

    def search(query: str) -> list[str]:
        response = retrieval.search(
            service._vault, service._space, query, [SCOPE], options, counts=None
        )
        return [(hit.source or "").removeprefix(SOURCE_PREFIX) for hit in response.results]

    for _, query in collection.queries[:WARMUP_QUERIES]:
        search(query)
    runs: dict[str, list[str]] = {}
    seconds: list[float] = []
    for qid, query in collection.queries:
        start = time.perf_counter()
        runs[qid] = search(query)
        seconds.append(time.perf_counter() - start)
    scores = evaluate(runs, collection.qrels, ndcg_k=NDCG_K, depth=DEPTH)
    return {
        "profile": config.profile,
        "legs": list(config.legs),
        **{name: round(value, 4) for name, value in scores.items()},
        "latency": summary(seconds),
        "mean_results": round(statistics.fmean(len(r) for r in runs.values()), 1),
        # Per query, so whoever tunes fusion can see which queries a change helps or hurts.
        f"per_query_ndcg@{NDCG_K}": {
            qid: round(ndcg_at_k(runs.get(qid, []), relevant, NDCG_K), 4)
            for qid, relevant in collection.qrels.items()
        },
    }


def verdicts(configs: dict[str, dict[str, Any]]) -> dict[str, bool]:
    """Does hybrid beat each single leg on nDCG@10?"""
    key = f"ndcg@{NDCG_K}"
    hybrid = configs["hybrid"][key]
    return {f"hybrid_beats_{leg}": hybrid > configs[leg][key] for leg in ("lexical", "vector")}


def print_table(results: dict[str, Any]) -> None:
    print()
    print(f"Retrieval quality on {results['collection']} ({results['embedder']})")
    print(
        f"{'configuration':<14} {'nDCG@10':>8} {'MAP':>7} {'R@100':>7} {'p50 ms':>8} {'p95 ms':>8}"
    )
    for name, line in results["configs"].items():
        print(
            f"{name:<14} {line[f'ndcg@{NDCG_K}']:>8.4f} {line['map']:>7.4f} "
            f"{line[f'recall@{DEPTH}']:>7.4f} {line['latency']['p50_ms']:>8.1f} "
            f"{line['latency']['p95_ms']:>8.1f}"
        )
    key = f"ndcg@{NDCG_K}"
    hybrid = results["configs"]["hybrid"][key]
    for leg in ("lexical", "vector"):
        other = results["configs"][leg][key]
        if results["verdicts"][f"hybrid_beats_{leg}"]:
            print(f"hybrid beats {leg} on nDCG@10: {hybrid:.4f} > {other:.4f}")
        else:
            print("!" * 72)
            print(f"!!! HYBRID DOES NOT BEAT {leg.upper()} on nDCG@10: {hybrid:.4f} <= {other:.4f}")
            print("!" * 72)
    if compact := results.get("compact_vectors"):
        print(compact_recall.line(compact))
    print(f"written to {results['json_path']}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.quality", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--corpus", type=Path, default=VASWANI, help="the collection's folder")
    parser.add_argument(
        "--docs", type=int, help="load only the first N abstracts (a smoke run: not comparable)"
    )
    parser.add_argument(
        "--keep",
        type=Path,
        help="build the (encrypted) vault at this path, or reuse it if it is there: for "
        "tuning search without loading the collection again",
    )
    add_model_option(parser)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> dict[str, Any] | None:
    args = parse_args(argv)
    collection = load_collection(args.corpus)
    if collection is None:
        print(f"bench-quality: no Vaswani collection at {args.corpus}; nothing measured.")
        return None
    docs = collection.docs[: args.docs] if args.docs else collection.docs
    started = time.perf_counter()
    results: dict[str, Any] = {"machine": machine()}
    _say("loading the model")
    model_folder = tempfile.TemporaryDirectory(prefix="cairn-quality-model-")
    embedder = embedder_named(args.model, model_folder.name)
    results["embedder"] = embedder.identity
    with tempfile.TemporaryDirectory(prefix="cairn-quality-") as folder:
        path = args.keep or Path(folder) / "vaswani.cairn"
        build_s, floats = (0.0, None) if path.exists() else build_vault(path, docs, embedder)
        service = compose.open_vault(path, PASSPHRASE, embedder=embedder)
        try:
            configs = {}
            for config in CONFIGS:
                _say(f"{len(collection.queries)} queries: {config.name}")
                configs[config.name] = run_config(service, collection, config)
        finally:
            service.close()
    if floats is not None:  # not for a vault kept from an earlier run
        _say("the compact vectors' top-30 overlap with float32")
        questions = embedder.embed([query for _, query in collection.queries])
        results["compact_vectors"] = compact_recall.summarize(
            compact_recall.overlaps(floats, np.asarray(questions, dtype=np.float32))
        )
    results |= {
        "collection": f"vaswani_npl ({len(docs):,} abstracts, {len(collection.queries)} queries)",
        "smoke_run": len(docs) < len(collection.docs),
        "embedder": embedder.identity,
        "build_s": round(build_s, 1),
        "configs": configs,
        "verdicts": verdicts(configs),
        "load_average_at_end": load_average(),
        "elapsed_s": round(time.perf_counter() - started, 1),
        "json_path": str(report.RESULTS / "quality.json"),
    }
    report.write_json(results, report.RESULTS / "quality.json")
    print_table(results)
    return results


def _say(message: str) -> None:
    print(f"[bench-quality] {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
