"""Time stamps and identifiers, in one place so tests and records agree on their format."""

from __future__ import annotations

from datetime import UTC, datetime

from ulid import ULID


def now_iso() -> str:
    """UTC, ISO 8601 with microseconds: sorts as text in the order things happened."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def new_id() -> str:
    """A ULID: unique, and sortable by creation time."""
    return str(ULID())
