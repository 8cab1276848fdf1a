"""Watched folders: the list kept in the vault (``cairn watch add|list|remove``), a moved file
keeping its memory (plain ingest too), and the real watcher (watchdog on inotify) feeding the
real ingest pipeline: created, edited, renamed and deleted files within seconds, a burst as one
run, nothing while the vault is closed and a catch-up at the next open, and a folder that is
gone reported while the others are watched. Real vault, real embedder, real files."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.ingestion.report import IngestReport
from cairn.app.ingestion.request import IngestRequest
from cairn.app.ingestion.watching import WatchBatch, watch_problem
from cairn.app.models import Node, TrackedFile
from cairn.app.service import MemoryService
from tests.app.cli_runner import Cli
from tests.conftest import PASSPHRASE, without_root_override

ALL = ["personal"]
QUIET = 0.5  # the watcher's quiet time in these tests: short, so they run quickly
WITHIN = 20.0  # seconds a change may take to be in the vault on a busy two-core machine


# -- the list, through the command line ----------------------------------------------------


@pytest.fixture
def cli(cli_from_init: Cli) -> Cli:
    return cli_from_init


def test_watch_add_list_remove(cli: Callable[..., tuple[str, str]], tmp_path: Path) -> None:
    notes, papers = tmp_path / "notes", tmp_path / "papers"
    notes.mkdir()
    papers.mkdir()
    out, _ = cli("watch", "list")
    assert "No watched folders" in out
    cli("scope", "add", "work")
    cli("watch", "add", str(notes))
    out, _ = cli("watch", "add", str(papers), "--scope", "work")
    assert str(notes) in out and str(papers) in out
    listed = json.loads(cli("watch", "list", "--json")[0])
    assert listed == [
        {"path": str(notes), "scope": "personal"},
        {"path": str(papers), "scope": "work"},
    ]
    # Refusals say what to do.
    _, err = cli("watch", "add", str(notes), expect=1)
    assert "already watched" in err
    (notes / "inner").mkdir()
    _, err = cli("watch", "add", str(notes / "inner"), expect=1)
    assert "inside" in err and str(notes) in err
    _, err = cli("watch", "add", str(tmp_path), expect=1)
    assert "remove it first" in err
    _, err = cli("watch", "add", str(tmp_path / "nowhere"), expect=1)
    assert "not there" in err
    _, err = cli("watch", "add", "--scope", "nosuch", str(tmp_path / "notes" / "inner"), expect=1)
    assert "nosuch" in err
    cli("watch", "remove", str(notes))
    assert json.loads(cli("watch", "list", "--json")[0]) == [{"path": str(papers), "scope": "work"}]
    _, err = cli("watch", "remove", str(notes), expect=1)
    assert "not a watched folder" in err


def test_the_list_travels_with_the_vault(service: MemoryService, tmp_path: Path) -> None:
    """It is kept in the vault (encrypted), not in this machine's preferences."""
    folder = tmp_path / "notes"
    folder.mkdir()
    service.watch_folder(folder)
    vault = tmp_path / "test.cairn"
    service.close()
    assert str(folder).encode() not in vault.read_bytes()
    with compose.open_vault(vault, PASSPHRASE, with_embedder=False) as again:
        assert [f.path for f in again.watched_folders()] == [str(folder)]


# -- a moved file keeps its memory -----------------------------------------------------------


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _source(service: MemoryService, path: Path) -> TrackedFile | None:
    rows = [r for r in service.sources() if r.path == str(path)]
    return rows[0] if rows else None


def _node(service: MemoryService, node_id: str) -> Node:
    return service.get([node_id], scopes=ALL, use=False).nodes[0].node


def test_plain_ingest_follows_a_renamed_note(service: MemoryService, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    _write(folder / "kiln.md", "The kiln needs a new shelf before the [[Pottery fair]].\n")
    _write(folder / "pottery fair.md", "# Pottery fair\n\nStalls open at nine on Saturday.\n")
    service.ingest(IngestRequest.of([folder]))
    kept = _source(service, folder / "kiln.md")
    assert kept is not None
    document = str(kept.document_id)
    links_before = service.traverse(document, scopes=ALL, depth=1, direction="out").edges

    (folder / "kiln.md").rename(folder / "archive-kiln.md")
    report = service.ingest(IngestRequest.of([folder]))
    moved = [f for f in report.files if f.state == "moved"]
    assert [(m.moved_from, m.path) for m in moved] == [
        (str(folder / "kiln.md"), str(folder / "archive-kiln.md"))
    ]
    assert moved[0].document_id == document
    assert report.removed == []  # moved, not gone
    assert _source(service, folder / "kiln.md") is None
    row = _source(service, folder / "archive-kiln.md")
    assert row is not None and row.document_id == document and row.state == "ingested"
    node = _node(service, document)
    assert node.status == "active" and node.source == str(folder / "archive-kiln.md")
    assert node.attrs["path"] == str(folder / "archive-kiln.md")
    assert node.title == "archive-kiln"  # it was only the file's name: it follows
    links_after = service.traverse(document, scopes=ALL, depth=1, direction="out").edges
    assert any(e["type"] == "references" for e in links_before)
    assert {(e["dst"], e["type"]) for e in links_before} <= {
        (e["dst"], e["type"]) for e in links_after
    }
    hits = service.search("kiln shelf", scopes=ALL).results
    assert any(h.source == str(folder / "archive-kiln.md") for h in hits)
    assert not any(h.source == str(folder / "kiln.md") for h in hits)


def test_a_file_moved_after_it_was_marked_missing_is_not_read_again(
    service: MemoryService, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    _write(folder / "a" / "tide.txt", "High tide at the harbour is at six in the evening.\n")
    service.ingest(IngestRequest.of([folder]))
    document = _source(service, folder / "a" / "tide.txt").document_id  # type: ignore[union-attr]
    content = (folder / "a" / "tide.txt").read_bytes()
    (folder / "a" / "tide.txt").unlink()
    assert service.ingest(IngestRequest.of([folder])).removed == [str(folder / "a" / "tide.txt")]
    (folder / "b").mkdir()
    (folder / "b" / "tide.txt").write_bytes(content)
    report = service.ingest(IngestRequest.of([folder]))
    assert [(f.state, f.document_id) for f in report.files] == [("moved", document)]
    # A second copy of the same bytes is a duplicate, not a second move.
    (folder / "c").mkdir()
    (folder / "c" / "tide.txt").write_bytes(content)
    report = service.ingest(IngestRequest.of([folder]))
    states = {f.path: f.state for f in report.files}
    assert states[str(folder / "c" / "tide.txt")] == "duplicate"


# -- the real watcher ------------------------------------------------------------------------


class Runs:
    """The batches the watcher handed over, each run through the real ingest as it comes."""

    def __init__(self, service: MemoryService, *, run: bool = True) -> None:
        self._service = service
        self._run = run
        self.batches: list[WatchBatch] = []
        self.reports: list[IngestReport] = []
        self.problems: list[str] = []
        self._changed = threading.Condition()

    def batch(self, batch: WatchBatch) -> None:
        report = None
        if self._run:
            report = self._service.ingest(
                IngestRequest.of(batch.folders, scope=batch.scope, changed=batch.changed)
            )
        with self._changed:
            self.batches.append(batch)
            if report is not None:
                self.reports.append(report)
            self._changed.notify_all()

    def problem(self, message: str) -> None:
        with self._changed:
            self.problems.append(message)
            self._changed.notify_all()

    def wait_for(self, done: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + WITHIN
        with self._changed:
            while not done():
                left = deadline - time.monotonic()
                assert left > 0, f"not within {WITHIN} s: {what}"
                self._changed.wait(left)

    def states(self) -> list[tuple[str, str]]:
        return [(f.state, f.path) for r in self.reports for f in r.files]

    def removed(self) -> list[str]:
        return [path for r in self.reports for path in r.removed]


@pytest.fixture
def watched(service: MemoryService, tmp_path: Path) -> Iterator[tuple[MemoryService, Path, Runs]]:
    folder = tmp_path / "watched"
    folder.mkdir()
    service.watch_folder(folder)
    runs = Runs(service)
    yield service, folder, runs
    service.stop_watching()


def test_changes_are_added_within_seconds(watched: tuple[MemoryService, Path, Runs]) -> None:
    service, folder, runs = watched
    assert service.start_watching(runs.batch, runs.problem, catch_up=False, quiet=QUIET)
    note = folder / "lighthouse.txt"

    _write(note, "The lighthouse keeper logs every passing ship.\n")
    runs.wait_for(lambda: ("ingested", str(note)) in runs.states(), "a new file")
    first = _source(service, note)
    assert first is not None and first.state == "ingested"

    _write(note, "The lighthouse keeper logs every passing ship and each storm.\n")
    runs.wait_for(lambda: ("replaced", str(note)) in runs.states(), "an edited file")
    hits = service.search("storm lighthouse keeper", scopes=ALL).results
    assert any(h.source == str(note) for h in hits)

    renamed = folder / "sub" / "keeper.txt"
    renamed.parent.mkdir()
    note.rename(renamed)
    runs.wait_for(lambda: ("moved", str(renamed)) in runs.states(), "a renamed file")
    row = _source(service, renamed)
    assert row is not None and row.document_id != first.document_id  # the edit's version
    assert _source(service, note) is None

    renamed.unlink()
    runs.wait_for(lambda: str(renamed) in runs.removed(), "a deleted file")
    gone = _source(service, renamed)
    assert gone is not None and gone.state == "missing"
    kept = _node(service, str(gone.document_id))
    assert kept.status == "active"  # reported, and the memory is kept
    assert not runs.problems


def test_a_burst_is_one_run(watched: tuple[MemoryService, Path, Runs]) -> None:
    service, folder, _ = watched
    runs = Runs(service, run=False)
    service.start_watching(runs.batch, runs.problem, catch_up=False, quiet=1.0, max_wait=10.0)
    for n in range(200):
        _write(folder / f"day-{n:03}.txt", f"Diary day {n}: the swifts came back to the eaves.\n")
    runs.wait_for(lambda: bool(runs.batches), "the burst's batch")
    time.sleep(2.0)  # nothing more comes
    assert len(runs.batches) == 1
    batch = runs.batches[0]
    assert batch.folders == (str(folder),) and batch.changed is not None
    assert len(batch.changed) == 200
    report = service.ingest(IngestRequest.of(batch.folders, changed=batch.changed))
    assert report.counts() == {"ingested": 200}


def test_hidden_folders_are_not_watched_for(watched: tuple[MemoryService, Path, Runs]) -> None:
    """A ``git pull`` rewrites ``.git``; that is not a person's file and starts no run."""
    service, folder, _ = watched
    runs = Runs(service, run=False)
    service.start_watching(runs.batch, runs.problem, catch_up=False, quiet=QUIET)
    for n in range(20):
        _write(folder / ".git" / "objects" / f"{n:02}", "x")
    time.sleep(QUIET + 1.5)
    assert runs.batches == []


def test_locked_vault_pauses_and_unlock_catches_up(
    vault_path: Path, embedder: MiniLMEmbedder, tmp_path: Path
) -> None:
    folder = tmp_path / "watched"
    _write(folder / "kept.txt", "The allotment gate code is four digits.\n")
    _write(folder / "edited.txt", "The bus to the coast leaves at eight.\n")
    with compose.create_vault(vault_path, PASSPHRASE, embedder=embedder) as service:
        service.watch_folder(folder)
        runs = Runs(service)
        service.start_watching(runs.batch, runs.problem, quiet=QUIET)
        runs.wait_for(lambda: len(runs.reports) == 1, "the first catch-up")
        assert sorted(s for s, _ in runs.states()) == ["ingested", "ingested"]
    # Locked: the watcher is stopped with the vault; what changes now waits.
    _write(folder / "new.txt", "Swallows nest under the barn roof every May.\n")
    _write(folder / "edited.txt", "The bus to the coast leaves at nine now.\n")
    time.sleep(QUIET + 1.0)
    assert len(runs.reports) == 1
    with compose.open_vault(vault_path, PASSPHRASE, embedder=embedder) as service:
        runs = Runs(service)
        service.start_watching(runs.batch, runs.problem, quiet=QUIET)
        runs.wait_for(lambda: len(runs.reports) == 1, "the catch-up at unlock")
        assert runs.batches[0].changed is None  # the whole folder, by its hashes
        states = {Path(path).name: state for state, path in runs.states()}
        assert states == {"kept.txt": "unchanged", "new.txt": "ingested", "edited.txt": "replaced"}


def test_a_change_made_around_a_restart_is_carried_over(
    watched: tuple[MemoryService, Path, Runs], tmp_path: Path
) -> None:
    """Adding a folder restarts the watcher (the window's way): an edit the old watcher saw
    but had not handed over yet is added by the new one, not left for the next unlock."""
    service, folder, runs = watched
    service.start_watching(runs.batch, runs.problem, catch_up=False, quiet=2.0)
    note = folder / "heron.txt"
    _write(note, "A grey heron stood in the reeds by the weir.\n")
    time.sleep(0.5)  # seen, and still waiting for the folder to be quiet
    other = tmp_path / "other"
    other.mkdir()
    service.watch_folder(other)
    watching = service.start_watching(runs.batch, runs.problem, catch_up=False, quiet=2.0)
    assert {f.path for f in watching} == {str(folder), str(other)}
    runs.wait_for(lambda: ("ingested", str(note)) in runs.states(), "the edit before the restart")


def test_the_vault_inside_a_watched_folder_starts_no_run(
    embedder: MiniLMEmbedder, tmp_path: Path
) -> None:
    """A person may keep the vault in a folder they watch (Documents): its own writes, its
    journal files and a backup made beside it are not changes of the person's files."""
    folder = tmp_path / "Documents"
    folder.mkdir()
    with compose.create_vault(folder / "mine.cairn", PASSPHRASE, embedder=embedder) as service:
        service.watch_folder(folder)
        runs = Runs(service, run=False)
        service.start_watching(runs.batch, runs.problem, catch_up=False, quiet=QUIET)
        service.add_scope("work")
        service.inbox_capture("The spare key is under the blue flowerpot.")
        service.backup(folder)
        time.sleep(QUIET + 1.5)
        assert runs.batches == []
        note = folder / "errands.txt"
        _write(note, "Collect the parcel from the post office on Friday.\n")
        runs.wait_for(lambda: bool(runs.batches), "the note's batch")
        assert [b.changed for b in runs.batches] == [(str(note),)]
        service.stop_watching()


def test_an_autosaving_editor_is_not_a_version_every_few_seconds(
    watched: tuple[MemoryService, Path, Runs],
) -> None:
    """An editor saving every moment while the person types never leaves the folder quiet: the
    run waits for the pause (well past the old six seconds), then adds the note once."""
    service, folder, _ = watched
    runs = Runs(service, run=False)
    service.start_watching(runs.batch, runs.problem, catch_up=False, quiet=QUIET)
    note = folder / "draft.md"
    typing_until = time.monotonic() + 9.0
    words = 0
    while time.monotonic() < typing_until:
        words += 1
        _write(note, "The draft grows " + "word " * words + "\n")
        time.sleep(0.2)
    assert runs.batches == []  # still typing: no version yet
    runs.wait_for(lambda: bool(runs.batches), "the pause after typing")
    assert [b.changed for b in runs.batches] == [(str(note),)]


def test_a_folder_that_is_gone_is_reported_and_the_others_watched(
    service: MemoryService, tmp_path: Path
) -> None:
    here, gone = tmp_path / "here", tmp_path / "gone"
    here.mkdir()
    gone.mkdir()
    service.watch_folder(gone)
    service.watch_folder(here)
    gone.rmdir()
    runs = Runs(service)
    try:
        watching = service.start_watching(runs.batch, runs.problem, catch_up=False, quiet=QUIET)
        assert [f.path for f in watching] == [str(here)]
        assert len(runs.problems) == 1 and str(gone) in runs.problems[0]
        assert "not there" in runs.problems[0]
        _write(here / "still.txt", "The others are still watched.\n")
        runs.wait_for(lambda: ("ingested", str(here / "still.txt")) in runs.states(), "a file")
    finally:
        service.stop_watching()


def test_the_watch_limit_says_what_to_do() -> None:
    """What inotify's limits (ENOSPC, EMFILE, as watchdog raises them) come to."""
    full = watch_problem("/home/me/notes", OSError(errno.ENOSPC, "inotify watch limit reached"))
    assert "fs.inotify.max_user_watches" in full and "sysctl" in full
    instances = watch_problem("/n", OSError(errno.EMFILE, "inotify instance limit reached"))
    assert "fs.inotify.max_user_instances" in instances


def test_an_unreadable_folder_is_refused_with_what_to_do(
    vault_path: Path, embedder: MiniLMEmbedder, tmp_path: Path
) -> None:
    """Run as a person's own account would (as root, without the override capabilities)."""
    compose.create_vault(vault_path, PASSPHRASE, embedder=embedder).close()
    env = {**os.environ, "CAIRN_VAULT": str(vault_path), "CAIRN_PASSPHRASE": PASSPHRASE}
    closed = tmp_path / "closed"
    closed.mkdir()
    closed.chmod(0)
    try:
        done = subprocess.run(
            without_root_override(
                [sys.executable, "-m", "cairn.app.cli", "watch", "add", str(closed)]
            ),
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            check=False,
        )
    finally:
        closed.chmod(0o755)
    assert done.returncode == 1, done.stdout
    assert "not readable by your user" in done.stderr and "chmod u+rx" in done.stderr
