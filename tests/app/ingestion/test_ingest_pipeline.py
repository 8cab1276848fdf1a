"""The ingest pipeline end to end on generated files (no corpus needed): files become Document
nodes with Passage nodes ``part_of`` them, located and searchable; source rows track each file;
reruns are incremental (unchanged, replaced, removed, duplicate, dry run); progress and
cancellation; near-copies wait in the review queue. Real vault, real embedder, real worker."""

from __future__ import annotations

import functools
import hashlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.ingestion import preparation
from cairn.app.ingestion.extraction import ExtractionSettings
from cairn.app.ingestion.report import CancelToken, IngestProgress, IngestReport
from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.app import ingest_files as files
from tests.conftest import PASSPHRASE, create_service

ALL = ["personal"]
STAGES = ("scanning", "reading", "file_progress", "embedding", "writing", "linking", "done")

GARDEN = """\
---
tags: [garden]
---
# Garden plans

Plant the tomatoes near the [[Greenhouse]] in spring and ask about the [[Compost heap]]. #vegetables

## Watering

Water the seedlings every morning with rainwater from the barrel.
"""
GREENHOUSE = "# Greenhouse\n\nThe greenhouse has six raised beds and a leaking roof panel.\n"
BUDGET = """\
Quarterly budget review

The finance team meets on Thursday to review the quarterly budget.
Travel costs rose by a third since spring.

Nobody has booked the meeting room yet.
"""
BICYCLE = (
    "<html><head><title>Bicycle repair</title></head><body><h1>Fixing a puncture</h1>"
    "<p>Remove the inner tube and find the hole with a bowl of water.</p></body></html>"
)
CONVERT = '''\
"""Helpers for converting temperatures."""


def celsius_to_fahrenheit(celsius: float) -> float:
    """Convert a temperature from Celsius to Fahrenheit."""
    return celsius * 9 / 5 + 32
'''
PDF_PAGES = [
    ["The lighthouse keeper logs every passing ship in a leather book."],
    ["Storm shutters are checked before each winter by the harbour master."],
]
BASICS = {
    "notes/garden.md": GARDEN,
    "notes/greenhouse.md": GREENHOUSE,
    "budget.txt": BUDGET,
    "bicycle.html": BICYCLE,
    "convert.py": CONVERT,
    "report.pdf": files.pdf_bytes(PDF_PAGES),
}


@pytest.fixture(scope="module")
def ingested(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder
) -> Iterator[tuple[MemoryService, Path, IngestReport, list[IngestProgress], Vault]]:
    """One folder of six kinds of file, ingested once; the tests below only read it."""
    root = tmp_path_factory.mktemp("basics")
    folder = files.write(root / "folder", BASICS)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CAIRN_DATA_DIR", str(root / "data"))
        service, vault = create_service(root / "vault.cairn", embedder)
    events: list[IngestProgress] = []
    report = service.ingest(IngestRequest.of([folder]), progress=events.append)
    yield service, folder.resolve(), report, events, vault
    service.close()


def _outcomes(report: IngestReport, root: Path) -> dict[str, Any]:
    return {str(Path(o.path).relative_to(root)): o for o in report.files}


def _passages(service: MemoryService, document_id: str) -> list[Any]:
    """The Passage nodes of a document, in order, through traverse and get."""
    reach = service.traverse(document_id, scopes=ALL, direction="in", edge_types=["part_of"])
    ids = [node.id for node in reach.nodes]
    nodes = [detail.node for detail in service.get(ids, scopes=ALL).nodes]
    return sorted(nodes, key=lambda node: node.attrs["ordinal"])


# -- one folder, six kinds of file ------------------------------------------------------------


def test_each_file_becomes_a_document_with_its_passages(ingested) -> None:
    service, folder, report, _, _ = ingested
    assert report.counts() == {"ingested": 6}
    assert not report.cancelled and not report.failed and not report.removed
    outcomes = _outcomes(report, folder)
    media = {
        "notes/garden.md": "text/markdown",
        "notes/greenhouse.md": "text/markdown",
        "budget.txt": "text/plain",
        "bicycle.html": "text/html",
        "convert.py": "text/x-python",
        "report.pdf": "application/pdf",
    }
    for name, outcome in outcomes.items():
        path = folder / name
        assert outcome.action == "new" and outcome.size == path.stat().st_size
        document = service.get([outcome.document_id], scopes=ALL).nodes[0].node
        assert document.type == "Document" and document.status == "active"
        assert document.source == str(path)
        assert document.attrs["path"] == str(path)
        assert document.attrs["media_type"] == media[name]
        assert document.attrs["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        passages = _passages(service, outcome.document_id)
        assert len(passages) == outcome.passages > 0, name
        assert [p.attrs["ordinal"] for p in passages] == list(range(len(passages)))
        for passage in passages:
            assert passage.type == "Passage" and passage.status == "active"
            assert passage.source == str(path) and passage.body.strip()
            assert passage.title.startswith(document.title)
    titles = {
        name: service.get([o.document_id], scopes=ALL).nodes[0].node.title
        for name, o in outcomes.items()
    }
    # The folder links notes with [[...]]: a note there is named by its file, not a heading.
    assert titles["notes/garden.md"] == "garden"
    assert titles["bicycle.html"] == "Bicycle repair"  # <title>
    assert titles["budget.txt"] == "budget"  # no heading: the file name
    pages = service.get([outcomes["report.pdf"].document_id], scopes=ALL).nodes[0].node
    assert pages.attrs["pages"] == 2


def test_passages_say_where_in_the_file_they_come_from(ingested) -> None:
    service, folder, report, _, _ = ingested
    outcomes = _outcomes(report, folder)

    def located(name: str) -> list[tuple[dict[str, Any], str]]:
        return [(p.locator, p.body) for p in _passages(service, outcomes[name].document_id)]

    garden = located("notes/garden.md")
    assert [loc for loc, _ in garden] == [
        {"heading": ["Garden plans"], "line_start": 4, "line_end": 6},
        {"heading": ["Garden plans", "Watering"], "line_start": 8, "line_end": 10},
    ]
    lines = (folder / "notes/garden.md").read_text().splitlines()
    for locator, body in garden:  # the range holds the passage's first and last line
        span = lines[locator["line_start"] - 1 : locator["line_end"]]
        assert body.splitlines()[-1] in span
    watering = _passages(service, outcomes["notes/garden.md"].document_id)[1]
    assert watering.attrs["heading"] == "Garden plans › Watering"
    assert watering.title == "garden — Garden plans › Watering"
    # Its three paragraphs make one passage (blank lines between them dropped), lines 1 to 6.
    text_lines = [line for line in BUDGET.splitlines() if line.strip()]
    assert located("budget.txt") == [({"line_start": 1, "line_end": 6}, "\n".join(text_lines))]
    assert [loc for loc, _ in located("report.pdf")] == [{"page": 1}, {"page": 2}]
    assert [p.attrs["page"] for p in _passages(service, outcomes["report.pdf"].document_id)] == [
        1,
        2,
    ]
    assert "lighthouse keeper" in located("report.pdf")[0][1]
    assert "Storm shutters" in located("report.pdf")[1][1]
    code = located("convert.py")
    assert code[-1][0] == {"heading": ["celsius_to_fahrenheit"], "line_start": 4, "line_end": 6}
    assert "def celsius_to_fahrenheit" in code[-1][1]
    assert located("bicycle.html")[0][0]["heading"] == ["Fixing a puncture"]


def test_search_finds_a_passage_by_its_words(ingested) -> None:
    service, folder, report, _, _ = ingested
    outcomes = _outcomes(report, folder)
    cases = [
        ("rainwater barrel seedlings", "notes/garden.md", 1),
        ("storm shutters harbour master", "report.pdf", 1),
        ("inner tube puncture", "bicycle.html", 0),
        ("celsius fahrenheit", "convert.py", 1),
    ]
    for query, name, ordinal in cases:
        passage = _passages(service, outcomes[name].document_id)[ordinal]
        hits = service.search(query, scopes=ALL).results
        assert passage.id in [hit.id for hit in hits[:3]], query
        hit = next(hit for hit in hits if hit.id == passage.id)
        assert hit.type == "Passage" and hit.source == str(folder / name)


def test_source_rows_record_each_file(ingested) -> None:
    service, folder, report, _, vault = ingested
    rows = {row.path: row for row in service.sources()}
    assert set(rows) == {str(folder / name) for name in BASICS}
    counts = files.part_of_counts(vault)
    by_path = {o.path: o for o in report.files}
    for path, row in rows.items():
        data = Path(path).read_bytes()
        assert row.state == "ingested" and row.error is None
        assert row.sha256 == hashlib.sha256(data).hexdigest()
        assert row.size == len(data) and row.scope == "personal"
        assert row.document_id == by_path[path].document_id
        assert row.passages == by_path[path].passages == counts[row.document_id]
        assert row.warnings == []
    assert service.sources(states=["failed"]) == []
    assert service.verify().ok


def test_the_links_and_tags_of_a_note_folder(ingested) -> None:
    service, folder, report, _, _ = ingested
    outcomes = _outcomes(report, folder)
    garden = service.get([outcomes["notes/garden.md"].document_id], scopes=ALL).nodes[0]
    assert set(garden.node.attrs["tags"]) == {"garden", "vegetables"}
    references = {
        (edge.other_type, edge.other_title)
        for edge in garden.edges
        if edge.type == "references" and edge.direction == "out"
    }
    # [[Greenhouse]] is the note greenhouse.md; [[Compost heap]] names no note: a stub topic.
    assert references == {("Document", "greenhouse"), ("Topic", "Compost heap")}
    target = next(e for e in garden.edges if e.type == "references" and e.other_type == "Document")
    assert target.other_id == outcomes["notes/greenhouse.md"].document_id
    stub = next(e for e in garden.edges if e.other_title == "Compost heap")
    assert service.get([stub.other_id], scopes=ALL).nodes[0].node.status == "stub"
    # The stubs: Compost heap, and one name a file of the folder states without brackets.
    assert report.links == 2 and report.stubs == 2


# -- progress ---------------------------------------------------------------------------------


def test_progress_events_cover_the_run(ingested) -> None:
    _, folder, report, events, _ = ingested
    total_bytes = sum((folder / name).stat().st_size for name in BASICS)
    assert all(event.stage in STAGES for event in events)
    assert events[0].stage == "scanning" and events[-1].stage == "done"
    scanned = [event.current for event in events if event.stage == "scanning"]
    assert sorted(scanned) == sorted(str(folder / name) for name in BASICS)
    stages = [event.stage for event in events]
    last = {stage: max(i for i, s in enumerate(stages) if s == stage) for stage in stages}
    assert last["linking"] > last["writing"]
    reading = [event for event in events if event.stage == "reading"]
    assert sorted(event.current for event in reading) == sorted(scanned)  # each file once
    run = [event for event in events if event.stage != "scanning"]
    assert {event.files_total for event in run} == {6}
    assert {event.bytes_total for event in run} == {total_bytes}
    done = [event.files_done for event in run]
    assert done == sorted(done) and done[-1] == 6
    sent = [event.bytes_done for event in run]
    assert sent == sorted(sent) and sent[-1] == total_bytes
    assert report.counts() == {"ingested": 6}


def test_progress_counts_each_file_when_it_is_read(ingested) -> None:
    """``files_done`` is what a progress bar and the CLI's "[k/N]" show: the k-th file read is
    announced with k - 1 files done, not with the count of the last committed batch."""
    _, _, _, events, _ = ingested
    reading = [event for event in events if event.stage == "reading"]
    assert [event.files_done for event in reading] == list(range(len(reading)))


# -- incremental reruns -----------------------------------------------------------------------


def _document_of(service: MemoryService, path: Path) -> str:
    rows = [row for row in service.sources() if row.path == str(path)]
    assert rows, path
    return rows[0].document_id


def _ids(service: MemoryService, query: str, **options: Any) -> list[str]:
    return [hit.id for hit in service.search(query, scopes=ALL, limit=25, **options).results]


def test_reruns_skip_replace_remove_and_spot_copies(
    service: MemoryService, vault: Vault, tmp_path: Path
) -> None:
    folder = files.write(
        tmp_path / "folder",
        {
            "alpha.md": f"# Alpha\n\n{files.prose('alpha', 5)}\n",
            "beta.txt": "The violin teacher moved the lessons to Tuesday evenings.\n",
            "gamma.txt": files.prose("gamma", 5) + "\n",
        },
    ).resolve()
    first = service.ingest(IngestRequest.of([folder]))
    assert first.counts() == {"ingested": 3}
    first_seen = next(r for r in service.sources() if r.path.endswith("beta.txt")).first_seen
    nodes = files.node_count(vault)
    old_beta = _document_of(service, folder / "beta.txt")
    old_passages = [p.id for p in _passages(service, old_beta)]
    assert _ids(service, "violin teacher Tuesday")[0] in old_passages

    # Nothing changed: nothing is read, nothing is written.
    again = service.ingest(IngestRequest.of([folder]))
    assert again.counts() == {"unchanged": 3}
    assert {o.document_id for o in again.files} == {o.document_id for o in first.files}
    assert files.node_count(vault) == nodes

    # A changed file: a new Document supersedes the old one, whose passages become history.
    (folder / "beta.txt").write_text("The cello teacher moved the lessons to Friday mornings.\n")
    changed = service.ingest(IngestRequest.of([folder]))
    assert changed.counts() == {"replaced": 1, "unchanged": 2}
    outcome = next(o for o in changed.files if o.state == "replaced")
    assert outcome.action == "changed" and outcome.path == str(folder / "beta.txt")
    new_beta = outcome.document_id
    assert new_beta != old_beta and _document_of(service, folder / "beta.txt") == new_beta
    history = service.history(new_beta, scopes=ALL)
    assert [entry.id for entry in history.chain] == [old_beta, new_beta]
    assert [entry.status for entry in history.chain] == ["superseded", "active"]
    for detail in service.get(old_passages, scopes=ALL).nodes:
        assert detail.node.status == "superseded" and detail.node.valid_to is not None
    assert not set(_ids(service, "violin teacher Tuesday")) & {old_beta, *old_passages}
    with_history = _ids(service, "violin teacher Tuesday", include_history=True)
    assert set(old_passages) <= set(with_history)
    new_passage = _passages(service, new_beta)[0]
    assert _ids(service, "cello teacher Friday")[0] == new_passage.id
    row = next(r for r in service.sources() if r.path == str(folder / "beta.txt"))
    assert row.sha256 == hashlib.sha256((folder / "beta.txt").read_bytes()).hexdigest()
    assert row.state == "ingested" and row.passages == 1
    assert row.first_seen == first_seen and row.updated_at > first_seen

    # A deleted file is reported and marked missing, its memories kept; a copy is a duplicate.
    gamma = _document_of(service, folder / "gamma.txt")
    gamma_bytes = (folder / "gamma.txt").read_bytes()
    alpha = _document_of(service, folder / "alpha.md")
    (folder / "gamma.txt").unlink()
    shutil.copy(folder / "alpha.md", folder / "alpha copy.md")
    nodes = files.node_count(vault)
    later = service.ingest(IngestRequest.of([folder]))
    assert later.removed == [str(folder / "gamma.txt")]
    assert later.counts() == {"duplicate": 1, "unchanged": 2}
    copy = next(o for o in later.files if o.state == "duplicate")
    assert copy.path == str(folder / "alpha copy.md") and copy.document_id == alpha
    assert files.node_count(vault) == nodes  # nothing new stored, nothing deleted
    rows = {r.path: r for r in service.sources()}
    assert rows[str(folder / "gamma.txt")].state == "missing"
    assert rows[str(folder / "gamma.txt")].document_id == gamma
    assert rows[str(folder / "alpha copy.md")].state == "duplicate"
    assert rows[str(folder / "alpha copy.md")].document_id == alpha
    assert service.get([gamma], scopes=ALL).nodes[0].node.status == "active"
    assert service.verify().ok

    # A dry run says what would happen and writes nothing.
    (folder / "delta.txt").write_text(files.prose("delta", 3))
    (folder / "alpha.md").write_text(f"# Alpha\n\n{files.prose('alpha two', 5)}\n")
    (folder / "gamma.txt").write_bytes(gamma_bytes)  # back where it was
    before = service.sources()
    dry = service.ingest(IngestRequest.of([folder], dry_run=True))
    assert dry.dry_run and not dry.cancelled
    planned = {Path(o.path).name: (o.action, o.state) for o in dry.files}
    assert planned == {
        "alpha.md": ("changed", "planned"),
        "alpha copy.md": ("unchanged", "planned"),
        "beta.txt": ("unchanged", "planned"),
        "delta.txt": ("new", "planned"),
        "gamma.txt": ("unchanged", "planned"),
    }
    assert dry.as_dict()["dry_run"] is True and dry.removed == []
    assert files.node_count(vault) == nodes
    assert service.sources() == before

    # Done for real: the file that came back is kept again under its old document.
    real = service.ingest(IngestRequest.of([folder]))
    assert {Path(o.path).name: o.state for o in real.files} == {
        "alpha.md": "replaced",
        "alpha copy.md": "unchanged",
        "beta.txt": "unchanged",
        "delta.txt": "ingested",
        "gamma.txt": "unchanged",
    }
    rows = {Path(r.path).name: r for r in service.sources()}
    assert rows["gamma.txt"].state == "ingested" and rows["gamma.txt"].document_id == gamma
    assert service.verify().ok


def test_a_file_added_to_a_second_scope_is_visible_there(
    service: MemoryService, tmp_path: Path
) -> None:
    """Source rows are keyed by path alone: a file already kept in "personal" and ingested into
    "work" must not be reported unchanged (or a duplicate) while "work" cannot see it."""
    service.add_scope("work")
    kites = tmp_path / "kites.txt"
    kites.write_text("Notes about flying box kites on the windy beach at Westhoek.\n")
    assert service.ingest(IngestRequest.of([kites])).files[0].state == "ingested"
    copy = tmp_path / "kites copy.txt"
    shutil.copy(kites, copy)
    for path in (kites, copy):
        outcome = service.ingest(IngestRequest.of([path], scope="work")).files[0]
        if outcome.state == "failed":  # refusing, and saying why, would be honest too
            assert "personal" in (outcome.error or ""), outcome
            continue
        assert outcome.document_id is not None, outcome
        seen = service.get([outcome.document_id], scopes=["work"])
        assert seen.missing == [], (path.name, outcome)
        hits = service.search("box kites Westhoek", scopes=["work"]).results
        assert any(hit.type == "Passage" for hit in hits), path.name


def test_a_changed_file_that_failed_once_still_replaces_its_old_version(
    service: MemoryService,
    vault_path: Path,
    embedder: MiniLMEmbedder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """v1 is ingested; v2 fails to read (here: a time budget of nothing) and the old document
    stays what the vault keeps for the file; once v2 reads (a 'retry' of the same bytes), it
    must supersede v1 like any changed file, not stand beside it as a second live version."""
    note = tmp_path / "plan.txt"
    note.write_text("The roof repair is booked for March with the blue van company.\n")
    v1 = service.ingest(IngestRequest.of([note])).files[0].document_id
    note.write_text("The roof repair moved to April; the blue van company is away.\n")
    service.close()
    monkeypatch.setattr(
        compose, "ExtractionSettings", functools.partial(ExtractionSettings, time_scale=0.0)
    )
    with compose.open_vault(vault_path, PASSPHRASE, embedder=embedder) as hurried:
        failed = hurried.ingest(IngestRequest.of([note]))
        assert failed.files[0].state == "failed" and "took longer than" in failed.files[0].error
        row = hurried.sources()[0]
        assert row.state == "failed" and row.document_id == v1
    monkeypatch.undo()
    with compose.open_vault(vault_path, PASSPHRASE, embedder=embedder) as patient:
        retried = patient.ingest(IngestRequest.of([note]))
        outcome = retried.files[0]
        assert outcome.action == "retry" and outcome.document_id != v1
        assert outcome.state == "replaced"
        history = patient.history(outcome.document_id, scopes=ALL)
        assert [entry.id for entry in history.chain] == [v1, outcome.document_id]
        assert patient.get([v1], scopes=ALL).nodes[0].node.status == "superseded"


# -- cancellation -----------------------------------------------------------------------------


def test_cancel_keeps_what_was_done_and_a_rerun_finishes(
    service: MemoryService, tmp_path: Path
) -> None:
    names = ["a_first.txt", "b_second.txt", "c_third.md", "d_fourth.txt"]
    folder = files.write(
        tmp_path / "folder", {name: files.prose(name, 4) + "\n" for name in names}
    ).resolve()
    cancel = CancelToken()
    events: list[IngestProgress] = []

    def progress(event: IngestProgress) -> None:
        events.append(event)
        if event.stage == "embedding":
            cancel.cancel()  # once the first file is read: the run stops before the next

    report = service.ingest(IngestRequest.of([folder]), progress=progress, cancel=cancel)
    assert report.cancelled
    states = {Path(o.path).name: o.state for o in report.files}
    assert states == {
        "a_first.txt": "ingested",
        "b_second.txt": "cancelled",
        "c_third.md": "cancelled",
        "d_fourth.txt": "cancelled",
    }
    assert [e.stage for e in events].count("reading") == 1  # nothing read after the cancel
    assert service.verify().ok
    rows = service.sources()
    assert [Path(r.path).name for r in rows] == ["a_first.txt"]
    assert rows[0].state == "ingested"
    first_words = files.prose(names[0], 4).split(".")[0]
    hits = service.search(first_words, scopes=ALL).results
    assert hits[0].type == "Passage" and hits[0].source == str(folder / names[0])
    assert service.stats(scopes=ALL).nodes_by_type["Document"] == 1

    rerun = service.ingest(IngestRequest.of([folder]))
    assert not rerun.cancelled
    assert {Path(o.path).name: o.state for o in rerun.files} == {
        "a_first.txt": "unchanged",
        "b_second.txt": "ingested",
        "c_third.md": "ingested",
        "d_fourth.txt": "ingested",
    }
    assert service.stats(scopes=ALL).nodes_by_type["Document"] == 4
    assert {r.state for r in service.sources()} == {"ingested"}
    assert service.verify().ok


def test_cancel_while_a_file_is_being_read_stops_the_reader(
    service: MemoryService, vault: Vault, tmp_path: Path
) -> None:
    """Cancelled as the first file starts: the worker (still starting, so surely not done) is
    stopped mid-read, nothing is stored, and the next run starts a new worker and reads all."""
    folder = files.write(
        tmp_path / "folder", {f"{n}.txt": files.prose(f"stop {n}", 3) for n in range(3)}
    ).resolve()
    cancel = CancelToken()

    def progress(event: IngestProgress) -> None:
        if event.stage == "reading":
            cancel.cancel()

    report = service.ingest(IngestRequest.of([folder]), progress=progress, cancel=cancel)
    assert report.cancelled and report.counts() == {"cancelled": 3}
    assert service.sources() == [] and files.node_count(vault) == 0
    assert service.verify().ok
    assert service.ingest(IngestRequest.of([folder])).counts() == {"ingested": 3}


def test_a_cancelled_run_starts_no_reader_for_the_files_left(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file read ahead is stopped by the cancel; the files after it start no worker
    process each (a cancelled folder of thousands of files stops at once)."""
    from cairn.app.ingestion.extraction import ExtractionWorker

    folder = files.write(
        tmp_path / "folder", {f"{n:02}.txt": files.prose(f"left {n}", 2) for n in range(12)}
    ).resolve()
    starts: list[int] = []
    started = ExtractionWorker._ensure_started

    def counted(worker: ExtractionWorker) -> None:
        alive = worker._process is not None and worker._process.is_alive()
        starts.append(0 if alive else 1)
        started(worker)

    monkeypatch.setattr(ExtractionWorker, "_ensure_started", counted)
    cancel = CancelToken()

    def progress(event: IngestProgress) -> None:
        if event.stage == "embedding":
            cancel.cancel()

    report = service.ingest(IngestRequest.of([folder]), progress=progress, cancel=cancel)
    assert report.counts() == {"ingested": 1, "cancelled": 11}
    assert sum(starts) <= 2  # the first worker, and at most one for the file read ahead


def test_a_failure_while_embedding_stops_the_file_read_ahead(
    vault_path: Path, embedder: MiniLMEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error after a file is read (here the embedder's) ends the run at once: the read of
    the next file is told to stop instead of running to the end of its budget."""
    from cairn.app.ingestion.extraction import ExtractionWorker

    folder = files.write(
        tmp_path / "folder", {f"{n}.txt": files.prose(f"fail {n}", 2) for n in range(3)}
    ).resolve()
    asked: list[Any] = []
    extract = ExtractionWorker.extract

    def remembered(worker: ExtractionWorker, path: Path, should_stop: Any, **told: Any) -> Any:
        asked.append(should_stop)
        return extract(worker, path, should_stop, **told)

    monkeypatch.setattr(ExtractionWorker, "extract", remembered)

    class Failing:
        """Fails as a full disk would, once a file has been read."""

        identity, dim = "test/failing", embedder.dim

        def embed(self, texts: Any) -> Any:
            raise OSError(28, "No space left on device")

    with (
        compose.create_vault(vault_path, PASSPHRASE, embedder=Failing()) as service,
        pytest.raises(OSError),
    ):
        service.ingest(IngestRequest.of([folder]))
    assert len(asked) == 2  # the file that failed, and the one read ahead
    assert all(should_stop() for should_stop in asked)


def test_a_file_named_twice_is_read_once(service: MemoryService, tmp_path: Path) -> None:
    """Named on its own and again inside a folder named in the same run: one file, one
    Document (not a second, orphaned one whose source row the other overwrote)."""
    folder = files.write(tmp_path / "folder", {"kites.txt": files.prose("kites", 3)}).resolve()
    report = service.ingest(IngestRequest.of([folder, folder / "kites.txt", folder]))
    assert [(o.path, o.state) for o in report.files] == [(str(folder / "kites.txt"), "ingested")]
    assert service.stats(scopes=ALL).nodes_by_type == {"Document": 1, "Passage": 1}
    [row] = service.sources()
    assert row.document_id == report.files[0].document_id


# -- near-copies ------------------------------------------------------------------------------


def test_a_near_copy_waits_for_review_and_keeps_all_its_passages(
    service: MemoryService, vault: Vault, tmp_path: Path
) -> None:
    sections = [files.prose(f"report {n}", 3) for n in range(5)]
    original = "\n\n".join(f"## Part {n}\n\n{text}" for n, text in enumerate(sections))
    first = files.write(tmp_path, {"report.md": f"# Field report\n\n{original}\n"})
    kept = service.ingest(IngestRequest.of([first / "report.md"])).files[0]
    assert kept.state == "ingested" and kept.passages == 6
    original_passages = {p.id for p in _passages(service, kept.document_id)}

    changed = sections[:]
    changed[3] = changed[3].replace("The ", "A single ", 1)  # one sentence differs
    near = "\n\n".join(f"## Part {n}\n\n{text}" for n, text in enumerate(changed))
    (tmp_path / "report (draft 2).md").write_text(f"# Field report\n\n{near}\n")
    report = service.ingest(IngestRequest.of([tmp_path / "report (draft 2).md"]))
    outcome = report.files[0]
    assert outcome.state == "ingested" and outcome.action == "new"  # other bytes: not a copy
    assert outcome.document_id != kept.document_id
    assert report.pending_review == 1

    items = service.pending(scopes=ALL, kinds=["duplicate"])
    assert [(i.node.id, i.other.id) for i in items] == [(outcome.document_id, kept.document_id)]
    assert items[0].node.type == items[0].other.type == "Document"
    assert "passages repeat it" in items[0].reason

    # Nothing was absorbed: the copy keeps every passage, its repeats linked same_topic.
    passages = _passages(service, outcome.document_id)
    assert len(passages) == outcome.passages == 6
    assert all(p.status == "active" for p in passages)
    linked = 0
    for detail in service.get([p.id for p in passages], scopes=ALL).nodes:
        topics = {e.other_id for e in detail.edges if e.type == "same_topic"}
        assert topics <= original_passages
        linked += bool(topics)
    assert linked >= 5
    assert files.part_of_counts(vault)[kept.document_id] == 6  # the original untouched


# -- real notes folders (the shared corpus) ---------------------------------------------------

REFERENCES = (
    "SELECT d.type, d.status, count(*) FROM edges AS e "
    "JOIN nodes AS s ON s.id = e.src JOIN nodes AS d ON d.id = e.dst "
    "WHERE e.type = 'references' AND s.type = 'Document' GROUP BY d.type, d.status"
)


def _ingest_corpus_folder(folder: Path, vault: Path) -> tuple[IngestReport, dict[Any, int]]:
    """A vault without the embedder: the links between notes do not depend on it, and
    embedding a few thousand passages on a small shared machine takes minutes, not seconds
    (the Foam docs alone took two minutes). Everything else is the real pipeline."""
    with create_service(vault, None) as (service, storage):
        report = service.ingest(IngestRequest.of([folder]))
        assert service.verify().ok
        with storage.read() as conn:
            edges = {(kind, status): n for kind, status, n in conn.execute(REFERENCES)}
        rerun = service.ingest(IngestRequest.of([folder]))
        assert set(rerun.counts()) <= {"unchanged", "skipped"} and rerun.links == 0
    return report, edges


def test_the_foam_docs_link_as_their_notes_say(corpus: Path, tmp_path: Path) -> None:
    report, edges = _ingest_corpus_folder(corpus / "06_pkm/foam_docs", tmp_path / "foam.cairn")
    # 86 notes and SOURCE.txt are read; LICENSE (no extension) is skipped.
    assert report.counts() == {"ingested": 87, "skipped": 1}
    # tests/ingest/test_notes_folder.py reconciles these with the README: 179 note -> note edges and
    # the 2 links Foam's own docs leave broken ([[cli-grep]], [[publishing]]), as stub topics.
    # Two notes also link [MIT license](LICENSE.txt), a file the folder holds and Cairn reads:
    # 2 edges to its Document; and [[templates#Metadata]] reaches that heading's Passage.
    assert edges == {("Document", "active"): 181, ("Topic", "stub"): 2, ("Passage", "active"): 1}
    assert report.links == 184


def test_the_logseq_docs_link_as_their_pages_say(corpus: Path, tmp_path: Path) -> None:
    folder = corpus / "06_pkm/logseq_docs"
    report, edges = _ingest_corpus_folder(folder, tmp_path / "logseq.cairn")
    # 333 notes (.org pages and journals included: .org is read as text) plus README.md and
    # LICENSE.md, which Logseq hides but a person's folder still holds; logseq/ is skipped.
    assert report.counts() == {"ingested": 335}
    assert not any("/logseq/" in o.path.removeprefix(str(folder)) for o in report.files)
    # 778 distinct note -> note edges (tests/ingest/test_notes_folder.py). Its 478 unresolved names
    # are 476 stub topics: "alan-roe" is "Alan Roe" and "clark-cui" is "Clark Cui" once
    # normalised, so one note linking both spellings has one edge: 519 pairs, 518 edges.
    assert edges == {("Document", "active"): 778, ("Topic", "stub"): 518}
    # The stubs: those 476, and the names the pages state without brackets (a tool, a person).
    assert report.links == 778 + 518 and 476 < report.stubs <= 476 + 200


def test_a_changed_long_document_makes_every_old_passage_history(
    service: MemoryService, vault: Vault, tmp_path: Path
) -> None:
    """A document written in parts (more passages than one transaction takes) that changes:
    its old passages become history in short transactions before the new version finishes,
    and none stays searchable as current."""
    note = tmp_path / "log.md"
    note.write_text(files.sectioned_markdown("old", preparation.WHOLE_PASSAGES + 20), "utf-8")
    service.ingest(IngestRequest.of([note]))
    with vault.read() as conn:
        old_ids = {r[0] for r in conn.execute("SELECT id FROM nodes WHERE type = 'Passage'")}
    old_passages = len(old_ids)
    assert old_passages > preparation.WHOLE_PASSAGES
    note.write_text(files.sectioned_markdown("new", preparation.WHOLE_PASSAGES + 30), "utf-8")
    report = service.ingest(IngestRequest.of([note]))
    assert [f.state for f in report.files] == ["replaced"]
    with vault.read() as conn:
        statuses = dict(
            conn.execute(
                "SELECT status, count(*) FROM nodes WHERE type = 'Passage' GROUP BY status"
            ).fetchall()
        )
    assert statuses == {"superseded": old_passages, "active": report.files[0].passages}
    # An old passage's own words find no old passage: they are history.
    hits = service.search(files.prose("old-3", 2), scopes=ALL).results
    assert not {hit.id for hit in hits} & old_ids
