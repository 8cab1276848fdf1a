"""An edit of a note Cairn read from a file: a new version in Cairn; the file stays as it is.

Writing the file back would put the edit's plaintext on disk, outside the vault, where Cairn
promised none would go; so the edited text is kept in the vault only, and the window says the
file is unchanged. The new version is read as the file would be (the same reader and chunker:
its sections, tags and links), supersedes the old one in the same transaction, and keeps every
link the old one had, except its sections: the old sections stay with the old version, as
history, and the new text has its own. The file's record follows the newest version, so a
later change of the file on disk (a watched folder, or the folder added again) becomes the next
version, with this edit kept in the history before it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest
from cairn.app.ingestion import shapes
from cairn.app.ingestion.store import contents_of
from cairn.app.models import History, Node
from cairn.app.text import shelves
from cairn.app.text.surface import searchable_text
from cairn.app.writing.history import EDITED, HistoryKeeper
from cairn.app.writing.nodes import changed_attrs
from cairn.app.writing.writer import MAX_BODY, NewMemory, Writer
from cairn.ingest import chunking, textfile
from cairn.storage import source_rows
from cairn.storage.connection import Connection
from cairn.storage.rows import NodeRow

SECTIONS = "part_of"  # the edge that makes a passage a section of its note
# Front matter is read as attributes when a note is first read; the body kept has none. An
# empty block in front keeps a body that opens with a rule ("---") from being taken for one.
_NO_FRONT_MATTER = "---\n---\n"


class NoteFileEdits:
    def __init__(self, writer: Writer, history: HistoryKeeper, space: EmbeddingSpace) -> None:
        self._writer = writer
        self._history = history
        self._space = space

    def revise(
        self,
        old: Node,
        title: str,
        body: str,
        chosen: list[str],
        attrs: Mapping[str, Any] | None = None,
    ) -> History:
        """See ``MemoryService.revise``: ``old`` is a note file's Document, found in ``chosen``."""
        if not shelves.is_note_file(old.type, old.attrs):
            raise InvalidRequest(f"{old.title!r} is not a note read from a file.")
        if len(body) > MAX_BODY:
            raise InvalidRequest(
                f"A note's text may be at most {MAX_BODY:,} characters (this one has "
                f"{len(body):,}); split it into several notes."
            )
        name = PurePath(old.source or "note.md").name
        markdown = PurePath(name).suffix.lower() in textfile.MARKDOWN_SUFFIXES
        read = textfile.extract(
            ((_NO_FRONT_MATTER if markdown else "") + body).encode("utf-8"), name
        )
        passages = chunking.chunk(read.segments)
        texts = [
            searchable_text(
                shapes.passage_title(title, passage), passage.text, shapes.passage_attrs(passage)
            )
            for passage in passages
        ]
        # Embedded before the write lock, as every write is.
        vectors = [self._space.embed(text) for text in texts]
        merged_tags = attrs["tags"] if attrs and "tags" in attrs else old.attrs.get("tags")
        new_attrs = changed_attrs(old.attrs, attrs)
        if read.tags or merged_tags:
            new_attrs["tags"] = list(dict.fromkeys([*(merged_tags or []), *read.tags]))
        versions: list[History] = []

        def then(conn: Connection, row: NodeRow) -> None:
            versions.append(
                self._history.supersede_in(
                    conn, old.id, row["id"], chosen, not_carried=(SECTIONS,), rationale=EDITED
                )
            )
            old_sections = frozenset(contents_of(conn, old.id, nested=False))
            for passage, vector in zip(passages, vectors, strict=True):
                self._store_section(conn, row, title, passage, vector, old_sections | {old.id})
            _follow(conn, old, row["id"])

        self._writer.add_version(
            NewMemory(old.type, title.strip(), body, new_attrs, old.scope, old.source, old.locator),
            then,
        )
        return versions[0]

    def _store_section(
        self,
        conn: Connection,
        document: NodeRow,
        title: str,
        passage: chunking.Passage,
        vector: Any,
        old_sections: frozenset[str],
    ) -> None:
        """One section of the new text; ``old_sections`` (with the old version) are not
        compared with it."""
        result = self._writer.store_passage(
            NewMemory(
                "Passage",
                shapes.passage_title(title, passage),
                passage.text,
                attrs=shapes.passage_attrs(passage),
                scope=document["scope"],
                source=document["source"],
                locator=passage.locator.as_dict() or None,
            ),
            vector=vector,
            # The old text's sections and the note itself, in both versions: alike on purpose.
            keep_whole=old_sections | {document["id"]},
        )
        assert result.node is not None
        self._writer.store.add_edge(conn, result.node.id, document["id"], SECTIONS, None)


def _follow(conn: Connection, old: Node, new_id: str) -> None:
    """The file's record names the newest version (its hash stays the file's: the file is
    unchanged, so reading it again changes nothing)."""
    if not old.source:
        return
    row = source_rows.get(conn, old.source)
    if row is not None and row["document_id"] == old.id:
        source_rows.put(conn, {**row, "document_id": new_id})
