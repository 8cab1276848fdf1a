"""Crash safety: ``cairn ingest`` killed with SIGKILL (the extraction worker with it, as a power
cut would) leaves a vault that verifies, in which every file recorded as ingested has its
Document and all its passages, what was committed before is still there and nothing was
half-written; running the same command again finishes the rest, and the result equals one clean
run.

One test kills once at a fixed point and spells out what each batch held. The trials kill at
random points of a run's life (starting up and scanning, reading, embedding, writing a batch),
one to three times over the same vault, then finish. ``CAIRN_STRESS_TRIALS`` says how many
trials run (3 by default, 20 under ``make stress``) and ``CAIRN_CRASH_SEED`` the first trial's
seed (random by default). A failure names its trial's seed: ``CAIRN_CRASH_SEED=<seed> make
stress STRESS_TRIALS=1`` makes the same choices again, though where a kill lands in the work
also depends on how fast the machine runs that day.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.ingestion.request import IngestRequest
from cairn.app.ingestion.store import UNFINISHED
from cairn.app.service import MemoryService
from cairn.storage import sentinel
from cairn.storage.vault import Vault
from tests.app import ingest_files as files
from tests.conftest import PASSPHRASE, create_service, open_service


def _number_from_env(name: str, least: int) -> int | None:
    """The whole number the environment variable ``name`` holds, if it is set."""
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise pytest.UsageError(f"{name} must be a whole number of at least {least}, not {text!r}")
    return value


TRIALS = _number_from_env("CAIRN_STRESS_TRIALS", 1) or 3
# Each session tries other points unless told the seed to replay.
SEED = _number_from_env("CAIRN_CRASH_SEED", 0)
FIRST_SEED = SEED if SEED is not None else random.SystemRandom().randrange(1 << 32)
MAX_KILLS = 3
# A run that ends before its kill point is not a kill; a trial tries this many more times.
SPARE_RUNS = 3
ALL = ["personal"]
FILES = 20
# A note has a passage for its title and one per section. A batch closes at 256 passages: the
# two long notes first (129 passages each) are committed together before the third is read;
# the eighteen short ones after them would wait for the end of the run.
LONG_NOTES, LONG_SECTIONS, SHORT_SECTIONS = 2, 128, 2
KILL_AFTER_LINES = 12
TIMEOUT_S = 240
_PROGRESS = re.compile(r"^\[\d+/\d+\] (.+)$")  # "[3/20] /path/of/the/file"
# Text files that are not text: whatever becomes of them, every other file must be read.
BAD_FILES: dict[str, bytes] = {
    "broken.md": files.binary_bytes(),
    "legacy.txt": files.unknown_encoding_bytes(),
}


def _state(service: MemoryService, storage: Vault) -> dict[str, Any]:
    """What the vault holds, by file: (passage texts in order) per path, each file's source
    state, and the totals."""
    with storage.read() as conn:
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
        review = dict(
            conn.execute("SELECT kind, count(*) FROM review_items GROUP BY kind").fetchall()
        )
        # A memory without its vector would leave vector search off until a rebuild.
        (vectorless,) = conn.execute(
            "SELECT count(*) FROM nodes AS n WHERE n.scope <> ? AND NOT EXISTS "
            "(SELECT 1 FROM vectors AS v WHERE v.node_seq = n.seq)",
            (sentinel.ENGINE_SCOPE,),
        ).fetchone()
    by_source: dict[str, list[tuple[int, str]]] = {}
    for source, body, ordinal in passages:
        by_source.setdefault(source, []).append((ordinal, body))
    return {
        "documents": Counter(source for _, source, _ in documents),
        "statuses": Counter(status for _, _, status in documents),
        "passages": {source: [b for _, b in sorted(found)] for source, found in by_source.items()},
        "nodes": nodes,
        "edges": edges,
        "review": review,
        "vectorless": vectorless,
        "sources": {row.path: (row.state, row.passages) for row in service.sources()},
    }


def _child_env(root: Path, vault: Path) -> dict[str, str]:
    """The environment of a ``cairn`` child: the vault, its passphrase, and a home under
    ``root`` (nothing of this machine's own Cairn settings)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("CAIRN_")}
    home = root / "home"
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
        CAIRN_DATA_DIR=str(home / "data" / "cairn"),
        CAIRN_PASSPHRASE=PASSPHRASE,
        CAIRN_VAULT=str(vault),
    )
    return env


@dataclass(frozen=True)
class KillPoint:
    """Where a run is killed: ``seconds`` after it starts; or, with ``line``, once the
    ``line``-th progress line is out, after ``share`` of the time the clean run spent on that
    line's file (reading, embedding and, if the file closed a batch, writing it)."""

    seconds: float | None = None
    line: int | None = None
    share: float = 0.0

    def __str__(self) -> str:
        if self.line is None:
            return f"after {self.seconds:.3f} s"
        return f"after progress line {self.line} and {self.share:.2f} of its file's time"


@dataclass
class Run:
    read: list[str] = field(default_factory=list)  # the files of the progress lines, in order
    other: list[str] = field(default_factory=list)  # anything else on stderr
    times: list[float] = field(default_factory=list)  # each progress line's, from the start
    kill_sent: float | None = None
    seconds: float = 0.0
    returncode: int = 0
    timed_out: bool = False

    @property
    def killed(self) -> bool:
        return self.returncode == -signal.SIGKILL

    def describe(self, folder: Path) -> str:
        last = Path(self.read[-1]).relative_to(folder) if self.read else "none"
        ending = (
            f"killed at {self.kill_sent:.3f} s"
            if self.killed and self.kill_sent is not None
            else f"ended by itself (exit {self.returncode}) at {self.seconds:.3f} s"
        )
        extra = f"; other output: {self.other[-5:]}" if self.other else ""
        return f"{ending}, after {len(self.read)} progress lines (last: {last}){extra}"


def _ingest(
    folder: Path,
    env: Mapping[str, str],
    point: KillPoint | None = None,
    durations: Mapping[str, float] | None = None,
) -> Run:
    """Runs ``cairn ingest folder`` as a child in a process group of its own and, if ``point``
    says so, SIGKILLs the group there."""
    run = Run()
    process = subprocess.Popen(
        [sys.executable, "-m", "cairn.app.cli", "ingest", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(env),
        text=True,
        start_new_session=True,  # its own group: the kill takes the extraction worker too
    )
    start = time.monotonic()

    def kill(timed_out: bool = False) -> None:
        if run.kill_sent is None:
            run.kill_sent = time.monotonic() - start
        run.timed_out = run.timed_out or timed_out
        with contextlib.suppress(ProcessLookupError):  # it ended first
            os.killpg(process.pid, signal.SIGKILL)

    timers = [threading.Timer(TIMEOUT_S, kill, kwargs={"timed_out": True})]
    if point is not None and point.seconds is not None:
        timers.append(threading.Timer(point.seconds, kill))
    for timer in timers:
        timer.start()
    try:
        assert process.stderr is not None
        for raw in process.stderr:
            line = raw.rstrip("\n")
            found = _PROGRESS.match(line)
            if found is None:
                run.other.append(line)
                continue
            run.read.append(found.group(1))
            run.times.append(time.monotonic() - start)
            if point is not None and point.line == len(run.read):
                delay = point.share * (durations or {}).get(found.group(1), 0.0)
                if delay <= 0:
                    kill()
                    break
                timers.append(threading.Timer(delay, kill))
                timers[-1].start()
    finally:
        for timer in timers:
            timer.cancel()
        run.returncode = process.wait(timeout=60)
        run.seconds = time.monotonic() - start
        assert process.stderr is not None
        process.stderr.close()
    return run


def _check_whole(
    service: MemoryService,
    storage: Vault,
    clean: Mapping[str, Any],
    before: Mapping[str, tuple[str, list[str]]],
    context: str,
) -> dict[str, tuple[str, list[str]]]:
    """Checks the vault after a kill against the clean run's state; returns what it keeps:
    path -> (Document id, passage texts) of every file recorded as ingested."""
    verified = service.verify()
    assert verified.ok, f"{verified.as_dict()}; {context}"
    state = _state(service, storage)
    rows = {row.path: row for row in service.sources() if row.state == "ingested"}
    counts = files.part_of_counts(storage)
    kept: dict[str, tuple[str, list[str]]] = {}
    for path, row in rows.items():
        # Whole: the passages the clean run made of this file, every one part_of its Document.
        assert path in clean["passages"], f"the clean run kept nothing of {path}; {context}"
        whole = clean["passages"][path]
        assert state["passages"].get(path) == whole, f"{path} is not whole; {context}"
        assert row.passages == len(whole) == counts.get(row.document_id), f"{path}; {context}"
        kept[path] = (row.document_id, state["passages"][path])
    # A long document killed between its parts: its source row says it is unfinished and names
    # it, and it holds the clean run's first passages, each once (a rerun goes on from there).
    unfinished = {
        row.path: row
        for row in service.sources()
        if row.state == "failed" and row.document_id and row.error == UNFINISHED
    }
    begun = 0
    for path, row in unfinished.items():
        written = state["passages"].get(path, [])
        assert written == clean["passages"][path][: len(written)], f"{path}; {context}"
        assert counts.get(row.document_id, 0) == len(written), f"{path}; {context}"
        begun += len(written)
    # Nothing half-written: no Document, Passage, edge or vector without its source row.
    assert state["documents"] == Counter([*rows, *unfinished]), context
    owners = {row.document_id for row in [*rows.values(), *unfinished.values()]}
    assert set(counts) <= owners, context
    passages = sum(row.passages for row in rows.values()) + begun
    documents = len(rows) + len(unfinished)
    made = {"Document": documents, "Passage": passages}
    assert state["nodes"] == {kind: n for kind, n in made.items() if n}, context
    # (Passages the dedup gate found alike are joined by same_topic: the clean run has those too.)
    assert state["edges"].get("part_of", 0) == passages, context
    assert state["vectorless"] == 0, context
    # Nothing committed before is lost, nor changed.
    lost = {path: keeps for path, keeps in before.items() if kept.get(path) != keeps}
    assert not lost, f"committed before, now gone or changed: {sorted(lost)}; {context}"
    return kept


@pytest.mark.crash
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

    run = _ingest(folder, _child_env(tmp_path, vault), KillPoint(line=KILL_AFTER_LINES))
    assert run.killed and not run.timed_out, run.describe(folder)
    assert len(run.read) == KILL_AFTER_LINES, run.read  # killed mid-way, not after the end
    assert not any("Traceback" in line for line in run.other), run.other

    with open_service(vault, embedder) as (service, storage):
        verified = service.verify()
        assert verified.ok, verified.as_dict()
        rows = service.sources()
        assert {row.state for row in rows} == {"ingested"}
        # The first batch (the long notes) was committed before the third note was read; the
        # batch being gathered when the kill came was lost whole.
        assert LONG_NOTES <= len(rows) < FILES
        counts = files.part_of_counts(storage)
        state = _state(service, storage)
        for row in rows:
            long = row.path < str(folder / f"note{LONG_NOTES:02}.md")
            assert row.passages == 1 + (LONG_SECTIONS if long else SHORT_SECTIONS)
            assert counts[row.document_id] == row.passages, row.path
        # Nothing half-written: no Document, Passage or edge without its source row.
        assert set(state["documents"]) == {row.path for row in rows}
        assert set(state["documents"].values()) == {1}
        assert set(counts) == {row.document_id for row in rows}
        passages = sum(row.passages for row in rows)
        assert state["nodes"] == {"Document": len(rows), "Passage": passages}
        assert state["edges"] == {"part_of": passages}
        # What was committed is searchable: a sentence of the first note finds the note (its
        # Document holds its whole text) and its passage.
        hits = service.search(files.prose("0-1", 2), scopes=ALL).results
        first_note = str(folder / "note00.md")
        assert hits[0].source == first_note
        assert any(h.type == "Passage" and h.source == first_note for h in hits[:3])
        committed = len(rows)

        rerun = service.ingest(IngestRequest.of([folder]))
        assert rerun.counts() == {"unchanged": committed, "ingested": FILES - committed}
        after_rerun = _state(service, storage)
        assert service.verify().ok

    clean_vault = tmp_path / "clean.cairn"
    with create_service(clean_vault, embedder) as (clean, clean_storage):
        assert clean.ingest(IngestRequest.of([folder])).counts() == {"ingested": FILES}
        clean_state = _state(clean, clean_storage)
    assert after_rerun == clean_state
    assert after_rerun["documents"] == Counter(
        {str(folder / f"note{n:02}.md"): 1 for n in range(FILES)}
    )
    assert after_rerun["statuses"] == Counter({"active": FILES})


@dataclass(frozen=True)
class Reference:
    """One clean ``cairn ingest`` of the mixed folder: what it made and how long it took."""

    folder: Path
    state: dict[str, Any]
    order: list[str]  # the files it read, in order (the bad ones too)
    durations: dict[str, float]  # seconds from a file's progress line to the next (or the end)
    startup: float  # seconds before the first progress line: start-up, opening, scanning
    good: frozenset[str]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Reference:
    root = tmp_path_factory.mktemp("crash-reference")
    # Batches commit: the two long journals (258 passages) about half-way, then 32 short
    # notes and logs (a batch's most files), then the rest at the end.
    # And a ledger of 601 passages, longer than a batch: written in three parts, so a kill can
    # land between them and the rerun must finish it.
    notes = {**files.notes_folder(), "m-ledger.md": files.sectioned_markdown("ledger", 600)}
    folder = files.write(root / "notes", {**notes, **BAD_FILES}).resolve()
    vault = root / "clean.cairn"
    compose.create_vault(vault, PASSPHRASE, embedder=embedder).close()
    run = _ingest(folder, _child_env(root, vault))
    assert run.returncode in (0, 1) and not run.timed_out, run.describe(folder)
    with open_service(vault, embedder) as (service, storage):
        assert service.verify().ok
        state = _state(service, storage)
    good = frozenset(str(folder / name) for name in notes)
    # A bad file does not keep the others out (what becomes of it is not this test's concern).
    ingested = {path for path, (kept, _) in state["sources"].items() if kept == "ingested"}
    assert good <= ingested, sorted(good - ingested)
    assert good <= set(run.read)
    ends = [*run.times[1:], run.seconds]
    durations = {
        path: end - began for path, began, end in zip(run.read, run.times, ends, strict=True)
    }
    return Reference(folder, state, run.read, durations, run.times[0], good)


def _kill_point(rng: random.Random, reference: Reference, to_read: list[str]) -> KillPoint:
    """Half the time anywhere in the run's expected life, half the time within one file's
    work; the run reads ``to_read`` (what the vault does not keep yet)."""
    if to_read and rng.random() < 0.5:
        return KillPoint(line=rng.randint(1, len(to_read)), share=rng.random())
    expected = reference.startup + sum(reference.durations[path] for path in to_read)
    return KillPoint(seconds=rng.uniform(0.0, expected))


@pytest.mark.crash
@pytest.mark.slow
@pytest.mark.parametrize("trial", range(TRIALS))
def test_kills_at_random_points_lose_nothing_committed_and_a_rerun_finishes(
    trial: int, tmp_path: Path, embedder: MiniLMEmbedder, reference: Reference
) -> None:
    seed = FIRST_SEED + trial
    rng = random.Random(seed)
    vault = tmp_path / "vault" / "killed.cairn"
    vault.parent.mkdir()
    compose.create_vault(vault, PASSPHRASE, embedder=embedder).close()
    env = _child_env(tmp_path, vault)
    folder = reference.folder
    kills = rng.randint(1, MAX_KILLS)
    kept: dict[str, tuple[str, list[str]]] = {}
    history: list[str] = []
    context = f"trial seed {seed}"
    killed = 0
    for _ in range(kills + SPARE_RUNS):
        if killed == kills:
            break
        point = _kill_point(rng, reference, [p for p in reference.order if p not in kept])
        run = _ingest(folder, env, point, reference.durations)
        killed += run.killed
        history.append(f"run {len(history) + 1}, kill {point}: {run.describe(folder)}")
        context = (
            f"trial seed {seed}: {'; '.join(history)}. "
            f"Replay: CAIRN_CRASH_SEED={seed} make stress STRESS_TRIALS=1"
        )
        assert not run.timed_out, context
        assert run.killed or not any("Traceback" in line for line in run.other), context
        with open_service(vault, embedder) as (service, storage):
            kept = _check_whole(service, storage, reference.state, kept, context)
    assert killed, f"no run was killed before it ended; {context}"

    with open_service(vault, embedder) as (service, storage):
        report = service.ingest(IngestRequest.of([folder]))
        outcomes = {o.path: o.state for o in report.files if o.path in reference.good}
        expected = {p: "unchanged" if p in kept else "ingested" for p in reference.good}
        assert outcomes == expected, context
        verified = service.verify()
        assert verified.ok, f"{verified.as_dict()}; {context}"
        final = _state(service, storage)
    # No Document or passage twice, none missing: the same as one clean run, file by file.
    assert final == reference.state, context
    assert set(final["documents"].values()) == {1}, context
