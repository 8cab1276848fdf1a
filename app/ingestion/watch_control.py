"""The watched folders of one open vault: the list kept in its settings (``watch_list``) and
the one watcher that runs while the window asks (``watching``), started and stopped under a
lock so that a start in a worker and a stop at lock never cross."""

from __future__ import annotations

import threading
from pathlib import Path

from cairn.app.ingestion import watch_list
from cairn.app.ingestion.watch_list import WatchedFolder
from cairn.app.ingestion.watching import BatchSink, FolderWatcher, ProblemSink
from cairn.app.upkeep.scopes import Scopes
from cairn.storage.vault import Vault


class WatchControl:
    def __init__(self, vault: Vault, scopes: Scopes) -> None:
        self._vault = vault
        self._scopes = scopes
        self._watcher: FolderWatcher | None = None
        self._lock = threading.Lock()

    def folders(self) -> list[WatchedFolder]:
        """The folders watched while the vault is open (kept in the vault's settings)."""
        with self._vault.read() as conn:
            return watch_list.read(conn)

    def add(self, path: str | Path, scope: str) -> list[WatchedFolder]:
        """Add a folder whose files go to ``scope``; it takes effect at the next ``start``."""
        self._scopes.checked([scope])
        with self._vault.write() as conn:
            return watch_list.add(conn, path, scope)

    def remove(self, path: str | Path) -> list[WatchedFolder]:
        """Stop watching a folder; what was read from it is kept."""
        with self._vault.write() as conn:
            return watch_list.remove(conn, path)

    def start(
        self,
        on_batch: BatchSink,
        on_problem: ProblemSink,
        *,
        catch_up: bool = True,
        quiet: float | None = None,
        max_wait: float | None = None,
    ) -> list[WatchedFolder]:
        """Watch the vault's folders until ``stop`` (see ``watching``): each batch of changes
        goes to ``on_batch`` on the watcher's thread, which runs it (``MemoryService.ingest(
        batch.folders, changed=batch.changed, ...)``); a folder that cannot be watched goes to
        ``on_problem``. ``catch_up`` first hands over each folder whole, for what changed
        while the vault was closed. Returns the folders watched."""
        timing = {
            name: value
            for name, value in (("quiet", quiet), ("max_wait", max_wait))
            if value is not None
        }
        with self._lock:
            folders = self.folders()
            watcher = FolderWatcher(folders, on_batch, on_problem, vault=self._vault.path, **timing)
            # The new watcher starts before the old one stops, and takes over what the old
            # one had not handed over yet: a change made around a restart (a folder added or
            # removed) is not left for the next unlock.
            watcher.start()
            old, self._watcher = self._watcher, watcher
            if old is not None:
                watcher.carry(old.stop())
            if catch_up:
                watcher.catch_up()
            return watcher.watching

    def stop(self) -> None:
        """Stop the watcher, if one runs: before the vault locks or closes."""
        with self._lock:
            watcher, self._watcher = self._watcher, None
            if watcher is not None:
                watcher.stop()  # what it had not handed over: the next unlock's catch-up finds it
