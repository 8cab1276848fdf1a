"""Time stamps and identifiers, in one place so tests and records agree on their format."""

from __future__ import annotations

from datetime import UTC, date, datetime

from ulid import ULID


def now_iso() -> str:
    """UTC, ISO 8601 with microseconds: sorts as text in the order things happened."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def new_id() -> str:
    """A ULID: unique, and sortable by creation time."""
    return str(ULID())


def utc_stamp(text: str) -> str | None:
    """A date or time as Cairn stores it, so stamps compare as text: a date as YYYY-MM-DD, a
    time as UTC ISO with microseconds (a time without an offset is read as UTC). None when
    ``text`` is neither."""
    text = text.strip()
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).isoformat(timespec="microseconds")
