"""Export and import on real vaults: a JSON Lines export restored into a new vault gives back
every row field by field (and exports again to the same lines); a Markdown export is a notes
folder the notes ingest reads back with its titles and links; an export of one scope holds
nothing of another, in either format; files are owner-only and nothing is ever overwritten or
left half-written; a damaged or cut-short file is refused by line with nothing kept."""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.errors import InvalidRequest
from cairn.app.ingestion.request import IngestRequest
from cairn.app.portability import jsonl_export
from cairn.app.portability.destination import ExportFailed
from cairn.app.portability.file_names import Names, safe_stem
from cairn.app.portability.jsonl_import import ImportRejected
from cairn.storage import export_rows, fulltext
from cairn.storage.sentinel import SENTINEL_ID
from tests.app.ingest_files import pdf_bytes
from tests.app.portability import export_vault
from tests.app.portability.export_vault import BOTH, SECRET_BODY, SECRET_PERSON, SECRET_TITLE, Built
from tests.conftest import Opened, create_service

ODD_TITLE = "Q3/Q4 plan: costs? <draft>"


@pytest.fixture(scope="module")
def source(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder
) -> Iterator[tuple[Opened, Built]]:
    root = tmp_path_factory.mktemp("export-source")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CAIRN_DATA_DIR", str(root / "data"))
        service, vault = create_service(root / "source.cairn", embedder)
        built = export_vault.build(service, root)
        odd = service.write("Note", ODD_TITLE, "Costs for [[x]] are in the sheet.", dedup=False)
        service.link(odd.id, built.ada, "involves", scopes=["personal"])
    yield Opened(service, vault), built
    service.close()


def _new_vault(path: Path, embedder: MiniLMEmbedder) -> Opened:
    return create_service(path, embedder)


def _rows(opened: Opened, kind: str) -> list[dict[str, Any]]:
    scopes = opened.service.scopes()
    with opened.vault.read() as conn:
        return [
            jsonl_export.plain(kind, r) for r in export_rows.rows(conn, kind, scopes, whole=True)
        ]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _comparable(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An export's lines without what describes the file rather than the memory."""
    return [line for line in lines if line["kind"] not in ("header", "receipt_head")]


def _every_byte(folder: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*")) if p.is_file()
    )


# -- JSON Lines: the round trip ---------------------------------------------------------------


def test_an_import_gives_back_every_memory_link_and_version_field_by_field(
    source: tuple[Opened, Built], tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    (service, _), built = source
    first = service.export(tmp_path / "first", format="jsonl")
    assert first.file is not None
    with _new_vault(tmp_path / "restored.cairn", embedder) as restored_opened:
        restored = restored_opened.service
        report = restored.import_jsonl(first.file)
        assert report.counts["node"] == len(_rows(source[0], "node"))
        for kind in jsonl_export.ROW_KINDS:
            assert _rows(restored_opened, kind) == _rows(source[0], kind), kind
        assert restored.scopes() == service.scopes()
        assert restored.settings() == service.settings()
        assert restored.watched_folders() == service.watched_folders()
        # History walks the same chain; an old merged id still finds what it became.
        chain = [e.id for e in restored.history(built.fact_newest, scopes=BOTH).chain]
        assert chain == [e.id for e in service.history(built.fact_newest, scopes=BOTH).chain]
        assert chain[0] == built.fact_oldest and len(chain) == 3
        [merged] = [r for r in _rows(source[0], "merged_id")]
        found = restored.get([merged["alias_id"]], scopes=BOTH, use=False)
        assert [d.node.id for d in found.nodes] == [merged["node_id"]]
        # Indexes made again: words, meaning (vectors re-embedded) and names.
        assert restored.vector_search_ready and report.embedded == report.counts["node"]
        with restored_opened.vault.read() as conn, source[0].vault.read() as old:
            assert fulltext.indexed_count(conn) == fulltext.indexed_count(old)
            names = "SELECT count(*) FROM entity_names"
            assert conn.execute(names).fetchone()[0] == old.execute(names).fetchone()[0]
        hits = restored.search("Bernoulli numbers tea", scopes=BOTH, limit=3).results
        assert hits and hits[0].title == "Tea with Ada"
        meaning = restored.search("telephone of the programmer", scopes=BOTH, profile="fast")
        assert "Ada's phone number" in [h.title for h in meaning.results]
        checked = restored.verify()
        assert checked.ok, checked.as_dict()
        kinds = [r["kind"] for r in restored.export_receipts().receipts]
        assert kinds == ["create", "import", "reindex"]
        # And exported again, the same lines.
        second = restored.export(tmp_path / "second", format="jsonl")
        assert second.file is not None
    assert _comparable(_lines(Path(second.file))) == _comparable(_lines(Path(first.file)))


def test_every_status_is_exported_and_the_file_ends_with_its_counts(
    source: tuple[Opened, Built], tmp_path: Path
) -> None:
    (service, _), _ = source
    report = service.export(tmp_path / "out", format="jsonl")
    lines = _lines(Path(str(report.file)))
    assert lines[0]["kind"] == "header" and lines[0]["embedder"]
    statuses = {line["status"] for line in lines if line["kind"] == "node"}
    assert statuses >= {"active", "superseded", "archived", "stub"}
    assert SENTINEL_ID not in json.dumps(lines)
    counts: dict[str, int] = {}
    for line in lines[1:-1]:
        counts[line["kind"]] = counts.get(line["kind"], 0) + 1
    assert lines[-1] == {"kind": "end", "counts": counts}
    assert not any("vector" in line for line in lines)


def test_an_import_into_a_vault_that_holds_memories_is_refused(
    source: tuple[Opened, Built], tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    (service, _), _ = source
    report = service.export(tmp_path / "out", format="jsonl")
    with _new_vault(tmp_path / "busy.cairn", embedder) as (busy, _):
        busy.write("Note", "Already here", "A memory of its own.")
        with pytest.raises(InvalidRequest, match=r"already holds 1 memories.*new vault"):
            busy.import_jsonl(str(report.file))
        assert [n.title for n in busy.list_memories(scopes=["personal"])] == ["Already here"]


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("cut", r"stops at line \d+ without its closing line: it was cut short"),
        ("garbage", r"line 7: it is not a whole JSON line"),
        ("dangling", r"line \d+, field dst: no node line before this one holds the memory 01Z"),
        ("extra", r"line \d+: it does not have the fields it should \(unexpected colour\)"),
        ("setting", r"line \d+, field key: 'memory.nonsense' is not a setting Cairn keeps"),
    ],
)
def test_a_damaged_file_is_refused_by_line_and_nothing_is_kept(
    source: tuple[Opened, Built],
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    damage: str,
    message: str,
) -> None:
    (service, _), _ = source
    report = service.export(tmp_path / "out", format="jsonl")
    lines = Path(str(report.file)).read_text(encoding="utf-8").splitlines()
    if damage == "cut":
        lines = lines[: len(lines) // 2]
    elif damage == "garbage":
        lines[6] = lines[6][: len(lines[6]) // 2]
    elif damage == "dangling":
        at = next(i for i, line in enumerate(lines) if '"kind": "edge"' in line)
        edge = json.loads(lines[at]) | {"dst": "01ZZZZZZZZZZZZZZZZZZZZZZZZ"}
        lines[at] = json.dumps(edge)
    elif damage == "extra":
        at = next(i for i, line in enumerate(lines) if '"kind": "node"' in line)
        lines[at] = json.dumps(json.loads(lines[at]) | {"colour": "blue"})
    else:
        at = next(i for i, line in enumerate(lines) if '"kind": "setting"' in line)
        lines[at] = json.dumps({"kind": "setting", "key": "memory.nonsense", "value": 1})
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with _new_vault(tmp_path / "target.cairn", embedder) as (target, target_vault):
        with pytest.raises(ImportRejected, match=message):
            target.import_jsonl(damaged)
        with target_vault.read() as conn:
            assert export_rows.memories_other_than(conn, SENTINEL_ID) == 0
        assert target.scopes() == ["personal"]
        assert [r["kind"] for r in target.export_receipts().receipts] == ["create"]


def test_a_file_that_is_not_an_export_is_refused(tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    other = tmp_path / "other.jsonl"
    other.write_text('{"kind": "note", "text": "hello"}\n', encoding="utf-8")
    with (
        _new_vault(tmp_path / "target.cairn", embedder) as (target, _),
        pytest.raises(ImportRejected, match="not a Cairn JSON Lines export"),
    ):
        target.import_jsonl(other)


# -- scopes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["jsonl", "markdown"])
def test_an_export_of_one_scope_holds_nothing_of_another(
    source: tuple[Opened, Built], tmp_path: Path, fmt: str
) -> None:
    (service, _), built = source
    whole = _every_byte(Path(service.export(tmp_path / "whole", format=fmt).path))
    assert "QUARTZFALCON" in whole and built.secret in whole  # so the check below means it
    report = service.export(tmp_path / "personal", format=fmt, scopes=["personal"])
    assert report.links_left_out == 1  # the note's link to the work plan: counted, not named
    written = _every_byte(Path(report.path))
    for secret in (built.secret, built.secret_person, SECRET_TITLE, SECRET_PERSON):
        assert secret not in written
    for word in SECRET_BODY.split():
        if len(word) > 6:
            assert word not in written, word
    assert "Tea with Ada" in written
    if fmt == "jsonl":
        lines = _lines(Path(str(report.file)))
        ids = {line["id"] for line in lines if line["kind"] == "node"}
        assert {line["scope"] for line in lines if line["kind"] == "node"} == {"personal"}
        for line in lines:
            for key in ("src", "dst", "node_id", "other_id", "candidate_id", "document_id"):
                assert line.get(key) in ids | {None}, line
        assert [line["name"] for line in lines if line["kind"] == "scope"] == ["personal"]


# -- files on disk ----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["jsonl", "markdown"])
def test_an_export_is_owner_only_whatever_the_umask(
    source: tuple[Opened, Built], tmp_path: Path, fmt: str
) -> None:
    (service, _), _ = source
    (tmp_path / "exports").mkdir()
    old = os.umask(0)  # the modes must come from the export, not from a careful umask
    try:
        report = service.export(tmp_path / "exports" / "out", format=fmt)
    finally:
        os.umask(old)
    folder = Path(report.path)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    written = list(folder.rglob("*"))
    assert written
    for path in written:
        assert path.is_file(), path
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    # No staging folder left beside it.
    assert [p.name for p in (tmp_path / "exports").iterdir()] == ["out"]


def test_an_export_never_writes_over_anything(source: tuple[Opened, Built], tmp_path: Path) -> None:
    (service, _), _ = source
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "mine.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(InvalidRequest, match=r"already holds files.*pick a new folder"):
        service.export(taken, format="markdown")
    assert [p.name for p in taken.iterdir()] == ["mine.txt"]
    with pytest.raises(InvalidRequest, match="is a file"):
        service.export(taken / "mine.txt", format="jsonl")
    assert (taken / "mine.txt").read_text(encoding="utf-8") == "keep me"
    empty = tmp_path / "empty"
    empty.mkdir(mode=0o755)
    report = service.export(empty, format="jsonl")  # an empty folder is taken, made private
    assert stat.S_IMODE(Path(report.path).stat().st_mode) == 0o700


@pytest.mark.parametrize("fmt", ["jsonl", "markdown"])
def test_an_export_that_cannot_be_finished_leaves_nothing(
    source: tuple[Opened, Built], tmp_path: Path, fmt: str
) -> None:
    """Files may grow to 256 bytes only (as on a full disk, the write fails half-way)."""
    (service, _), _ = source
    before = {p.name for p in tmp_path.iterdir()}
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a kill
    resource.setrlimit(resource.RLIMIT_FSIZE, (256, hard))
    try:
        with pytest.raises(ExportFailed, match=r"could not be written.*nothing was left"):
            service.export(tmp_path / "out", format=fmt)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    assert {p.name for p in tmp_path.iterdir()} == before
    assert service.verify().ok


# -- Markdown ---------------------------------------------------------------------------------


def test_the_notes_ingest_reads_a_markdown_export_back_with_titles_and_links(
    source: tuple[Opened, Built], tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    (service, _), built = source
    report = service.export(tmp_path / "notes", format="markdown", scopes=["personal"])
    folder = Path(report.path)
    odd = folder / f"{safe_stem(ODD_TITLE)}.md"
    assert odd.is_file() and safe_stem(ODD_TITLE) == "Q3 Q4 plan costs draft"
    front = yaml.safe_load(odd.read_text(encoding="utf-8").split("---\n")[1])
    assert front["title"] == ODD_TITLE and front["type"] == "Note"
    fact = (folder / "Ada's phone number.md").read_text(encoding="utf-8")
    assert "0777 123 456" in fact.split("## History")[0]
    assert "0111 222 333" in fact.split("## History")[1]
    assert not (folder / "Ada's phone number (2).md").exists()  # old versions have no file
    looms = (folder / "Looms.md").read_text(encoding="utf-8")
    # A note read from a file is written as it was, not cut into its sections again.
    assert "## Cards\n" in looms and "## Passages" not in looms

    with _new_vault(tmp_path / "read-back.cairn", embedder) as (reader, _):
        ingested = reader.ingest(IngestRequest.of([folder]))
        assert not [o for o in ingested.files if o.error], ingested.files
        titles: dict[str, str] = {}
        for outcome in ingested.files:
            [detail] = reader.get([str(outcome.document_id)], scopes=["personal"]).nodes
            titles[Path(outcome.path).name] = detail.node.title
        assert titles[odd.name] == ODD_TITLE
        assert titles["Tea with Ada.md"] == "Tea with Ada"
        assert len(titles) == report.counts["files"]
        by_title = {title: name for name, title in titles.items()}

        def references(title: str) -> set[str]:
            outcome = next(o for o in ingested.files if Path(o.path).name == by_title[title])
            [detail] = reader.get([str(outcome.document_id)], scopes=["personal"]).nodes
            return {e.other_title for e in detail.edges if e.type == "references"}

        assert "Ada Lovelace" in references("Tea with Ada")
        assert "Ada Lovelace" in references(ODD_TITLE)
        assert "Analytical Engines Ltd" in references("Ada Lovelace")
        assert {"Engines", "Punched tape"} <= references("Looms")
    assert built.secret not in _every_byte(folder)


def test_a_pdf_is_written_with_its_passages_and_their_places(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    pages = [["The lease of the boathouse ends in March."], ["The deposit is returned in April."]]
    scan = tmp_path / "in" / "lease.pdf"
    scan.parent.mkdir()
    scan.write_bytes(pdf_bytes(pages))
    with _new_vault(tmp_path / "pdf.cairn", embedder) as (service, _):
        service.ingest(IngestRequest.of([scan]))
        report = service.export(tmp_path / "out", format="markdown", scopes=["personal"])
    lease = (Path(report.path) / "lease.md").read_text(encoding="utf-8")
    assert "## Passages" in lease and "*page 2*" in lease and "deposit is returned" in lease


def test_file_names_are_safe_everywhere_and_unique_whatever_the_case() -> None:
    assert safe_stem('a/b\\c:d*e?f"g<h>i|j#k^l[m]n') == "a b c d e f g h i j k l m n"
    assert safe_stem("  .hidden plan. ") == "hidden plan"
    assert safe_stem("CON") == "CON_" and safe_stem("lpt1.txt") == "lpt1_txt"
    assert safe_stem("minutes.pdf") == "minutes_pdf"  # [[minutes.pdf]] would be an attachment
    assert safe_stem("Release 1.2") == "Release 1.2"
    assert safe_stem("???") == "Untitled"
    assert len(safe_stem("ü" * 400).encode("utf-8")) <= 120
    names = Names()
    assert [names.claim(t) for t in ("Plan", "plan", "PLAN", "Plan (2)")] == [
        "Plan",
        "plan (2)",
        "PLAN (3)",
        "Plan (2) (2)",
    ]
