"""An edit of a memory: its new text becomes a new version that supersedes the old one, both
in one transaction (either both happen or neither).

People, places, projects, organisations and topics are edited the same way (the personal
pack lets them supersede themselves from its version 4). Changing a person's phone number must
be possible, and a careful person expects three things of it: the person stays the person
every memory links to, the card shows the new number, and the old number is not lost. An
update in place would keep the id but lose the old value, or keep it only as loose text beside
the new one; a new version keeps it where history already lives: the old version, superseded,
with the attributes it had, found by ``include_history`` and ``as_of`` reads and shown as a
changed value by ``history``. The new version gets every link of the old one (``supersede``
carries them), so what linked to the person links to the person as they are now; only the id
changes, as it does for an edited note.

``attrs`` changes the attributes it names; one named with ``None`` is removed (a phone number
cleared), which is how a form says that a field was emptied.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from cairn.app.errors import InvalidRequest, NodeNotFound
from cairn.app.models import History, Node
from cairn.app.retrieval.recall import Recall
from cairn.app.text import shelves
from cairn.app.writing.history import EDITED, HistoryKeeper
from cairn.app.writing.nodes import changed_attrs
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
            versions.append(
                self._history.supersede_in(conn, old.id, row["id"], chosen, rationale=EDITED)
            )

        memory = NewMemory(
            old.type,
            title.strip(),
            body,
            changed_attrs(old.attrs, attrs),
            old.scope,
            old.source,
            old.locator,
        )
        # A new version says much the same as the old one on purpose: no duplicate check.
        self._writer.add_version(memory, supersede)
        return versions[0]
