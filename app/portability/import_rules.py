"""The rules an import checks a field with: each a function of the value and of what the
import knows so far (``Known``), raising ``Refused`` with a sentence that starts with the
value. ``import_fields`` puts them in a table, a rule per field of each kind of line.

Values come from ``json.loads`` and may be anything JSON holds, to any depth the decoder
reached: a rule looks at a value's type before anything else, names a value without walking
it (``shown``), and walks JSON held in a column without recursion (``json_value``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass
from typing import Any, Protocol

from cairn.app.clock import is_id, utc_stamp
from cairn.app.errors import SCOPE_NAME
from cairn.app.writing.writer import MAX_BODY
from cairn.storage.sentinel import ENGINE_SCOPE, SENTINEL_ID

MAX_LINE = 64 * 1024 * 1024  # one line of the file; a longer one is not an export of Cairn's
INT64 = (-(2**63), 2**63 - 1)  # what an SQLite INTEGER holds
COUNT = (0, INT64[1])
# Free text Cairn or the person wrote beside a memory (a reason, a rationale, a path, an
# error): nothing the write path stores there is longer than a memory's own text may be.
MAX_TEXT = MAX_BODY
MAX_WORD = 200  # a word of an open set: an outcome, an actor, a media type, an embedder
# JSON held in a column (attributes, locators, flags, warnings): what Cairn writes is at most
# two levels deep (an object of lists); four times that is plenty, and bounds every walk.
JSON_DEPTH = 8
MAX_JSON = 1_000_000  # characters of one JSON column: a memory's attributes are not a book
MAX_DIGITS = 40  # a JSON integer longer than this is not read as a number at all (``Huge``)
TIME_EXAMPLE = "2026-01-31T09:30:00.000000+00:00"
_SURROGATE = re.compile("[\ud800-\udfff]")
_HEX64 = re.compile("[0-9a-f]{64}")
_HEX = re.compile("(?:[0-9a-f]{2})*")


class Refused(Exception):
    """A value the import will not keep: ``problem`` is a sentence about it, ``field`` the
    field's name (dotted inside a nested value), ``line`` the line number once known."""

    def __init__(self, problem: str, field: str = "", line: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.field = field
        self.line = line


@dataclass(frozen=True)
class Huge:
    """A JSON integer of more than ``MAX_DIGITS`` digits, kept unread (Python refuses to read
    one of more than 4,300 digits, and no column holds one of more than 19)."""

    digits: int


class Known(Protocol):
    """What the import knows when it reads a line."""

    @property
    def scopes(self) -> Set[str]: ...
    @property
    def node_types(self) -> Set[str]: ...
    @property
    def edge_layers(self) -> Mapping[str, str]: ...
    def has_node(self, node_id: str) -> bool: ...


Rule = Callable[[Any, Known], None]


@dataclass(frozen=True)
class Field:
    rule: Rule
    nullable: bool = False


def shown(value: Any) -> str:
    """``value`` as a refusal names it: short, and never by walking it (it may be deep)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Huge):
        return f"a number of {value.digits:,} digits"
    if isinstance(value, int | float):
        text = repr(value)
        return text if len(text) <= 40 else f"a number of {len(text):,} digits"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else f"{value[:40]!r}... ({len(value):,} characters)"
    return "a list" if isinstance(value, list) else "an object"


# -- rules ------------------------------------------------------------------------------------


def text(limit: int = MAX_TEXT, *, blank: bool = True) -> Rule:
    def rule(value: Any, known: Known) -> None:
        if not isinstance(value, str):
            raise Refused(f"{shown(value)} is not text")
        if not blank and not value.strip():
            raise Refused(f"{shown(value)} is empty; it needs some text")
        if len(value) > limit:
            raise Refused(f"it has {len(value):,} characters; at most {limit:,} are allowed")
        _plain_text(value)

    return rule


def _plain_text(value: str) -> None:
    if _SURROGATE.search(value):
        raise Refused("it holds half of a UTF-16 surrogate pair (\\ud800-\\udfff), not a character")


def word(*choices: str) -> Rule:
    def rule(value: Any, known: Known) -> None:
        if not isinstance(value, str) or value not in choices:
            raise Refused(f"{shown(value)} is not one of {', '.join(choices)}")

    return rule


def whole(low: int, high: int) -> Rule:
    def rule(value: Any, known: Known) -> None:
        if isinstance(value, Huge):
            raise Refused(f"{shown(value)} is out of range: it must be from {low} to {high}")
        if isinstance(value, bool) or not isinstance(value, int):
            raise Refused(f"{shown(value)} is not a whole number")
        if not low <= value <= high:
            raise Refused(f"{shown(value)} is out of range: it must be from {low} to {high}")

    return rule


def real(low: float, high: float, *, above: bool = False) -> Rule:
    """A number from ``low`` to ``high`` (``above``: greater than ``low``)."""
    bounds = f"above {low:g} and at most {high:g}" if above else f"from {low:g} to {high:g}"

    def rule(value: Any, known: Known) -> None:
        if isinstance(value, Huge):
            raise Refused(f"{shown(value)} is out of range: it must be {bounds}")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise Refused(f"{shown(value)} is not a number")
        if not math.isfinite(value):
            raise Refused(f"{shown(value)} is not a finite number")
        if not (low < value if above else low <= value) or not value <= high:
            raise Refused(f"{shown(value)} is out of range: it must be {bounds}")

    return rule


def boolean(value: Any, known: Known) -> None:
    if not isinstance(value, bool):
        raise Refused(f"{shown(value)} is not true or false")


def time(value: Any, known: Known) -> None:
    """A moment as Cairn records one (``now_iso``): retention and the window read it back with
    ``datetime.fromisoformat`` and compare it, as text, with others."""
    if not isinstance(value, str) or len(value) <= 10 or utc_stamp(value) != value:
        raise Refused(f"{shown(value)} is not a time as Cairn writes one (UTC, {TIME_EXAMPLE})")


def stamp(value: Any, known: Known) -> None:
    """A valid-time bound as the write path stores one (``utc_stamp``): a date or a UTC time,
    compared as text by as-of reads."""
    if not isinstance(value, str) or utc_stamp(value) != value:
        raise Refused(
            f"{shown(value)} is not a date (YYYY-MM-DD) or a time as Cairn writes one "
            f"(UTC, {TIME_EXAMPLE})"
        )


def ident(value: Any, known: Known) -> None:
    if not isinstance(value, str) or not is_id(value):
        raise Refused(f"{shown(value)} is not an id as Cairn makes them (26 letters and digits)")
    if value == SENTINEL_ID:
        raise Refused(f"{value} is the id Cairn keeps for its own sentinel")


def memory(value: Any, known: Known) -> None:
    """The id of a memory a node line before this one holds."""
    ident(value, known)
    if not known.has_node(value):
        raise Refused(f"no node line before this one holds the memory {value}")


def new_memory(value: Any, known: Known) -> None:
    ident(value, known)
    if known.has_node(value):
        raise Refused(f"{value} is already the id of a memory of an earlier line")


def scope(value: Any, known: Known) -> None:
    if not isinstance(value, str) or value not in known.scopes:
        raise Refused(f"{shown(value)} is not a scope of a scope line before this one")


def scope_name(value: Any, known: Known) -> None:
    if not isinstance(value, str) or not SCOPE_NAME.match(value) or value == ENGINE_SCOPE:
        raise Refused(f"{shown(value)} is not a scope name")


def node_type(value: Any, known: Known) -> None:
    if not isinstance(value, str) or value not in known.node_types:
        raise Refused(f"{shown(value)} is not a node type of the file's pack")


def edge_type(value: Any, known: Known) -> None:
    if not isinstance(value, str) or value not in known.edge_layers:
        raise Refused(f"{shown(value)} is not an edge type of the file's pack")


def digest(value: Any, known: Known) -> None:
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        raise Refused(f"{shown(value)} is not a SHA-256 (64 lowercase hex digits)")


def hex_bytes(value: Any, known: Known) -> None:
    if (
        not isinstance(value, str)
        or not value
        or len(value) > 2 * MAX_TEXT
        or not _HEX.fullmatch(value)
    ):
        raise Refused(f"{shown(value)} is not bytes (at least one) written as lowercase hex")


def json_value(value: Any, known: Known) -> None:
    """JSON as a column keeps it: at most ``JSON_DEPTH`` deep and ``MAX_JSON`` characters of
    text, numbers finite and 64-bit, text that is characters. Walked without recursion."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    size = 0
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            if depth > JSON_DEPTH:
                raise Refused(f"it is nested more than {JSON_DEPTH} levels deep")
            size += 2 + len(item)
            if isinstance(item, dict):
                for key in item:
                    size += len(key)
                    _plain_text(key)
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
        elif isinstance(item, str):
            size += len(item)
            _plain_text(item)
        elif isinstance(item, Huge):
            raise Refused(f"it holds {shown(item)}, more than a 64-bit integer")
        elif isinstance(item, float) and not math.isfinite(item):
            raise Refused(f"it holds {shown(item)}, which JSON has no number for")
        elif isinstance(item, int) and not isinstance(item, bool):
            whole(*INT64)(item, known)
        if size > MAX_JSON:
            raise Refused(f"it is larger than {MAX_JSON:,} characters")


def json_object(value: Any, known: Known) -> None:
    if not isinstance(value, dict):
        raise Refused(f"{shown(value)} is not a JSON object")
    json_value(value, known)


def list_of(rule: Rule) -> Rule:
    def check(value: Any, known: Known) -> None:
        if not isinstance(value, list):
            raise Refused(f"{shown(value)} is not a list")
        json_value(value, known)
        for number, item in enumerate(value, start=1):
            try:
                rule(item, known)
            except Refused as refused:
                raise Refused(refused.problem, joined(f"[{number}]", refused.field)) from None

    return check


def fields(table: Mapping[str, Field]) -> Rule:
    """An object with exactly ``table``'s fields, each meeting its rule."""

    def check(value: Any, known: Known) -> None:
        if not isinstance(value, dict):
            raise Refused(f"{shown(value)} is not an object")
        check_fields(value, table, known)

    return check


def each(rule: Rule) -> Rule:
    """An object whose every value meets ``rule``; a refusal names the key."""

    def check(value: Any, known: Known) -> None:
        if not isinstance(value, dict):
            raise Refused(f"{shown(value)} is not an object")
        for key, item in value.items():
            try:
                rule(item, known)
            except Refused as refused:
                raise Refused(refused.problem, joined(_key(key), refused.field)) from None

    return check


def _key(key: str) -> str:
    return key if len(key) <= 40 and not _SURROGATE.search(key) else shown(key)


def joined(outer: str, inner: str) -> str:
    """A nested field's name: ``value[1].scope``."""
    if not inner:
        return outer
    return f"{outer}{inner}" if inner.startswith("[") else f"{outer}.{inner}"


def check_fields(data: Mapping[str, Any], table: Mapping[str, Field], known: Known) -> None:
    missing = [name for name in table if name not in data]
    extra = [_key(name) for name in data if name not in table]
    if missing or extra:
        said = "; ".join(
            part
            for part in (
                f"missing {', '.join(missing)}" if missing else "",
                f"unexpected {', '.join(extra)}" if extra else "",
            )
            if part
        )
        raise Refused(f"it does not have the fields it should ({said})")
    for name, spec in table.items():
        value = data[name]
        if value is None and spec.nullable:
            continue
        try:
            spec.rule(value, known)
        except Refused as refused:
            raise Refused(refused.problem, joined(name, refused.field)) from None
