"""Measuring one built vault in a fresh process (``python -m bench.probe``, spec on stdin).

A fresh interpreter per vault keeps the memory numbers honest: VmRSS after open and the VmHWM
peak belong to opening this vault, not to building it or to an earlier scale. The result is one
JSON object on stdout; progress goes to stderr.

Measured, in this order:
1. Open-to-first-result as the window opens (first, so the process's peak memory is this open's):
   the real model loaded beside the key derivation, the vector index loading in the background,
   a first search answered; then the time until the vectors are loaded, and the peak memory once
   ``WINDOW_SEARCHES`` more searches ran with the real model's query cost. Run by an older
   Cairn (``bench.run --before``), which loads every vector before it answers, the same calls
   measure what its window did.
2. Open-to-ready (``compose.open_vault`` until it returns with vector search ready; median of
   several opens), search latency over varied queries, single writes each in its own
   transaction, memory and file size. Where the time goes inside search is for a profiler; the
   bench does not re-implement the engine's steps to time them.
"""

from __future__ import annotations

import inspect
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.embedders import ModelCostEmbedder, RandomEmbedder, TimedEmbedder
from bench.measure import answer_spec, memory_mb, ms, summary, vault_bytes
from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.service import MemoryService
from cairn.storage.keys import VaultKey, read_salt

SCOPES = ["personal", "work", "research"]
WARMUP = 20
LIMIT = 10
WINDOW_SEARCHES = 100  # after the first result, before the peak memory is read


def probe(spec: dict[str, Any]) -> dict[str, Any]:
    path, passphrase = Path(spec["path"]), spec["passphrase"]
    out: dict[str, Any] = {"memory_before_open": memory_mb()}
    out["size_before_open"] = vault_bytes(path)
    out["first_result"] = _first_result(path, passphrase, spec["queries"])
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
    out["vector_bytes"] = _vector_bytes(service)
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


def _first_result(path: Path, passphrase: str, queries: list[str]) -> dict[str, Any]:
    """The window's open: model, key and vault, then a first search, timed from the start."""
    in_background = "vectors_in_background" in inspect.signature(compose.open_vault).parameters
    options = {"vectors_in_background": True} if in_background else {}
    start = time.perf_counter()
    service = compose.open_vault(
        path, passphrase, load_embedder=lambda: ModelCostEmbedder(MiniLMEmbedder()), **options
    )
    opened = time.perf_counter()
    first = service.search(queries[0], scopes=SCOPES, limit=LIMIT)
    answered = time.perf_counter()
    if in_background:
        service.wait_for_vectors()
    loaded = time.perf_counter()
    at_first = memory_mb()
    for query in queries[1 : 1 + WINDOW_SEARCHES]:
        service.search(query, scopes=SCOPES, limit=LIMIT)
    out = {
        "vectors_in_background": in_background,
        "open_s": round(opened - start, 4),
        "first_result_s": round(answered - start, 4),
        "first_result_by_meaning": first.vector_search,
        "vectors_loaded_s": round(loaded - start, 4),
        "memory_at_first_result": at_first,
        "memory_after_searches": memory_mb(),
    }
    service.close()
    print("    opened as the window does", file=sys.stderr, flush=True)
    return out


def _vector_bytes(service: MemoryService) -> int:
    """What the loaded index holds in memory (its arrays' bytes, spare capacity included)."""
    index = service._space.index
    arrays = [value for value in vars(index).values() if hasattr(value, "nbytes")]
    return int(sum(array.nbytes for array in arrays))


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
