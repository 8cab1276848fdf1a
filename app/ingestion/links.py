"""The linking stage of an ingest run: in a notes folder (Obsidian, Logseq, Foam, Markdown with
``[[links]]``), each note's links become ``references`` edges to what they name, and a name
nothing answers to becomes a stub topic, as a ``[[link]]`` in a written note does.

- ``[[Note]]``: an edge to the note's Document. ``[[Note#Heading]]`` also links the Passage
  that starts under that heading, so the link leads to its place while the note stays reached.
- ``![[x.png]]``, ``![[talk.ogg]]``, ``[[x.pdf|...]]``: an edge to the Document the same
  folder's import made of that file; a file that is not there, or not read, makes no stub.
- A stub made earlier for a name (a link written before its note existed) becomes the note
  once a note of that name or alias is ingested: its edges move to the note's Document and its
  id stays as an alias of it.
- A link a note no longer states is removed: the stage owns the edges it made (its rationale
  says so), so a note's current version holds exactly the links its text states.

It runs over the whole folder every time, unchanged notes included: a note added today is the
target that yesterday's notes were already linking to. Edges are stored once per pair, so a
rerun adds only what is new. Which note a link means is decided by ``ingest.notes_folder``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.app.ingestion.slices import write_in_slices
from cairn.app.linking import feedback
from cairn.app.upkeep import receipts
from cairn.app.writing.writer import Writer
from cairn.ingest import notes_folder, textfile
from cairn.ingest.document import ExtractedDocument, ExtractionError
from cairn.ingest.file_names import readable
from cairn.storage import graph_rows, source_rows
from cairn.storage.connection import Connection
from cairn.storage.vault import Vault

WHY = "a [[link]] in the note"
WHY_HEADING = "a [[link]] in the note, to this heading"
LINK_RATIONALES = frozenset({WHY, WHY_HEADING})  # the edges this stage owns
EDGE = "references"


@dataclass
class Linked:
    links: int = 0
    stubs: int = 0
    removed: int = 0  # links a note no longer states
    folded: int = 0  # stubs that became the note they named


def link_folders(vault: Vault, writer: Writer, roots: Sequence[Path], scope: str) -> Linked:
    made = Linked()
    for root in roots:
        kind = notes_folder.detect(root)
        if kind is None:
            continue
        folder = notes_folder.open_folder(root, kind)
        plan = notes_folder.link_edges(folder, _documents(folder))
        unresolved = list(plan.unresolved)
        stub_vectors = writer.store.stub_vectors(unresolved, scope)
        with vault.write() as conn:
            paths = [n.path for n in folder.notes] + list(folder.files)
            # Sources are kept under their readable names (a name that is not UTF-8 as \xNN).
            source_of = {path: readable(root / path) for path in paths}
            rows = source_rows.by_paths(conn, list(source_of.values()))
            document_of: dict[Path, str] = {}
            for path in paths:
                row = rows.get(source_of[path])
                if row and row["document_id"] and row["state"] in ("ingested", "duplicate"):
                    document_of[path] = row["document_id"]
            folded = _fold_stubs(conn, writer, folder, document_of, scope)
            made.folded += folded
            if folded:
                receipts.append(conn, "link", {"edges": 0, "removed": 0, "folded": folded})

        # A large folder's links are many notes' worth of writes: in short transactions.
        linker = _Linker(writer, document_of, scope, stub_vectors)
        for done in write_in_slices(vault, plan.notes, linker.link, _link_receipt):
            made.links += done.links
            made.stubs += done.stubs
            made.removed += done.removed
    return made


@dataclass(frozen=True)
class _Linker:
    """States one note's links as edges: to its notes, headings and attachments, and to
    the entities or new stubs of the names no note has."""

    writer: Writer
    document_of: dict[Path, str]
    scope: str
    stub_vectors: dict[str, Any]

    def link(self, conn: Connection, note: notes_folder.NoteLinks) -> Linked:
        src = self.document_of.get(note.source)
        if src is None:
            return Linked()  # the note failed to read: it has no document to link from
        wanted: dict[str, str] = {}  # target id: rationale
        for target in (*note.targets, *note.attachments):
            dst = self.document_of.get(target)
            if dst is not None and dst != src:
                wanted.setdefault(dst, WHY)
        for target, heading in note.anchors:
            dst = self.document_of.get(target)
            passage = _passage_under(conn, dst, heading, self.scope) if dst else None
            if passage is not None:
                wanted.setdefault(passage, WHY_HEADING)
        done = Linked()
        store = self.writer.store
        for name in note.unresolved:
            match = feedback.resolve_link(conn, name, self.scope)
            if match is not None:
                dst = match.id
            else:
                dst = store.insert_stub(conn, name, self.scope, self.stub_vectors)["id"]
                done.stubs += 1
            if dst != src:
                wanted.setdefault(dst, WHY)
        for dst, why in wanted.items():
            done.links += store.add_edge(conn, src, dst, EDGE, why)
        done.removed = _remove_unstated(conn, src, set(wanted))
        return done


def _link_receipt(conn: Connection, done: list[Linked]) -> None:
    counts = {"edges": sum(d.links for d in done), "removed": sum(d.removed for d in done)}
    if any(counts.values()):
        receipts.append(conn, "link", {**counts, "folded": 0})


def _fold_stubs(
    conn: Connection,
    writer: Writer,
    folder: notes_folder.NotesFolder,
    document_of: dict[Path, str],
    scope: str,
) -> int:
    """Each stub a link made (a Topic stub) named like a note of the folder, by its name or
    an alias, becomes that note. A person or place a text introduced stays an entity."""
    folded = 0
    for note in folder.notes:
        document = document_of.get(note.path)
        if document is None:
            continue
        for name in (note.name, *note.aliases):
            match = feedback.resolve_link(conn, name, scope)
            if (
                match is None
                or match.status != "stub"
                or match.type != feedback.STUB_TYPE
                or match.id == document
            ):
                continue
            rows = graph_rows.nodes_by_ids(conn, [match.id], [scope])
            if rows:
                writer.store.fold_stub(conn, rows[0], document)
                folded += 1
    return folded


def _remove_unstated(conn: Connection, src: str, wanted: set[str]) -> int:
    """Remove the links this stage made from ``src`` that its note no longer states."""
    removed = 0
    for edge in graph_rows.edges_of(conn, src, EDGE):
        if (
            edge["src"] == src
            and edge["rationale"] in LINK_RATIONALES
            and edge["dst"] not in wanted
        ):
            graph_rows.delete_edge(conn, edge["seq"])
            removed += 1
    return removed


def _passage_under(conn: Connection, document: str, heading: str, scope: str) -> str | None:
    """The first live Passage of ``document`` under ``heading`` (matched as the person wrote
    it, or as its anchor slug: "Dark mode" and "dark-mode"), or None."""
    wanted = {_plain(heading), _slug(heading)}
    ids = [e["src"] for e in graph_rows.edges_of(conn, document, "part_of") if e["dst"] == document]
    found: list[tuple[int, str]] = []
    for row in graph_rows.nodes_by_ids(conn, ids, [scope]):
        if row["status"] != "active" or not row["locator"]:
            continue
        locator = json.loads(row["locator"])
        headings = locator.get("heading") or []
        if headings and {_plain(headings[-1]), _slug(headings[-1])} & wanted:
            found.append((int(json.loads(row["attrs"]).get("ordinal", 0)), row["id"]))
    return min(found)[1] if found else None


def _plain(text: str) -> str:
    return " ".join(text.split()).casefold()


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.casefold()).strip("-")


def _documents(folder: notes_folder.NotesFolder) -> dict[Path, ExtractedDocument]:
    """Each note's links and tags, read again: unchanged notes were not read by this run."""
    found: dict[Path, ExtractedDocument] = {}
    for note in folder.notes:
        try:
            found[note.path] = textfile.extract(
                (folder.root / note.path).read_bytes(), note.path.name
            )
        except (OSError, ExtractionError):
            continue
    return found
