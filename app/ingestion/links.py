"""The linking stage of an ingest run: in a notes folder (Obsidian, Logseq, Foam, Markdown with
``[[links]]``), each note's links become ``references`` edges to the notes they name, and a name
no note answers to becomes a stub topic, as a ``[[link]]`` in a written note does.

It runs over the whole folder every time, unchanged notes included: a note added today is the
target that yesterday's notes were already linking to. Edges are stored once per pair, so a
rerun adds only what is new. Which note a link means is decided by ``ingest.vault``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cairn.app import receipts
from cairn.app.dedup import feedback
from cairn.app.writer import Writer
from cairn.ingest import notes_folder, textfile
from cairn.ingest.document import ExtractedDocument, ExtractionError
from cairn.storage import source_rows
from cairn.storage.vault import Vault

WHY = "a [[link]] in the note"


@dataclass
class Linked:
    links: int = 0
    stubs: int = 0


def link_folders(vault: Vault, writer: Writer, roots: Sequence[Path], scope: str) -> Linked:
    made = Linked()
    for root in roots:
        kind = notes_folder.detect(root)
        if kind is None:
            continue
        folder = notes_folder.open_vault(root, kind)
        plan = notes_folder.link_edges(folder, _documents(folder))
        unresolved = list(plan.unresolved)
        stub_vectors = writer.store.stub_vectors(unresolved, scope)
        with vault.write() as conn:
            rows = source_rows.by_paths(conn, [str(root / n.path) for n in folder.notes])
            document_of = {
                path: row["document_id"]
                for path, row in rows.items()
                if row["document_id"] and row["state"] in ("ingested", "duplicate")
            }
            before = made.links
            for note in plan.notes:
                src = document_of.get(str(root / note.source))
                if src is None:
                    continue  # the note failed to read: it has no document to link from
                for target in note.targets:
                    dst = document_of.get(str(root / target))
                    if dst is not None and dst != src:
                        made.links += writer.store.add_edge(conn, src, dst, "references", WHY)
                for name in note.unresolved:
                    match = feedback.resolve_link(conn, name, scope)
                    if match is not None:
                        dst = match.id
                    else:
                        dst = writer.store.insert_stub(conn, name, scope, stub_vectors)["id"]
                        made.stubs += 1
                    made.links += writer.store.add_edge(conn, src, dst, "references", WHY)
            if made.links > before:
                receipts.append(conn, "link", {"edges": made.links - before})
    return made


def _documents(folder: notes_folder.Vault) -> dict[Path, ExtractedDocument]:
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
