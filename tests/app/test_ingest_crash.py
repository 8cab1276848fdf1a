"""Crash safety: ``cairn ingest`` killed with SIGKILL half-way through a folder (the worker with
it, as a power cut would) leaves a vault that verifies, in which every file recorded as ingested
has its Document and all its passages and nothing else was half-written; running the same
command again finishes the rest, and the result equals one clean run."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cairn.app import compose
from cairn.app.embedder import MiniLMEmbedder
from cairn.app.service import MemoryService
from cairn.storage import sentinel
from tests.app import ingest_files as files
from tests.conftest import PASSPHRASE

ALL = ["personal"]
FILES = 20
# A note has a passage for its title and one per section. A batch closes at 256 passages: the
# two long notes first (129 passages each) are committed together before the third is read;
# the eighteen short ones after them would wait for the end of the run.
LONG_NOTES, LONG_SECTIONS, SHORT_SECTIONS = 2, 128, 2
KILL_AFTER_LINES = 12
TIMEOUT_S = 240


def _state(service: MemoryService) -> dict[str, Any]:
    """What the vault holds, by file: (passage texts in order) per path, and the totals."""
    with service.vault.read() as conn:
        documents = conn.execute(
            "SELECT id, source, status FROM nodes WHERE type = 'Document'"
        ).fetchall()
        passages = conn.execute(
            "SELECT d.source, p.body, json_extract(p.attrs, '$.ordinal') FROM nodes AS p "
            "JOIN edges AS e ON e.src = p.id AND e.type = 'part_of' "
            "JOIN nodes AS d ON d.id = e.dst WHERE p.type = 'Passage'"
        ).fetchall()
        nodes = dict(
            conn.execute(
                "SELECT type, count(*) FROM nodes WHERE scope <> ? GROUP BY type",
                (sentinel.ENGINE_SCOPE,),
            ).fetchall()
        )
        edges = dict(conn.execute("SELECT type, count(*) FROM edges GROUP BY type").fetchall())
    by_source: dict[str, list[tuple[int, str]]] = {}
    for source, body, ordinal in passages:
        by_source.setdefault(source, []).append((ordinal, body))
    return {
        "documents": Counter(source for _, source, _ in documents),
        "statuses": Counter(status for _, _, status in documents),
        "passages": {source: [b for _, b in sorted(found)] for source, found in by_source.items()},
        "nodes": nodes,
        "edges": edges,
    }


def _kill_mid_run(folder: Path, vault: Path, data_dir: Path) -> list[str]:
    """Runs ``cairn ingest folder`` and SIGKILLs its process group after the
    ``KILL_AFTER_LINES``-th progress line; returns the lines seen."""
    env = {
        **os.environ,
        "CAIRN_PASSPHRASE": PASSPHRASE,
        "CAIRN_VAULT": str(vault),
        "CAIRN_DATA_DIR": str(data_dir),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "cairn.app.cli", "ingest", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        start_new_session=True,  # its own group: the kill takes the extraction worker too
    )
    watchdog = threading.Timer(TIMEOUT_S, lambda: os.killpg(process.pid, signal.SIGKILL))
    watchdog.start()
    lines: list[str] = []
    try:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line.rstrip("\n"))
            if len(lines) == KILL_AFTER_LINES:
                os.killpg(process.pid, signal.SIGKILL)
                break
    finally:
        watchdog.cancel()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        assert process.stderr is not None
        process.stderr.close()
    return lines


@pytest.mark.slow
def test_a_killed_ingest_keeps_whole_files_and_a_rerun_finishes(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    folder = files.write(
        tmp_path / "notes",
        {
            f"note{n:02}.md": files.sectioned_markdown(
                n, LONG_SECTIONS if n < LONG_NOTES else SHORT_SECTIONS
            )
            for n in range(FILES)
        },
    ).resolve()
    vault = tmp_path / "vault" / "killed.cairn"
    vault.parent.mkdir()
    compose.create_vault(vault, PASSPHRASE, embedder=embedder).close()

    lines = _kill_mid_run(folder, vault, tmp_path / "data")
    assert len(lines) == KILL_AFTER_LINES, lines  # killed mid-way, not after the end
    assert all(line.endswith(".md") and f"/{FILES}] " in line for line in lines)

    with compose.open_vault(vault, PASSPHRASE, embedder=embedder) as service:
        verified = service.verify()
        assert verified.ok, verified.as_dict()
        rows = service.sources()
        assert {row["state"] for row in rows} == {"ingested"}
        # The first batch (the long notes) was committed before the third note was read; the
        # batch being gathered when the kill came was lost whole.
        assert LONG_NOTES <= len(rows) < FILES
        counts = files.part_of_counts(service)
        state = _state(service)
        for row in rows:
            long = row["path"] < str(folder / f"note{LONG_NOTES:02}.md")
            assert row["passages"] == 1 + (LONG_SECTIONS if long else SHORT_SECTIONS)
            assert counts[row["document_id"]] == row["passages"], row["path"]
        # Nothing half-written: no Document, Passage or edge without its source row.
        assert set(state["documents"]) == {row["path"] for row in rows}
        assert set(state["documents"].values()) == {1}
        assert set(counts) == {row["document_id"] for row in rows}
        passages = sum(row["passages"] for row in rows)
        assert state["nodes"] == {"Document": len(rows), "Passage": passages}
        assert state["edges"] == {"part_of": passages}
        # What was committed is searchable: a sentence of the first note finds its passage.
        hits = service.search(files.prose("0-1", 2), scopes=ALL).results
        assert hits[0].type == "Passage" and hits[0].source == str(folder / "note00.md")
        committed = len(rows)

        rerun = service.ingest([folder])
        assert rerun.counts() == {"unchanged": committed, "ingested": FILES - committed}
        after_rerun = _state(service)
        assert service.verify().ok

    clean_vault = tmp_path / "clean.cairn"
    with compose.create_vault(clean_vault, PASSPHRASE, embedder=embedder) as clean:
        assert clean.ingest([folder]).counts() == {"ingested": FILES}
        clean_state = _state(clean)
    assert after_rerun == clean_state
    assert after_rerun["documents"] == Counter(
        {str(folder / f"note{n:02}.md"): 1 for n in range(FILES)}
    )
    assert after_rerun["statuses"] == Counter({"active": FILES})
