"""``cairn import``: a JSON Lines export (``jsonl_export``) restored into a new vault.

A restore, not a write: the dedup gate is not asked (the memories were already judged once),
and every id, status, date, retention value, attribute, link and version comes back as it
was. Every line is checked, against what its kind holds and against the vault's own rules (the
schema's triggers and foreign keys); the first one that fails is named with its line number
and nothing is kept: the whole file goes in one transaction, with the full-text and name
indexes made from what it wrote and an ``import`` receipt, or none of it does. A file that
lacks its closing ``end`` line, or whose counts differ from it, was cut short and is refused.

Vectors are not in the file: the import leaves vector search off, and ``rebuild_vectors`` (the
same path as ``cairn reindex``) embeds every memory afterwards, in batches that resume.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from cairn.app import memory_settings, receipts
from cairn.app.embedding_space import EmbeddingSpace
from cairn.app.errors import SCOPE_NAME, CairnError, InvalidRequest, PackError
from cairn.app.nodes import attrs_json, index_entity_names
from cairn.app.packs import Pack
from cairn.app.portability import jsonl_export
from cairn.app.text import searchable_text
from cairn.storage import dedup_rows, export_rows, fulltext, records
from cairn.storage.connection import Connection, translated
from cairn.storage.sentinel import ENGINE_SCOPE, SENTINEL_ID
from cairn.storage.vault import Vault

MAX_LINE = 64 * 1024 * 1024  # one memory's line; a longer one is not an export of Cairn's
Progress = Callable[[int], None]  # lines read so far


class ImportRejected(InvalidRequest):
    """The file is not a whole, valid export; nothing was imported."""


@dataclass
class ImportReport:
    path: str
    counts: dict[str, int] = field(default_factory=dict)
    source_receipts: dict[str, Any] = field(default_factory=dict)
    embedder: str | None = None
    embedded: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "counts": self.counts,
            "source_receipts": self.source_receipts,
            "exported_with_embedder": self.embedder,
            "embedded": self.embedded,
        }


def restore(
    vault: Vault, space: EmbeddingSpace, path: Path, progress: Progress | None = None
) -> ImportReport:
    """Import the export at ``path`` into ``vault``, which must hold no memories yet."""
    path = export_file_in(path)
    report = ImportReport(str(path))
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InvalidRequest(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    with handle, vault.write() as conn:
        held = export_rows.memories_other_than(conn, SENTINEL_ID)
        if held:
            raise InvalidRequest(
                f"The vault {vault.path} already holds {held} memories. An import restores an "
                "export into a new vault: give a vault file that does not exist yet "
                "(cairn import FILE --vault NEW.cairn), and it is created."
            )
        _Restore(conn, vault.path, report, progress).run(_lines(handle, path))
        nodes, edges = report.counts.get("node", 0), report.counts.get("edge", 0)
        if nodes:
            # No vectors yet: a memory stored without one turns vector search off (in the
            # vault and in this process) until ``rebuild_vectors`` has embedded them all.
            [row, *_] = next(iter(export_rows.node_pages(conn)))
            space.store(conn, row["seq"], None, row["scope"], "active")
        receipts.append(conn, "import", {"nodes": nodes, "edges": edges})
    return report


def export_file_in(path: Path) -> Path:
    """``path``, or the export file in it when it is the folder an export made."""
    if not path.is_dir():
        return path
    found = sorted(path.glob("*.jsonl"))
    if len(found) != 1:
        holds = "several .jsonl files" if found else "no .jsonl file"
        raise InvalidRequest(
            f"{path} is a folder with {holds}; name the export file itself "
            f"({jsonl_export.FILE_NAME} in the folder an export made)."
        )
    return found[0]


def _lines(handle: IO[bytes], path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    number = 0
    while True:
        raw = handle.readline(MAX_LINE + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE:
            raise ImportRejected(f"{path}, line {number}: longer than 64 MB; not a Cairn export.")
        if not raw.strip():
            continue
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise ImportRejected(
                f"{path}, line {number}: not a JSON line ({exc}); the file is damaged. "
                "Nothing was imported; export again from the original vault."
            ) from None
        if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
            raise ImportRejected(
                f"{path}, line {number}: not a line of a Cairn export (each is a JSON object "
                "with a kind). Nothing was imported."
            )
        yield number, data


class _Restore:
    """One pass over the lines, inside the caller's transaction."""

    def __init__(
        self, conn: Connection, vault_path: Path, report: ImportReport, progress: Progress | None
    ) -> None:
        self.conn = conn
        self.vault_path = vault_path
        self.report = report
        self.progress = progress
        self.scopes: set[str] = set(records.scope_names(conn))
        self.entity_types: set[str] | None = None  # known once the pack line is read
        self.ended = False

    def run(self, lines: Iterator[tuple[int, dict[str, Any]]]) -> None:
        number = 0
        for number, data in lines:
            if self.ended:
                self._reject(number, "there is more after the closing line")
            kind = data.pop("kind")
            if number == 1 or kind == "header":
                self._header(number, kind, data)
                continue
            try:
                with translated(self.vault_path):
                    self._line(number, kind, data)
            except ImportRejected:
                raise
            except (CairnError, ValueError, TypeError, KeyError) as exc:
                self._reject(number, f"the {kind} was refused: {exc}")
            if kind != "end":
                self.report.counts[kind] = self.report.counts.get(kind, 0) + 1
            if self.progress is not None and number % 500 == 0:
                self.progress(number)
        if number == 0:
            raise ImportRejected(f"{self.report.path} is empty: not a Cairn JSON Lines export.")
        if not self.ended:
            raise ImportRejected(
                f"{self.report.path} stops at line {number} without its closing line: it was "
                "cut short (a copy that did not finish, or a full disk when it was written). "
                "Nothing was imported; export again from the original vault."
            )
        self._index()

    def _reject(self, number: int, problem: str) -> None:
        raise ImportRejected(
            f"{self.report.path}, line {number}: {problem}. Nothing was imported; the file is "
            "damaged or was changed by hand: export again from the original vault."
        )

    def _header(self, number: int, kind: str, data: dict[str, Any]) -> None:
        if number != 1 or kind != "header" or data.get("format") != jsonl_export.FORMAT:
            raise ImportRejected(
                f"{self.report.path} is not a Cairn JSON Lines export (its first line is not "
                "the export's header). Export with `cairn export DEST --format jsonl`."
            )
        version = data.get("version")
        if not isinstance(version, int) or version > jsonl_export.VERSION:
            raise ImportRejected(
                f"{self.report.path} was written by a newer Cairn (format {version}); this one "
                f"reads format {jsonl_export.VERSION}. Update Cairn, then import."
            )
        embedder = data.get("embedder")
        self.report.embedder = embedder if isinstance(embedder, str) else None

    def _line(self, number: int, kind: str, data: dict[str, Any]) -> None:
        if kind == "pack":
            self._pack(data)
        elif kind == "setting":
            self._fields(number, kind, data, ("key", "value"))
            self._setting(number, data["key"], data["value"])
        elif kind == "receipt_head":
            self._fields(number, kind, data, ("count", "head"))
            self.report.source_receipts = dict(data)
        elif kind == "end":
            self._end(number, data)
        elif kind == "scope":
            self._scope(number, data)
        elif kind in export_rows.TABLES:
            self._row(number, kind, data)
        else:
            self._reject(number, f"unknown kind {kind!r}")

    def _fields(
        self, number: int, kind: str, data: dict[str, Any], wanted: tuple[str, ...]
    ) -> None:
        if set(data) != set(wanted):
            missing = sorted(set(wanted) - set(data))
            extra = sorted(set(data) - set(wanted))
            said = "; ".join(
                part
                for part in (
                    f"missing {', '.join(missing)}" if missing else "",
                    f"unexpected {', '.join(extra)}" if extra else "",
                )
                if part
            )
            self._reject(number, f"a {kind} line does not have the fields it should ({said})")

    def _setting(self, number: int, key: Any, value: Any) -> None:
        """A setting as stored, once its shape is one Cairn reads back: a memory setting it
        knows, and watched folders each with a path and a scope of the file."""
        known = isinstance(key, str) and key not in jsonl_export.FILE_SETTINGS
        if known and key.startswith(memory_settings.PREFIX):
            known = key.removeprefix(memory_settings.PREFIX) in memory_settings.SETTINGS
            known = known and isinstance(value, str | int | float | bool)
        if known and key == jsonl_export.WATCH_KEY:
            known = isinstance(value, list) and all(
                isinstance(f, dict)
                and set(f) == {"path", "scope"}
                and isinstance(f["path"], str)
                and f["scope"] in self.scopes
                for f in value
            )
        if not known:
            self._reject(number, f"the setting {key!r} is not one Cairn keeps in this form")
        records.set_setting(self.conn, key, value)

    def _pack(self, data: dict[str, Any]) -> None:
        pack = pack_from(data)
        pack.install(self.conn)
        records.set_setting(self.conn, "pack", {"name": pack.name, "version": pack.version})
        self.entity_types = {n for n, t in pack.node_types.items() if t.family == "entity"}

    def _scope(self, number: int, data: dict[str, Any]) -> None:
        self._fields(number, "scope", data, ("name", "created_at"))
        name = data["name"]
        if not isinstance(name, str) or not SCOPE_NAME.match(name) or name == ENGINE_SCOPE:
            self._reject(number, f"{name!r} is not a scope name")
        export_rows.insert(self.conn, "scope", data)
        self.scopes.add(name)

    def _row(self, number: int, kind: str, data: dict[str, Any]) -> None:
        table = export_rows.TABLES[kind]
        self._fields(number, kind, data, jsonl_export.file_fields(kind))
        row = dict(
            zip(table.columns, (data[f] for f in jsonl_export.file_fields(kind)), strict=True)
        )
        for column in table.json_columns:
            if row[column] is None:
                continue
            row[column] = (
                attrs_json(row[column])
                if column == "attrs"
                else json.dumps(row[column], ensure_ascii=False)
            )
        if kind == "node":
            if self.entity_types is None:
                self._reject(number, "a memory comes before the pack line that describes it")
            if row["id"] == SENTINEL_ID:
                self._reject(number, "the id is the one Cairn keeps for itself")
            if row["scope"] not in self.scopes:
                self._reject(number, f"the scope {row['scope']!r} has no scope line before it")
        if kind == "source" and row["path_bytes"] is not None:
            row["path_bytes"] = bytes.fromhex(row["path_bytes"])
        export_rows.insert(self.conn, kind, row)

    def _end(self, number: int, data: dict[str, Any]) -> None:
        self._fields(number, "end", data, ("counts",))
        expected = data["counts"]
        found = {k: v for k, v in self.report.counts.items() if v}
        if not isinstance(expected, dict) or {k: v for k, v in expected.items() if v} != found:
            self._reject(number, f"the file says it holds {expected}, but {found} lines were read")
        self.ended = True

    def _index(self) -> None:
        """The full-text and name indexes of every memory written, a page at a time."""
        for page in export_rows.node_pages(self.conn):
            addenda: dict[str, list[str]] = {}
            for addendum in dedup_rows.addenda_of(self.conn, [r["id"] for r in page]):
                addenda.setdefault(addendum["node_id"], []).append(addendum["text"])
            for row in page:
                if row["id"] == SENTINEL_ID:
                    continue
                attrs = json.loads(row["attrs"])
                text = searchable_text(row["title"], row["body"], attrs, addenda.get(row["id"], []))
                fulltext.index(self.conn, row["seq"], text)
                if row["type"] in (self.entity_types or ()):
                    index_entity_names(self.conn, row)


def pack_from(data: dict[str, Any]) -> Pack:
    """The pack a ``pack`` line describes (``jsonl_export.pack_data``), checked as a pack
    file is."""
    try:
        types = {
            name: {
                "family": spec["family"],
                "description": spec.get("description", ""),
                "attrs": spec.get("attrs", {}),
                **_statuses(spec.get("statuses", {})),
            }
            for name, spec in data["node_types"].items()
        }
        edges = {
            name: {
                "layer": spec["layer"],
                "directed": spec["directed"],
                "description": spec.get("description", ""),
                "rules": spec["rules"],
            }
            for name, spec in data["edge_types"].items()
        }
        meta = {"name": data["name"], "version": data["version"]}
    except (KeyError, TypeError, AttributeError) as exc:
        raise PackError("in the export", f"its pack line lacks {exc}") from None
    return Pack.from_data({"pack": meta, "types": types, "edges": edges}, "in the export")


def _statuses(words: dict[str, str]) -> dict[str, Any]:
    if not words:
        return {}
    values = sorted(set(words.values()))
    synonyms = {word: canonical for word, canonical in words.items() if word != canonical}
    return {"statuses": {"values": values, "synonyms": synonyms}}
