"""The one door of the engine for its faces: the window (``ui/``), the CLI and the graph server
import what they use of ``cairn.app`` from here, and nothing else of it.

What is here is the contract a face may rely on: the service and the values it answers with,
the errors it raises, how a vault is opened or made, and the few constants a face shows (port
bounds, graph caps). Everything else in ``cairn.app`` may be reorganised without a face noticing;
``tests/test_architecture.py`` pins that faces come in through this door.
"""

from __future__ import annotations

from cairn.app.compose import (
    Config,
    create_vault,
    open_vault,
    private_dir,
    start_log,
    sweep_unfinished_exports,
    window_preferences_path,
)
from cairn.app.errors import CairnError, InvalidRequest, WrongPassphrase
from cairn.app.graphview.data import EGO_DEPTH, OVERVIEW_NODE_CAP, TooManyNodes, ViewGraph
from cairn.app.ingestion.extraction import installed_ocr_languages, source_path
from cairn.app.ingestion.report import CancelToken, FileOutcome, IngestProgress, IngestReport
from cairn.app.ingestion.request import IngestRequest
from cairn.app.ingestion.shapes import clock
from cairn.app.ingestion.watch_list import WatchedFolder
from cairn.app.ingestion.watching import WatchBatch
from cairn.app.memory_settings import SETTINGS
from cairn.app.models import (
    FILTER_KINDS,
    SHELVED_STATUSES,
    VISIBLE_STATUSES,
    AwaitingReview,
    DocumentRef,
    EdgeCounts,
    EdgeSummary,
    Forgotten,
    History,
    InboxItem,
    LinkResult,
    MemoryPreview,
    Node,
    NodeDetail,
    RecentItem,
    ReviewItem,
    SearchFilter,
    SearchHit,
    SearchResponse,
    StubToEnrich,
    TrackedFile,
    VaultStats,
    WriteResult,
)
from cairn.app.packs import LAYERS, AttrSpec, NodeType, Pack
from cairn.app.portability.exporting import PLAINTEXT_WARNING, ExportReport
from cairn.app.portability.leftovers import Swept
from cairn.app.process.diagnostic_log import fault as log_fault
from cairn.app.process.diagnostic_log import with_the_log
from cairn.app.process.privacy import protect as protect_process
from cairn.app.retention.supervisor import PassReport, Proposal
from cairn.app.retrieval.grouping import ResultGroup, group_hits, section_place
from cairn.app.server.control import MAX_PORT, MIN_PORT, WINDOW_HOST, ServerControl, ServerState
from cairn.app.server.http_server import DEFAULT_PORT
from cairn.app.service import MemoryService
from cairn.app.text.note_markup import for_reading as reading_markdown
from cairn.app.text.note_markup import link_target
from cairn.app.text.shelves import DOCUMENT, NOTE, SECTION, is_note_file, shelf_of
from cairn.app.text.snippets import BOOKKEEPING_ATTRS
from cairn.app.text.snippets import readable as readable_snippet
from cairn.app.upkeep.backups import CopyResult
from cairn.app.upkeep.sample_vault import SampleAdded, SampleRemoved
from cairn.app.upkeep.tokens import NAME_MAX, Token

__all__ = [
    "BOOKKEEPING_ATTRS",
    "DEFAULT_PORT",
    "DOCUMENT",
    "EGO_DEPTH",
    "FILTER_KINDS",
    "LAYERS",
    "MAX_PORT",
    "MIN_PORT",
    "NAME_MAX",
    "NOTE",
    "OVERVIEW_NODE_CAP",
    "PLAINTEXT_WARNING",
    "SECTION",
    "SETTINGS",
    "SHELVED_STATUSES",
    "VISIBLE_STATUSES",
    "WINDOW_HOST",
    "AttrSpec",
    "AwaitingReview",
    "CairnError",
    "CancelToken",
    "Config",
    "CopyResult",
    "DocumentRef",
    "EdgeCounts",
    "EdgeSummary",
    "ExportReport",
    "FileOutcome",
    "Forgotten",
    "History",
    "InboxItem",
    "IngestProgress",
    "IngestReport",
    "IngestRequest",
    "InvalidRequest",
    "LinkResult",
    "MemoryPreview",
    "MemoryService",
    "Node",
    "NodeDetail",
    "NodeType",
    "Pack",
    "PassReport",
    "Proposal",
    "RecentItem",
    "ResultGroup",
    "ReviewItem",
    "SampleAdded",
    "SampleRemoved",
    "SearchFilter",
    "SearchHit",
    "SearchResponse",
    "ServerControl",
    "ServerState",
    "StubToEnrich",
    "Swept",
    "Token",
    "TooManyNodes",
    "TrackedFile",
    "VaultStats",
    "ViewGraph",
    "WatchBatch",
    "WatchedFolder",
    "WriteResult",
    "WrongPassphrase",
    "clock",
    "create_vault",
    "group_hits",
    "installed_ocr_languages",
    "is_note_file",
    "link_target",
    "log_fault",
    "open_vault",
    "private_dir",
    "protect_process",
    "readable_snippet",
    "reading_markdown",
    "section_place",
    "shelf_of",
    "source_path",
    "start_log",
    "sweep_unfinished_exports",
    "window_preferences_path",
    "with_the_log",
]
