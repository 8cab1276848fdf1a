"""The shapes of the rows that leave ``storage``: a node as ``graph_rows`` reads it, whole or
as its head (the columns a search needs before it knows which hits it shows). Typed, so that a
misspelt column is an error where it is read, not a ``KeyError`` at run time.

``attrs`` and ``locator`` are JSON text as stored (``app.models.Node`` decodes them).
"""

from __future__ import annotations

from typing import TypedDict


class HeadRow(TypedDict):
    seq: int
    id: str
    type: str
    title: str
    status: str
    scope: str
    source: str | None
    valid_from: str | None
    valid_to: str | None
    recorded_at: str
    updated_at: str


class NodeRow(HeadRow):
    body: str
    attrs: str
    locator: str | None
    importance: float
    stability: float
    last_access: str | None
    access_count: int
    retention_label: str | None
