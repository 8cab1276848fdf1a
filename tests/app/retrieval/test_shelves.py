"""What a memory is to the person: a note read from a notes folder stands with the notes typed
by hand, a PDF with the documents, and a section is reached from its note, never a shelf of its
own. The library's counts, its lists and a search's hits all say so; a note's text is kept
whole; snippets say what the memory says; and a query near nothing says so."""

from __future__ import annotations

from pathlib import Path

from cairn.app.api import IngestRequest
from cairn.app.service import MemoryService
from tests.app.ingest_files import pdf_bytes, write

FERRY_NOTE = """---
tags: [travel]
---
# Ferry times

The **first ferry** leaves Harbour Lane at 7:10, see [[Island trip]].

## Sundays

On Sundays the first boat leaves at *eight*, and the kiosk sells tide tables.
"""


def _folder(tmp_path: Path) -> Path:
    return write(
        tmp_path / "notes",
        {
            "Ferry times.md": FERRY_NOTE,
            "packing.txt": "Pack the rain jacket and the blue thermos for the crossing.\n",
            "scans/lease.pdf": pdf_bytes([["The lease of the boathouse ends in March 2027."]]),
        },
    )


def test_note_files_stand_with_typed_notes_and_sections_stand_nowhere(
    service: MemoryService, tmp_path: Path
) -> None:
    scopes = service.scopes()
    typed = service.write("Note", "Tide tables", "Buy the tide tables at the kiosk.").node
    service.ingest(IngestRequest.of([_folder(tmp_path)]))

    notes = service.list_memories(scopes=scopes, shelf="Note")
    assert {n.title for n in notes} == {"Ferry times", "packing", "Tide tables"}
    assert {n.type for n in notes} == {"Note", "Document"}
    documents = service.list_memories(scopes=scopes, shelf="Document")
    assert [n.attrs["media_type"] for n in documents] == ["application/pdf"]
    everything = service.list_memories(scopes=scopes, statuses=["active"], limit=500)
    assert "Passage" not in {n.type for n in everything}

    stats = service.stats(scopes=scopes)
    assert stats.shelves["Note"] == 3 and stats.shelves["Document"] == 1
    assert "Passage" not in stats.shelves
    assert stats.memories == len(everything) == sum(stats.shelves.values())
    assert typed is not None


def test_a_note_file_keeps_its_text_as_written(service: MemoryService, tmp_path: Path) -> None:
    service.ingest(IngestRequest.of([_folder(tmp_path)]))
    [note] = [
        n
        for n in service.list_memories(scopes=service.scopes(), shelf="Note")
        if n.title == "Ferry times"
    ]
    # Front matter is read as attributes; the rest is the note as the person wrote it.
    assert note.body == FERRY_NOTE.split("---\n", 2)[2].strip("\n")
    assert note.attrs["tags"] == ["travel"]
    [pdf] = service.list_memories(scopes=service.scopes(), shelf="Document")
    assert pdf.body == ""  # a PDF's words are in its sections


def test_a_section_names_its_note_and_snippets_hold_no_bookkeeping(
    service: MemoryService, tmp_path: Path
) -> None:
    service.ingest(IngestRequest.of([_folder(tmp_path)]))
    response = service.search("kiosk tide tables on sundays", scopes=service.scopes())
    sections = [hit for hit in response.results if hit.type == "Passage"]
    assert sections, "the Sundays section is found"
    ferry = [hit for hit in sections if hit.part_of and hit.part_of.title == "Ferry times"]
    assert ferry and ferry[0].part_of is not None and ferry[0].part_of.shelf == "Note"
    assert ferry[0].shelf == "Passage"
    for hit in response.results:
        assert "sha256" not in hit.snippet and "media type" not in hit.snippet
        assert str(tmp_path) not in hit.snippet
        assert "**" not in hit.snippet and "[[" not in hit.snippet
    lease = service.search("boathouse lease", scopes=service.scopes()).results
    [pdf] = [hit for hit in lease if hit.type == "Document" and hit.title == "lease"]
    assert pdf.shelf == "Document" and "pdf" not in pdf.snippet.lower()
    [page] = [hit for hit in lease if hit.part_of and hit.part_of.id == pdf.id]
    assert "boathouse" in page.snippet and page.part_of and page.part_of.shelf == "Document"


def test_a_query_near_nothing_says_so_and_a_real_one_does_not(service: MemoryService) -> None:
    for title, body in (
        ("Tide tables", "Buy the tide tables at the kiosk by the pier."),
        ("Boat engine", "The outboard engine needs new spark plugs before summer."),
        ("Ferry", "The first ferry leaves at seven ten on weekdays."),
    ):
        service.write("Note", title, body)
    scopes = service.scopes()
    assert not service.search("when does the ferry leave", scopes=scopes).nothing_close
    # A word they share is a match, however far in meaning the rest is.
    assert not service.search("spark plugs", scopes=scopes).nothing_close
    far = service.search("qzxvw plorbt", scopes=scopes)
    assert far.results and far.nothing_close
    assert far.as_dict()["nothing_close"] is True


def test_a_documents_sections_come_in_their_order(service: MemoryService, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    write(folder, {"scans/deeds.pdf": pdf_bytes([["First page."], ["Second page."], ["Third."]])})
    service.ingest(IngestRequest.of([folder]))
    scopes = service.scopes()
    documents = {n.title: n for n in service.list_memories(scopes=scopes, shelf="Document")}
    pages = service.sections(documents["deeds"].id, scopes=scopes)
    assert [p.attrs["page"] for p in pages] == [1, 2, 3]
    [ferry] = [
        n for n in service.list_memories(scopes=scopes, shelf="Note") if n.title == "Ferry times"
    ]
    sections = service.sections(ferry.id, scopes=scopes)
    assert [p.attrs["ordinal"] for p in sections] == list(range(len(sections)))
    assert sections[-1].attrs["heading"].endswith("Sundays")


def test_a_note_is_not_linked_to_its_own_sections_as_alike(
    service: MemoryService, tmp_path: Path
) -> None:
    """A note's Document holds its sections' text whole: the dedup gate must not find each
    section a near-copy of its own note."""
    write(tmp_path / "one", {"Kiln.md": "# Kiln\n\nThe kiln reached cone 6 in nine hours.\n"})
    service.ingest(IngestRequest.of([tmp_path / "one"]))
    scopes = service.scopes()
    [note] = service.list_memories(scopes=scopes, shelf="Note")
    sections = {s.id for s in service.sections(note.id, scopes=scopes)}
    edges = service.get([note.id], scopes=scopes).nodes[0].edges
    assert {e.type for e in edges if e.other_id in sections} == {"part_of"}


def test_a_name_linked_before_it_is_described_is_not_counted_as_a_memory(
    service: MemoryService,
) -> None:
    """A stub ([[Spring floods]] before anyone wrote what it is) is found by search and asked
    about in review, but it is not a memory the person wrote: no shelf counts it."""
    service.write("Note", "Levee", "The levee held during [[Spring floods]].")
    scopes = service.scopes()
    stats = service.stats(scopes=scopes)
    assert stats.shelves == {"Note": 1} and stats.memories == 1
    assert stats.nodes_by_status.get("stub") == 1
    assert any(h.status == "stub" for h in service.search("spring floods", scopes=scopes).results)
