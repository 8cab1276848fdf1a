"""Measuring one built vault in a fresh process (``python -m bench.probe``, spec on stdin).

A fresh interpreter per vault keeps the memory numbers honest: VmRSS after open and the VmHWM
peak belong to opening this vault, not to building it or to an earlier scale. The result is one
JSON object on stdout; progress goes to stderr.

Measured: open-to-ready (``compose.open_vault`` until it returns with vector search ready; median
of several opens), search latency over varied queries, single writes each in its own
transaction, memory and file size. Where the time goes inside search is for a profiler; the
bench does not re-implement the engine's steps to time them.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.embedders import RandomEmbedder, TimedEmbedder
from bench.measure import answer_spec, memory_mb, ms, summary, vault_bytes
from cairn.app import compose
from cairn.app.embedding_model import MiniLMEmbedder
from cairn.app.service import MemoryService
from cairn.storage.keys import VaultKey, read_salt

SCOPES = ["personal", "work", "research"]
WARMUP = 20
LIMIT = 10


def probe(spec: dict[str, Any]) -> dict[str, Any]:
    path, passphrase = Path(spec["path"]), spec["passphrase"]
    out: dict[str, Any] = {"memory_before_open": memory_mb()}
    out["size_before_open"] = vault_bytes(path)
    embedder = TimedEmbedder(RandomEmbedder())
    opens: list[float] = []
    service: MemoryService | None = None
    for attempt in range(spec.get("opens", 3)):
        if service is not None:
            service.close()
        start = time.perf_counter()
        service = compose.open_vault(path, passphrase, embedder=embedder)
        opens.append(time.perf_counter() - start)
        assert service.vector_search_ready, "vector search is off in the bench vault"
        if attempt == 0:
            out["memory_after_open"] = memory_mb()
    assert service is not None
    out["open_s"] = {
        "median": round(statistics.median(opens), 4),
        "runs": [round(x, 4) for x in opens],
    }
    out["index_rows"] = len(service._space.index or ())
    out["size_after_open"] = vault_bytes(path)
    queries: list[str] = spec["queries"]
    out["search"] = _searches(service, queries, "balanced")
    out["search_fast"] = _searches(service, queries, "fast")
    out["memory_after_search"] = memory_mb()
    out["write"] = _writes(service, embedder, spec["writes"])
    out["size_after_writes"] = vault_bytes(path)
    out["memory_after_writes"] = memory_mb()
    service.close()
    out["open_legs"] = _open_legs(path, passphrase)
    out["memory_at_end"] = memory_mb()
    return out


def _searches(service: MemoryService, queries: list[str], profile: str) -> dict[str, Any]:
    start = time.perf_counter()
    service.search(queries[0], scopes=SCOPES, limit=LIMIT, profile=profile)
    first = time.perf_counter() - start
    for query in queries[:WARMUP]:
        service.search(query, scopes=SCOPES, limit=LIMIT, profile=profile)
    times: list[float] = []
    cpu: list[float] = []
    empty = 0
    vector_on = True
    for query in queries:
        start, start_cpu = time.perf_counter(), time.process_time()
        response = service.search(query, scopes=SCOPES, limit=LIMIT, profile=profile)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        empty += not response.results
        vector_on &= response.vector_search
    print(f"    searched {len(queries)} queries ({profile})", file=sys.stderr, flush=True)
    return {
        **summary(times),
        "cpu": summary(cpu),  # process CPU time: above wall time when numpy uses 2 threads
        "first_ms": ms(first),
        "empty_results": empty,
        "vector_search": vector_on,
    }


def _writes(
    service: MemoryService, embedder: TimedEmbedder, writes: list[list[Any]]
) -> dict[str, Any]:
    """Single writes as a user makes them: each its own transaction and fsync'd commit."""
    total: list[float] = []
    storage: list[float] = []
    for title, body, scope in writes:
        start = time.perf_counter()
        service.write("Note", title, body, scope=scope)
        elapsed = time.perf_counter() - start
        total.append(elapsed)
        storage.append(elapsed - embedder.last())
    print(f"    wrote {len(writes)} memories", file=sys.stderr, flush=True)
    return {**summary(total), "without_embedding": summary(storage)}


def _open_legs(path: Path, passphrase: str) -> dict[str, float]:
    """The part of an open that is key derivation (the rest: schema check, vector index), and
    what loading the real model costs (``compose.open_vault`` runs it beside the open)."""
    start = time.perf_counter()
    VaultKey.derive(passphrase, read_salt(path)).wipe()
    derived = time.perf_counter()
    MiniLMEmbedder()
    return {
        "key_derivation_s": round(derived - start, 4),
        "model_load_s": round(time.perf_counter() - derived, 4),
    }


if __name__ == "__main__":
    answer_spec(probe)
