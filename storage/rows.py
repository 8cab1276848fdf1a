"""The shapes of the rows that leave ``storage``: a node as ``graph_rows`` reads it, whole or
as its head (the columns a search needs before it knows which hits it shows). Typed, so that a
misspelt column is an error where it is read, not a ``KeyError`` at run time.

``attrs`` and ``locator`` are JSON text as stored (``app.models.Node`` decodes them).
"""

from __future__ import annotations

from typing import TypedDict


class Validity(TypedDict):
    """When a memory held: from ``valid_from`` (else when it was recorded) until ``valid_to``."""

    valid_from: str | None
    valid_to: str | None
    recorded_at: str


class NodeIdentity(TypedDict):
    """What names a node and where it stands: shared by every row that carries one."""

    seq: int
    id: str
    type: str
    title: str
    status: str
    scope: str


class HeadRow(NodeIdentity, Validity):
    source: str | None
    updated_at: str


class EdgeCore(TypedDict):
    seq: int
    src: str
    dst: str
    type: str
    layer: str
    rationale: str | None
    created_at: str


class EdgeRow(EdgeCore):
    valid_from: str | None
    valid_to: str | None


class TouchingEdgeRow(EdgeCore):
    """An edge seen from one of its ends (``near_id``): what is at the other end, and which
    way it points (``direction`` 'out' when the near end is the source)."""

    direction: str
    near_id: str
    other_id: str
    other_type: str
    other_title: str
    other_status: str
    other_valid_from: str | None
    other_valid_to: str | None
    other_recorded_at: str


class ReviewItemRow(TypedDict):
    """A decision waiting for the person (``dedup_rows``); ``flags`` is JSON text as stored."""

    id: str
    kind: str  # duplicate, label_conflict or revive_candidate
    node_id: str
    other_id: str
    score: float | None
    reason: str
    flags: str
    state: str  # open or resolved
    decision: str | None
    created_at: str
    decided_at: str | None


class TokenRow(TypedDict):
    """A bearer token of the graph server as stored: its secret's hash, never the secret;
    ``scopes`` is JSON text."""

    id: str
    name: str
    secret_sha256: str
    created_at: str
    scopes: str
    revoked_at: str | None


class InboxRow(TypedDict):
    """A quick capture waiting in the inbox, or what became of it."""

    id: str
    text: str
    scope: str
    captured_at: str
    state: str  # open, promoted or discarded
    node_id: str | None
    decided_at: str | None


class AddendumRow(TypedDict):
    """What a memory absorbed or had merged into it, kept beside its own text."""

    node_id: str
    text: str
    origin: str  # absorbed or merged
    source: str | None
    recorded_at: str


class ReceiptRow(TypedDict):
    """One link of the hash chain; ``counts`` is JSON text as stored."""

    seq: int
    at: str
    kind: str
    counts: str
    prev_hash: str
    hash: str


class StubRow(TypedDict):
    """A stub (a name linked to but not yet described) and how many edges it has."""

    id: str
    type: str
    title: str
    degree: int


class SourceRow(TypedDict):
    """A file the vault keeps track of (``source_rows``); ``warnings`` decoded from JSON."""

    path: str
    scope: str
    state: str  # ingested, failed, duplicate or missing
    sha256: str | None
    size: int | None
    mtime_ns: int | None
    media_type: str | None
    document_id: str | None
    passages: int
    warnings: list[str]
    error: str | None
    first_seen: str
    updated_at: str
    path_bytes: bytes | None  # the name's bytes when it is not valid UTF-8


class NodeRow(HeadRow):
    body: str
    attrs: str
    locator: str | None
    importance: float
    stability: float
    last_access: str | None
    access_count: int
    retention_label: str | None


class DueRow(NodeRow):
    """A node with a date attribute that falls due (``graph_rows.due_before``)."""

    due: str


class NameRow(NodeIdentity):
    """An entity's name in the name index, with the node that carries it."""

    norm: str
    kind: str


class EmbedRow(TypedDict):
    """What embedding a node needs of it (``vectors.nodes_to_embed``)."""

    seq: int
    id: str
    title: str
    body: str
    attrs: str
    scope: str
    status: str


class SpaceRow(TypedDict):
    name: str
    dim: int
    state: str  # building or ready
    vectors: int


class DecisionRow(TypedDict):
    """One line of the dedup log; ``flags`` decoded from JSON."""

    at: str
    node_id: str | None
    candidate_id: str | None
    outcome: str
    score: float | None
    jaccard: float | None
    reason: str
    flags: list[str]


class RetentionEntryRow(TypedDict):
    """One line of the retention log, with the title and type of its memory."""

    seq: int
    at: str
    node_id: str
    title: str
    type: str
    action: str
    label: str | None
    actor: str
    reason: str


class NeighbourRow(TypedDict):
    """A node reached over one edge of a layer (``graph_rows.neighbours_by_layer``)."""

    position: int  # which of the asked nodes it neighbours
    seq: int
    id: str
    edge_seq: int
