"""The composition root: the one place that reads configuration and wires vault, pack,
embedder and service together. The CLI, the window and the server receive a ``MemoryService``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from cairn.app.clock import now_iso
from cairn.app.embedding.model import Embedder, default_embedder
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.graphview.views import GraphViews
from cairn.app.ingestion.extraction import ExtractionSettings
from cairn.app.ingestion.note_edits import NoteFileEdits
from cairn.app.ingestion.pipeline import Ingestor
from cairn.app.ingestion.process import ApartRuns, ServiceFactory
from cairn.app.ingestion.watch_control import WatchControl
from cairn.app.packs import DEFAULT_PACK, Pack
from cairn.app.portability import leftovers
from cairn.app.portability.leftovers import ExportLedger
from cairn.app.portability.transfers import Transfers
from cairn.app.process import diagnostic_log
from cairn.app.retrieval.outside_writes import OutsideWrites
from cairn.app.retrieval.recall import Recall
from cairn.app.service import MemoryService
from cairn.app.upkeep import receipts, sentinel_node
from cairn.app.upkeep.maintenance import Upkeep
from cairn.app.upkeep.sample_vault import SampleVault
from cairn.app.upkeep.scopes import Scopes
from cairn.app.upkeep.tokens import Tokens
from cairn.app.writing.history import HistoryKeeper
from cairn.app.writing.inbox import Inbox
from cairn.app.writing.review import Review
from cairn.app.writing.revisions import Revisions
from cairn.app.writing.writer import Writer
from cairn.storage import records
from cairn.storage.vault import Vault

APP_NAME = "cairn"
DEFAULT_SCOPE = "personal"


@dataclass(frozen=True)
class Config:
    """Where things live. Environment variables win so tests and scripts can redirect them."""

    data_dir: Path

    @classmethod
    def from_environment(cls) -> Config:
        data = os.environ.get("CAIRN_DATA_DIR") or platformdirs.user_data_dir(APP_NAME)
        return cls(Path(data))

    @property
    def default_vault(self) -> Path:
        return self.data_dir / "vault.cairn"

    @property
    def log_file(self) -> Path:
        """The diagnostic log (``diagnostic_log``): faults, timings, versions; no memory."""
        return diagnostic_log.path_in(self.data_dir)

    @property
    def export_ledger(self) -> ExportLedger:
        """Where exports in progress record their staging folders (``leftovers``)."""
        return ExportLedger(self.data_dir / leftovers.FOLDER)

    def ensure_data_dir(self) -> Path:
        # 0700: the data dir holds the vault and nothing in it is anyone else's business.
        return private_dir(self.data_dir)


def start_log(role: str, *, qt: str | None = None) -> Path:
    """This process's records go to the diagnostic log in the data folder (made with the
    first record, 0600 in a 0700 folder): the command line's and the window's mains call
    this first. The ingest child and the extraction worker, which may not import this
    module, start theirs on the data folder they are handed (``ExtractionSettings``)."""
    path = Config.from_environment().log_file
    diagnostic_log.start(path.parent, role, qt=qt)
    return path


def sweep_unfinished_exports() -> list[leftovers.Swept]:
    """Remove what exports that were killed left in their staging folders (every command
    and the window call this at start, and tell the person what went)."""
    return Config.from_environment().export_ledger.sweep()


def private_dir(path: Path) -> Path:
    """``path`` as a folder, made owner-only (0700) if this call creates it. A folder that
    exists keeps its mode: it may be one the user chose and shares on purpose (``cairn
    doctor`` says when it is looser than 0700)."""
    if not path.is_dir():
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.chmod(0o700)  # mkdir's mode is narrowed by the umask, so set it exactly
    return path


def window_preferences_path() -> Path:
    """The window's machine preferences (``ui/base/preferences.py``): recent vaults, OCR
    languages, the Whisper folder... An INI file in the platform's config folder."""
    return Path(platformdirs.user_config_dir(APP_NAME)) / "desktop.ini"


def create_vault(
    path: Path,
    passphrase: str,
    *,
    pack: Pack | None = None,
    embedder: Embedder | None = None,
    with_embedder: bool = True,
) -> MemoryService:
    """Create a new vault with a pack and the default scope, and return its service."""
    if with_embedder and embedder is None:
        embedder = default_embedder()  # fail before creating a file if the model is broken
    vault = new_vault(path, passphrase, pack=pack)
    try:
        return service_for(vault, embedder)
    except BaseException:
        vault.close()
        raise


def new_vault(path: Path, passphrase: str, *, pack: Pack | None = None) -> Vault:
    """Create a new vault file with a pack (the personal one by default), the default scope
    and the engine's sentinel; ``service_for`` then gives its service."""
    pack = pack or Pack.bundled(DEFAULT_PACK)
    vault = Vault.create(path, passphrase)
    try:
        with vault.write() as conn:
            pack.install(conn)
            records.set_setting(conn, "pack", {"name": pack.name, "version": pack.version})
            records.set_setting(conn, "created_at", now_iso())
            records.add_scope(conn, DEFAULT_SCOPE, now_iso())
            sentinel_node.add(conn, pack)
            receipts.append(conn, "create", {})
    except BaseException:
        vault.close()
        raise
    return vault


def open_vault(
    path: Path,
    passphrase: str,
    *,
    embedder: Embedder | None = None,
    with_embedder: bool = True,
    load_embedder: Callable[[], Embedder] = default_embedder,
    vectors_in_background: bool = False,
) -> MemoryService:
    """Open an existing vault; the embedder defaults to the bundled one, made by
    ``load_embedder`` (``serving_embedder`` for the graph server). ``vectors_in_background``
    returns before the vector index is loaded: searches answer from the words alone until it
    is, and say so (the window, whose first search should not wait for every vector).

    The model loads on a worker while the key is derived and the file opened: both take about
    half a second, and neither waits for the other.
    """
    with diagnostic_log.timed("open"), ThreadPoolExecutor(max_workers=1) as pool:
        loading = pool.submit(load_embedder) if with_embedder and embedder is None else None
        vault = Vault.open(path, passphrase)
        try:
            if loading is not None:
                embedder = loading.result()
            return service_for(vault, embedder, vectors_in_background=vectors_in_background)
        except BaseException:
            vault.close()
            raise


def service_for(
    vault: Vault,
    embedder: Embedder | None,
    extraction: ExtractionSettings | None = None,
    vectors_in_background: bool = False,
) -> MemoryService:
    """The service of a vault already open (also a helper process's: see
    ``ingestion.process``, which is handed this function to build its own). ``extraction``
    defaults to the settings of the configured data folder."""
    if extraction is None:
        extraction = ExtractionSettings(data_dir=str(Config.from_environment().data_dir))
    with vault.read() as conn:
        meta = records.get_setting(conn, "pack", {"name": DEFAULT_PACK, "version": 0})
    _upgrade_bundled_pack(vault, meta)
    with vault.read() as conn:
        meta = records.get_setting(conn, "pack", meta)
        pack = Pack.from_vault(conn, meta["name"], meta["version"])
    sentinel_node.ensure(vault, pack)  # a vault made before the sentinel existed
    space = EmbeddingSpace(vault, embedder, load_in_background=vectors_in_background)
    exports = Config.from_environment().export_ledger
    return wire(vault, pack, space, extraction, open_in_child=service_for, exports=exports)


def wire(
    vault: Vault,
    pack: Pack,
    space: EmbeddingSpace,
    extraction: ExtractionSettings,
    *,
    open_in_child: ServiceFactory | None = None,
    exports: ExportLedger | None = None,
) -> MemoryService:
    """The service's collaborators, each given what it needs, behind the one facade.
    ``open_in_child`` builds the service of the vault a child process opens, for runs apart
    (``ingest(separate_process=True)``); without it such a run is refused. ``exports``
    records where an export stages its plaintext (``portability.leftovers``); without it an
    export is refused."""
    scopes = Scopes(vault)
    writer = Writer(vault, pack, space)
    retention = writer.retention  # the supervisor: labels, uses, its pass, log
    review = Review(vault, pack, space, writer)
    history = HistoryKeeper(vault, pack, space)
    recall = Recall(vault, pack, space, scopes, retention)
    upkeep = Upkeep(vault, pack, space)
    return MemoryService(
        vault=vault,
        pack=pack,
        space=space,
        scopes=scopes,
        writer=writer,
        review=review,
        history=history,
        revisions=Revisions(writer, history, recall, NoteFileEdits(writer, history, space)),
        recall=recall,
        outside_writes=OutsideWrites(vault, space),
        inbox=Inbox(vault, writer),
        graph_views=GraphViews(vault, pack, recall),
        ingestor=Ingestor(vault, pack, space, writer, history, extraction),
        extraction=extraction,
        apart_runs=ApartRuns(open_in_child) if open_in_child else None,
        watch=WatchControl(vault, scopes),
        upkeep=upkeep,
        transfers=Transfers(vault, pack, space, scopes, upkeep, exports),
        tokens=Tokens(vault, scopes),
        retention=retention,
        sample=SampleVault(vault, pack, space, writer, history),
    )


def _upgrade_bundled_pack(vault: Vault, meta: dict[str, Any]) -> None:
    """Install a newer version of the vault's bundled pack. Pack versions only add (types,
    attributes, rules, status words), so every row already stored stays valid."""
    try:
        bundled = Pack.bundled(meta["name"])
    except FileNotFoundError:
        return  # a pack of the user's own: upgraded by the user
    if bundled.version <= meta["version"]:
        return
    with vault.write() as conn:
        bundled.install(conn)
        records.set_setting(conn, "pack", {"name": bundled.name, "version": bundled.version})
