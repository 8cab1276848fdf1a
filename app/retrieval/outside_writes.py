"""What other programs wrote: whether another program committed to the vault since the last
look (``cairn add``, ``cairn watch run``, an import, the window's own ingest child), so that
the window can show it without being locked and unlocked.

The look is SQLite's data version as the writer connection sees it (``Vault.data_version``):
this program's own writes never change it, so the window does not refresh twice for what it
wrote itself. When it changed, the vector index takes in the vectors the other program stored,
so its memories are found by meaning here at once (a search catches up too; the graph's and
the write gate's neighbours should not have to wait for one).
"""

from __future__ import annotations

import threading

from cairn.app.embedding.space import EmbeddingSpace
from cairn.storage.vault import Vault


class OutsideWrites:
    def __init__(self, vault: Vault, space: EmbeddingSpace) -> None:
        self._vault = vault
        self._space = space
        self._lock = threading.Lock()  # two askers at once would both see one change
        # Taken at open, before the window reads anything: a commit after it is news.
        self._seen = vault.data_version()

    def check(self) -> bool:
        """True once for each time other programs committed since the last check. False while
        this program is writing itself (the question waits for the next check)."""
        with self._lock:
            version = self._vault.data_version()
            if version is None or version == self._seen:
                return False
            self._seen = version
        # While the index loads in the background it reads what is committed by then, and a
        # search catches up with the rest; asking the index now would wait for the load.
        if not self._space.answers_without_vectors():
            with self._vault.read() as conn:
                self._space.catch_up(conn)
        return True
