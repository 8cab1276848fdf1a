"""The whole memory as JSON Lines: one object per line, each with a ``kind``.

In order: a ``header`` (format version, when, the embedder whose vectors the vault held, the
scopes exported), the ``pack`` (the kinds of memory and link the vault knows), ``scope``
lines, ``setting`` lines, the ``receipt_head`` of the vault's hash chain, then every ``node``
(every status: active, pending, superseded, archived and stubs), ``edge`` (``supersedes`` edges
are the history: newer -> older), ``merged_id``, ``addendum``, ``inbox``, ``review_item``,
``retention_log``, ``dedup_log`` and ``source`` line, and last an ``end`` line with how many
lines of each kind came before it: a file without it was cut short.

Values are as the vault stores them; JSON text columns (attributes, locators, flags, warnings)
become plain JSON, a file name's bytes hex. Vectors are left out: they are derived, and
``cairn import`` embeds again. Bearer tokens and graph layouts stay behind too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from cairn.app import memory_settings
from cairn.app.clock import now_iso
from cairn.app.ingestion import unfinished
from cairn.app.packs import Pack
from cairn.storage import export_rows
from cairn.storage.connection import Connection

FORMAT = "cairn-jsonl"
VERSION = 1
FILE_NAME = "memories.jsonl"
# Line kinds after the header, in file order (``end`` closes the file).
ROW_KINDS = (
    "node", "edge", "merged_id", "addendum", "inbox", "review_item", "retention_log",
    "dedup_log", "source",
)  # fmt: skip
# Settings that describe the file rather than the memory: the pack has a line of its own, a
# vault's creation time is the new vault's, the record of the file an import filled it from
# (``jsonl_import``) is that vault's own, and so are the ingest runs it has yet to finish.
IMPORT_KEY = "import"
FILE_SETTINGS = frozenset({"pack", "created_at", IMPORT_KEY, unfinished.KEY})
# The settings a scoped export keeps: vault-wide tuning, never another compartment's folders.
WATCH_KEY = "watch.folders"
SHARED_PREFIXES = (memory_settings.PREFIX,)

Progress = Callable[[int], None]  # memories written so far
# A column named like the line's own ``kind`` takes another name in the file.
RENAMED = {"review_item": {"kind": "item_kind"}}


def write(
    conn: Connection,
    out: IO[str],
    pack: Pack,
    scopes: Sequence[str],
    *,
    whole: bool,
    embedder: str | None,
    progress: Progress | None = None,
) -> dict[str, int]:
    """Write every line to ``out`` from a reader inside a snapshot; returns the line counts."""
    counts: dict[str, int] = {}

    def line(kind: str, data: dict[str, Any]) -> None:
        out.write(json.dumps({"kind": kind, **data}, ensure_ascii=False, sort_keys=False))
        out.write("\n")
        counts[kind] = counts.get(kind, 0) + 1

    line(
        "header",
        {
            "format": FORMAT,
            "version": VERSION,
            "exported_at": now_iso(),
            "embedder": embedder,
            "scopes": list(scopes),
            "whole_vault": whole,
        },
    )
    line("pack", pack_data(pack))
    for row in export_rows.rows(conn, "scope", scopes, whole=whole):
        line("scope", row)
    for key, value in _settings(conn, scopes, whole):
        line("setting", {"key": key, "value": value})
    count, head = export_rows.receipt_head(conn)
    line("receipt_head", {"count": count, "head": head})
    for kind in ROW_KINDS:
        for row in export_rows.rows(conn, kind, scopes, whole=whole):
            line(kind, plain(kind, row))
            if kind == "node" and progress is not None and counts[kind] % 200 == 0:
                progress(counts[kind])
    line("end", {"counts": {k: v for k, v in counts.items() if k != "header"}})
    return counts


def plain(kind: str, row: dict[str, Any]) -> dict[str, Any]:
    """A row as it goes into the file: JSON text decoded, bytes as hex."""
    table = export_rows.TABLES[kind]
    out = dict(row)
    for column in table.json_columns:
        if out[column] is not None:
            out[column] = json.loads(out[column])
    if kind == "source" and out["path_bytes"] is not None:
        out["path_bytes"] = bytes(out["path_bytes"]).hex()
    return {RENAMED.get(kind, {}).get(k, k): v for k, v in out.items()}


def file_fields(kind: str) -> tuple[str, ...]:
    """The fields of a ``kind`` line, in file order."""
    renamed = RENAMED.get(kind, {})
    return tuple(renamed.get(c, c) for c in export_rows.TABLES[kind].columns)


def _settings(conn: Connection, scopes: Sequence[str], whole: bool) -> Iterator[tuple[str, Any]]:
    for key, text in export_rows.settings(conn).items():
        if key in FILE_SETTINGS:
            continue
        value = json.loads(text)
        if key == WATCH_KEY:
            value = [f for f in value if whole or f.get("scope") in scopes]
        elif not whole and not key.startswith(SHARED_PREFIXES):
            continue  # a setting that may concern another compartment stays behind
        yield key, value


def pack_data(pack: Pack) -> dict[str, Any]:
    """The pack as plain data (``jsonl_import.pack_from`` reads it back)."""
    return {
        "name": pack.name,
        "version": pack.version,
        "node_types": {
            t.name: {
                "family": t.family,
                "description": t.description,
                "attrs": {
                    a.name: {"kind": a.kind, "required": a.required, "description": a.description}
                    for a in t.attrs.values()
                },
                "statuses": dict(sorted(t.statuses.items())),
            }
            for t in pack.node_types.values()
        },
        "edge_types": {
            e.name: {
                "layer": e.layer,
                "directed": e.directed,
                "description": e.description,
                "rules": [list(rule) for rule in e.rules],
            }
            for e in pack.edge_types.values()
        },
    }


def export_file(folder: Path) -> Path:
    return folder / FILE_NAME
