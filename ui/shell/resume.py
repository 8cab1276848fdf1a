"""After an unlock the window comes back as it was: the search text, the library's filter, the
selected result, the memory open in the detail pane (and the graph around it), and the last
ingest run with its summary.

What it was is taken from the panels just before the vault locks (``about_to_lock``, while
they still show it) and kept here, in memory only: never in the preferences or any file, and
never shown on the unlock screen, which shows no memory text. An unlock of the same vault puts
it back; unlocking another vault drops it, and that vault starts clean.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject

from cairn.ui.base.session import Session
from cairn.ui.ingest.panel import IngestView
from cairn.ui.search.panel import SearchView
from cairn.ui.shell.workspace import Workspace


@dataclass(frozen=True)
class KeptWindow:
    """The window of one vault as it was when the vault locked."""

    vault: Path
    search: SearchView
    open_node: str | None
    ingest: IngestView


class Resume(QObject):
    def __init__(self, session: Session, workspace: Workspace, parent: QObject | None = None):
        super().__init__(parent)
        self._session = session
        self._workspace = workspace
        self._kept: KeptWindow | None = None
        # Connected after the panels: they forget at the lock and fill themselves at the
        # unlock first, and this puts back what they showed on top.
        session.about_to_lock.connect(self._keep)
        session.unlocked.connect(self._restore)

    @property
    def kept(self) -> KeptWindow | None:
        """What is kept while the vault is locked (None when nothing is)."""
        return self._kept

    def forget(self) -> None:
        """Drop what is kept: the next unlock starts clean (the window closes)."""
        self._kept = None

    def _keep(self) -> None:
        vault = self._session.path
        if vault is None:
            return
        workspace = self._workspace
        self._kept = KeptWindow(
            vault,
            workspace.search.view(),
            workspace.detail.wanted_node_id,
            workspace.ingest.view(),
        )

    def _restore(self, _service: object) -> None:
        kept, self._kept = self._kept, None
        if kept is None or not _same_file(kept.vault, self._session.path):
            return  # another vault: it starts clean
        workspace = self._workspace
        workspace.library.restore(kept.search.filter)
        workspace.search.restore(kept.search)
        if kept.open_node is not None:
            workspace.detail.show_node(kept.open_node, use=False)
            workspace.graph.show_ego(kept.open_node)
        workspace.ingest.restore(kept.ingest)


def _same_file(kept: Path, opened: Path | None) -> bool:
    if opened is None:
        return False
    return kept == opened or kept.expanduser().resolve() == opened.expanduser().resolve()
