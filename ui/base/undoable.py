"""What a person may take back with Edit › Undo: an edit, a link made or removed, a merge, an
archive or an unarchive, a capture discarded from the inbox, each a ``QUndoCommand`` on the
window's ``QUndoStack``.

A panel does the act first and records it here only once it succeeded (``record_*``), so the
stack never holds an act that did not happen; pushing it does not do it again. Undo and redo
are service calls, run in a worker like every write (the window keeps drawing); afterwards
``session.changed`` refreshes every panel, and an edit or a merge taken back or done again
asks to show the memory that is current now (``open_requested``). A failure is said in a
sentence (``failed``) and the stack is put back where it stood, so Undo offers the same act
again. Forget is not here: it stays final, behind its confirmation.

Panels reach the history through the session (``session.undo_history``), set by the window.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from cairn.app.api import MemoryService
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session

Call = Callable[[MemoryService], Any]


class UndoHistory(QObject):
    """The window's undo stack, and the commands panels record on it."""

    failed = Signal(str)  # an undo or redo did not work: the sentence to show
    open_requested = Signal(str)  # the memory to show after an edit or merge changed hands
    finished = Signal()  # an undo or redo is done (or failed): for tests and the status bar

    def __init__(self, stack: QUndoStack, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.stack = stack
        self._session = session
        self.running = False  # an undo or redo is in a worker now

    # -- what panels record -------------------------------------------------------------------

    def record_link(self, src: str, dst: str, edge_type: str, other_title: str) -> None:
        """A link the person made (not one that existed already)."""
        self._push(
            f"Link to “{other_title}”",
            undo=lambda s: s.unlink(src, dst, edge_type, scopes=s.scopes()),
            redo=lambda s: s.link(src, dst, edge_type, scopes=s.scopes()),
        )

    def record_unlink(self, src: str, dst: str, edge_type: str, other_title: str) -> None:
        """A link the person removed: undone, it is made again."""
        self._push(
            f"Remove link to “{other_title}”",
            undo=lambda s: s.link(src, dst, edge_type, scopes=s.scopes()),
            redo=lambda s: s.unlink(src, dst, edge_type, scopes=s.scopes()),
        )

    def record_discard(self, item_id: str, what: str) -> None:
        """A capture discarded from the inbox (``what``: its first line): undone, it is back
        in the inbox, open."""
        self._push(
            f"Discard “{what}”",
            undo=lambda s: s.inbox_restore(item_id, scopes=s.scopes()),
            redo=lambda s: s.inbox_discard(item_id, scopes=s.scopes()),
        )

    def record_archive(self, node_id: str, title: str, *, archived: bool) -> None:
        """An archive (``archived``) or an unarchive of ``node_id``."""

        def archive(s: MemoryService) -> Any:
            return s.archive(node_id, scopes=s.scopes())

        def unarchive(s: MemoryService) -> Any:
            return s.unarchive(node_id, scopes=s.scopes())

        verb = "Archive" if archived else "Unarchive"
        undo, redo = (unarchive, archive) if archived else (archive, unarchive)
        self._push(f"{verb} “{title}”", undo=undo, redo=redo)

    def record_edit(
        self,
        old_id: str,
        new_id: str,
        title: str,
        body: str,
        attrs: Mapping[str, Any] | None = None,
    ) -> None:
        """An edit that made ``new_id`` the newer version of ``old_id`` (with ``attrs``
        changed, if it changed any). Its text stays in this command, in memory only, for the
        redo."""
        versions = {"new": new_id}

        def undo(s: MemoryService) -> str:
            s.unrevise(versions["new"], scopes=s.scopes())
            return old_id

        def redo(s: MemoryService) -> str:
            history = s.revise(old_id, title, body, scopes=s.scopes(), attrs=attrs)
            versions["new"] = history.chain[history.position].id
            return versions["new"]

        self._push(f"Edit “{title}”", undo=undo, redo=redo, shows=True)

    def record_merge(self, item_id: str, folded_title: str, kept_title: str) -> None:
        """A merge that settled review item ``item_id``."""

        def undo(s: MemoryService) -> str:
            return s.unmerge(item_id, scopes=s.scopes()).id

        def redo(s: MemoryService) -> str:
            result = s.resolve_duplicate(item_id, "merge", scopes=s.scopes())
            return result.node.id if result.node else ""

        self._push(f"Merge “{folded_title}” into “{kept_title}”", undo=undo, redo=redo, shows=True)

    # -- running ------------------------------------------------------------------------------

    def _push(self, text: str, *, undo: Call, redo: Call, shows: bool = False) -> None:
        self.stack.push(ServiceCommand(self, text, undo, redo, shows))

    def run(self, command: ServiceCommand, call: Call, *, undoing: bool) -> None:
        """Run ``call`` in a worker for ``command``; on failure put the stack back."""
        service = self._session.service
        if service is None:
            return
        self.running = True
        # Called from within the stack's undo or redo, before it moves its index.
        index = self.stack.index() + (-1 if undoing else 1)
        text = command.text()

        def done(result: Any) -> None:
            self.running = False
            if self._session.service is not service:
                return  # locked meanwhile: the stack was cleared with it
            self._session.changed.emit()
            if command.shows and isinstance(result, str) and result:
                self.open_requested.emit(result)
            self.finished.emit()

        def failed(sentence: str) -> None:
            self.running = False
            if self._session.service is not service:
                return
            self._put_back(command, index, undoing=undoing)
            what = "undo" if undoing else "redo"
            self.failed.emit(f"Could not {what} {text}: {sentence}")
            self._session.changed.emit()  # show things as they really are
            self.finished.emit()

        call_in_worker(self, call, service, on_done=done, on_failed=failed)

    def _put_back(self, command: ServiceCommand, index: int, *, undoing: bool) -> None:
        """Move the stack back over ``command`` without running it again; if other acts were
        recorded meanwhile, the stack no longer says what the vault holds: empty it."""
        if self.stack.index() != index or not shiboken6.isValid(command):
            self.stack.clear()
            return
        command.quiet = True
        if undoing:
            self.stack.redo()
        else:
            self.stack.undo()
        command.quiet = False


class ServiceCommand(QUndoCommand):
    """An act already done: ``redo`` and ``undo`` are service calls made in a worker. The
    first ``redo`` (the push) does nothing: the act happened before it was recorded."""

    def __init__(
        self, history: UndoHistory, text: str, undo: Call, redo: Call, shows: bool
    ) -> None:
        super().__init__(text)
        self._history = history
        self._undo, self._redo = undo, redo
        self.shows = shows
        self.quiet = True  # the push's redo

    def redo(self) -> None:
        if self.quiet:
            self.quiet = False
            return
        self._history.run(self, self._redo, undoing=False)

    def undo(self) -> None:
        if self.quiet:
            return
        self._history.run(self, self._undo, undoing=True)
