"""Damaged and hostile files in one batch with good ones: each bad file fails alone, with a
message that says what is wrong, and is listed by ``sources --failed``; the good files around
it are read, stored and searchable. Real extractors in the real worker process."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.app.cli.main import main
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.ingestion.report import IngestReport
from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.app import ingest_files as files
from tests.conftest import CORPUS, PASSPHRASE, create_service

ALL = ["personal"]
BROKEN_XREF_PDF = CORPUS / "05_documents/py-pdf_sample-files/017-unreadable-meta-data"
JFK = CORPUS / "03_audio/openai_whisper/jfk.flac"

GOOD = {
    "good/kayak.md": "# Kayak trip\n\nWe paddled around the lighthouse island at dawn.\n",
    "good/recipe.txt": "Bake the rye loaf for forty minutes with a tray of water below.\n",
    "good/minutes.docx": files.docx_bytes(
        ["The allotment committee voted to buy a second water pump."], heading="Minutes"
    ),
}
# Each bad file and words its failure message must hold.
BAD: dict[str, tuple[str, ...]] = {
    "bad/empty.txt": ("empty.txt", "is empty"),
    "bad/cut.wav": ("cut.wav", "no sound", "cut short"),
    "bad/noise.mp3": ("noise.mp3", "not an audio or video file that can be read"),
    "bad/scan.png": ("scan.png", "50 megapixels", "up to 40 megapixels"),
    "bad/bomb.docx": ("bomb.docx", "would unpack to 300 MB", "was not opened"),
    "bad/program.txt": ("program.txt", "binary file"),
    "bad/legacy.txt": ("legacy.txt", "encoding", "UTF-8"),
}
BAD_PDF = ("unreadablemetadata.pdf", "not a readable PDF")
SEARCHES = {
    "good/kayak.md": "paddled around the lighthouse island",
    "good/recipe.txt": "rye loaf tray of water",
    "good/minutes.docx": "allotment committee water pump",
}


def _bad_bytes() -> dict[str, str | bytes]:
    return {
        "bad/empty.txt": b"",
        "bad/cut.wav": files.tone_wav()[:44],  # the header, cut off before the first sample
        "bad/noise.mp3": files.binary_bytes(20_000, seed=3),
        "bad/scan.png": files.huge_png(10_000, 5_000),
        "bad/bomb.docx": files.docx_zip_bomb(300),
        "bad/program.txt": files.binary_bytes(),
        "bad/legacy.txt": files.unknown_encoding_bytes(),
    }


@pytest.fixture(scope="module")
def batch(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder
) -> Iterator[tuple[MemoryService, Path, Path, IngestReport, dict[str, tuple[str, ...]], Vault]]:
    root = tmp_path_factory.mktemp("bad-input")
    folder = files.write(root / "in", {**GOOD, **_bad_bytes()}).resolve()
    bad = dict(BAD)
    pdf = next(BROKEN_XREF_PDF.glob("*.pdf"), None) if BROKEN_XREF_PDF.is_dir() else None
    if pdf is not None:  # the corpus's PDF with a broken cross-reference table
        shutil.copy(pdf, folder / "bad" / pdf.name)
        bad[f"bad/{pdf.name}"] = BAD_PDF
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CAIRN_DATA_DIR", str(root / "data"))
        service, vault = create_service(root / "vault.cairn", embedder)
    report = service.ingest(IngestRequest.of([folder / "good", folder / "bad"]))
    yield service, root / "vault.cairn", folder, report, bad, vault
    service.close()


def test_each_bad_file_fails_alone_with_a_reason(batch) -> None:
    _, _, folder, report, bad, _ = batch
    if len(bad) == len(BAD):
        pytest.skip("the broken-xref PDF needs the shared corpus; the rest ran in other tests")
    outcomes = {str(Path(o.path).relative_to(folder)): o for o in report.files}
    assert set(outcomes) == set(GOOD) | set(bad)
    assert not report.cancelled
    for name, words in bad.items():
        outcome = outcomes[name]
        assert outcome.state == "failed", (name, outcome)
        assert outcome.document_id is None and outcome.passages == 0
        for word in words:
            assert word in outcome.error, (name, outcome.error)


def test_the_batch_without_the_corpus_pdf(batch) -> None:
    """The same assertions for the generated bad files, which need no corpus."""
    _, _, folder, report, _, _ = batch
    outcomes = {str(Path(o.path).relative_to(folder)): o for o in report.files}
    for name, words in BAD.items():
        outcome = outcomes[name]
        assert outcome.state == "failed", (name, outcome)
        assert outcome.action == "new" and outcome.size == (folder / name).stat().st_size
        for word in words:
            assert word in outcome.error, (name, outcome.error)
    assert len(report.failed) == len(report.files) - len(GOOD)


def test_the_good_files_around_them_are_kept_and_searchable(batch) -> None:
    service, _, folder, report, _, storage = batch
    outcomes = {str(Path(o.path).relative_to(folder)): o for o in report.files}
    for name, query in SEARCHES.items():
        outcome = outcomes[name]
        assert outcome.state == "ingested" and outcome.passages >= 1, (name, outcome)
        hits = service.search(query, scopes=ALL).results
        assert hits[0].type == "Passage" and hits[0].source == str(folder / name), query
    counts = files.part_of_counts(storage)
    assert sorted(counts) == sorted(outcomes[name].document_id for name in GOOD)
    assert service.verify().ok


def test_sources_lists_exactly_the_failures_with_their_errors(batch) -> None:
    service, _, folder, report, bad, _ = batch
    failed = service.sources(states=["failed"])
    assert [row.path for row in failed] == sorted(str(folder / name) for name in bad)
    errors = {o.path: o.error for o in report.failed}
    for row in failed:
        assert row.error == errors[row.path]
        assert row.document_id is None and row.passages == 0
        assert row.sha256 is not None  # so an unchanged bad file is not read again
    ingested = service.sources(states=["ingested"])
    assert sorted(row.path for row in ingested) == sorted(str(folder / n) for n in GOOD)


def test_cairn_sources_failed_prints_them(
    batch, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, vault, folder, _, bad, _ = batch
    monkeypatch.setenv("CAIRN_VAULT", str(vault))
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    assert main(["sources", "--failed"]) == 0
    out = capsys.readouterr().out
    for name, words in bad.items():
        assert f"failed    {folder / name}\n" in out
        assert words[-1] in out
    for name in GOOD:
        assert str(folder / name) not in out


def test_a_rerun_retries_nothing_that_has_not_changed(batch) -> None:
    """A failed file with the same bytes is planned as a retry (a tool may have been installed
    since), and fails again with the same reason; the good files are unchanged."""
    service, _, folder, _, bad, _ = batch
    plan = service.ingest(IngestRequest.of([folder / "good", folder / "bad"], dry_run=True))
    actions = {str(Path(o.path).relative_to(folder)): o.action for o in plan.files}
    assert actions == {**dict.fromkeys(GOOD, "unchanged"), **dict.fromkeys(bad, "retry")}


@pytest.mark.slow  # the Whisper model is joined into a fresh data dir, loaded, and run
@pytest.mark.skipif(not JFK.is_file(), reason=f"the shared test corpus is not at {CORPUS}")
def test_a_recording_cut_in_half_is_kept_as_far_as_it_goes(
    service: MemoryService, tmp_path: Path
) -> None:
    """Truncated audio that still decodes is not a failure: what it says up to the cut is
    transcribed and the warning says how much was missing."""
    data = JFK.read_bytes()
    cut = tmp_path / "jfk cut.flac"
    cut.write_bytes(data[: len(data) // 2])
    outcome = service.ingest(IngestRequest.of([cut])).files[0]
    assert outcome.state == "ingested", outcome
    assert any("could be decoded" in w and "cut short" in w for w in outcome.warnings)
    hits = service.search("my fellow Americans", scopes=ALL).results
    assert hits[0].type == "Passage" and hits[0].source == str(cut)
    passage = service.get([hits[0].id], scopes=ALL).nodes[0].node
    assert passage.locator["start_s"] >= 0 and passage.locator["end_s"] <= 6.0


# -- trouble the extractors cannot see ----------------------------------------------------------


def test_a_file_that_vanishes_mid_run_fails_alone(service: MemoryService, tmp_path: Path) -> None:
    """A file planned and then deleted before it is read (an editor's temporary file, a sync
    client) fails with a reason; the files read before and after it are kept."""
    folder = files.write(
        tmp_path / "in", {name: files.prose(name, 3) + "\n" for name in ("a.txt", "b.txt", "c.txt")}
    ).resolve()

    def progress(event) -> None:
        if event.stage == "reading" and event.current == str(folder / "a.txt"):
            (folder / "b.txt").unlink()

    report = service.ingest(IngestRequest.of([folder]), progress=progress)
    states = {Path(o.path).name: o for o in report.files}
    assert states["a.txt"].state == states["c.txt"].state == "ingested"
    assert states["b.txt"].state == "failed" and "b.txt" in states["b.txt"].error
    assert [Path(r.path).name for r in service.sources(states=["failed"])] == ["b.txt"]


def test_front_matter_that_does_not_fit_the_document_type_sinks_nothing(
    service: MemoryService, tmp_path: Path
) -> None:
    """A note's front matter is the person's own: ``pages: 120-180`` is text where the pack's
    Document.pages is a number, and a blank ``author`` is no author. Such values are not
    stored as attributes; the note is kept, and so are the files batched with it."""
    folder = files.write(
        tmp_path / "in",
        {
            "a_kites.md": "# Kites\n\nThe red kite needs a longer tail in strong wind.\n",
            "b_reading.md": (
                "---\npages: 120-180\nauthor: ' '\nlanguage: 12\n---\n# Reading log\n\n"
                "Read chapters four to six of the sailing manual.\n"
            ),
            "c_boats.txt": "The dinghy needs new rope for the jib sheet.\n",
        },
    ).resolve()
    report = service.ingest(
        IngestRequest.of([folder])
    )  # must not raise: one file's attributes are its own
    states = {Path(o.path).name: o.state for o in report.files}
    assert states["a_kites.md"] == states["c_boats.txt"] == "ingested", report.as_dict()
    assert states["b_reading.md"] == "ingested", report.as_dict()
    reading = next(o for o in report.files if o.path.endswith("b_reading.md"))
    attrs = service.get([reading.document_id], scopes=ALL).nodes[0].node.attrs
    assert not {"pages", "author", "language"} & set(attrs)
    hits = service.search("chapters of the sailing manual", scopes=ALL).results
    assert hits[0].source == str(folder / "b_reading.md")
