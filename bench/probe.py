"""Measuring one built vault in a fresh process (``python -m bench.probe``, spec on stdin).

A fresh interpreter per vault keeps the memory numbers honest: VmRSS after open and the VmHWM
peak belong to opening this vault, not to building it or to an earlier scale. The result is one
JSON object on stdout; progress goes to stderr.

Measured: open-to-ready (``compose.open_vault`` until it returns with vector search ready; median
of several opens) and its legs, search latency over varied queries and its legs, single writes
each in its own transaction, memory and file size.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.embedders import RandomEmbedder, TimedEmbedder
from bench.measure import memory_mb, ms, summary, vault_bytes
from cairn.app import compose, retrieval
from cairn.app.embeddings import EmbeddingSpace
from cairn.app.service import MemoryService
from cairn.storage import fulltext, graph_rows, vectors
from cairn.storage.keys import VaultKey, read_salt
from cairn.storage.vault import Vault

SCOPES = ["personal", "work", "research"]
WARMUP = 20
LIMIT = 10


def main() -> None:
    spec = json.loads(sys.stdin.read())
    json.dump(probe(spec), sys.stdout)
    sys.stdout.write("\n")


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
    out["search"] = _searches(service, queries)
    out["search_legs"] = _search_legs(service, queries)
    out["memory_after_search"] = memory_mb()
    out["write"] = _writes(service, embedder, spec["writes"])
    out["size_after_writes"] = vault_bytes(path)
    # Before _open_legs, which holds the fetched rows and a second index at once.
    out["memory_after_writes"] = memory_mb()
    service.close()
    out["open_legs"] = _open_legs(path, passphrase)
    out["memory_at_end"] = memory_mb()
    return out


def _searches(service: MemoryService, queries: list[str]) -> dict[str, Any]:
    start = time.perf_counter()
    service.search(queries[0], scopes=SCOPES, limit=LIMIT)
    first = time.perf_counter() - start
    for query in queries[:WARMUP]:
        service.search(query, scopes=SCOPES, limit=LIMIT)
    times: list[float] = []
    cpu: list[float] = []
    empty = 0
    vector_on = True
    for query in queries:
        start, start_cpu = time.perf_counter(), time.process_time()
        response = service.search(query, scopes=SCOPES, limit=LIMIT)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        empty += not response.results
        vector_on &= response.vector_search
    print(f"    searched {len(queries)} queries", file=sys.stderr, flush=True)
    return {
        **summary(times),
        "cpu": summary(cpu),  # process CPU time: above wall time when numpy uses 2 threads
        "first_ms": ms(first),
        "empty_results": empty,
        "vector_search": vector_on,
    }


def _search_legs(service: MemoryService, queries: list[str]) -> dict[str, Any]:
    """The steps of ``retrieval.search``, timed one by one with the same storage calls."""
    space = service._space
    index = space.index
    assert index is not None
    statuses = retrieval.SearchOptions(limit=LIMIT).statuses()
    legs: dict[str, list[float]] = {
        k: [] for k in ("embed", "vector", "fulltext", "rows", "snippets", "total")
    }
    for query in queries:
        t0 = time.perf_counter()
        query_vector = space.query_vector(query)
        t1 = time.perf_counter()
        vector_leg = [seq for seq, _ in index.search(query_vector, SCOPES, statuses, 30)]
        t2 = time.perf_counter()
        expression = fulltext.match_expression(query)
        with service.vault.read() as conn:
            text_leg = (
                fulltext.search(conn, expression, SCOPES, statuses, retrieval.LEG_DEPTH)
                if expression
                else []
            )
            t3 = time.perf_counter()
            fused = retrieval.rrf([vector_leg, text_leg])
            rows = {r["seq"]: r for r in graph_rows.nodes_by_seqs(conn, list(fused), SCOPES)}
            top = retrieval.total_order(fused, rows)[:LIMIT]
            t4 = time.perf_counter()
            if expression:
                fulltext.snippets(conn, expression, top)
            t5 = time.perf_counter()
        for name, value in zip(
            legs, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t5 - t0), strict=True
        ):
            legs[name].append(value)
    result: dict[str, Any] = {name: summary(values) for name, values in legs.items()}
    result["vector_internals"] = _vector_internals(index, space, queries)
    return result


def _vector_internals(
    index: vectors.VectorIndex, space: EmbeddingSpace, queries: list[str]
) -> dict[str, Any]:
    """Inside ``VectorIndex.search``: the scope/status mask, the product, the top-k."""
    try:
        size = len(index)
        matrix, scope_col, status_col = index._matrix, index._scopes, index._statuses
        scope_codes = list(index._scope_codes.values())
    except AttributeError:
        return {}
    codes = [vectors.STATUS_CODES[s] for s in retrieval.SearchOptions().statuses()]
    parts: dict[str, list[float]] = {"mask": [], "product": [], "top_k": []}
    for query in queries:
        vector = space.query_vector(query)
        t0 = time.perf_counter()
        mask = np.isin(scope_col[:size], scope_codes) & np.isin(status_col[:size], codes)
        candidates = np.flatnonzero(mask)
        t1 = time.perf_counter()
        scores = (matrix[:size] @ vector)[candidates]
        t2 = time.perf_counter()
        top = np.argpartition(-scores, 29)[:30]
        np.lexsort((top, -scores[top]))
        t3 = time.perf_counter()
        for name, value in zip(parts, (t1 - t0, t2 - t1, t3 - t2), strict=True):
            parts[name].append(value)
    return {name: summary(values) for name, values in parts.items()}


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
    """Where an open's time goes: key derivation, the file and schema, the vector index."""
    embedder = RandomEmbedder()
    t0 = time.perf_counter()
    VaultKey.derive(passphrase, read_salt(path)).wipe()
    t1 = time.perf_counter()
    vault = Vault.open(path, passphrase)
    t2 = time.perf_counter()
    try:
        EmbeddingSpace(vault, embedder)
        t3 = time.perf_counter()
        with vault.read() as conn:
            rows = conn.execute(
                "SELECT v.node_seq, v.vector, n.scope, n.status FROM vectors AS v "
                "JOIN nodes AS n ON n.seq = v.node_seq WHERE v.space = ? ORDER BY v.node_seq",
                (embedder.identity,),
            ).fetchall()
            t4 = time.perf_counter()
            vectors.VectorIndex.load(conn, embedder.identity, embedder.dim)
            t5 = time.perf_counter()
    finally:
        vault.close()
    return {
        "key_derivation_s": round(t1 - t0, 4),
        "vault_open_s": round(t2 - t1, 4),
        "embedding_space_s": round(t3 - t2, 4),
        "index_query_fetch_s": round(t4 - t3, 4),
        "index_load_s": round(t5 - t4, 4),
        "index_rows": len(rows),
    }


if __name__ == "__main__":
    main()
