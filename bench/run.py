"""``python -m bench.run``: Cairn's benchmark; prints a table, writes bench/results/latest.json.

1. Embedding throughput of the real model (``MiniLMEmbedder()``, one thread per core).
2. The real write line: single ``MemoryService.write`` calls on a vault using the model.
3. Scale lines (default 10k and 100k memories): vaults built through the real write path with
   random unit vectors (see ``bench.build``), then measured in a fresh process each
   (``bench.probe``): the window's open to its first result and its peak memory, open-to-ready,
   search latency, single writes through the dedup gate (without the embedding time), memory,
   file size; and the window's search on the same vault (``bench.ui_probe``): from a search's
   start to its results painted in the list; and the graph server under load
   (``bench.server_load``): 8 clients searching over loopback. With ``--before REV`` each
   scale is also built and probed by Cairn as it was at REV (``bench.before``), in this run;
   with ``--million`` a 1M line is added, its vault written in bulk (``bench.bulk_build``).
4. Resolver lines (the same counts of entities, see ``bench.resolver_line``): name lookups and
   entity writes.
5. The ingest line on the shared corpus (see ``bench.ingest_line``): PDF pages/s, OCR s/page,
   transcription real-time factor, end-to-end passages/s.
6. The watched-folder line (see ``bench.watch_line``): the time and memory to start watching
   10,000 files, the idle CPU while watching, and a burst of 1,000 files as one batch.
7. The embedding line (see ``bench.embed_line``): passages/s on ~140-token passages and a whole
   ingest of the Logseq and Foam notes, with the previous embedder and pipeline and with
   today's, in this one run; the ingest's wall time and peak memory.

Options: ``--quick`` (scales 1k and 10k), ``--scales 10000,100000``, ``--skip-real``,
``--skip-ingest``, ``--only-ingest`` (the ingest line alone), ``--only-graph`` (the graph view
line alone, see ``bench.graph_line``; it also runs in a full run), ``--only-server`` (the scale
vaults built and only the graph server's load line run on them), ``--skip-watch`` and
``--only-watch`` (the watched-folder line), ``--skip-embed`` and ``--only-embed`` (the embedding
line), ``--before REV``, ``--million``. Vaults live
in a temporary folder that is removed at the end; nothing is reused between runs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench import (
    before,
    build,
    bulk_build,
    corpus,
    embed_line,
    graph_line,
    ingest_line,
    realembed,
    report,
    resolver_line,
    watch_line,
)
from bench.embedders import RandomEmbedder
from bench.measure import load_average, machine

DEFAULT_SCALES = (10_000, 100_000)
UI_QUERIES = 100  # searches through the window per scale (each also runs the real model)
QUICK_SCALES = (1_000, 10_000)
MILLION = 1_000_000


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="scales 1k and 10k only")
    parser.add_argument("--scales", help="comma-separated memory counts, e.g. 10000,100000")
    parser.add_argument("--skip-real", action="store_true", help="skip the real-model lines")
    parser.add_argument("--real-writes", type=int, default=300, help="writes with the model")
    parser.add_argument("--writes", type=int, default=100, help="single writes per scale")
    parser.add_argument("--queries", type=int, default=200, help="search queries per scale")
    parser.add_argument("--skip-ingest", action="store_true", help="skip the ingest line")
    parser.add_argument("--only-ingest", action="store_true", help="run the ingest line alone")
    parser.add_argument("--only-graph", action="store_true", help="run the graph line alone")
    parser.add_argument(
        "--only-server", action="store_true", help="run the graph server's load line alone"
    )
    parser.add_argument("--skip-watch", action="store_true", help="skip the watched-folder line")
    parser.add_argument(
        "--only-watch", action="store_true", help="run the watched-folder line alone"
    )
    parser.add_argument("--skip-embed", action="store_true", help="skip the embedding line")
    parser.add_argument(
        "--only-embed", action="store_true", help="run the embedding line (before/after) alone"
    )
    parser.add_argument(
        "--before",
        metavar="REV",
        help="also build and probe each scale with Cairn as it was at git revision REV, in "
        f"this run (make bench: {before.DEFAULT_REVISION}, before compact vectors)",
    )
    parser.add_argument(
        "--million",
        action="store_true",
        help="add the 1M line: a million synthetic memories, written in bulk, then probed",
    )
    return parser.parse_args(argv)


def scales_of(args: argparse.Namespace) -> list[int]:
    if args.scales:
        return sorted({int(part.replace("_", "")) for part in args.scales.split(",") if part})
    return list(QUICK_SCALES if args.quick else DEFAULT_SCALES)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    alone = (
        args.only_ingest
        or args.only_graph
        or args.only_server
        or args.only_watch
        or args.only_embed
    )
    scales = (
        []
        if args.only_ingest or args.only_graph or args.only_watch or args.only_embed
        else scales_of(args)
    )
    started = time.perf_counter()
    texts = corpus.load()
    results: dict[str, Any] = {
        "machine": machine(),
        "texts": texts.source,
        "arguments": vars(args),
        "real": None,
        "scales": {},
    }
    with tempfile.TemporaryDirectory(prefix="cairn-bench-") as folder:
        root = Path(folder)
        if not (args.skip_real or alone):
            results["real"] = real_lines(root, texts, args.real_writes)
        if not args.skip_ingest and (args.only_ingest or not alone):
            results["ingest"] = ingest_line.line(root)
        if args.only_graph or not alone:
            results["graph"] = graph_line.line(root)
        if not args.skip_embed and (args.only_embed or not alone):
            results["embedding"] = embed_line.line(root)
        if not args.skip_watch and (args.only_watch or not alone):
            _say("watched folders: 10,000 files")
            results["watch"] = watch_line.line(root)
        if args.before and scales:
            results["before"] = before_lines(root, texts, scales, args)
        for count in scales:
            results["scales"][str(count)] = scale_line(root, texts, count, args)
        if args.million:
            results["scales"][str(MILLION)] = million_line(root, texts, args)
        results["resolver"] = {}
        for count in [] if args.only_server else scales:
            _say(f"resolver at {count:,} entities: building and measuring")
            results["resolver"][str(count)] = resolver_line.line(root, count)
    results["load_average_at_end"] = load_average()
    results["elapsed_s"] = round(time.perf_counter() - started, 1)
    results["json_path"] = str(report.RESULTS / "latest.json")
    report.write_json(results)
    report.print_report(results)
    graph_line.print_line(results.get("graph"))
    watch_line.print_line(results.get("watch"))
    embed_line.print_line(results.get("embedding"))
    return results


def real_lines(root: Path, texts: corpus.Texts, writes: int) -> dict[str, Any]:
    from cairn.app.embedding.model import MiniLMEmbedder

    _say("real model: loading")
    start = time.perf_counter()
    embedder = MiniLMEmbedder()
    load_s = time.perf_counter() - start
    threads = embedder.threads
    _say("real model: throughput")
    throughput = realembed.throughput(embedder, texts.passages)
    _say(f"real model: {writes} writes and the corpus queries")
    line = realembed.writes_and_searches(root, embedder, texts, writes)
    return {
        "embedder": embedder.identity,
        "threads": threads,
        "load_s": round(load_s, 3),
        "throughput": throughput,
        "line": line,
    }


def scale_line(root: Path, texts: corpus.Texts, count: int, args: argparse.Namespace) -> Any:
    path = root / f"scale-{count}.cairn"
    _say(f"scale {count:,}: building")
    built = build.build(path, count, texts.passages, RandomEmbedder())
    _say(f"scale {count:,}: built in {built.seconds:.1f} s; measuring in a fresh process")
    spec = _probe_spec(path, texts, count, args)
    build_info = {**asdict(built), "path": None, "per_second": round(built.per_second, 1)}
    build_info["seconds"] = round(built.seconds, 2)
    line: dict[str, Any] = {"build": build_info, "targets": report.targets(count)}
    if not args.only_server:
        probe = _fresh_process("bench.probe", spec)
        _say(f"scale {count:,}: the window's search")
        probe["window"] = _fresh_process(
            "bench.ui_probe", {**spec, "queries": spec["queries"][:UI_QUERIES]}
        )
        line["probe"] = probe
    _say(f"scale {count:,}: the graph server under load")
    line["server"] = _fresh_process("bench.server_load", {**spec, "writes": []})
    _remove_vault(path)
    return line


def _probe_spec(path: Path, texts: corpus.Texts, count: int, args: argparse.Namespace) -> Any:
    writes = []
    for i in range(args.writes):
        title, body, _ = corpus.memory(texts.passages, count + i, label="later note")
        writes.append([title, body, build.scope_of(i)])
    return {
        "path": str(path),
        "passphrase": build.PASSPHRASE,
        "queries": corpus.search_queries(texts, args.queries),
        "writes": writes,
        "opens": 3,
    }


def before_lines(
    root: Path, texts: corpus.Texts, scales: list[int], args: argparse.Namespace
) -> dict[str, Any]:
    """Each scale built and probed by Cairn as it was at ``args.before`` (see ``bench.before``):
    open, memory, search, the window and the graph server, by the same probes as today's."""
    env = before.prepare(args.before, root / "before")
    lines: dict[str, Any] = {"revision": before.revision_name(args.before)}
    for count in scales:
        path = root / f"before-{count}.cairn"
        _say(f"scale {count:,}, before ({args.before}): building")
        built = _fresh_process("bench.build", {"path": str(path), "count": count}, env)
        spec = _probe_spec(path, texts, count, args)
        line: dict[str, Any] = {"build": built, "targets": report.targets(count)}
        if not args.only_server:
            _say(f"scale {count:,}, before: measuring in a fresh process")
            line["probe"] = _fresh_process("bench.probe", spec, env)
            line["probe"]["window"] = _fresh_process(
                "bench.ui_probe", {**spec, "queries": spec["queries"][:UI_QUERIES]}, env
            )
        _say(f"scale {count:,}, before: the graph server under load")
        line["server"] = _fresh_process("bench.server_load", {**spec, "writes": []}, env)
        lines[str(count)] = line
        _remove_vault(path)
    return lines


def million_line(root: Path, texts: corpus.Texts, args: argparse.Namespace) -> Any:
    """A million memories written in bulk (``bench.bulk_build``), then the probe: open, memory
    and search (the window and the server lines are the smaller scales')."""
    path = root / f"scale-{MILLION}.cairn"
    _say(f"scale {MILLION:,}: building in bulk")
    built = bulk_build.build(path, MILLION, texts.passages)
    build_info = {**asdict(built), "path": None, "per_second": round(built.per_second, 1)}
    build_info["seconds"] = round(built.seconds, 2)
    spec = {**_probe_spec(path, texts, MILLION, args), "opens": 2}
    _say(f"scale {MILLION:,}: measuring in a fresh process")
    line = {"build": build_info, "probe": _fresh_process("bench.probe", spec)}
    line["targets"] = report.targets(MILLION)
    _remove_vault(path)
    return line


def _remove_vault(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


def _fresh_process(module: str, spec: dict[str, Any], env: dict[str, str] | None = None) -> Any:
    """``python -m module`` with ``spec`` as JSON on stdin; its one JSON line of answer."""
    done = subprocess.run(
        [sys.executable, "-m", module],
        input=json.dumps(spec),
        stdout=subprocess.PIPE,
        text=True,
        check=True,
        cwd=corpus.PROJECT_ROOT,
        env=env,
    )
    return json.loads(done.stdout)


def _say(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
