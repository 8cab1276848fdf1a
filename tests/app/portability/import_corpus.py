"""Malformed imports, built at test time from a real export: the vault of ``export_vault``
(people, links, a history chain, an ingested notes folder, review items, the inbox, a merge,
settings, the retention pass) exported as JSON Lines, then damaged one way per ``Case``.

This module builds the export and the damages; ``import_cases`` lists the cases, each what
an adversarial pass against ``cairn import`` tried, with the line and field its refusal must
name. ``scrambled`` damages a file at random instead (a byte flipped, a line cut, repeated or
moved, a value swapped for one of another type), for runs of many trials: there the only
promise is a sentence or a whole import, never a traceback.

A damage that adds or removes lines fixes the ``end`` line's counts (``recount``), so the
refusal is about the damage itself, not about the counts, unless the counts are the case.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.app.service import MemoryService
from tests.app.portability import export_vault

RAW = "\x00raw\x00"  # a field set to this is written as the raw JSON text given with it
Damage = Callable[[list[str]], tuple[list[str] | bytes, int | None]]


@dataclass(frozen=True)
class Case:
    name: str
    damage: Damage  # the lines -> (damaged lines or bytes, the 1-based line it must name)
    field: str | None  # the field the refusal must name, if the damage is of one field
    says: str  # a regular expression the refusal must match


def build(service: MemoryService, root: Path) -> Path:
    """A real export of a vault holding something of everything; returns its file."""
    export_vault.build(service, root)
    report = service.export(root / "export", format="jsonl")
    assert report.file is not None
    return Path(report.file)


def lines_of(file: Path) -> list[str]:
    return file.read_text(encoding="utf-8").splitlines()


def file_bytes(damaged: list[str] | bytes) -> bytes:
    if isinstance(damaged, bytes):
        return damaged
    return ("\n".join(damaged) + "\n").encode("utf-8")


def kind_of(line: str) -> str:
    return str(json.loads(line)["kind"])


def index(lines: list[str], kind: str, nth: int = 0) -> int:
    """The index of the ``nth`` line of ``kind``."""
    return [i for i, line in enumerate(lines) if kind_of(line) == kind][nth]


def dumped(data: dict[str, Any], raw: str | None = None) -> str:
    """A line as the export writes it (NaN and infinities as Python's JSON spells them), with
    a field set to ``RAW`` written as ``raw``."""
    text = json.dumps(data)  # escaped: a lone surrogate is then JSON, if not UTF-8
    return text.replace(json.dumps(RAW), raw) if raw is not None else text


def recount(lines: list[str]) -> list[str]:
    """``lines`` with the end line's counts made right again."""
    counts: dict[str, int] = {}
    for line in lines:
        kind = kind_of(line)
        if kind not in ("header", "end"):
            counts[kind] = counts.get(kind, 0) + 1
    return [dumped({"kind": "end", "counts": counts}) if kind_of(x) == "end" else x for x in lines]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# -- damages ----------------------------------------------------------------------------------


def setting(kind: str, field: str, value: Any, *, nth: int = 0, raw: str | None = None) -> Damage:
    def damage(lines: list[str]) -> tuple[list[str], int]:
        at = index(lines, kind, nth)
        data = json.loads(lines[at])
        data[field] = value
        return [*lines[:at], dumped(data, raw), *lines[at + 1 :]], at + 1

    return damage


def changed(kind: str, change: Callable[[dict[str, Any]], Any], *, nth: int = 0) -> Damage:
    """The ``nth`` line of ``kind`` changed in place by ``change``."""

    def damage(lines: list[str]) -> tuple[list[str], int]:
        at = index(lines, kind, nth)
        data = json.loads(lines[at])
        change(data)
        return [*lines[:at], dumped(data), *lines[at + 1 :]], at + 1

    return damage


def same_id_as_first(kind: str, field: str) -> Damage:
    def damage(lines: list[str]) -> tuple[list[str], int]:
        first = json.loads(lines[index(lines, "node")])["id"]
        return setting(kind, field, first, nth=1 if kind == "node" else 0)(lines)

    return damage


def inserted(at: int, line: Callable[[list[str]], str], *, count: bool = True) -> Damage:
    """A line added so that it becomes line ``at`` (1-based; negative counts from the end)."""

    def damage(lines: list[str]) -> tuple[list[str], int]:
        where = at - 1 if at > 0 else len(lines) + at + 1
        out = [*lines[:where], line(lines), *lines[where:]]
        return (recount(out) if count else out), where + 1

    return damage


def moved(kind: str, after_kind: str, *, title: str | None = None) -> Damage:
    """The first line of ``kind`` (of that ``title``) moved to just after the last line of
    ``after_kind``; returns where it now is."""

    def damage(lines: list[str]) -> tuple[list[str], int]:
        at = next(
            i
            for i, x in enumerate(lines)
            if kind_of(x) == kind and title in (None, json.loads(x).get("title"))
        )
        rest = [*lines[:at], *lines[at + 1 :]]
        last = max(i for i, x in enumerate(rest) if kind_of(x) == after_kind)
        return [*rest[: last + 1], lines[at], *rest[last + 1 :]], last + 2

    return damage


def dropped(kind: str, *, names_next: bool = False) -> Damage:
    """The first line of ``kind`` left out; ``names_next``: the refusal names the line that
    takes its place, else the file as a whole."""

    def damage(lines: list[str]) -> tuple[list[str], int | None]:
        at = index(lines, kind)
        return recount([*lines[:at], *lines[at + 1 :]]), (at + 1 if names_next else None)

    return damage


def raw_line(at: int, make: Callable[[str], bytes]) -> Damage:
    """Line ``at`` (1-based) replaced by bytes made from it."""

    def damage(lines: list[str]) -> tuple[bytes, int]:
        encoded = [line.encode("utf-8") for line in lines]
        encoded[at - 1] = make(lines[at - 1])
        return b"\n".join(encoded) + b"\n", at

    return damage


def unplaced(damage: Damage) -> Damage:
    """``damage``, whose refusal is about the whole file rather than one line."""

    def without_line(lines: list[str]) -> tuple[list[str] | bytes, None]:
        return damage(lines)[0], None

    return without_line


def named(damage: Damage, line: Callable[[int], int]) -> Damage:
    """``damage``, whose refusal names the line ``line`` finds from the one it changed."""

    def placed(lines: list[str]) -> tuple[list[str] | bytes, int]:
        out, at = damage(lines)
        assert at is not None
        return out, line(at)

    return placed


def attrs_of_first_node(value: Any, raw: str | None = None) -> Damage:
    return setting("node", "attrs", value, raw=raw)


# -- at random --------------------------------------------------------------------------------

_VALUES: list[Any] = [None, True, 0, -1, 10**40, 2.5, float("nan"), "", "x" * 600, [], {}, [[[]]]]


def scrambled(lines: list[str], rng: random.Random) -> bytes:
    """The export damaged one random way; may now and then still be a valid export."""
    way = rng.randrange(6)
    data = file_bytes(lines)
    if way == 0:  # a byte flipped
        at = rng.randrange(len(data))
        return data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1 :]
    if way == 1:  # the file cut anywhere
        return data[: rng.randrange(len(data))]
    if way == 2:  # a line repeated
        at = rng.randrange(len(lines))
        return file_bytes([*lines[: at + 1], lines[at], *lines[at + 1 :]])
    if way == 3:  # a line moved
        out = list(lines)
        line = out.pop(rng.randrange(len(out)))
        out.insert(rng.randrange(len(out) + 1), line)
        return file_bytes(out)
    at = rng.randrange(len(lines))
    item = json.loads(lines[at])
    key = rng.choice(sorted(item))
    if way == 4:  # a field's value swapped for one of another type
        item[key] = rng.choice(_VALUES)
    else:  # a field dropped
        del item[key]
    return file_bytes([*lines[:at], dumped(item), *lines[at + 1 :]])


def names_line(message: str, line: int | None, field: str | None) -> bool:
    """Whether a refusal names ``line`` and ``field`` as ``_sentence`` writes them."""
    where = rf", line {line}\b" if line is not None else ""
    if field is not None:
        where += rf", field {re.escape(field)}:"
    return re.search(where, message) is not None
