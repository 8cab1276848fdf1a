"""Editing a memory: one service call writes the new version and supersedes the old one in one
transaction (``MemoryService.revise``), and ``cairn edit`` offers it with the text from its
options, standard input or the person's editor, whose file never leaves memory."""

from __future__ import annotations

import io
import sys
import textwrap
from pathlib import Path

import pytest

from cairn.app.cli import edit
from cairn.app.errors import InvalidRequest
from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService
from tests.app.cli_runner import Cli

ALL = ["personal"]


def _titles(service: MemoryService, query: str) -> list[str]:
    found = service.search(query, scopes=ALL, include_history=True, limit=25)
    return [hit.title for hit in found.results]


def test_revise_keeps_the_old_text_as_history(service: MemoryService) -> None:
    old = service.write("Note", "Ferry times", "The ferry leaves at 7:40.").node
    assert old is not None
    versions = service.revise(old.id, "Ferry times", "The ferry leaves at 8:10.", scopes=ALL)
    assert versions.chain[0].id == old.id
    new = versions.chain[versions.position]
    assert new.id != old.id and new.status == "active"
    assert service.get([old.id], scopes=ALL).nodes[0].node.status == "superseded"
    assert service.get([new.id], scopes=ALL).nodes[0].node.body == "The ferry leaves at 8:10."


def test_a_revise_that_cannot_supersede_leaves_nothing_behind(service: MemoryService) -> None:
    old = service.write("Note", "Harbour pass", "Pass number 118.").node
    assert old is not None
    service.revise(old.id, "Harbour pass", "Pass number 119.", scopes=ALL)
    before = service.stats(scopes=ALL).nodes_by_type
    # The old version is history now: it cannot be superseded again, so the new text of this
    # second edit must not be stored either (it would be a version that supersedes nothing).
    with pytest.raises(InvalidRequest, match="already superseded"):
        service.revise(old.id, "Harbour pass", "Pass number 120.", scopes=ALL)
    assert service.stats(scopes=ALL).nodes_by_type == before
    assert all(
        "120" not in hit.snippet for hit in service.search("pass number", scopes=ALL).results
    )


def test_a_revise_needs_a_title(service: MemoryService) -> None:
    old = service.write("Note", "Locker", "Code 4411.").node
    assert old is not None
    with pytest.raises(InvalidRequest, match="title"):
        service.revise(old.id, "  ", "Code 4412.", scopes=ALL)


def test_the_service_has_no_public_attributes(service: MemoryService) -> None:
    # Faces reach memory only through methods that check scopes, never through a vault, pack,
    # supervisor or token keeper handed out as an attribute.
    assert [name for name in vars(service) if not name.startswith("_")] == []


def test_cairn_edit_takes_the_text_from_standard_input(
    service: MemoryService, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = service.write("Note", "Bike lock", "The code is 3-1-4.").node
    assert old is not None
    monkeypatch.setattr(sys, "stdin", io.StringIO("The code is 2-7-1."))
    out, _ = cli("edit", old.id)
    assert "edited:" in out
    history = service.history(old.id, scopes=ALL)
    assert [e.title for e in history.chain] == ["Bike lock", "Bike lock"]
    newest = history.chain[-1]
    assert service.get([newest.id], scopes=ALL).nodes[0].node.body == "The code is 2-7-1."


def test_cairn_edit_hands_the_editor_a_file_kept_in_memory(
    service: MemoryService, cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    old = service.write("Note", "Wifi at the cabin", "Network cabin-5g, key in the drawer.").node
    assert old is not None
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    seen = tmp_path / "seen.txt"
    editor = tmp_path / "editor.py"
    editor.write_text(
        textwrap.dedent(
            f"""
            import os, stat, sys
            path = sys.argv[1]
            mode = stat.S_IMODE(os.stat(path).st_mode)
            open({str(seen)!r}, "w").write(path + " " + oct(mode) + "\\n" + open(path).read())
            text = open(path).read()  # as a person edits: the header stays, one word changes
            open(path, "w").write(text.replace("in the drawer", "on the hook"))
            """
        )
    )
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("VISUAL", f"{sys.executable} {editor}")
    monkeypatch.setattr(sys, "stdin", _Terminal())
    cli("edit", old.id)
    path, mode = seen.read_text().splitlines()[0].split()
    assert Path(path).is_relative_to(runtime) and mode == oct(0o600)
    assert "Network cabin-5g, key in the drawer." in seen.read_text()  # the old text to edit
    assert list(runtime.iterdir()) == []  # removed afterwards
    newest = service.history(old.id, scopes=ALL).chain[-1]
    assert service.get([newest.id], scopes=ALL).nodes[0].node.body == (
        "Network cabin-5g, key on the hook."
    )


def test_cairn_edit_without_a_folder_in_memory_asks_for_standard_input(
    service: MemoryService, cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    old = service.write("Note", "Spare key", "Under the blue pot.").node
    assert old is not None
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(edit, "IN_MEMORY_FOLDERS", ("XDG_RUNTIME_DIR", str(tmp_path / "none")))
    monkeypatch.setattr(sys, "stdin", _Terminal())
    out, err = cli("edit", old.id, expect=1)
    assert "standard input" in out + err
    assert len(service.history(old.id, scopes=ALL).chain) == 1  # nothing changed


def test_the_edited_file_reads_as_title_then_text(service: MemoryService) -> None:
    old = service.write("Note", "Title", "Body").node
    assert old is not None
    assert edit.parse_edited(f"{edit.HEADER}Title\n\nBody", old) == ("Title", "Body")
    # A title that is a Markdown heading stays one: only Cairn's own header is dropped.
    assert edit.parse_edited(f"{edit.HEADER}# Kiln\n\nCone 6", old) == ("# Kiln", "Cone 6")
    assert edit.parse_edited("", old) == ("Title", "Body")  # emptied: nothing changes
    assert edit.parse_edited("New title\n\nLine one\nLine two", old) == (
        "New title",
        "Line one\nLine two",
    )


class _Terminal(io.StringIO):
    """Standard input as a person's terminal: nothing piped in."""

    def isatty(self) -> bool:
        return True


def _links(service: MemoryService, node_id: str) -> set[tuple[str, str, str]]:
    """(direction, type, title of the other end) of every link a memory shows."""
    detail = service.get([node_id], scopes=ALL).nodes[0]
    return {(e.direction, e.type, e.other_title) for e in detail.edges}


def test_an_edited_note_keeps_every_link_both_ways(service: MemoryService, tmp_path: Path) -> None:
    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "Reading list.md").write_text("Next up: [[Harbour history]].\n", encoding="utf-8")
    (folder / "Harbour history.md").write_text(
        "# Harbour history\n\nThe old pier was built in 1884. See [[Ferry times]].\n",
        encoding="utf-8",
    )
    (folder / "Ferry times.md").write_text("The ferry leaves at 7:40.\n", encoding="utf-8")
    service.ingest(IngestRequest.of([folder]))
    [old] = [
        n
        for n in service.list_memories(scopes=ALL, types=["Document"], limit=50)
        if n.title == "Harbour history"
    ]
    before = _links(service, old.id)
    assert ("in", "references", "Reading list") in before
    assert ("out", "references", "Ferry times") in before
    assert any(d == "in" and t == "part_of" for d, t, _ in before)  # its passage

    versions = service.revise(
        old.id, "Harbour history", "The pier dates from 1884. See [[Ferry times]].", scopes=ALL
    )
    new = versions.chain[versions.position]
    after = _links(service, new.id)

    # Every link the note had, both ways, is on its newest version; its sections are read
    # again from the new text, so they are the new text's sections, not the old ones.
    def not_sections(links: set[tuple[str, str, str]]) -> set[tuple[str, str, str]]:
        return {link for link in links if link[1] != "part_of"}

    assert not_sections(before) <= after
    new_sections = {title for d, t, title in after if d == "in" and t == "part_of"}
    assert new_sections and all("pier dates from 1884" in title for title in new_sections)
    # The [[Ferry times]] the new text keeps is that note, not a new stub of its name.
    assert ("out", "references", "Ferry times") in after
    assert not service.list_memories(scopes=ALL, statuses=["stub"])
    assert ("out", "supersedes", "Harbour history") in after
    # The old version is history: it keeps the links it had, as the graph stood then.
    assert before | {("in", "supersedes", "Harbour history")} <= _links(service, old.id)
    # The graph from the reading list leads to the version that stands now.
    [reading] = [
        n
        for n in service.list_memories(scopes=ALL, types=["Document"], limit=50)
        if n.title == "Reading list"
    ]
    reached = {r.id for r in service.traverse(reading.id, scopes=ALL).nodes}
    assert new.id in reached and old.id not in reached


def test_a_supersede_gives_the_new_version_every_link(service: MemoryService) -> None:
    landlord = service.write("Person", "Mara Lind").node
    old = service.write("Fact", "Rent", "The rent is 900 a month.").node
    new = service.write("Fact", "Rent now", "The rent is 950 a month from May.").node
    assert landlord is not None and old is not None and new is not None
    service.link(old.id, landlord.id, "involves", scopes=ALL)
    service.supersede(old.id, new.id, scopes=ALL)
    assert ("out", "involves", "Mara Lind") in _links(service, new.id)
    assert ("out", "involves", "Mara Lind") in _links(service, old.id)  # as it stood
    # The person's memory shows the rent as it is now, once: not the version it replaced.
    shown = service.get([landlord.id], scopes=ALL).nodes[0].edges
    assert {(e.direction, e.other_title) for e in shown} == {("in", "Rent now")}
