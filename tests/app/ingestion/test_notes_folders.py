"""A notes folder as its owner sees it (Obsidian, Logseq, Foam): each note titled by its file
name, its aliases kept, found and shown, its links (in tables, to headings, to attachments)
leading where the tool would lead, a stub becoming the note it named, a removed link leaving
the graph, and a published vault's site files left alone. Real pipeline, real vault, real
extractors; the vault is generated in the test's folder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.ingestion.report import IngestReport
from cairn.app.ingestion.request import IngestRequest
from cairn.app.models import NodeDetail
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.app import ingest_files as files
from tests.app.cli_runner import Cli
from tests.conftest import create_service

ALL = ["personal"]

FORMATS = """\
---
aliases: [Supported formats, File types]
---
## Embed files

You can embed ![[diagram.png]] and ![[talk.ogg]], and read [[paper.pdf|the paper]].
![[minutes.docx]]

| where | what |
|---|---|
| [[Settings\\|the settings]] | colours |

Change the look under [[Settings#Appearance]].
"""
SETTINGS = """\
# Settings

Settings are kept per vault.

## Appearance

Pick a dark theme and a larger font for reading at night.
"""
# Four notes whose first heading is the same word: each keeps its own name.
SAME_HEADING = "## Settings\n\nThe {0} options live here.\n"
DECLARED = "---\ntitle: Keyboard shortcuts\n---\n# Hotkeys\n\nPress the keys.\n"
LINKS_BY_ALIAS = "Read [[File types]] before adding anything.\n"
PAPER = [["The paper measures how lighthouses guide ships along the coast."]]


def _vault(root: Path) -> Path:
    folder = root / "help"
    notes: dict[str, str | bytes] = {
        ".obsidian/app.json": "{}",
        ".obsidian/plugins/calendar/main.js": "module.exports = {}",
        "publish.css": "body { color: #333 }",
        "publish.js": "console.log('site')",
        "Accepted file formats.md": FORMATS,
        "Settings.md": SETTINGS,
        "Keyboard.md": DECLARED,
        "Reading.md": LINKS_BY_ALIAS,
        "paper.pdf": files.pdf_bytes(PAPER),
        "attachments/minutes.docx": files.docx_bytes(["The minutes of the spring meeting."]),
    }
    for name in ("Sync", "Publish", "Editor", "Canvas"):
        notes[f"{name} settings/{name}.md"] = SAME_HEADING.format(name.lower())
    picture = files.text_png(["Diagram of the harbour"])
    if picture is not None:
        notes["attachments/diagram.png"] = picture
    return files.write(folder, notes).resolve()


@pytest.fixture(scope="module")
def ingested(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder
) -> Iterator[tuple[MemoryService, Path, IngestReport, Vault]]:
    root = tmp_path_factory.mktemp("obsidian")
    folder = _vault(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CAIRN_DATA_DIR", str(root / "data"))
        service, vault = create_service(root / "vault.cairn", embedder)
    report = service.ingest(IngestRequest.of([folder]))
    yield service, folder, report, vault
    service.close()


def _document(service: MemoryService, report: IngestReport, path: Path) -> NodeDetail:
    outcome = next(o for o in report.files if o.path == str(path))
    assert outcome.document_id, outcome
    return service.get([outcome.document_id], scopes=ALL).nodes[0]


def _out(detail: NodeDetail) -> set[tuple[str, str, str]]:
    return {
        (e.type, e.other_type, e.other_title)
        for e in detail.edges
        if e.direction == "out" and e.type == "references"
    }


def _stubs(vault: Vault) -> list[str]:
    with vault.read() as conn:
        return [row[0] for row in conn.execute("SELECT title FROM nodes WHERE status = 'stub'")]


def test_a_note_is_titled_by_its_file_name_never_by_a_heading(ingested) -> None:
    service, folder, report, _ = ingested
    title = lambda name: _document(service, report, folder / name).node.title  # noqa: E731
    assert title("Accepted file formats.md") == "Accepted file formats"  # not "Embed files"
    assert title("Settings.md") == "Settings"
    # Four notes that open with "## Settings" are four notes, each by its own name.
    names = [title(f"{n} settings/{n}.md") for n in ("Sync", "Publish", "Editor", "Canvas")]
    assert names == ["Sync", "Publish", "Editor", "Canvas"]
    assert title("Keyboard.md") == "Keyboard shortcuts"  # the front matter title, not "Hotkeys"
    # Its passages are named by their headings under the note's name.
    found = service.search("dark theme larger font", scopes=ALL).results
    passages = [hit for hit in found if hit.type == "Passage"]
    assert passages[0].title == "Settings — Appearance"


def test_a_markdown_file_alone_is_titled_by_its_opening_heading_or_its_name(
    service: MemoryService, tmp_path: Path
) -> None:
    """Outside a notes folder a Markdown file is a document: a level-1 heading that opens it
    is its title (the Markdown convention); a heading of another level or further down is a
    section, and the file name stands."""
    opening = files.write(tmp_path, {"a.md": "# Harbour report\n\nShips came in.\n"}) / "a.md"
    section = files.write(tmp_path, {"b.md": "Intro line.\n\n# Later heading\n\nMore.\n"}) / "b.md"
    level2 = files.write(tmp_path, {"c.md": "## Embed files\n\nText.\n"}) / "c.md"
    report = service.ingest(IngestRequest.of([opening, section, level2]))
    titles = {
        Path(o.path).name: service.get([o.document_id], scopes=ALL).nodes[0].node.title
        for o in report.files
    }
    assert titles == {"a.md": "Harbour report", "b.md": "b", "c.md": "c"}


def test_aliases_are_kept_found_and_shown(ingested, tmp_path: Path, capsys) -> None:
    service, folder, report, _ = ingested
    formats = _document(service, report, folder / "Accepted file formats.md")
    assert formats.node.attrs["aliases"] == ["Supported formats", "File types"]
    # Found by an alias the note's text never says (the full-text leg reads the aliases).
    hits = service.search("supported formats", scopes=ALL).results
    assert formats.node.id in [hit.id for hit in hits[:3]]
    # A [[link]] by alias reaches the note, no stub is made for it.
    reading = _document(service, report, folder / "Reading.md")
    assert _out(reading) == {("references", "Document", "Accepted file formats")}
    # The detail's JSON keeps the names (attrs) apart from the ids merged into the memory.
    data = formats.as_dict()
    assert data["attrs"]["aliases"] == ["Supported formats", "File types"]
    assert data["merged_ids"] == [] and "aliases" not in data


def test_cairn_get_shows_aliases_and_merged_ids_apart(
    service: MemoryService, cli: Cli, tmp_path: Path
) -> None:
    folder = files.write(
        tmp_path / "notes",
        {
            ".obsidian/app.json": "{}",
            "Harbour.md": "---\naliases: Port\n---\nShips dock here. [[Lighthouse]]\n",
        },
    )
    written = service.write("Note", "Lighthouse", "Lighthouse notes: see [[Harbour]].")
    report = service.ingest(IngestRequest.of([folder]))
    harbour = next(o for o in report.files if o.path.endswith("Harbour.md")).document_id
    out, _ = cli("get", harbour)
    assert "aliases: Port" in out
    data = json.loads(cli("get", harbour, "--json")[0])["nodes"][0]
    assert data["attrs"]["aliases"] == ["Port"]
    # The written note's [[Harbour]] made a stub before the note came; the stub became the
    # note, and its id is one of the note's merged ids.
    assert len(data["merged_ids"]) == 1
    assert written.node is not None
    assert "merged ids: " + data["merged_ids"][0] in out


def test_a_link_inside_a_table_names_the_note_not_a_stub(ingested) -> None:
    service, folder, report, vault = ingested
    formats = _document(service, report, folder / "Accepted file formats.md")
    assert ("references", "Document", "Settings") in _out(formats)
    assert not any(title.endswith("\\") for title in _stubs(vault))


def test_a_link_to_a_heading_reaches_the_note_and_its_passage(ingested) -> None:
    service, folder, report, _ = ingested
    formats = _document(service, report, folder / "Accepted file formats.md")
    out = _out(formats)
    assert ("references", "Document", "Settings") in out
    assert ("references", "Passage", "Settings — Appearance") in out
    passage = next(e for e in formats.edges if e.other_type == "Passage")
    body = service.get([passage.other_id], scopes=ALL).nodes[0].node.body
    assert "dark theme" in body


def test_embeds_and_file_links_reach_the_files_own_memories(ingested) -> None:
    service, folder, report, vault = ingested
    formats = _document(service, report, folder / "Accepted file formats.md")
    targets = {
        e.other_id
        for e in formats.edges
        if e.direction == "out" and e.type == "references" and e.other_type == "Document"
    }
    for name in ("paper.pdf", "attachments/minutes.docx", "attachments/diagram.png"):
        if not (folder / name).exists():
            continue  # no font to draw the picture with
        assert _document(service, report, folder / name).node.id in targets, name
    # talk.ogg is not in the folder: nothing to link, and no stub named like a file.
    assert not [title for title in _stubs(vault) if "." in title]


def test_a_published_vaults_site_files_are_not_read(ingested) -> None:
    _, folder, report, _ = ingested
    states = {Path(o.path).relative_to(folder).as_posix(): o.state for o in report.files}
    assert states["publish.css"] == states["publish.js"] == "skipped"
    assert not [path for path in states if path.startswith(".obsidian")]
    assert {o.state for o in report.files if not o.path.endswith((".css", ".js"))} == {"ingested"}


def test_wikilink_markup_is_not_embedded_but_stays_in_the_passage(ingested) -> None:
    service, _, _, vault = ingested
    hits = service.search("the settings colours", scopes=ALL).results
    table = next(h for h in hits if h.title.startswith("Accepted file formats"))
    node = service.get([table.id], scopes=ALL).nodes[0].node
    assert "[[Settings\\|the settings]]" in node.body  # the person reads what they wrote
    with vault.read() as conn:
        text = conn.execute(
            "SELECT s.text FROM search_index AS s JOIN nodes AS n ON n.seq = s.rowid "
            "WHERE n.id = ?",
            (node.id,),
        ).fetchone()[0]
    assert "[[" not in text and "\\|" not in text and "the settings" in text


def _edges_into(service: MemoryService, node_id: str) -> list[Any]:
    return [
        e
        for e in service.get([node_id], scopes=ALL).nodes[0].edges
        if e.direction == "in" and e.type == "references"
    ]


def test_a_stub_becomes_the_note_it_named_and_removed_links_leave(
    service: MemoryService, vault: Vault, tmp_path: Path
) -> None:
    folder = files.write(
        tmp_path / "garden",
        {
            ".obsidian/app.json": "{}",
            "Beds.md": "Plant near the [[Greenhouse]] and the [[Compost heap]].\n",
            "Tools.md": "The spade hangs in the [[Beds]] shed.\n",
        },
    ).resolve()
    first = service.ingest(IngestRequest.of([folder]))
    stub = next(
        e for e in _out_of(service, first, folder / "Beds.md") if e.other_title == "Greenhouse"
    )
    assert stub.other_type == "Topic"
    # The note arrives later: the stub becomes it, keeping its edge from Beds.
    files.write(folder, {"Greenhouse.md": "Six raised beds under glass.\n"})
    files.write(folder, {"Beds.md": "Plant near the [[Greenhouse]].\n"})  # [[Compost heap]] gone
    second = service.ingest(IngestRequest.of([folder]))
    greenhouse = next(o for o in second.files if o.path.endswith("Greenhouse.md")).document_id
    found = service.get([stub.other_id], scopes=ALL)
    assert found.nodes[0].node.id == greenhouse and found.nodes[0].requested_as == stub.other_id
    assert "Greenhouse" not in _stubs(vault)
    beds = _out_of(service, second, folder / "Beds.md")
    assert {(e.other_type, e.other_title) for e in beds} == {("Document", "Greenhouse")}
    # The removed link is gone from the graph: no version of Beds references the compost heap.
    compost = next(t for t in _stub_ids(vault) if t[1] == "Compost heap")[0]
    assert _edges_into(service, compost) == []
    # Tools did not change; its link follows Beds to the new version, not the old one too.
    beds_ids = {o.document_id for o in (*first.files, *second.files) if o.path.endswith("Beds.md")}
    tools = _out_of(service, second, folder / "Tools.md")
    assert [e.other_id for e in tools if e.other_id in beds_ids] == [
        next(o.document_id for o in second.files if o.path.endswith("Beds.md"))
    ]
    assert service.verify().ok


def _out_of(service: MemoryService, report: IngestReport, path: Path) -> list[Any]:
    outcome = next(o for o in report.files if o.path == str(path))
    detail = service.get([outcome.document_id], scopes=ALL).nodes[0]
    return [e for e in detail.edges if e.direction == "out" and e.type == "references"]


def _stub_ids(vault: Vault) -> list[tuple[str, str]]:
    with vault.read() as conn:
        return [
            (row[0], row[1])
            for row in conn.execute("SELECT id, title FROM nodes WHERE status = 'stub'")
        ]


def test_logseq_aliases_are_kept_on_the_page(service: MemoryService, tmp_path: Path) -> None:
    folder = files.write(
        tmp_path / "graph",
        {
            "pages/Harbour master.md": "alias:: Port captain, HM\n\n- Keeps the tide tables.\n",
            "journals/2024_05_01.md": "- Met the [[HM]] about berths.\n",
        },
    ).resolve()
    report = service.ingest(IngestRequest.of([folder]))
    page = next(o for o in report.files if o.path.endswith("Harbour master.md"))
    journal = next(o for o in report.files if o.path.endswith("2024_05_01.md"))
    node = service.get([page.document_id], scopes=ALL).nodes[0].node
    assert node.title == "Harbour master" and node.attrs["aliases"] == ["Port captain", "HM"]
    assert service.get([journal.document_id], scopes=ALL).nodes[0].node.title == "May 1st, 2024"
    edges = _out_of(service, report, Path(journal.path))
    assert [(e.other_type, e.other_title) for e in edges] == [("Document", "Harbour master")]
    assert page.document_id in [h.id for h in service.search("port captain", scopes=ALL).results]
