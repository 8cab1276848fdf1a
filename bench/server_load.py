"""The graph server under load on loopback (``python -m bench.server_load``, spec on stdin).

In a fresh process: open a built vault with the real model's query cost (``ModelCostEmbedder``,
as the window's line), create a real bearer token, start the real ``GraphServer`` on
127.0.0.1 port 0, then drive it from a separate client process (tools and agents are other
programs; clients in this process would share the server's GIL and slow it unfairly).

The client process runs ``clients`` threads, each with its own ``http.client`` connection that
it keeps open between requests (HTTP/1.1 keep-alive; when the server closes a connection the
client opens a new one, and the number opened is reported). Each thread sends ``GET
/v1/search?q=...`` with the token, taking the probes' queries in turn from its own offset.
After a warm-up (each client's first ``warmup`` requests, not measured), the run is bounded by
both a request count and a wall-clock limit, whichever comes first. Reported: p50/p95/p99 of
the latency from sending a request to its last body byte, throughput, errors (any answer but
200, or a broken connection), the connections opened and the server's CPU time per request;
and first, for reference, the same with one client alone (latency without queueing).

Two runs with 8 clients are made. In the target run each client is an agent that searches
``PACED_RATE`` times a second on average (Poisson arrivals, seeded per client): requests are
sent on that schedule, and a request's latency counts from the moment it was due, so time
spent waiting behind a slow answer is measured too (no coordinated omission). The capacity
run sends back to back: every client sends its next request as soon as an answer arrives, so
its latency is ``clients / throughput`` and says what the machine's cores allow (on 2 cores,
about 23 ms of CPU per search at 100k bounds it near 80 requests/s).
"""

from __future__ import annotations

import http.client
import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench import corpus
from bench.embedders import ModelCostEmbedder
from bench.measure import answer_spec, load_average, memory_mb, summary
from cairn.app import compose
from cairn.app.embedding.model import serving_embedder
from cairn.app.server.http_server import GraphServer, ServeOptions

CLIENTS = 8
REQUESTS = 1_000  # measured requests in all, across the clients
SECONDS = 60.0  # measured wall-clock limit
ALONE_REQUESTS = 200  # the reference run first: one client alone (latency without queueing)
ALONE_SECONDS = 30.0
WARMUP = 5  # per client
PACED_RATE = 2.0  # searches per second per client in the target run: a busy agent
TIMEOUT_S = 30.0


def probe(spec: dict[str, Any]) -> dict[str, Any]:
    """The server side: open, serve, run the client process, stop."""
    embedder = ModelCostEmbedder(serving_embedder())  # what `cairn serve` embeds queries with
    service = compose.open_vault(Path(spec["path"]), spec["passphrase"], embedder=embedder)
    try:
        assert service.vector_search_ready, "vector search is off in the bench vault"
        _, secret = service.create_token(service.scopes(), name="bench load")
        server = GraphServer(service, ServeOptions(port=0))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            load = {
                "host": f"127.0.0.1:{server.port}",
                "secret": secret,
                "queries": spec["queries"],
                "warmup": spec.get("warmup", WARMUP),
            }
            alone = _clients(
                {**load, "clients": 1, "requests": ALONE_REQUESTS, "seconds": ALONE_SECONDS}
            )
            eight = {
                **load,
                "clients": spec.get("clients", CLIENTS),
                "requests": spec.get("requests", REQUESTS),
                "seconds": spec.get("seconds", SECONDS),
            }
            paced = _clients({**eight, "rate": spec.get("rate", PACED_RATE)})
            cpu = time.process_time()
            out = _clients(eight)
            # The server's CPU time per answered request (warm-up included in both counts):
            # with every client waiting, it is what bounds the throughput on this machine.
            answered = out["requests"] + out["clients"] * load["warmup"] + out["errors"]
            out["server_cpu_ms_per_request"] = round(
                (time.process_time() - cpu) * 1000.0 / max(answered, 1), 2
            )
            out["one_client"] = alone
            out["paced"] = paced
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=10)
        out["server_memory"] = memory_mb()
        out["load_average"] = load_average()
        return out
    finally:
        service.close()


def _clients(load: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.server_load", "--clients"],
        input=json.dumps(load),
        stdout=subprocess.PIPE,
        text=True,
        check=True,
        cwd=corpus.PROJECT_ROOT,
    )
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def drive(load: dict[str, Any]) -> dict[str, Any]:
    """The client side: ``clients`` threads, warm-up, then the bounded measured run."""
    host, port = load["host"].rsplit(":", 1)
    queries: list[str] = load["queries"]
    count: int = load["clients"]
    headers = {"Authorization": f"Bearer {load['secret']}", "Host": load["host"]}
    # Bounded too: a client thread that died would otherwise leave the others waiting.
    warmed = threading.Barrier(count + 1, timeout=TIMEOUT_S * (load["warmup"] + 1))
    go = threading.Event()
    deadline = [0.0]
    budget = [int(load["requests"])]
    budget_lock = threading.Lock()
    latencies: list[list[float]] = [[] for _ in range(count)]
    errors: list[list[str]] = [[] for _ in range(count)]
    opened = [0] * count

    def take() -> bool:
        with budget_lock:
            if budget[0] <= 0 or time.perf_counter() >= deadline[0]:
                return False
            budget[0] -= 1
            return True

    rate = load.get("rate")

    def client(index: int) -> None:
        conn = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT_S)
        turn = index * (len(queries) // count)
        arrivals = random.Random(index)
        due = [0.0]  # when the next request is due, in the paced run

        def one(paced: bool = False) -> float | str:
            nonlocal turn
            query = queries[turn % len(queries)]
            turn += 1
            if conn.sock is None:
                opened[index] += 1
            start = time.perf_counter()
            if paced:
                due[0] += arrivals.expovariate(rate)
                if due[0] > start:
                    time.sleep(due[0] - start)
                start = due[0]  # a late send's wait counts as latency
            try:
                conn.request("GET", f"/v1/search?q={quote(query)}&limit=10", headers=headers)
                response = conn.getresponse()
                body = response.read()
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                return f"{type(exc).__name__}"
            elapsed = time.perf_counter() - start
            if response.status != 200 or not body.startswith(b"{"):
                return f"HTTP {response.status}"
            return elapsed

        try:
            for _ in range(load["warmup"]):
                result = one()
                if isinstance(result, str):
                    errors[index].append(f"warm-up: {result}")
            warmed.wait()
            go.wait()
            opened[index] = 0  # the measured run's connections only
            due[0] = time.perf_counter()
            while take():
                result = one(paced=rate is not None)
                if isinstance(result, str):
                    errors[index].append(result)
                else:
                    latencies[index].append(result)
        finally:
            conn.close()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    warmed.wait()
    start = time.perf_counter()
    deadline[0] = start + float(load["seconds"])
    go.set()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    every = [x for per in latencies for x in per]
    failures = [e for per in errors for e in per]
    return {
        "clients": count,
        "rate_per_client": rate,
        "connection": "one keep-alive http.client connection per client thread",
        "requests": len(every),
        "request_limit": load["requests"],
        "seconds_limit": load["seconds"],
        "stopped_by": "count" if budget[0] <= 0 else "time",
        "warmup_per_client": load["warmup"],
        "wall_s": round(wall, 3),
        "per_second": round(len(every) / wall, 1) if wall else 0.0,
        "latency": summary(every, (50, 95, 99)),
        "errors": len(failures),
        "error_kinds": sorted(set(failures))[:10],
        "connections_opened": sum(opened),
    }


if __name__ == "__main__":
    answer_spec(drive if "--clients" in sys.argv[1:] else probe)
