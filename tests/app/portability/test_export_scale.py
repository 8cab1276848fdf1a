"""An export streams: the text of the memories passes through a page at a time, so its memory
does not grow with the vault. 4,000 memories of 4 kB each (16 MB of text) export, in either
format, with a Python heap peak well under what holding them would take. The rows are written
straight into the vault (embedding thousands would only make the test slow)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from cairn.app.clock import new_id, now_iso
from cairn.app.service import MemoryService
from cairn.storage import export_rows, graph_rows
from cairn.storage.vault import Vault

# It measures its own peak memory, which a neighbour's work on the same process would blur.
pytestmark = pytest.mark.serial

COUNT = 4_000
BODY = 4_000
LIMIT = 6 * 1024 * 1024  # holding the text alone would take 16 MB


def _fill(vault: Vault) -> None:
    at = now_iso()
    previous = None
    with vault.write() as conn:
        for number in range(COUNT):
            node_id = new_id()
            words = f"memory {number} " + "lorem ipsum dolor sit amet " * (BODY // 27)
            graph_rows.insert_node(
                conn,
                {"id": node_id, "type": "Note", "title": f"Note {number}", "body": words,
                 "scope": "personal", "recorded_at": at, "updated_at": at},
            )  # fmt: skip
            if previous is not None:
                graph_rows.insert_edge(
                    conn,
                    {"src": node_id, "dst": previous, "type": "relates_to", "layer": "semantic",
                     "created_at": at},
                )  # fmt: skip
            previous = node_id


@pytest.mark.parametrize("fmt", ["jsonl", "markdown"])
def test_an_export_of_thousands_of_memories_streams(
    service: MemoryService, vault: Vault, tmp_path: Path, fmt: str
) -> None:
    _fill(vault)
    tracemalloc.start()
    try:
        report = service.export(tmp_path / "out", format=fmt)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.memories == COUNT
    written = sum(p.stat().st_size for p in Path(report.path).iterdir())
    assert written > COUNT * BODY
    assert peak < LIMIT, f"{peak / 1e6:.1f} MB at the peak"
    assert export_rows.PAGE * BODY < LIMIT  # a page of text fits in what is allowed
