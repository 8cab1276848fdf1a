"""The printed table and the JSON file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import ingest_line

RESULTS = Path(__file__).resolve().parent / "results"
MB = 1024 * 1024


def search_target_ms(count: int, profile: str = "fast") -> float:
    """Search p95 targets (without the query's embedding): the fast profile 15 ms up to 10k
    memories, 25 ms up to 100k; the balanced (default) profile 40 ms at 100k; either 100 ms
    at a million."""
    if count > 100_000:
        return 100.0
    if profile == "fast":
        return 15.0 if count <= 10_000 else 25.0
    return 24.0 if count <= 10_000 else 40.0


def open_target_s(count: int) -> float:
    """Open-to-ready: 2 s up to 100k (a smaller vault at least as fast), 5 s at a million."""
    return 2.0 if count <= 100_000 else 5.0


def peak_target_mb(count: int) -> float:
    """The window's open and its searches: 450 MB up to 100k, 1.5 GB at a million."""
    return 450.0 if count <= 100_000 else 1500.0


FIRST_RESULT_TARGET_S = 1.0  # the window's open to its first search answered, up to 100k
WRITE_TARGET_MS = 15.0  # write p50 through the dedup gate, without the embedding call
LOOKUP_TARGET_MS = 2.0  # entity name lookup at 100k entities
WINDOW_SEARCH_TARGET_MS = 60.0  # a search in the window, start to painted results, at 100k
SERVER_SEARCH_TARGET_MS = 50.0  # search p95 through the graph server, 8 clients at once, at 100k


def targets(count: int) -> dict[str, float]:
    return {
        "search_p95_ms": search_target_ms(count, "balanced"),
        "search_fast_p95_ms": search_target_ms(count, "fast"),
        "open_to_ready_s": open_target_s(count),
        "peak_mb": peak_target_mb(count),
        "server_search_p95_ms": SERVER_SEARCH_TARGET_MS,
    }


def _verdict(value: float, limit: float) -> str:
    return "ok" if value <= limit else "MISS"


def print_report(results: dict[str, Any]) -> None:
    machine = results["machine"]
    print()
    print(
        f"Cairn benchmark: {machine['cpu_count']} CPUs ({machine['cpu_model']}), "
        f"Python {machine['python']}, numpy {machine['numpy']}, SQLite {machine['sqlite']}"
    )
    print(
        f"load average at start {machine['load_average_at_start']}, at end "
        f"{results.get('load_average_at_end')}; text: {results['texts']}"
    )
    real = results.get("real")
    if real:
        _print_real(real)
    if results["scales"]:
        _print_scales(results["scales"], results.get("before"))
    if results.get("resolver"):
        _print_resolver(results["resolver"])
    if results.get("ingest"):
        ingest_line.print_line(results["ingest"])
    print(f"\nwhole run: {results['elapsed_s']:.0f} s; JSON: {results.get('json_path')}")


def _print_real(real: dict[str, Any]) -> None:
    rate, writes, search = real["throughput"], real["line"]["write"], real["line"]["search"]
    print(f"\nReal model ({real['embedder']}, {real['threads']} threads)")
    print(
        f"  embedding throughput   {rate['median_per_s']:7.1f} passages/s  (median of "
        f"{len(rate['runs_per_s'])} runs {rate['runs_per_s']}; {rate['passages']} passages, "
        f"{rate['mean_chars']:.0f} chars on average, each text alone)"
    )
    plain = writes["without_embedding"]
    print(
        f"  write, N={writes['n']:<4}          p50 {writes['p50_ms']:6.1f} ms   p95 "
        f"{writes['p95_ms']:6.1f} ms  (without the embedding: p50 {plain['p50_ms']:.1f}, "
        f"p95 {plain['p95_ms']:.1f} ms)"
    )
    embed = search["query_embedding"]
    print(
        f"  search, {search['n']} queries     p50 {search['p50_ms']:6.1f} ms   p95 "
        f"{search['p95_ms']:6.1f} ms  (of which query embedding p50 {embed['p50_ms']:.1f} ms; "
        f"vault of {real['line']['memories']} memories)"
    )


Row = tuple[str, Callable[[int, dict[str, Any]], str], str]


def _rows() -> list[Row]:
    def search_p95(key: str, profile: str) -> Callable[[int, dict[str, Any]], str]:
        def cell(n: int, s: dict[str, Any]) -> str:
            if key not in s["probe"]:
                return "-"
            value = s["probe"][key]["p95_ms"]
            return f"{value:.2f} {_verdict(value, search_target_ms(n, profile))}"

        return cell

    def write_plain(n: int, s: dict[str, Any]) -> str:
        plain = s["probe"]["write"]["without_embedding"]
        if n > 100_000:  # the target is 100k's; the 1M line shows where writes stand there
            return _pair(plain)
        return f"{_pair(plain)} {_verdict(plain['p50_ms'], WRITE_TARGET_MS)}"

    def open_time(n: int, s: dict[str, Any]) -> str:
        value = s["probe"]["open_s"]["median"]
        return f"{value:.3f} {_verdict(value, open_target_s(n))}"

    def first_result(n: int, s: dict[str, Any]) -> str:
        value = s["probe"]["first_result"]["first_result_s"]
        return (
            f"{value:.3f} {_verdict(value, FIRST_RESULT_TARGET_S)}"
            if n <= 100_000
            else (f"{value:.3f}")
        )

    def answered_by(n: int, s: dict[str, Any]) -> str:
        return (
            "words + meaning"
            if s["probe"]["first_result"]["first_result_by_meaning"]
            else ("words")
        )

    def peak(n: int, s: dict[str, Any]) -> str:
        value = s["probe"]["first_result"]["memory_after_searches"]["vmhwm_mb"]
        return f"{value:.0f} {_verdict(value, peak_target_mb(n))}"

    def on_screen(n: int, s: dict[str, Any]) -> str:
        shown = s["probe"].get("window", {}).get("on_screen")
        if not shown:
            return "-"
        return f"{_pair(shown)} {_verdict(shown['p95_ms'], WINDOW_SEARCH_TARGET_MS)}"

    def open_leg(name: str) -> Callable[[int, dict[str, Any]], str]:
        return lambda n, s: f"{s['probe']['open_legs'][name]:.3f}"

    return [
        ("memories (archived)", lambda n, s: f"{n:,} ({s['build']['archived']:,})", ""),
        ("build s (memories/s)", lambda n, s: _build(s["build"]), ""),
        ("file MB (vault + wal)", lambda n, s: _size(s["probe"]["size_after_open"]), ""),
        ("window: open to first result s", first_result, "<= 1.0 (100k)"),
        ("  first result answered by", answered_by, ""),
        (
            "  open to vectors loaded s",
            lambda n, s: f"{s['probe']['first_result']['vectors_loaded_s']:.3f}",
            "",
        ),
        ("  peak memory MB (+100 searches)", peak, "<= 450 (100k), 1500 (1M)"),
        ("vector index in memory MB", lambda n, s: f"{s['probe']['vector_bytes'] / MB:.0f}", ""),
        ("open-to-ready s, median", open_time, "<= 2 (100k), 5 (1M)"),
        ("  key derivation s", open_leg("key_derivation_s"), ""),
        ("  real model load s (beside it)", open_leg("model_load_s"), ""),
        ("first search ms", lambda n, s: f"{s['probe']['search']['first_ms']:.1f}", ""),
        ("search p50 ms", lambda n, s: f"{s['probe']['search']['p50_ms']:.2f}", ""),
        (
            "search p95 ms (balanced, default)",
            search_p95("search", "balanced"),
            "<= 40 (100k), 100 (1M)",
        ),
        ("search p95 ms (fast)", search_p95("search_fast", "fast"), "<= 15 (10k), 25 (100k)"),
        ("  CPU time p50 / p95 ms", lambda n, s: _pair(s["probe"]["search"]["cpu"]), ""),
        ("window: on screen p50 / p95 ms", on_screen, "p95 <= 60 (real query embedding)"),
        ("write p50 / p95 ms", lambda n, s: _pair(s["probe"]["write"]), ""),
        ("  without embedding", write_plain, "p50 <= 15 (100k)"),
        ("RSS before open MB", lambda n, s: _mem(s, "memory_before_open", "vmrss_mb"), ""),
        ("RSS after open MB", lambda n, s: _mem(s, "memory_after_open", "vmrss_mb"), ""),
        ("peak RSS (VmHWM) MB", lambda n, s: _mem(s, "memory_after_writes", "vmhwm_mb"), ""),
    ]


def _server_rows() -> list[Row]:
    def latency(n: int, s: dict[str, Any]) -> str:
        seen = s["server"]["paced"]["latency"]
        verdict = _verdict(seen["p95_ms"], SERVER_SEARCH_TARGET_MS)
        return f"{seen['p50_ms']:.1f} / {seen['p95_ms']:.1f} / {seen['p99_ms']:.1f} {verdict}"

    def saturated(n: int, s: dict[str, Any]) -> str:
        seen = s["server"]["latency"]
        return f"{seen['p50_ms']:.1f} / {seen['p95_ms']:.1f} / {seen['p99_ms']:.1f}"

    def rate(n: int, s: dict[str, Any]) -> str:
        load = s["server"]
        return f"{load['per_second']:.1f} ({load['requests']:,} in {load['wall_s']:.0f} s)"

    def alone(n: int, s: dict[str, Any]) -> str:
        seen = s["server"]["one_client"]["latency"]
        return f"{seen['p50_ms']:.1f} / {seen['p95_ms']:.1f} / {seen['p99_ms']:.1f}"

    def errors(n: int, s: dict[str, Any]) -> str:
        count = s["server"]["errors"] + s["server"]["paced"]["errors"]
        return f"{count} {'ok' if count == 0 else 'MISS'}"

    clients = "p95 <= 50 ms, 8 clients (real query embedding)"
    return [
        ("server: search p50/p95/p99 ms", latency, clients),
        (
            "  searches/s per client (paced)",
            lambda n, s: f"{s['server']['paced']['rate_per_client']:g}",
            "",
        ),
        ("server, back to back: p50/p95/p99", saturated, ""),
        ("  requests/s (capacity)", rate, ""),
        (
            "  server CPU ms per request",
            lambda n, s: f"{s['server']['server_cpu_ms_per_request']}",
            "",
        ),
        ("  errors", errors, "0"),
        ("  connections opened", lambda n, s: str(s["server"]["connections_opened"]), ""),
        ("server, 1 client: p50/p95/p99 ms", alone, ""),
    ]


def _build(build: dict[str, Any]) -> str:
    return f"{build['seconds']:.1f} ({build['per_second']:,.0f})"


def _size(sizes: dict[str, int]) -> str:
    return f"{sizes['total_bytes'] / MB:.1f}"


def _pair(stats: dict[str, Any]) -> str:
    return f"{stats['p50_ms']:.2f} / {stats['p95_ms']:.2f}"


def _mem(s: dict[str, Any], when: str, key: str) -> str:
    value = s["probe"].get(when, {}).get(key)
    return "-" if value is None else f"{value:.0f}"


def _print_scales(scales: dict[str, dict[str, Any]], before: dict[str, Any] | None) -> None:
    """One column per scale, preceded by its "before" column when the run measured one."""
    before = before or {}
    columns: list[tuple[str, int, dict[str, Any]]] = []
    for n in sorted(int(n) for n in scales):
        if str(n) in before:
            columns.append((f"{n:,} before", n, before[str(n)]))
        columns.append((f"{n:,}", n, scales[str(n)]))
    print("\nScale lines (random unit vectors, 384-d; MemoryService on an encrypted vault)")
    if before:
        print(f"  before: Cairn at {before['revision']}, built and measured in this run")
    header = ["metric", *[label for label, _, _ in columns], "target"]
    table = [header]
    rows = _rows() if any("probe" in line for _, _, line in columns) else _rows()[:2]
    if any("server" in line for _, _, line in columns):
        rows += _server_rows()
    for label, cell, target in rows:
        table.append([label, *[_cell(cell, n, line) for _, n, line in columns], target])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        cells = [row[0].ljust(widths[0])]
        cells += [row[j].rjust(widths[j]) for j in range(1, len(row) - 1)]
        cells.append(row[-1])
        print("  " + "  ".join(cells).rstrip())
        if i == 0:
            print("  " + "  ".join("-" * w for w in widths))


def _cell(cell: Callable[[int, dict[str, Any]], str], n: int, line: dict[str, Any]) -> str:
    """A line's cell, or "-" where that line did not measure it (the 1M line has no window)."""
    try:
        return cell(n, line)
    except (KeyError, TypeError):
        return "-"


def _print_resolver(lines: dict[str, dict[str, Any]]) -> None:
    print("\nEntity resolver (synthetic names; lookups of names, typos, first names, unknowns)")
    for count in sorted(int(n) for n in lines):
        line = lines[str(count)]
        lookup = line["lookup"]
        write = line["entity_write_without_embedding"]
        print(
            f"  {count:>7,} entities: lookup p50 {lookup['p50_ms']:.2f} ms, p95 "
            f"{lookup['p95_ms']:.2f} ms ({_verdict(lookup['p50_ms'], LOOKUP_TARGET_MS)} <= "
            f"{LOOKUP_TARGET_MS:.0f} ms); entity write without embedding p50 "
            f"{write['p50_ms']:.2f} ms, p95 {write['p95_ms']:.2f} ms; built in {line['build_s']} s"
        )


def write_json(results: dict[str, Any], path: Path | None = None) -> Path:
    path = path or RESULTS / "latest.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2, sort_keys=False) + "\n")
    return path
