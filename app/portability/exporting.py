"""An export, start to end: check where it goes, read one snapshot of the vault, write the
chosen format into a private staging folder, and give it its name once whole
(``destination``). The vault is only read; it is the same after an export as before."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.app.errors import InvalidRequest
from cairn.app.packs import Pack
from cairn.app.portability import jsonl_export, markdown_export
from cairn.app.portability.destination import check_destination, private_file, staged_folder
from cairn.app.portability.leftovers import ExportLedger
from cairn.app.process import diagnostic_log
from cairn.storage import export_rows, graph_rows
from cairn.storage.vault import Vault

FORMATS = ("markdown", "jsonl")
PLAINTEXT_WARNING = (
    "An export is plaintext, not encrypted: anyone who can read the folder it is written to "
    "can read these memories. Keep it somewhere private, and delete it when it has served."
)
Progress = Callable[[int, int], None]  # (memories written, memories in all)


@dataclass(frozen=True)
class ExportReport:
    path: str  # the folder made
    format: str
    file: str | None  # the JSON Lines file in it
    scopes: list[str]
    memories: int
    counts: dict[str, int]
    links_left_out: int  # links to memories of scopes not exported: counted, never named

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "format": self.format,
            "file": self.file,
            "scopes": self.scopes,
            "memories": self.memories,
            "counts": self.counts,
            "links_left_out": self.links_left_out,
        }


def export(
    vault: Vault,
    pack: Pack,
    embedder: str | None,
    dest: Path,
    fmt: str,
    scopes: Sequence[str],
    *,
    whole: bool,
    ledger: ExportLedger,
    progress: Progress | None = None,
) -> ExportReport:
    """Write the memories of ``scopes`` to the new folder ``dest`` in ``fmt``; ``ledger``
    keeps the staging folder's path until it is DEST (see ``leftovers``)."""
    with diagnostic_log.timed("export") as counts:  # how long, how many: never what or where
        report = _export(vault, pack, embedder, dest, fmt, scopes, whole, ledger, progress)
        counts.update(report.counts, memories=report.memories)
    return report


def _export(
    vault: Vault,
    pack: Pack,
    embedder: str | None,
    dest: Path,
    fmt: str,
    scopes: Sequence[str],
    whole: bool,
    ledger: ExportLedger,
    progress: Progress | None,
) -> ExportReport:
    if fmt not in FORMATS:
        raise InvalidRequest(f"The export formats are {' and '.join(FORMATS)}; not {fmt!r}.")
    dest = check_destination(dest)  # before anything is read
    with vault.read() as conn, export_rows.snapshot(conn):
        total = sum(graph_rows.counts_by(conn, "status", scopes).values())
        left_out = 0 if whole else export_rows.links_leaving(conn, scopes)

        def written(done: int) -> None:
            if progress is not None:
                progress(done, total)

        written(0)
        file = None
        with staged_folder(dest, ledger) as folder:
            if fmt == "jsonl":
                with private_file(jsonl_export.export_file(folder)) as out:
                    counts = jsonl_export.write(
                        conn, out, pack, scopes, whole=whole, embedder=embedder, progress=written
                    )
                    out.flush()
                    os.fsync(out.fileno())  # on the disk before the folder takes its name
                file = str(jsonl_export.export_file(dest))
                memories = counts.get("node", 0)
            else:
                undirected = frozenset(n for n, e in pack.edge_types.items() if not e.directed)
                counts = markdown_export.write(conn, folder, scopes, undirected, written)
                memories = total
        written(total)
    return ExportReport(str(dest), fmt, file, list(scopes), memories, counts, left_out)
