"""Time stamps and identifiers, in one place so tests and records agree on their format."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from ulid import ULID

# What ``new_id`` makes: 26 characters of Crockford's base32, the first at most 7 (a ULID's
# 128 bits leave the top character 3 bits).
_ID_FORM = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")


def now_iso() -> str:
    """UTC, ISO 8601 with microseconds: sorts as text in the order things happened."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def new_id() -> str:
    """A ULID: unique, and sortable by creation time."""
    return str(ULID())


def is_id(text: str) -> bool:
    """Whether ``text`` has the form of an id ``new_id`` makes."""
    return _ID_FORM.fullmatch(text) is not None


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
    try:
        return parsed.astimezone(UTC).isoformat(timespec="microseconds")
    except OverflowError:  # 0001-01-01T00:00+01:00 is a time before the first one UTC has
        return None
