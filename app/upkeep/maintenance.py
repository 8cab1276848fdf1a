"""The vault itself rather than what it remembers: its memory settings, statistics and checks,
the receipt chain, backups, the passphrase and the rebuild of the vector index."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cairn.app import memory_settings
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest
from cairn.app.models import SHELVED_STATUSES, PackName, SpaceCount, VaultStats, VerifyReport
from cairn.app.packs import Pack
from cairn.app.text import shelves
from cairn.app.upkeep import backups, receipts
from cairn.storage import fulltext, graph_rows, records, shelf_rows, vectors
from cairn.storage.vault import Vault


class Upkeep:
    def __init__(self, vault: Vault, pack: Pack, space: EmbeddingSpace) -> None:
        self._vault = vault
        self._pack = pack
        self._space = space

    # -- settings -----------------------------------------------------------------------------

    def settings(self) -> dict[str, Any]:
        """The vault's memory settings (dedup bands, resolver mode, tag anchoring)."""
        with self._vault.read() as conn:
            return memory_settings.as_dict(conn)

    def change_setting(self, name: str, value: Any) -> dict[str, Any]:
        with self._vault.write() as conn:
            memory_settings.write(conn, name, value)
            return memory_settings.as_dict(conn)

    # -- statistics and checks ----------------------------------------------------------------

    def stats(self, chosen: Sequence[str]) -> VaultStats:
        """What the vault holds in the scopes ``chosen`` (checked by the caller)."""
        with self._vault.read() as conn:
            # Vector counts span every scope: shown only to a caller that sees all.
            sees_all = set(chosen) >= set(records.scope_names(conn))
            return VaultStats(
                vault=str(self._vault.path),
                file_bytes=self._vault.file_size(),
                pack=PackName(self._pack.name, self._pack.version),
                nodes_by_type=graph_rows.counts_by(conn, "type", chosen),
                nodes_by_status=graph_rows.counts_by(conn, "status", chosen),
                nodes_by_scope=graph_rows.counts_by(conn, "scope", chosen),
                edges=graph_rows.edge_count(conn, chosen),
                embedder=self._space.identity,
                vector_search=self._space.ready,
                embedding_spaces=[
                    SpaceCount(
                        space["name"],
                        space["dim"],
                        space["state"],
                        space["vectors"] if sees_all else None,
                    )
                    for space in vectors.spaces(conn)
                ],
                receipts=records.receipt_count(conn),
                shelves=shelves.fold(
                    shelf_rows.counts_by_type_and_media(conn, chosen, SHELVED_STATUSES)
                ),
            )

    def verify(self) -> VerifyReport:
        """The file's integrity checks, the receipt chain, and index consistency."""
        problems = self._vault.integrity_problems()
        with self._vault.read() as conn:
            chain = receipts.verify(records.receipts(conn)).as_dict()
            node_count = graph_rows.node_count(conn)
            indexed = fulltext.indexed_count(conn)
        index_problems = []
        if indexed != node_count:
            index_problems.append(
                f"the full-text index holds {indexed} entries for {node_count} memories"
            )
        return VerifyReport(problems, chain, index_problems)

    # -- the receipt chain --------------------------------------------------------------------

    def export_receipts(self) -> receipts.ChainExport:
        """The receipt chain's head hash and count (kept elsewhere, they later prove history
        was only appended to) and its content-free receipts; not ok if the chain is broken."""
        with self._vault.read() as conn:
            return receipts.export(records.receipts(conn))

    def verify_receipts(
        self, *, head: str | None = None, count: int | None = None
    ) -> receipts.ChainReport:
        """Walk the receipt chain; with an exported ``head`` and ``count``, also check that
        receipt number ``count`` still has hash ``head`` (see ``receipts.verify_against``)."""
        expected = receipts.exported(head, count)
        with self._vault.read() as conn:
            rows = records.receipts(conn)
        return (
            receipts.audit(rows) if expected is None else receipts.verify_against(rows, *expected)
        )

    # -- the file -----------------------------------------------------------------------------

    def backup(self, dest: Path | str, *, overwrite: bool = False) -> backups.CopyResult:
        """A consistent encrypted copy of the vault at ``dest`` while it stays open, checked
        before it takes its name (see ``app.backups``)."""
        return backups.backup(self._vault, Path(dest), overwrite=overwrite)

    def change_passphrase(self, new_passphrase: str) -> None:
        if not new_passphrase:
            raise InvalidRequest("The new passphrase is empty.")
        self._vault.change_passphrase(new_passphrase)
        with self._vault.write() as conn:
            receipts.append(conn, "rekey", {})

    def rebuild_vectors(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every memory lacking a vector in the active space; turns vector search on."""
        count = self._space.rebuild(progress)
        with self._vault.write() as conn:
            receipts.append(conn, "reindex", {"nodes": count})
        return count
