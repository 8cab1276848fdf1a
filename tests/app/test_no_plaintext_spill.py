"""No plaintext outside the vault (DESIGN §2): ingesting a note, a scanned picture (read by
Tesseract) and a Word document that hold a unique marker leaves that marker nowhere on disk but
in the input files themselves: not in the temporary folder (the extraction worker, spawned,
inherits TMPDIR), not in the data dir, not in Cairn's log (which a bug quoting the marker
wrote to as well), not beside the vault, and not in the vault's own bytes."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.ingestion.request import IngestRequest
from cairn.app.process import diagnostic_log
from tests.app import ingest_files as files
from tests.conftest import PASSPHRASE

ALL = ["personal"]
MARKER = "ZANZIBARQUOKKA"
SHM = Path("/dev/shm")


def _needles() -> list[bytes]:
    found = []
    for text in (MARKER, MARKER.lower(), MARKER.title()):
        for encoding in ("utf-8", "utf-16-le", "utf-16-be"):
            found.append(text.encode(encoding))
    return found


def _files_under(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file() and not path.is_symlink()]


def _holding_marker(paths: list[Path]) -> list[str]:
    needles = _needles()
    found = []
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if any(needle in data for needle in needles):
            found.append(str(path))
    return found


def test_ingest_leaves_no_plaintext_outside_the_vault(
    tmp_path: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    for variable in ("TMPDIR", "TMP", "TEMP"):
        monkeypatch.setenv(variable, str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    shm_before = set(SHM.iterdir()) if SHM.is_dir() else set()

    inputs = {
        "note.md": f"# Travel\n\nThe ferry code word is {MARKER} for the harbour gate.\n",
        "letter.docx": files.docx_bytes([f"Please quote {MARKER} when you call."], "Letter"),
    }
    picture = files.text_png([f"CODE {MARKER}"], size=64)
    if picture is not None:
        inputs["scan.png"] = picture
    folder = files.write(tmp_path / "inputs", inputs).resolve()
    assert _holding_marker([folder / "note.md"]) == [str(folder / "note.md")]  # it can see
    vault = tmp_path / "vault" / "spill.cairn"
    vault.parent.mkdir()
    log = compose.start_log("test")  # as the command line and the window do first
    assert tmp_path in log.parents

    with compose.create_vault(vault, PASSPHRASE, embedder=embedder) as service:
        report = service.ingest(IngestRequest.of([folder]))
        assert report.counts() == {"ingested": len(inputs)}, report.as_dict()
        hits = service.search(MARKER, scopes=ALL, limit=25).results
        sources = {hit.source for hit in hits if hit.type == "Passage"}
        # The marker went through every extractor (OCR included) into the vault...
        assert sources >= {str(folder / name) for name in inputs}
        try:  # ...and into a bug's message, which the log is told of as a fault...
            raise ValueError(f"a bug that quotes {hits[0].title}: {MARKER}")
        except ValueError as bug:
            diagnostic_log.fault(bug, "a test")
        # ...and is in no file while the vault is open (its write-ahead log included)...
        everything = [p for p in _files_under(tmp_path) if folder not in p.parents]
        assert {vault, log} <= set(everything)
        assert _holding_marker(everything) == []
    # ...nor once it is closed and checkpointed.
    everything = [p for p in _files_under(tmp_path) if folder not in p.parents]
    assert _holding_marker(everything) == []
    written = log.read_text(encoding="utf-8")
    assert "ingest took" in written and "a fault in a test" in written, written
    # The control: the hunt does find the marker in the log when it is there.
    diagnostic_log.log.error("a leak, written on purpose: %s", MARKER)
    assert _holding_marker([log]) == [str(log)]
    shm_new = (set(SHM.iterdir()) if SHM.is_dir() else set()) - shm_before
    assert _holding_marker([p for p in shm_new if p.is_file()]) == []
    if picture is None:
        pytest.skip("no DejaVu font to draw the scanned picture with; note and docx checked")


def test_closing_the_vault_drops_the_texts_the_gate_cached(
    vault_path: Path, embedder: MiniLMEmbedder
) -> None:
    from cairn.app.text import statements

    with compose.create_vault(vault_path, PASSPHRASE, embedder=embedder) as service:
        service.write("Note", f"{MARKER} paid the plumber 120 euros on 3 May.")
        service.write("Note", f"{MARKER} paid the plumber 140 euros on 3 May.")
        assert statements._commitments.cache_info().currsize > 0  # the gate compared them
        service.search("When did I pay the plumber?", scopes=["personal"])
        assert statements.fold_accents.cache_info().currsize > 0  # and search read their times
    assert statements._commitments.cache_info().currsize == 0
    assert statements.word_set.cache_info().currsize == 0
    assert statements.fold_accents.cache_info().currsize == 0
