"""``cairn import``: a JSON Lines export (``jsonl_export``) restored into a new vault.

A restore, not a write: the dedup gate is not asked (the memories were already judged once),
and every id, status, date, retention value, attribute, link and version comes back as it
was. But it is checked like a write: every field of every line against the rules of
``import_fields`` (the write path's own: a title within ``MAX_TITLE``, times as Cairn writes
them, numbers SQLite holds, ids of memories that are there), the lines in the order an export
writes them, then each row against the vault's own rules (the schema's triggers and foreign
keys). The first that fails is named by its line and field, and nothing is kept: the whole
file goes in one transaction, with the full-text and name indexes made from what it wrote,
an ``import`` receipt and a record of the file (``IMPORT_KEY``), or none of it does. A file
that lacks its closing ``end`` line, or whose counts differ from it, was cut short.

Vectors are not in the file: the import leaves vector search off, and ``rebuild_vectors`` (the
same path as ``cairn reindex``) embeds every memory afterwards, in batches that resume. A run
stopped during that embedding leaves the vault holding the whole import with some vectors
missing: the same import run again finds its own record (the file's SHA-256 and counts) and
only finishes the embedding. Any other memories in the vault make an import refuse.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from cairn.app import memory_settings
from cairn.app.clock import now_iso
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest, PackError, RowRejected
from cairn.app.packs import Pack
from cairn.app.portability import import_fields, import_lines, import_rules, jsonl_export
from cairn.app.portability.import_rules import Refused, shown
from cairn.app.process import diagnostic_log
from cairn.app.text.surface import searchable_text
from cairn.app.upkeep import receipts
from cairn.app.writing.nodes import attrs_json, index_entity_names
from cairn.storage import dedup_rows, export_rows, fulltext, records, vectors
from cairn.storage.connection import Connection, translated
from cairn.storage.sentinel import SENTINEL_ID
from cairn.storage.vault import Vault

MAX_LINE = import_rules.MAX_LINE
Progress = Callable[[int], None]  # lines read so far
# The setting that records which file a vault was filled from, written with the import.
IMPORT_KEY = jsonl_export.IMPORT_KEY
# The kinds of line in the order an export writes them; those of ``ONCE`` appear once at most.
ORDER = ("header", "pack", "scope", "setting", "receipt_head", *jsonl_export.ROW_KINDS, "end")
ONCE = frozenset({"header", "pack", "receipt_head", "end"})
AFTER = (
    "Nothing was imported: put that right, or export again from the original vault "
    "(cairn export DEST --format jsonl)"
)


class ImportRejected(InvalidRequest):
    """The file is not a whole, valid export; nothing was imported."""


@dataclass
class ImportReport:
    path: str
    counts: dict[str, int] = field(default_factory=dict)
    source_receipts: dict[str, Any] = field(default_factory=dict)
    embedder: str | None = None
    embedded: int = 0
    sha256: str | None = None
    # The vault already held this file's import (a run stopped while embedding): only the
    # embedding was finished.
    resumed: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "counts": self.counts,
            "source_receipts": self.source_receipts,
            "exported_with_embedder": self.embedder,
            "embedded": self.embedded,
            "sha256": self.sha256,
            "resumed": self.resumed,
        }


def restore(
    vault: Vault, space: EmbeddingSpace, path: Path, progress: Progress | None = None
) -> ImportReport:
    """Import the export at ``path`` into ``vault``, which must hold no memories yet, or
    exactly this file's import (then nothing is written: the caller finishes the vectors)."""
    with diagnostic_log.timed("import") as counts:  # how long, how many: never what or where
        report = _restore(vault, space, path, progress)
        counts.update(report.counts, resumed=int(report.resumed))
    return report


def _restore(
    vault: Vault, space: EmbeddingSpace, path: Path, progress: Progress | None
) -> ImportReport:
    path = export_file_in(path)
    report = ImportReport(str(path))
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InvalidRequest(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    with handle, vault.write() as conn:
        held = export_rows.memories_other_than(conn, SENTINEL_ID)
        if held:
            _resume(conn, vault.path, space, handle, report, held)
            return report
        digest = hashlib.sha256()
        try:
            _Restore(conn, vault.path, report, progress).run(import_lines.read(handle, digest))
        except Refused as refused:
            raise ImportRejected(_sentence(path, refused)) from None
        report.sha256 = digest.hexdigest()
        nodes, edges = report.counts.get("node", 0), report.counts.get("edge", 0)
        if nodes:
            # No vectors yet: a memory stored without one turns vector search off (in the
            # vault and in this process) until ``rebuild_vectors`` has embedded them all.
            [row, *_] = next(iter(export_rows.node_pages(conn)))
            space.store(conn, row["seq"], None, row["scope"], "active")
        records.set_setting(
            conn,
            IMPORT_KEY,
            {
                "sha256": report.sha256,
                "counts": report.counts,
                "source_receipts": report.source_receipts,
                "embedder": report.embedder,
                "at": now_iso(),
            },
        )
        receipts.append(conn, "import", {"nodes": nodes, "edges": edges})
    return report


def _resume(
    conn: Connection,
    vault_path: Path,
    space: EmbeddingSpace,
    handle: IO[bytes],
    report: ImportReport,
    held: int,
) -> None:
    """The vault holds memories: if they are this very file's import, say so in ``report``;
    else refuse, naming ``cairn reindex`` if some of them still lack their vector."""
    done = records.get_setting(conn, IMPORT_KEY)
    sha256 = import_lines.file_digest(handle)
    if (
        isinstance(done, dict)
        and done.get("sha256") == sha256
        and isinstance(done.get("counts"), dict)
        and done["counts"].get("node") == held
    ):
        report.counts = dict(done["counts"])
        source_receipts = done.get("source_receipts")
        report.source_receipts = source_receipts if isinstance(source_receipts, dict) else {}
        embedder = done.get("embedder")
        report.embedder = embedder if isinstance(embedder, str) else None
        report.sha256 = sha256
        report.resumed = True
        return
    other = " (an import of another file, or memories added since)" if done else ""
    missing = len(vectors.seqs_without_vector(conn, space.identity)) if space.identity else 0
    unembedded = (
        f" {missing} of its memories have no vector yet, so search by meaning is off in it: "
        f"`cairn reindex --vault {vault_path}` embeds them."
        if missing
        else ""
    )
    raise InvalidRequest(
        f"The vault {vault_path} already holds {held} memories{other}. An import restores an "
        "export into a new vault: give a vault file that does not exist yet "
        f"(cairn import FILE --vault NEW.cairn), and it is created.{unembedded}"
    )


def _sentence(path: Path, refused: Refused) -> str:
    where = f"{path}, line {refused.line}" if refused.line is not None else str(path)
    if refused.field:
        where += f", field {refused.field}"
    return f"{where}: {refused.problem}. {AFTER}."


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


class _Restore:
    """One pass over the lines, inside the caller's transaction. It is the ``Known`` of
    ``import_fields``: the scopes, the pack's types and the memories written so far."""

    def __init__(
        self, conn: Connection, vault_path: Path, report: ImportReport, progress: Progress | None
    ) -> None:
        self.conn = conn
        self.vault_path = vault_path
        self.report = report
        self.progress = progress
        self._scopes: set[str] = set(records.scope_names(conn))
        # Known once the pack line is read.
        self.entity_types: set[str] = set()
        self._node_types: frozenset[str] = frozenset()
        self._edge_layers: dict[str, str] = {}
        self.seen: set[str] = set()  # the kinds read so far
        self.place = -1  # the place in ``ORDER`` of the last line's kind

    # -- Known ----------------------------------------------------------------------------

    @property
    def scopes(self) -> Set[str]:
        return self._scopes

    @property
    def node_types(self) -> Set[str]:
        return self._node_types

    @property
    def edge_layers(self) -> Mapping[str, str]:
        return self._edge_layers

    def has_node(self, node_id: str) -> bool:
        return node_id != SENTINEL_ID and export_rows.holds_node(self.conn, node_id)

    # -- the pass -------------------------------------------------------------------------

    def run(self, lines: Iterator[tuple[int, dict[str, Any]]]) -> None:
        number = 0
        for number, data in lines:
            kind = data.pop("kind")
            try:
                self._line(kind, data)
            except Refused as refused:
                refused.line = number
                raise
            except RowRejected as exc:  # the schema's triggers and constraints, last
                # What the checks leave to the node's trigger is its attributes' kinds.
                where = "attrs" if kind == "node" else ""
                problem = f"the vault refused the {kind}: {exc.reason}"
                raise Refused(problem, where, number) from None
            if kind not in ("header", "end"):
                self.report.counts[kind] = self.report.counts.get(kind, 0) + 1
            if self.progress is not None and number % 500 == 0:
                self.progress(number)
        if number == 0:
            raise ImportRejected(
                f"{self.report.path} is empty: not a Cairn JSON Lines export. Export with "
                "`cairn export DEST --format jsonl`, then import the file it writes."
            )
        if "end" not in self.seen:
            raise ImportRejected(
                f"{self.report.path} stops at line {number} without its closing line: it was "
                "cut short (a copy that did not finish, or a full disk when it was written). "
                "Nothing was imported; export again from the original vault."
            )
        clash = memory_settings.bands_problem(memory_settings.as_dict(self.conn))
        if clash is not None:
            raise Refused(f"its settings do not go together: {clash.rstrip('.')}")
        self._index()

    def _line(self, kind: str, data: dict[str, Any]) -> None:
        if not self.seen:
            self._header(kind, data)
        elif kind not in ORDER:
            raise Refused(f"{shown(kind)} is not a kind of line an export holds", "kind")
        self._in_order(kind)
        if kind == "header":
            return
        import_fields.check_line(kind, data, self)
        with translated(self.vault_path):
            if kind == "pack":
                self._pack(data)
            elif kind == "setting":
                key = data["key"]
                value = data["value"]
                if key.startswith(memory_settings.PREFIX):  # as the write path stores it
                    value = memory_settings.checked(key.removeprefix(memory_settings.PREFIX), value)
                records.set_setting(self.conn, key, value)
            elif kind == "receipt_head":
                self.report.source_receipts = dict(data)
            elif kind == "end":
                self._end(data["counts"])
            elif kind == "scope":
                export_rows.insert(self.conn, "scope", data)
                self._scopes.add(data["name"])
            else:
                self._row(kind, data)

    def _header(self, kind: str, data: dict[str, Any]) -> None:
        if kind != "header" or data.get("format") != jsonl_export.FORMAT:
            raise ImportRejected(
                f"{self.report.path} is not a Cairn JSON Lines export (its first line is not "
                "the export's header). Export with `cairn export DEST --format jsonl`."
            )
        version = data.get("version")
        if isinstance(version, int) and version > jsonl_export.VERSION:
            raise ImportRejected(
                f"{self.report.path} was written by a newer Cairn (format {version}); this one "
                f"reads format {jsonl_export.VERSION}. Update Cairn, then import."
            )
        import_fields.check_line("header", data, self)
        self.report.embedder = data["embedder"]

    def _in_order(self, kind: str) -> None:
        """Lines in the order an export writes them: one header, then one pack before
        anything it describes, ..., one end and nothing after it."""
        place = ORDER.index(kind)
        if "end" in self.seen:
            raise Refused("there is more after the closing end line")
        if kind in ONCE and kind in self.seen:
            raise Refused(f"it is a second {kind} line; an export has one")
        if place < self.place:
            raise Refused(
                f"it is a {kind} line after the {ORDER[self.place]} lines; an export writes "
                f"its lines in this order: {', '.join(ORDER)}"
            )
        if place > ORDER.index("pack") and "pack" not in self.seen:
            raise Refused(
                f"it is a {kind} line before the pack line, which describes the kinds of "
                "memory (the pack comes right after the header)"
            )
        self.seen.add(kind)
        self.place = place

    def _pack(self, data: dict[str, Any]) -> None:
        try:
            pack = pack_from(data)
        except PackError as exc:
            raise Refused(str(exc).rstrip(".")) from None
        pack.install(self.conn)
        records.set_setting(self.conn, "pack", {"name": pack.name, "version": pack.version})
        self._node_types = frozenset(pack.node_types)
        self._edge_layers = {name: edge.layer for name, edge in pack.edge_types.items()}
        self.entity_types = {n for n, t in pack.node_types.items() if t.family == "entity"}

    def _row(self, kind: str, data: dict[str, Any]) -> None:
        table = export_rows.TABLES[kind]
        row = dict(
            zip(table.columns, (data[f] for f in jsonl_export.file_fields(kind)), strict=True)
        )
        for column in table.json_columns:
            if row[column] is None:
                continue
            row[column] = (
                attrs_json(row[column])
                if column == "attrs"
                else json.dumps(row[column], ensure_ascii=False, allow_nan=False)
            )
        if kind == "source" and row["path_bytes"] is not None:
            row["path_bytes"] = bytes.fromhex(row["path_bytes"])
        export_rows.insert(self.conn, kind, row)

    def _end(self, expected: dict[str, int]) -> None:
        found = {k: v for k, v in self.report.counts.items() if v}
        if {k: v for k, v in expected.items() if v} != found:
            raise Refused(
                f"the file says it holds {expected}, but {found} lines were read", "counts"
            )

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
                if row["type"] in self.entity_types:
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
