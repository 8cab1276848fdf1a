"""The upkeep half of ``MemoryService``: the vault itself rather than what it remembers.
Scopes and settings, the vector index, statistics and checks, the receipt chain, backups and
the passphrase, the graph server's tokens, and the retention supervisor's verbs (its pass, its
proposals, archive or keep, its log). ``MemoryService`` inherits these, so callers still reach
one facade; the split keeps each file small.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cairn.app import memory_settings
from cairn.app.clock import now_iso
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import SCOPE_NAME, SCOPE_RULE, InvalidRequest, UnknownScope
from cairn.app.ingestion import watch_list
from cairn.app.ingestion.watch_list import WatchedFolder
from cairn.app.ingestion.watching import BatchSink, FolderWatcher, ProblemSink
from cairn.app.models import PackName, SpaceCount, VaultStats, VerifyReport
from cairn.app.packs import Pack
from cairn.app.portability import exporting, jsonl_import
from cairn.app.portability.leftovers import ExportLedger
from cairn.app.retention.supervisor import PassReport, Proposal, Retention
from cairn.app.upkeep import backups, receipts, tokens
from cairn.app.upkeep.tokens import Token
from cairn.storage import fulltext, graph_rows, records, sentinel, vectors
from cairn.storage.rows import RetentionEntryRow
from cairn.storage.vault import Vault


class VaultUpkeep:
    """Set up by ``MemoryService.__init__``."""

    _vault: Vault
    _pack: Pack
    _space: EmbeddingSpace
    _retention: Retention
    _watcher: FolderWatcher | None
    _watch_lock: threading.Lock  # a start in a worker and a stop at lock never cross
    _exports: ExportLedger | None

    # -- scopes and settings ------------------------------------------------------------------

    def scopes(self) -> list[str]:
        with self._vault.read() as conn:
            return records.scope_names(conn)

    def settings(self) -> dict[str, Any]:
        """The vault's memory settings (dedup bands, resolver mode, tag anchoring)."""
        with self._vault.read() as conn:
            return memory_settings.as_dict(conn)

    def change_setting(self, name: str, value: Any) -> dict[str, Any]:
        with self._vault.write() as conn:
            memory_settings.write(conn, name, value)
            return memory_settings.as_dict(conn)

    def add_scope(self, name: str) -> bool:
        """Create a scope; False if it existed."""
        if not SCOPE_NAME.match(name):
            raise InvalidRequest(f"A scope name is {SCOPE_RULE}; {name!r} is not.")
        if name == sentinel.ENGINE_SCOPE:
            raise InvalidRequest(f"The scope name {name!r} is Cairn's own; choose another.")
        with self._vault.write() as conn:
            return records.add_scope(conn, name, now_iso())

    # -- watched folders ----------------------------------------------------------------------

    def watched_folders(self) -> list[WatchedFolder]:
        """The folders watched while the vault is open (kept in the vault's settings)."""
        with self._vault.read() as conn:
            return watch_list.read(conn)

    def watch_folder(self, path: str | Path, *, scope: str = "personal") -> list[WatchedFolder]:
        """Add a folder to watch; its files go to ``scope``. Takes effect at the next
        ``start_watching`` (the window restarts its watcher)."""
        self._scopes([scope])
        with self._vault.write() as conn:
            return watch_list.add(conn, path, scope)

    def unwatch_folder(self, path: str | Path) -> list[WatchedFolder]:
        """Stop watching a folder; what was read from it is kept."""
        with self._vault.write() as conn:
            return watch_list.remove(conn, path)

    def start_watching(
        self,
        on_batch: BatchSink,
        on_problem: ProblemSink,
        *,
        catch_up: bool = True,
        quiet: float | None = None,
        max_wait: float | None = None,
    ) -> list[WatchedFolder]:
        """Watch the vault's folders until ``stop_watching`` or ``close`` (see
        ``ingestion.watching``): each batch of changes goes to ``on_batch`` on the watcher's
        thread, which runs it (``ingest(batch.folders, changed=batch.changed, ...)``); a
        folder that cannot be watched goes to ``on_problem``. ``catch_up`` first hands over
        each folder whole, for what changed while the vault was closed. Returns the folders
        watched."""
        timing = {
            name: value
            for name, value in (("quiet", quiet), ("max_wait", max_wait))
            if value is not None
        }
        with self._watch_lock:
            folders = self.watched_folders()
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

    def stop_watching(self) -> None:
        """Stop the watcher, if one runs: before the vault locks or closes."""
        with self._watch_lock:
            self._stop_watcher()

    def _stop_watcher(self) -> None:
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.stop()  # what it had not handed over: the next unlock's catch-up finds it

    # -- embeddings ---------------------------------------------------------------------------

    @property
    def vector_search_ready(self) -> bool:
        return self._space.ready

    @property
    def vectors_loading(self) -> bool:
        """The vector index is still loading in the background (see ``compose.open_vault``)."""
        return self._space.loading

    def wait_for_vectors(self) -> None:
        self._space.wait_until_loaded()

    def rebuild_vectors(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every memory lacking a vector in the active space; turns vector search on."""
        count = self._space.rebuild(progress)
        with self._vault.write() as conn:
            receipts.append(conn, "reindex", {"nodes": count})
        return count

    # -- the vault ----------------------------------------------------------------------------

    def stats(self, *, scopes: Sequence[str]) -> VaultStats:
        chosen = self._scopes(scopes)
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

    def backup(self, dest: Path | str, *, overwrite: bool = False) -> backups.CopyResult:
        """A consistent encrypted copy of the vault at ``dest`` while it stays open, checked
        before it takes its name (see ``app.backup``)."""
        return backups.backup(self._vault, Path(dest), overwrite=overwrite)

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
        if self._exports is None:
            raise InvalidRequest("This service has no place to record an export in progress.")
        everything = self.scopes()
        chosen = self._scopes(scopes) if scopes is not None else everything
        return exporting.export(
            self._vault,
            self._pack,
            self._space.identity,
            Path(dest),
            format,
            chosen,
            whole=set(chosen) >= set(everything),
            ledger=self._exports,
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
        report.embedded = self.rebuild_vectors(embed_progress)
        return report

    def change_passphrase(self, new_passphrase: str) -> None:
        if not new_passphrase:
            raise InvalidRequest("The new passphrase is empty.")
        self._vault.change_passphrase(new_passphrase)
        with self._vault.write() as conn:
            receipts.append(conn, "rekey", {})

    def _scopes(self, scopes: Sequence[str]) -> list[str]:
        """The scopes a call names, each of which must exist (a typo is not an empty vault)."""
        chosen = _listed(scopes)
        known = self.scopes()
        for name in chosen:
            if name not in known:
                raise UnknownScope(name, known)
        return chosen

    # -- the graph server's tokens ------------------------------------------------------------

    def create_token(self, scopes: Sequence[str], *, name: str = "") -> tuple[Token, str]:
        """A bearer token that reads ``scopes`` (each must exist), and its secret: shown once,
        never kept."""
        return tokens.create(self._vault, scopes, self.scopes(), name=name)

    def list_tokens(self) -> list[Token]:
        return tokens.listed(self._vault)

    def revoke_token(self, token_id: str) -> Token:
        return tokens.revoke(self._vault, token_id)

    def verify_token(self, secret: str) -> Token | None:
        """The live token whose secret this is, or None."""
        return tokens.verify(self._vault, secret)

    def any_live_token(self) -> bool:
        return tokens.any_live(self._vault)

    # -- the retention supervisor -------------------------------------------------------------

    def run_retention(self, *, dry_run: bool = False, now: str | None = None) -> PassReport:
        """The supervisor's pass: label what is not yet labelled, then archive (or, as the
        settings say, propose) the ephemeral memories that have faded."""
        return self._retention.run(dry_run=dry_run, now=now)

    def retention_proposals(
        self, *, scopes: Sequence[str], now: str | None = None
    ) -> list[Proposal]:
        """The faded ephemeral memories the supervisor proposes to archive."""
        return self._retention.proposals(self._scopes(scopes), now)

    def archive_proposal(self, node_id: str, *, scopes: Sequence[str]) -> None:
        """Archive a proposed memory (the person agreed); reversible with ``unarchive``."""
        self._retention.archive(node_id, self._scopes(scopes))

    def keep(self, node_id: str, *, scopes: Sequence[str]) -> None:
        """The person wants it kept: it counts as used and is no longer ephemeral."""
        self._retention.keep(node_id, self._scopes(scopes))

    def retention_log(
        self, *, scopes: Sequence[str], node_id: str | None = None, limit: int = 100
    ) -> list[RetentionEntryRow]:
        """What the supervisor and the person did, newest first."""
        return self._retention.log(self._scopes(scopes), node_id=node_id, limit=limit)


def _listed(scopes: Sequence[str]) -> list[str]:
    if isinstance(scopes, str):
        raise InvalidRequest("Scopes are a list of names, not one string.")
    chosen = list(dict.fromkeys(scopes))
    if not chosen:
        raise InvalidRequest("A read must name at least one scope it may see.")
    return chosen
