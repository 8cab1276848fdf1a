"""The graph line: how fast the graph view lays out and draws (``make bench``, or alone with
``python -m bench.run --only-graph``).

1. Layout alone (``graphview.layout.layout``) on synthetic vault-like graphs of 2,000 and 20,000
   nodes (communities of power-law sizes around a few hub entities, about 3 edges per node, 5%
   unlinked): the median of 3 fresh layouts. Target: 2,000 nodes within 1 s.
2. The 20,000-node overview end to end, in a real vault (nodes and edges inserted directly, the
   text plays no part): read + layout + communities + cache write (``graph_overview``), the
   picture built for painting (``build_picture``, the worker's part), the hand-off and the first
   paint on the UI thread (offscreen). Target: on screen within 10 s. Then the same overview
   again, from the position cache.
3. The longest stall of the UI thread while ``GraphView`` prepares that overview in its worker
   (3 runs, positions not cached): a 10 ms QTimer records the largest gap between its ticks,
   from the request to the first paint done.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from bench.embedders import RandomEmbedder
from bench.measure import load_average
from cairn.app import compose
from cairn.app.clock import new_id, now_iso
from cairn.app.graphview import layout
from cairn.storage import graph_rows

SIZES = (2_000, 20_000)
RUNS = 3
LAYOUT_TARGET_S = 1.0  # 2,000 nodes
OVERVIEW_TARGET_S = 10.0  # 20,000 nodes on screen
STALL_TARGET_MS = 100.0
PASSPHRASE = "bench: graph line"
VIEWPORT = (1200, 800)
HUB_TYPES = ("Person", "Project", "Topic")


def synthetic(count: int, seed: int = 0) -> tuple[list[int], list[tuple[int, int, str]]]:
    """A vault-like graph: hub index per community and edges (src, dst, edge type). Hubs are
    entities; everything else is a Note joined to its community's hubs (``involves``), to other
    notes (``relates_to``, ``references``, now and then ``derived_from``) and across communities
    to other hubs."""
    rng = np.random.default_rng(seed)
    sizes: list[int] = []
    while sum(sizes) < count:
        sizes.append(int(min(count - sum(sizes), max(5, rng.pareto(1.5) * 20))))
    starts = np.cumsum([0, *sizes[:-1]])
    hubs = [
        int(s) + rng.choice(size, size=max(1, size // 12), replace=False)
        for s, size in zip(starts, sizes, strict=True)
    ]
    hub_set = {int(h) for group in hubs for h in group}
    community = np.repeat(np.arange(len(sizes)), sizes)
    alone = rng.random(count) < 0.05
    every_hub = np.array(sorted(hub_set))
    edges: set[tuple[int, int, str]] = set()
    for src in rng.integers(0, count, int(count * 3.45)).tolist():
        if alone[src] or src in hub_set:
            continue
        group = int(community[src])
        roll = rng.random()
        if roll < 0.08:
            dst, kind = int(rng.choice(every_hub)), "involves"
        elif roll < 0.70:
            dst, kind = int(rng.choice(hubs[group])), "involves"
        else:
            dst = int(starts[group] + rng.integers(0, sizes[group]))
            kind = "relates_to" if roll < 0.88 else "references" if roll < 0.96 else "derived_from"
        if dst != src and not alone[dst]:
            edges.add((src, dst, kind))
    return sorted(hub_set), sorted(edges)


def layout_times(count: int) -> dict[str, Any]:
    _, typed = synthetic(count)
    edges = layout.edge_array([(s, d) for s, d, _ in typed])
    seconds = []
    for _ in range(RUNS):
        started = time.perf_counter()
        layout.layout(count, edges)
        seconds.append(time.perf_counter() - started)
    return {
        "nodes": count,
        "edges": len(edges),
        "runs_s": [round(s, 3) for s in seconds],
        "median_s": round(statistics.median(seconds), 3),
    }


def build_vault(path: Path, count: int) -> tuple[Any, float]:
    """A vault holding the synthetic graph, nodes and edges inserted straight into storage."""
    started = time.perf_counter()
    service = compose.create_vault(path, PASSPHRASE, embedder=RandomEmbedder())
    hubs, typed = synthetic(count)
    hub_set = set(hubs)
    ids = [new_id() for _ in range(count)]
    at = now_iso()
    layers = {name: spec.layer for name, spec in service.pack_rules().edge_types.items()}
    with service._vault.write() as conn:
        for index, node_id in enumerate(ids):
            kind = HUB_TYPES[index % 3] if index in hub_set else "Note"
            graph_rows.insert_node(
                conn,
                {"id": node_id, "type": kind, "title": f"{kind} {index}", "scope": "personal",
                 "recorded_at": at, "updated_at": at},
            )  # fmt: skip
        for src, dst, kind in typed:
            graph_rows.insert_edge(
                conn,
                {"src": ids[src], "dst": ids[dst], "type": kind, "layer": layers[kind],
                 "created_at": at},
            )  # fmt: skip
    return service, time.perf_counter() - started


def overview_line(root: Path, count: int) -> dict[str, Any]:
    from PySide6.QtCore import QSize
    from PySide6.QtWidgets import QApplication

    from cairn.app.graphview.data import ViewGraph
    from cairn.ui.graph.canvas import GraphCanvas
    from cairn.ui.graph.scene import build_picture

    app = QApplication.instance() or QApplication([])
    service, build_s = build_vault(root / f"graph-{count}.cairn", count)
    try:
        scopes = service.scopes()
        started = time.perf_counter()
        view = service.graph_overview(scopes=scopes)
        service_s = time.perf_counter() - started
        assert isinstance(view, ViewGraph)
        started = time.perf_counter()
        picture = build_picture(view, QSize(*VIEWPORT))
        picture_s = time.perf_counter() - started
        canvas = GraphCanvas()
        canvas.resize(*VIEWPORT)
        canvas.show()
        app.processEvents()
        started = time.perf_counter()
        canvas.set_picture(picture, fit=True)
        handoff_s = time.perf_counter() - started
        started = time.perf_counter()
        canvas.viewport().grab()  # the first paint, offscreen
        paint_s = time.perf_counter() - started
        canvas.zoom(4.0)
        started = time.perf_counter()
        canvas.viewport().grab()  # zoomed in: the vector tiles in view
        zoomed_paint_s = time.perf_counter() - started
        canvas.close()
        started = time.perf_counter()
        again = service.graph_overview(scopes=scopes)
        cached_s = time.perf_counter() - started
        assert isinstance(again, ViewGraph) and again.from_cache
        stalls = [ui_stall(app, service) for _ in range(RUNS)]
    finally:
        service.close()
    total = service_s + picture_s + handoff_s + paint_s
    return {
        "nodes": len(view.ids),
        "edges": len(view.edges),
        "communities": int(view.communities.max()) + 1 if view.communities is not None else 0,
        "vault_build_s": round(build_s, 2),
        "steps_s": {k: round(v, 3) for k, v in view.timings.items()},
        "service_s": round(service_s, 3),
        "picture_s": round(picture_s, 3),
        "handoff_ms": round(handoff_s * 1000, 1),
        "first_paint_ms": round(paint_s * 1000, 1),
        "zoomed_paint_ms": round(zoomed_paint_s * 1000, 1),
        "total_s": round(total, 3),
        "cached_overview_s": round(cached_s, 3),
        "ui_stall": {
            "runs": stalls,
            "longest_gap_ms": max(run["longest_gap_ms"] or 0.0 for run in stalls),
            "median_longest_gap_ms": statistics.median(
                run["longest_gap_ms"] or 0.0 for run in stalls
            ),
            "request_to_first_paint_s": statistics.median(
                run["request_to_first_paint_s"] for run in stalls
            ),
        },
    }


def ui_stall(app: Any, service: Any) -> dict[str, Any]:
    """``GraphView`` lays out the overview afresh (its cache emptied) while a 10 ms timer on the
    UI thread records the longest gap between ticks, up to the first paint."""
    from PySide6.QtCore import QEventLoop, QTimer

    from cairn.ui.base.session import Session
    from cairn.ui.graph.view import GraphView

    with service._vault.write() as conn:
        conn.execute("DELETE FROM graph_layouts")
    session = Session()
    session.service = service
    view = GraphView(session)
    view.resize(*VIEWPORT)
    view.show()
    app.processEvents()
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer(interval=10)
    timer.timeout.connect(tick)
    loop = QEventLoop()
    view.picture_shown.connect(loop.quit)
    QTimer.singleShot(120_000, loop.quit)
    started = time.perf_counter()
    timer.start()
    view.show_overview()
    loop.exec()
    view.canvas.viewport().repaint()  # the first paint, inside the measured time
    elapsed = time.perf_counter() - started
    app.processEvents()
    timer.stop()
    shown = view.picture is not None
    view.close()
    session.service = None
    return {
        "shown": shown,
        "request_to_first_paint_s": round(elapsed, 3),
        "longest_gap_ms": round(max(gaps) * 1000, 1) if gaps else None,
        "ticks": len(gaps),
        "handoff_ms": round(view.last_handoff_ms, 1),
    }


def line(root: Path) -> dict[str, Any]:
    result: dict[str, Any] = {"load_average_at_start": load_average(), "layout": {}}
    for count in SIZES:
        _say(f"graph: layout of {count:,} nodes, {RUNS} runs")
        result["layout"][str(count)] = layout_times(count)
    _say(f"graph: the {SIZES[-1]:,}-node overview in a vault")
    result["overview"] = overview_line(root, SIZES[-1])
    result["load_average_at_end"] = load_average()
    return result


def _verdict(value: float, limit: float) -> str:
    return "ok" if value <= limit else "MISS"


def print_line(result: dict[str, Any] | None) -> None:
    if not result:
        return
    print(f"\nGraph view (load average {result['load_average_at_start']} at start)")
    for count, timing in result["layout"].items():
        target = f"  target {LAYOUT_TARGET_S:.0f} s" if int(count) == SIZES[0] else ""
        verdict = f" {_verdict(timing['median_s'], LAYOUT_TARGET_S)}" if target else ""
        print(
            f"  layout {int(count):>6,} nodes  median {timing['median_s']:6.3f} s  runs "
            f"{timing['runs_s']} ({timing['edges']:,} edges){target}{verdict}"
        )
    view = result["overview"]
    steps = view["steps_s"]
    print(
        f"  overview {view['nodes']:,} nodes, {view['edges']:,} edges, {view['communities']:,} "
        f"communities: on screen in {view['total_s']:.2f} s (target {OVERVIEW_TARGET_S:.0f} s "
        f"{_verdict(view['total_s'], OVERVIEW_TARGET_S)})"
    )
    print(
        f"    read {steps.get('read_s', 0):.2f} s, layout {steps.get('layout_s', 0):.2f} s, "
        f"communities {steps.get('communities_s', 0):.2f} s, cache write "
        f"{steps.get('cache_write_s', 0):.2f} s, picture {view['picture_s']:.2f} s; UI thread: "
        f"hand-off {view['handoff_ms']:.0f} ms, first paint {view['first_paint_ms']:.0f} ms "
        f"(zoomed in x4: {view['zoomed_paint_ms']:.0f} ms)"
    )
    print(f"    again, positions from the cache: {view['cached_overview_s']:.2f} s")
    stall = view["ui_stall"]
    print(
        f"  UI thread while GraphView prepares it ({RUNS} runs): longest gap "
        f"{stall['longest_gap_ms']} ms, median of the runs' longest "
        f"{stall['median_longest_gap_ms']} ms "
        f"(target {STALL_TARGET_MS:.0f} ms "
        f"{_verdict(stall['longest_gap_ms'] or 0, STALL_TARGET_MS)}"
        f"), request to first paint {stall['request_to_first_paint_s']:.2f} s"
    )


def _say(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory(prefix="cairn-graph-") as folder:
        outcome = line(Path(folder))
    print_line(outcome)
