"""A killed ``cairn import`` is finished by running the same import again.

The import writes the whole file in one transaction, then embeds every memory in batches of
their own (``rebuild_vectors``). Killed with SIGKILL during that embedding, it leaves a vault
that holds every memory, some without a vector: the same command run again must see that the
vault holds exactly this file's import, embed what is missing and say so, after which every
memory is found by meaning. Another file is refused there, with ``cairn reindex`` named.

The command runs as a child whose stderr is a terminal (a pty), so it prints its progress as
a person sees it; the kill comes once the first batch of vectors is in.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.embedding.space import REBUILD_BATCH
from cairn.app.service import MemoryService
from tests.conftest import PASSPHRASE

pytestmark = [pytest.mark.crash, pytest.mark.slow]

PEOPLE = ("Olivia", "Keiko", "Xena", "Bruno", "Amara", "Tomas", "Ingrid", "Ravi", "Lena", "Yusuf")
THINGS = ("greenhouse", "violin", "sailboat", "beehive", "telescope", "bakery", "orchard", "kiln")
PLACES = (
    "Lisbon",
    "Oslo",
    "Nairobi",
    "Kyoto",
    "Quito",
    "Tallinn",
    "Hobart",
    "Dakar",
    "Lima",
    "Riga",
)
NOTES = len(PEOPLE) * len(THINGS) * len(PLACES)  # 800
# With the people, and a stub for each place the notes name ("while staying in Lisbon"): 820.
MEMORIES = NOTES + len(PEOPLE) + len(PLACES)
TIMEOUT_S = 240
_PROGRESS = re.compile(r"embedding (\d+)/(\d+)")


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    embedded_at_kill: int | None = None


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Path:
    """A vault of 800 notes, each linked to its person, exported as JSON Lines."""
    root = tmp_path_factory.mktemp("import-crash")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CAIRN_DATA_DIR", str(root / "data"))
        source = compose.create_vault(root / "source.cairn", PASSPHRASE, embedder=embedder)
        week = 0
        for person in PEOPLE:
            who = source.write("Person", person, f"{person} keeps a notebook of repairs.").id
            for thing in THINGS:
                for place in PLACES:
                    week += 1
                    note = source.write(
                        "Note",
                        f"{person} and the {thing} in {place}",
                        f"{person} repaired the {thing} while staying in {place} in week {week}.",
                        dedup=False,
                    ).id
                    source.link(note, who, "involves", scopes=["personal"])
        report = source.export(root / "export", format="jsonl")
        source.close()
    assert report.file is not None and report.memories == MEMORIES
    return Path(report.file)


def _cairn(args: list[str], *, kill_after: int | None = None) -> Run:
    """``cairn ARGS`` as a child with a terminal for its stderr, in a process group of its own;
    with ``kill_after``, SIGKILLed once its progress says that many memories are embedded."""
    env = {**os.environ, "CAIRN_PASSPHRASE": PASSPHRASE}
    master, terminal = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "cairn.app.cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=terminal,
        env=env,
        start_new_session=True,
    )
    os.close(terminal)
    seen = ""
    embedded_at_kill = None
    deadline = time.monotonic() + TIMEOUT_S
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # the child is gone and the terminal closed
                    break
                if not chunk:
                    break
                seen += chunk.decode("utf-8", "replace")
                done = [int(d) for d, total in _PROGRESS.findall(seen) if int(d) < int(total)]
                if kill_after is not None and done and max(done) >= kill_after:
                    os.killpg(process.pid, signal.SIGKILL)
                    embedded_at_kill = max(done)
                    break
            elif process.poll() is not None:
                break
        else:
            os.killpg(process.pid, signal.SIGKILL)
            pytest.fail(f"cairn {' '.join(args)} did not end in {TIMEOUT_S} s: {seen[-500:]}")
        stdout = process.communicate(timeout=TIMEOUT_S)[0].decode("utf-8", "replace")
    finally:
        with contextlib.suppress(OSError):
            while chunk := os.read(master, 4096):
                seen += chunk.decode("utf-8", "replace")
        os.close(master)
    return Run(process.returncode, stdout, seen, embedded_at_kill)


def _embedded(service: MemoryService) -> tuple[int, int]:
    """(memories, of them with a vector of the active embedder)."""
    stats = service.stats(scopes=service.scopes())
    memories = sum(stats.nodes_by_type.values())
    [space] = [s for s in stats.embedding_spaces if s.name == stats.embedder]
    return memories, int(space.vectors or 0)


def test_a_killed_import_is_finished_by_running_it_again(
    export: Path, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    vault = tmp_path / "restored.cairn"
    killed = _cairn(["import", str(export), "--vault", str(vault)], kill_after=REBUILD_BATCH)
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr[-500:])
    assert killed.embedded_at_kill is not None

    # Every memory is there (one transaction), some without their vector.
    with compose.open_vault(vault, PASSPHRASE, embedder=embedder) as service:
        memories, with_vector = _embedded(service)
        assert memories == MEMORIES
        assert REBUILD_BATCH <= with_vector < MEMORIES
        assert service.verify().ok
        assert not service.vector_search_ready
    missing = MEMORIES - with_vector

    # Another file is not this import: refused, and the way to finish the vectors named.
    other = tmp_path / "other.jsonl"
    other.write_text(export.read_text(encoding="utf-8").replace("week 1.", "week one."), "utf-8")
    refused = _cairn(["import", str(other), "--vault", str(vault)])
    assert refused.returncode == 1, refused.stderr
    assert f"already holds {MEMORIES} memories (an import of another file" in refused.stderr
    assert f"{missing} of its memories have no vector yet" in refused.stderr
    assert f"`cairn reindex --vault {vault}`" in refused.stderr

    # The same import again: nothing is written twice, the embedding is finished.
    again = _cairn(["import", str(export), "--vault", str(vault)])
    assert again.returncode == 0, again.stderr
    links = json.loads(export.read_text(encoding="utf-8").splitlines()[-1])["counts"]["edge"]
    assert links >= NOTES  # each note's link to its person, and those its words made
    assert again.stdout.startswith(
        f"{vault} already holds this import ({MEMORIES} memories and {links} links); "
        f"{missing} memories that had no vector yet were embedded now."
    ), again.stdout
    assert "Traceback" not in again.stderr

    with compose.open_vault(vault, PASSPHRASE, embedder=embedder) as service:
        assert _embedded(service) == (MEMORIES, MEMORIES)
        assert service.vector_search_ready and service.verify().ok
        scopes = service.scopes()
        # Found by meaning (the vector leg, in other words than its own), memories embedded
        # before the kill and after it alike: one note of each person and thing.
        for number, (person, thing) in enumerate(zip(PEOPLE, THINGS * 2, strict=False)):
            place = PLACES[number % len(PLACES)]
            query = f"{person} fixing a {thing} during a stay in {place}"
            hits = service.search(query, scopes=scopes, limit=5, profile="fast").results
            wanted = f"{person} and the {thing} in {place}"
            found = [hit for hit in hits if hit.title == wanted]
            assert found and found[0].ranks["vector"] is not None, (query, hits)
