"""What each line of a JSON Lines export may hold, field by field.

An import is checked like a write: a value goes into the vault only if the write path could
have stored it, and only in the form a later read expects (a time that retention does
arithmetic with, an id that ``get`` looks up, a number SQLite can hold). STRICT tables would
otherwise turn ``"title": 123`` into the text "123", and a number past 64 bits or a string
that is not a time would pass the insert and fail on a read long after the import said yes.

``LINES`` is the table: for each kind of line, its fields and the rule (``import_rules``) each
must meet, given what the import knows so far (the scopes, the pack, the memories already
written); ``check_line`` names the field a rule refused. The rules of a pack attribute's kind
are not repeated here: the schema's trigger enforces them on the row, as on every write.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from cairn.app import memory_settings
from cairn.app.errors import InvalidRequest
from cairn.app.models import ALL_STATUSES
from cairn.app.packs import ATTR_KINDS, FAMILIES, LAYERS
from cairn.app.portability import jsonl_export
from cairn.app.portability.import_rules import (
    COUNT,
    INT64,
    MAX_LINE,
    MAX_WORD,
    Field,
    Known,
    Refused,
    Rule,
    boolean,
    check_fields,
    digest,
    each,
    edge_type,
    fields,
    hex_bytes,
    ident,
    joined,
    json_object,
    list_of,
    memory,
    new_memory,
    node_type,
    real,
    scope,
    scope_name,
    shown,
    stamp,
    text,
    time,
    whole,
    word,
)
from cairn.app.retention.labels import LABELS
from cairn.app.retention.supervisor import S_MAX
from cairn.app.upkeep import sample_vault
from cairn.app.writing.writer import MAX_BODY, MAX_TITLE

# -- settings ---------------------------------------------------------------------------------


def _memory_setting(name: str) -> Rule:
    spec = memory_settings.SETTINGS[name]

    def rule(value: Any, known: Known) -> None:
        # The write path reads a typed "0.9" as a number; a file holds the stored value, typed.
        if spec.choices and not isinstance(value, str):
            raise Refused(f"{shown(value)} is not one of {', '.join(spec.choices)}")
        if not spec.choices:
            real(-math.inf, math.inf)(value, known)
        try:
            memory_settings.checked(name, value)
        except InvalidRequest as refused:
            raise Refused(str(refused).rstrip(".")) from None

    return rule


def _sample_prints(value: Any, known: Known) -> None:
    """The list of what the sample wrote (``sample_vault``): each id with its print."""
    each(digest)(value, known)
    for key in value:
        ident(key, known)


WATCHED = fields({"path": Field(text(blank=False)), "scope": Field(scope)})
SETTINGS: dict[str, Rule] = {
    **{memory_settings.PREFIX + name: _memory_setting(name) for name in memory_settings.SETTINGS},
    jsonl_export.WATCH_KEY: list_of(WATCHED),
    sample_vault.SETTING: _sample_prints,
}


def setting_key(value: Any, known: Known) -> None:
    if not isinstance(value, str) or value not in SETTINGS:
        raise Refused(f"{shown(value)} is not a setting Cairn keeps in an export")


# -- the pack ---------------------------------------------------------------------------------

NAME = text(MAX_WORD, blank=False)
ATTR = {
    "kind": Field(word(*ATTR_KINDS)),
    "required": Field(boolean),
    "description": Field(text()),
}
NODE_TYPE = {
    "family": Field(word(*FAMILIES)),
    "description": Field(text()),
    "attrs": Field(each(fields(ATTR))),
    "statuses": Field(each(NAME)),
}
RULE = list_of(NAME)
EDGE_TYPE = {
    "layer": Field(word(*LAYERS)),
    "directed": Field(boolean),
    "description": Field(text()),
    "rules": Field(list_of(RULE)),
}

# -- the lines --------------------------------------------------------------------------------

# A use adds one to a memory's count and a merge adds two counts together, in SQL and in
# Python: a count near 2**63 would overflow there long after the import. 2**53 is also as
# far as a JSON reader of another language holds a whole number exactly.
USES = 2**53
SIMILARITY = real(-1.0, 1.0)  # a cosine or a share, rounded as the gate logs it
LINES: dict[str, dict[str, Field]] = {
    "header": {
        "format": Field(word(jsonl_export.FORMAT)),
        "version": Field(whole(1, jsonl_export.VERSION)),
        "exported_at": Field(time),
        "embedder": Field(text(MAX_WORD), nullable=True),
        "scopes": Field(list_of(scope_name)),
        "whole_vault": Field(boolean),
    },
    "pack": {
        "name": Field(NAME),
        "version": Field(whole(0, INT64[1])),
        "node_types": Field(each(fields(NODE_TYPE))),
        "edge_types": Field(each(fields(EDGE_TYPE))),
    },
    "scope": {"name": Field(scope_name), "created_at": Field(time)},
    "setting": {"key": Field(setting_key), "value": Field(lambda value, known: None)},
    "receipt_head": {"count": Field(whole(*COUNT)), "head": Field(digest, nullable=True)},
    "node": {
        "id": Field(new_memory),
        "type": Field(node_type),
        "title": Field(text(MAX_TITLE, blank=False)),
        "body": Field(text(MAX_BODY)),
        "attrs": Field(json_object),
        "status": Field(word(*ALL_STATUSES)),
        "scope": Field(scope),
        "source": Field(text(), nullable=True),
        "locator": Field(json_object, nullable=True),
        "valid_from": Field(stamp, nullable=True),
        "valid_to": Field(stamp, nullable=True),
        "recorded_at": Field(time),
        "updated_at": Field(time),
        "importance": Field(real(0.0, 1.0)),
        "stability": Field(real(0.0, S_MAX, above=True)),
        "last_access": Field(time, nullable=True),
        "access_count": Field(whole(0, USES)),
        "retention_label": Field(word(*LABELS), nullable=True),
    },
    "edge": {
        "src": Field(memory),
        "dst": Field(memory),
        "type": Field(edge_type),
        "layer": Field(word(*LAYERS)),
        "rationale": Field(text(), nullable=True),
        "created_at": Field(time),
        "valid_from": Field(stamp, nullable=True),
        "valid_to": Field(stamp, nullable=True),
    },
    "merged_id": {
        "alias_id": Field(new_memory),
        "node_id": Field(memory),
        "created_at": Field(time),
    },
    "addendum": {
        # What the gate kept beside a memory: one restatement, or a whole merged memory
        # with its own addenda; no bound but the line's.
        "node_id": Field(memory),
        "text": Field(text(MAX_LINE, blank=False)),
        "origin": Field(word("absorbed", "merged")),
        "source": Field(text(), nullable=True),
        "recorded_at": Field(time),
    },
    "inbox": {
        "id": Field(ident),
        "text": Field(text(MAX_BODY, blank=False)),
        "scope": Field(scope),
        "captured_at": Field(time),
        "state": Field(word("open", "promoted", "discarded")),
        "node_id": Field(memory, nullable=True),
        "decided_at": Field(time, nullable=True),
    },
    "review_item": {
        # No memory need be there: a settled item outlives the memory a merge folded away.
        "id": Field(ident),
        "item_kind": Field(word("duplicate", "label_conflict", "revive_candidate")),
        "node_id": Field(ident),
        "other_id": Field(ident),
        "score": Field(SIMILARITY, nullable=True),
        "reason": Field(text()),
        "flags": Field(list_of(text(MAX_WORD))),
        "state": Field(word("open", "resolved")),
        "decision": Field(text(MAX_WORD), nullable=True),
        "created_at": Field(time),
        "decided_at": Field(time, nullable=True),
    },
    "retention_log": {
        "at": Field(time),
        "node_id": Field(memory),
        "action": Field(word("labelled", "proposed", "archived", "kept")),
        "label": Field(word(*LABELS), nullable=True),
        "actor": Field(text(MAX_WORD, blank=False)),
        "reason": Field(text()),
    },
    "dedup_log": {
        "at": Field(time),
        "node_id": Field(ident, nullable=True),
        "candidate_id": Field(ident, nullable=True),
        "outcome": Field(text(MAX_WORD, blank=False)),
        "score": Field(SIMILARITY, nullable=True),
        "jaccard": Field(real(0.0, 1.0), nullable=True),
        "reason": Field(text()),
        "flags": Field(list_of(text(MAX_WORD))),
    },
    "source": {
        "path": Field(text(blank=False)),
        "scope": Field(scope),
        "state": Field(word("ingested", "failed", "duplicate", "missing")),
        "sha256": Field(digest, nullable=True),
        "size": Field(whole(*COUNT), nullable=True),
        "mtime_ns": Field(whole(*INT64), nullable=True),
        "media_type": Field(text(MAX_WORD), nullable=True),
        "document_id": Field(memory, nullable=True),
        "passages": Field(whole(*COUNT)),
        "warnings": Field(list_of(text())),
        "error": Field(text(), nullable=True),
        "first_seen": Field(time),
        "updated_at": Field(time),
        "path_bytes": Field(hex_bytes, nullable=True),
    },
    "end": {"counts": Field(each(whole(*COUNT)))},
}


def check_line(kind: str, data: Mapping[str, Any], known: Known) -> None:
    """Every field of a ``kind`` line (``data`` without its ``kind``) against ``LINES``, then
    what joins two fields; raises ``Refused`` naming the field."""
    check_fields(data, LINES[kind], known)
    if kind == "setting":
        try:
            SETTINGS[data["key"]](data["value"], known)
        except Refused as refused:
            raise Refused(refused.problem, joined("value", refused.field)) from None
    elif kind == "edge":
        layer = known.edge_layers[data["type"]]
        if data["layer"] != layer:
            raise Refused(f"a {data['type']} edge belongs to the {layer} layer", "layer")
        if data["src"] == data["dst"]:
            raise Refused("it is the memory src names: a memory is not linked to itself", "dst")
