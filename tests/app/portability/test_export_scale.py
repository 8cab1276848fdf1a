"""An export streams: the text of the memories passes through a page at a time, so its memory
does not grow with the vault. 4,000 memories of 4 kB each (16 MB of text) export, in either
format, with a Python heap peak well under what holding them would take. The rows are written
straight into the vault (embedding thousands would only make the test slow), and the export runs
in a process of its own: a thread another test left in this one would count in its peak."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.app.clock import new_id, now_iso
from cairn.storage import export_rows, graph_rows
from cairn.storage.vault import Vault
from tests.conftest import PASSPHRASE

# It measures peak memory, which a neighbour's work on the same machine would not blur, but it
# is long and heavy: it runs alone.
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


EXPORT = """
import json, sys, tracemalloc
from pathlib import Path
from tests.conftest import open_service
path, passphrase, out, fmt = sys.argv[1:]
opened = open_service(Path(path), None, passphrase=passphrase)
tracemalloc.start()
report = opened.service.export(Path(out), format=fmt)
_, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
opened.service.close()
print(json.dumps({"peak": peak, "memories": report.memories, "path": str(report.path)}))
"""


@pytest.mark.parametrize("fmt", ["jsonl", "markdown"])
def test_an_export_of_thousands_of_memories_streams(vault: Vault, tmp_path: Path, fmt: str) -> None:
    _fill(vault)
    done = subprocess.run(
        [sys.executable, "-c", EXPORT, str(vault.path), PASSPHRASE, str(tmp_path / "out"), fmt],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        cwd=Path(__file__).parents[3],
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["memories"] == COUNT
    written = sum(p.stat().st_size for p in Path(report["path"]).iterdir())
    assert written > COUNT * BODY
    peak = report["peak"]
    assert peak < LIMIT, f"{peak / 1e6:.1f} MB at the peak"
    assert export_rows.PAGE * BODY < LIMIT  # a page of text fits in what is allowed
