"""A vault's memories out as plaintext files (``cairn export``) and a JSON Lines export back
in (``cairn import``), for the service: the scopes checked, the ledger of staging folders
handed down, and an import's vectors rebuilt as a reindex."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest
from cairn.app.packs import Pack
from cairn.app.portability import exporting, jsonl_import
from cairn.app.portability.leftovers import ExportLedger
from cairn.app.upkeep.maintenance import Upkeep
from cairn.app.upkeep.scopes import Scopes
from cairn.storage.vault import Vault


class Transfers:
    def __init__(
        self,
        vault: Vault,
        pack: Pack,
        space: EmbeddingSpace,
        scopes: Scopes,
        upkeep: Upkeep,
        ledger: ExportLedger | None,
    ) -> None:
        """Without a ``ledger`` (where an export stages its plaintext) an export is refused."""
        self._vault = vault
        self._pack = pack
        self._space = space
        self._scopes = scopes
        self._upkeep = upkeep
        self._ledger = ledger

    def export(
        self,
        dest: Path | str,
        *,
        format: str,
        scopes: Sequence[str] | None = None,
        progress: exporting.Progress | None = None,
    ) -> exporting.ExportReport:
        """Write the memories of ``scopes`` (default: every scope) as plaintext files into
        the new folder ``dest``: ``markdown`` (a notes folder) or ``jsonl`` (everything, for
        ``import_jsonl``). Owner-only files; the vault is only read. ``progress(done, total)``
        counts memories."""
        if self._ledger is None:
            raise InvalidRequest("This service has no place to record an export in progress.")
        everything = self._scopes.names()
        chosen = self._scopes.checked(scopes) if scopes is not None else everything
        return exporting.export(
            self._vault,
            self._pack,
            self._space.identity,
            Path(dest),
            format,
            chosen,
            whole=set(chosen) >= set(everything),
            ledger=self._ledger,
            progress=progress,
        )

    def import_jsonl(
        self,
        path: Path | str,
        *,
        progress: Callable[[int], None] | None = None,
        embed_progress: Callable[[int, int], None] | None = None,
    ) -> jsonl_import.ImportReport:
        """Restore a JSON Lines export into this vault, which must hold no memories yet: all
        of it in one transaction or nothing, then every memory embedded (as ``reindex``).
        A vault that already holds this very file's import (a run stopped while embedding)
        only has its embedding finished (``report.resumed``). A pack the file brings with
        types this vault lacks is in use from the next open."""
        report = jsonl_import.restore(self._vault, self._space, Path(path), progress)
        report.embedded = self._upkeep.rebuild_vectors(embed_progress)
        return report
