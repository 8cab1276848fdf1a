"""The lines that use the real model: embedding throughput, and writes and searches on a small
vault created with it (each write embeds its text and commits with an fsync)."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench import corpus
from bench.build import PASSPHRASE, SCOPES, scope_of
from bench.embedders import TimedEmbedder
from bench.measure import summary
from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder

THROUGHPUT_PASSAGES = 512
THROUGHPUT_RUNS = 3
WRITE_WARMUP = 5


def throughput(embedder: MiniLMEmbedder, passages: list[str]) -> dict[str, Any]:
    """Passages per second for one ``embed`` call over 512 passages; several runs, since a
    shared machine makes single runs noisy."""
    sample = list(corpus.spread(passages, THROUGHPUT_PASSAGES))
    embedder.embed(sample[:32])  # warm-up: the first run of a session allocates
    rates: list[float] = []
    for _ in range(THROUGHPUT_RUNS):
        start = time.perf_counter()
        embedder.embed(sample)
        rates.append(len(sample) / (time.perf_counter() - start))
        print(f"    embedded {len(sample)} passages: {rates[-1]:.1f}/s", file=sys.stderr)
    return {
        "passages": len(sample),
        "mean_chars": round(statistics.fmean(len(p) for p in sample), 1),
        "alone": True,  # each text runs alone (see MiniLMEmbedder.embed)
        "median_per_s": round(statistics.median(rates), 1),
        "best_per_s": round(max(rates), 1),
        "runs_per_s": [round(r, 1) for r in rates],
    }


def writes_and_searches(
    folder: Path, embedder: MiniLMEmbedder, texts: corpus.Texts, count: int
) -> dict[str, Any]:
    """``count`` single writes through ``MemoryService.write`` with the real model, then the
    corpus queries against the resulting vault."""
    timed = TimedEmbedder(embedder)
    service = compose.create_vault(folder / "real.cairn", PASSPHRASE, embedder=timed)
    try:
        for scope in SCOPES[1:]:
            service.add_scope(scope)
        total: list[float] = []
        storage: list[float] = []
        for index in range(WRITE_WARMUP + count):
            title, body, tags = corpus.memory(texts.passages, 5000 + index, label="real")
            attrs = {"tags": tags} if tags else None
            start = time.perf_counter()
            service.write("Note", title, body, attrs=attrs, scope=scope_of(index))
            elapsed = time.perf_counter() - start
            if index >= WRITE_WARMUP:
                total.append(elapsed)
                storage.append(elapsed - timed.last())
        print(f"    wrote {count} memories with the model", file=sys.stderr)
        queries = texts.queries
        for query in queries[:5]:
            service.search(query, scopes=list(SCOPES))
        searches: list[float] = []
        query_embed: list[float] = []
        for query in queries:
            start = time.perf_counter()
            service.search(query, scopes=list(SCOPES))
            searches.append(time.perf_counter() - start)
            query_embed.append(timed.last())
        file_bytes = service._vault.file_size()
    finally:
        service.close()
    return {
        "write": {**summary(total), "without_embedding": summary(storage)},
        "search": {**summary(searches), "query_embedding": summary(query_embed)},
        "memories": count + WRITE_WARMUP,
        "file_bytes": file_bytes,
    }
