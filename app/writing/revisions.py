"""An edit of a memory: its new text becomes a new version that supersedes the old one, both
in one transaction (either both happen or neither)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from cairn.app.errors import InvalidRequest, NodeNotFound
from cairn.app.models import History, Node
from cairn.app.retrieval.recall import Recall
from cairn.app.text import shelves
from cairn.app.writing.history import HistoryKeeper
from cairn.app.writing.writer import NewMemory, Writer
from cairn.storage.connection import Connection
from cairn.storage.rows import NodeRow


class NoteFileEditor(Protocol):
    """Edits a note Cairn read from a file (``ingestion/note_edits.py``): its text is read
    again as the file's, into new sections."""

    def revise(
        self,
        old: Node,
        title: str,
        body: str,
        chosen: list[str],
        attrs: Mapping[str, Any] | None = None,
    ) -> History: ...


class Revisions:
    def __init__(
        self,
        writer: Writer,
        history: HistoryKeeper,
        recall: Recall,
        note_files: NoteFileEditor | None = None,
    ) -> None:
        self._writer = writer
        self._history = history
        self._recall = recall
        self._note_files = note_files

    def revise(
        self,
        node_id: str,
        title: str,
        body: str,
        chosen: list[str],
        attrs: Mapping[str, Any] | None = None,
    ) -> History:
        """See ``MemoryService.revise``; ``chosen`` are scopes already checked."""
        if not title.strip():
            raise InvalidRequest("A memory needs a title.")
        found = self._recall.get([node_id], chosen, use=False)
        if not found.nodes:
            raise NodeNotFound(node_id)
        old = found.nodes[0].node
        if self._note_files is not None and shelves.is_note_file(old.type, old.attrs):
            return self._note_files.revise(old, title, body, chosen, attrs)
        versions: list[History] = []

        def supersede(conn: Connection, row: NodeRow) -> None:
            versions.append(self._history.supersede_in(conn, old.id, row["id"], chosen))

        memory = NewMemory(
            old.type,
            title.strip(),
            body,
            {**old.attrs, **(attrs or {})},
            old.scope,
            old.source,
            old.locator,
        )
        # A new version says much the same as the old one on purpose: no duplicate check.
        self._writer.add_version(memory, supersede)
        return versions[0]
