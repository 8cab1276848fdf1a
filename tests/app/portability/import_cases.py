"""The malformed-import corpus (``import_corpus`` builds the export and the damages): what an
adversarial pass against ``cairn import`` tried, one ``Case`` each. A field of the wrong type
or out of range for each kind of field (times, integers, reals, text, enumerations, ids,
references, JSON), NaN and infinities, huge strings and numbers, JSON nested deep in each JSON
column, dangling references, header, pack and end lines repeated, missing or out of place,
unknown kinds and fields, bytes that are not UTF-8, a byte-order mark, a line cut short. Each
says the line and field its refusal must name and a pattern of what it says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cairn.app.clock import new_id
from cairn.storage.sentinel import SENTINEL_ID
from tests.app.portability.import_corpus import (
    RAW,
    Case,
    attrs_of_first_node,
    changed,
    dropped,
    dumped,
    file_bytes,
    index,
    inserted,
    moved,
    named,
    nested,
    raw_line,
    recount,
    same_id_as_first,
    setting,
    unplaced,
)


def _bad_utf8(line: str) -> bytes:
    return line.replace("Ada Lovelace", "Ada Love\udcfflace").encode("utf-8", "surrogateescape")


def _header_again(lines: list[str]) -> str:
    return lines[0]


def _pack_again(lines: list[str]) -> str:
    return lines[index(lines, "pack")]


def _end_again(lines: list[str]) -> str:
    return lines[-1]


def _setting_line(key: str, value: Any) -> Callable[[list[str]], str]:
    return lambda lines: dumped({"kind": "setting", "key": key, "value": value})


def _kind_line(kind: str) -> Callable[[list[str]], str]:
    return lambda lines: dumped({"kind": kind, "text": "hello"})


def _deep_pack(data: dict[str, Any]) -> None:
    data["node_types"]["Note"]["description"] = [[["deep"]]]


def _pack_family(data: dict[str, Any]) -> None:
    data["node_types"]["Note"]["family"] = "alien"


def _pack_rule(data: dict[str, Any]) -> None:
    data["edge_types"]["involves"]["rules"] = [["Note", "Spaceship"]]


def _end_count(data: dict[str, Any]) -> None:
    data["counts"]["node"] += 1


def _no_body(data: dict[str, Any]) -> None:
    del data["body"]


def _first_line_twice(lines: list[str]) -> tuple[bytes, int]:
    at = index(lines, "node")
    text = lines[at].replace('"title":', '"title": "A second title", "title":', 1)
    return file_bytes([*lines[:at], text, *lines[at + 1 :]]), at + 1


def _cut(lines: list[str]) -> tuple[bytes, int]:
    at = index(lines, "node", 2)
    cut = lines[at][: len(lines[at]) // 2]
    return file_bytes([*lines[:at], cut, *lines[at + 1 :]]), at + 1


def _not_an_object(lines: list[str]) -> tuple[list[str], int]:
    at = index(lines, "edge")
    return [*lines[:at], "[1, 2, 3]", *lines[at + 1 :]], at + 1


def _same_src_dst(data: dict[str, Any]) -> None:
    data["dst"] = data["src"]


def _end_early(lines: list[str]) -> tuple[list[str], int]:
    """The end line, with the right counts of what comes before it, before the sources."""
    at = index(lines, "source")
    return [*recount([*lines[:at], lines[-1]]), *lines[at:-1]], at + 2


def _empty(lines: list[str]) -> tuple[bytes, None]:
    return b"", None


def _bom(lines: list[str]) -> tuple[bytes, int]:
    return b"\xef\xbb\xbf" + file_bytes(lines), 1


def bad(
    kind: str, field: str, label: str, value: Any, says: str, *, at: str = "", **where: Any
) -> Case:
    """The case of one field of a ``kind`` line (``where``: ``nth``, or ``raw`` JSON text for
    a ``RAW`` value) set to ``value``: the refusal names that line and the field (``at``
    within it, for a nested value)."""
    damage = setting(kind, field, value, **where)
    return Case(f"{kind} {field} {label}", damage, field + at, says)


TIME = r"is not a time as Cairn writes one"
STAMP = r"is not a date \(YYYY-MM-DD\) or a time"
ID = r"is not an id as Cairn makes them"
RANGE = r"is out of range: it must be"
WHOLE = r"is not a whole number"
FINITE = r"is not a finite number"
TEXT = r"is not text"
DEEP = r"is nested more than 8 levels deep"
LONG = r"at most 100,000 are allowed"
NOT_THERE = r"no node line before this one holds the memory"
UTC_PLUS_2 = "2026-01-31T10:00:00.000000+02:00"
CASES: list[Case] = [
    # A node's times: retention and the window parse them back, as-of compares them as text.
    bad("node", "recorded_at", "yesterday", "yesterday", TIME),
    bad("node", "recorded_at", "a date", "2026-01-31", TIME),
    bad("node", "recorded_at", "not UTC", UTC_PLUS_2, TIME),
    bad("node", "updated_at", "a number", 20260131, TIME),
    bad("node", "last_access", "month 13", "2026-13-02T00:00:00.000000+00:00", TIME),
    bad("node", "valid_from", "words", "next week", STAMP),
    bad("node", "valid_to", "before UTC's year one", "0001-01-01T00:00:00+01:00", STAMP),
    # Integers: ints (not bools or reals) within SQLite's 64 bits and the column's bounds.
    bad("node", "access_count", "10**40", 10**40, RANGE),
    bad("node", "access_count", "2**63", 2**63, RANGE),
    bad("node", "access_count", "5000 digits", RAW, "a number of 5,000 digits", raw="9" * 5000),
    bad("node", "access_count", "negative", -1, RANGE),
    bad("node", "access_count", "true", True, r"true " + WHOLE),
    bad("node", "access_count", "2.5", 2.5, r"2.5 " + WHOLE),
    bad("source", "mtime_ns", "past 64 bits", 10**30, RANGE),
    bad("source", "size", "negative", -5, RANGE),
    bad("end", "counts", "text", {"node": "19"}, r"'19' " + WHOLE, at=".node"),
    # Reals: finite and within bounds.
    bad("node", "importance", "NaN", float("nan"), r"nan " + FINITE),
    bad("node", "stability", "Infinity", float("inf"), r"inf " + FINITE),
    bad("node", "stability", "1e400", RAW, FINITE, raw="1e400"),
    bad("node", "importance", "1.5", 1.5, r"1.5 is out of range: it must be from 0 to 1"),
    bad("node", "stability", "0", 0, r"0 is out of range: it must be above 0 and at most 36500"),
    bad("node", "importance", "text", "0.5", r"'0.5' is not a number"),
    bad("review_item", "score", "2", 2.0, r"2.0 is out of range: it must be from -1 to 1"),
    bad("dedup_log", "jaccard", "-Infinity", float("-inf"), FINITE),
    # Text: text, within the write path's bounds, characters.
    bad("node", "title", "123", 123, r"123 " + TEXT),
    bad("node", "title", "blank", "   ", r"is empty"),
    bad("node", "title", "501 characters", "t" * 501, r"at most 500 are allowed"),
    bad("node", "body", "100,001 characters", "b" * 100_001, LONG),
    bad("node", "body", "null", None, r"null " + TEXT),
    bad("node", "title", "lone surrogate", "Ada \ud800", r"half of a UTF-16 surrogate pair"),
    bad("node", "source", "a number", 42, r"42 " + TEXT),
    bad("edge", "rationale", "a list", ["why"], r"a list " + TEXT),
    bad("addendum", "text", "empty", "", r"is empty"),
    bad("inbox", "text", "over the capture limit", "k" * 100_001, LONG),
    bad("dedup_log", "reason", "over 100,000 characters", "r" * 100_001, LONG),
    bad("source", "sha256", "short", "abc", r"is not a SHA-256"),
    bad(
        "source",
        "path_bytes",
        "not hex",
        "zz",
        r"is not bytes \(at least one\) written as lowercase hex",
    ),
    bad("receipt_head", "head", "not hex", "not-a-hash", r"is not a SHA-256"),
    # Enumerations.
    bad("node", "status", "deleted", "deleted", r"'deleted' is not one of active"),
    bad("node", "retention_label", "forever", "forever", r"is not one of ephemeral"),
    bad("addendum", "origin", "copied", "copied", r"is not one of absorbed, merged"),
    bad("inbox", "state", "maybe", "maybe", r"is not one of open"),
    bad("review_item", "item_kind", "spam", "spam", r"is not one of duplicate"),
    bad("retention_log", "action", "deleted", "deleted", r"is not one of labelled"),
    # Ids, and the memories, scopes and types they name.
    bad("node", "id", "malformed", "not-an-id", ID),
    bad("node", "id", "lowercase", new_id().lower(), ID),
    bad("node", "id", "the sentinel's", SENTINEL_ID, r"sentinel"),
    Case("node id twice", same_id_as_first("node", "id"), "id", r"already the id of a memory"),
    bad("node", "type", "unknown", "Spaceship", r"is not a node type of the file's pack"),
    bad("node", "scope", "unknown", "nowhere", r"is not a scope of a scope line"),
    bad("edge", "dst", "a memory not there", new_id(), NOT_THERE),
    bad("edge", "src", "malformed", "ada", ID),
    bad("edge", "type", "unknown", "loves", r"is not an edge type"),
    bad("edge", "layer", "wrong", "causal", r"a works_at edge belongs to the entity layer"),
    Case("edge to itself", changed("edge", _same_src_dst), "dst", r"not linked to itself"),
    bad("edge", "created_at", "now", "now", TIME),
    Case(
        "merged alias a live memory",
        same_id_as_first("merged_id", "alias_id"),
        "alias_id",
        r"already the id of a memory",
    ),
    bad("inbox", "node_id", "not there", new_id(), NOT_THERE, nth=1),
    bad("retention_log", "node_id", "not there", new_id(), NOT_THERE),
    bad("source", "document_id", "not there", new_id(), NOT_THERE),
    bad("scope", "name", "with spaces", "Bad Scope", r"is not a scope name"),
    bad("scope", "name", "the engine's", "cairn-engine", r"is not a scope name"),
    # JSON columns: their shape, depth and size (and one too deep for the decoder itself).
    Case(
        "node attrs 200,000 deep",
        attrs_of_first_node(RAW, raw=f'{{"aliases": {nested(200_000)}}}'),
        None,
        r"nested deeper than JSON can be read",
    ),
    bad("node", "attrs", "50 deep", RAW, DEEP, raw=f'{{"aliases": {nested(50)}}}'),
    bad("node", "attrs", "a list", ["Ada King"], r"a list is not a JSON object"),
    bad("node", "attrs", "over a megabyte", {"aliases": ["a" * 1_000_001]}, r"larger than 1,000,"),
    bad("node", "attrs", "NaN", {"born": float("nan")}, r"nan, which JSON has no number for"),
    bad("node", "attrs", "unknown attribute", {"colour": "blue"}, r'Person has no attribute "co'),
    bad("node", "attrs", "wrong kind", {"aliases": "Ada"}, r"Person.aliases must be a list of st"),
    bad("node", "locator", "a deep list", RAW, r"a list is not a JSON object", raw=nested(50)),
    bad("node", "locator", "a deep object", RAW, DEEP, raw='{"page": ' + nested(20) + "}"),
    bad("node", "locator", "text", "page 3", r"'page 3' is not a JSON object"),
    bad("review_item", "flags", "50 deep", RAW, DEEP, raw=nested(50)),
    bad("dedup_log", "flags", "50 deep", RAW, DEEP, raw=nested(50)),
    bad("dedup_log", "flags", "an object", {"a": 1}, r"an object is not a list"),
    bad("source", "warnings", "50 deep", RAW, DEEP, raw=nested(50)),
    # Fields unknown, missing or given twice.
    Case("node field unknown", setting("node", "colour", "blue"), None, r"unexpected colour"),
    Case("node field missing", changed("node", _no_body), None, r"missing body"),
    Case("node field twice", _first_line_twice, None, r"gives 'title' twice in one object"),
    # Settings.
    Case(
        "setting a word for a number",
        inserted(6, _setting_line("memory.dedup_high", "high")),
        "value",
        r"'high' is not a number",
    ),
    Case(
        "setting out of bounds",
        inserted(6, _setting_line("memory.dedup_high", 2)),
        "value",
        r"dedup_high is a number between 0 and 1, not 2",
    ),
    Case(
        "setting true for a number",
        inserted(6, _setting_line("memory.dedup_high", True)),
        "value",
        r"true is not a number",
    ),
    bad(
        "setting",
        "value",
        "watched folder in no scope",
        [{"path": "/x", "scope": "elsewhere"}],
        r"'elsewhere' is not a scope",
        at="[1].scope",
        nth=1,
    ),
    Case("setting unknown", inserted(6, _setting_line("colour", "blue")), "key", r"not a setting"),
    Case(
        "setting the import record",
        inserted(6, _setting_line("import", {"sha256": "0"})),
        "key",
        r"'import' is not a setting Cairn keeps",
    ),
    Case(
        "settings whose bands clash",
        unplaced(inserted(6, _setting_line("memory.dedup_high", 0.5))),
        None,
        r"its settings do not go together: The low bands",
    ),
    # The header.
    Case("header missing", unplaced(dropped("header")), None, r"first line is not the export's"),
    Case("header twice", inserted(2, _header_again, count=False), None, r"a second header line"),
    Case(
        "header from a newer Cairn",
        unplaced(setting("header", "version", 99)),
        None,
        r"written by a newer Cairn \(format 99\)",
    ),
    bad("header", "version", "zero", 0, r"0 is out of range: it must be from 1 to 1"),
    bad("header", "exported_at", "words", "today", TIME),
    bad("header", "scopes", "text", "personal", r"'personal' is not a list"),
    # The pack.
    Case("pack twice", inserted(3, _pack_again, count=False), None, r"it is a second pack line"),
    Case("pack missing", dropped("pack", names_next=True), None, r"a scope line before the pack"),
    Case(
        "pack after the nodes",
        named(moved("pack", "node"), lambda at: 2),
        None,
        r"a scope line before the pack line",
    ),
    Case(
        "pack family alien",
        changed("pack", _pack_family),
        "node_types.Note.family",
        r"'alien' is not one of entity",
    ),
    Case(
        "pack description deep",
        changed("pack", _deep_pack),
        "node_types.Note.description",
        r"a list is not text",
    ),
    Case(
        "pack rule unknown type",
        changed("pack", _pack_rule),
        None,
        r"names an unknown node type 'Spaceship'",
    ),
    # The end, the receipt head and the order of the lines.
    Case("end missing", dropped("end"), None, r"without its closing line: it was cut short"),
    Case("end twice", inserted(-1, _end_again, count=False), None, r"more after the closing end"),
    Case("end before the sources", _end_early, None, r"more after the closing end line"),
    Case("end counts wrong", changed("end", _end_count), "counts", r"the file says it holds"),
    Case(
        "receipt head twice",
        inserted(8, lambda lines: lines[index(lines, "receipt_head")]),
        None,
        r"it is a second receipt_head line",
    ),
    Case(
        "node after the edges",
        moved("node", "edge", title="Old parking spot"),
        None,
        r"a node line after the edge lines",
    ),
    Case("kind unknown", inserted(-2, _kind_line("memo")), "kind", r"'memo' is not a kind of li"),
    # Bytes that are not one JSON object of UTF-8 text a line.
    Case("bytes not UTF-8", raw_line(8, _bad_utf8), None, r"is not UTF-8 text \(byte 0xff"),
    Case("byte-order mark", _bom, None, r"begins with a byte-order mark"),
    Case("line cut short", _cut, None, r"is not a whole JSON line"),
    Case("line not an object", _not_an_object, None, r"not a line of a Cairn export"),
    Case("file empty", _empty, None, r"is empty: not a Cairn JSON Lines export"),
]
