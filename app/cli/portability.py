"""``cairn export`` and ``cairn import``: the memory out as plaintext files, and a JSON Lines
export back into a new vault."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from cairn.app.cli.common import ProgressLine, create_service, emit, open_service, vault_path
from cairn.app.errors import InvalidRequest
from cairn.app.portability.exporting import FORMATS, PLAINTEXT_WARNING
from cairn.storage.vault import remove_vault_files

Verb = Callable[..., argparse.ArgumentParser]


def cmd_export(args: argparse.Namespace) -> int:
    # Said before anything is written (on stderr, so --json output stays JSON): the person
    # chose plaintext, and should know it.
    print(f"note: {PLAINTEXT_WARNING}", file=sys.stderr)

    progress = ProgressLine(args, "exporting")
    # No model: an export reads what is stored and embeds nothing.
    with open_service(args, with_embedder=False) as service:
        report = service.export(
            args.dest, format=args.format, scopes=args.scope or None, progress=progress
        )
    progress.end()

    def human() -> None:
        where = report.file or report.path
        what = "files" if report.format == "markdown" else "lines"
        count = report.counts.get("files") if report.format == "markdown" else None
        detail = f", {count} {what}" if count is not None else ""
        print(
            f"Exported {report.memories} memories ({report.format}{detail}) from "
            f"{', '.join(report.scopes)} to {where}"
        )
        if report.links_left_out:
            print(
                f"note: {report.links_left_out} links to memories in other scopes were left out.",
                file=sys.stderr,
            )

    emit(args, report.as_dict(), human)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    source = Path(args.file).expanduser()
    if not source.exists():
        raise InvalidRequest(f"There is no file {source}.")
    path = vault_path(args)
    created = not path.exists()
    service = create_service(args, path) if created else open_service(args)
    embedding = ProgressLine(args, "embedding")
    try:
        with service:
            report = service.import_jsonl(source, embed_progress=embedding)
    except BaseException:
        if created:  # the vault this command made holds nothing: it goes with the failure
            remove_vault_files(path)
        raise
    embedding.end()

    def human() -> None:
        counts = report.counts
        memories = f"{counts.get('node', 0)} memories and {counts.get('edge', 0)} links"
        if report.resumed:
            # An earlier run of this import was stopped while embedding: it is finished now.
            print(
                f"{path} already holds this import ({memories}); "
                + (
                    f"{report.embedded} memories that had no vector yet were embedded now."
                    if report.embedded
                    else "every memory was already embedded, so there was nothing left to do."
                )
            )
        else:
            print(
                f"Imported {memories} into {'the new vault ' if created else ''}{path}; "
                f"{report.embedded} embedded."
            )
        head = report.source_receipts
        if head.get("head"):
            print(
                f"The exported vault's receipt chain: {head['count']} receipts, head {head['head']}"
            )

    emit(args, {"vault": str(path), "created": created, **report.as_dict()}, human)
    return 0


def register(verb: Verb, scoped: argparse.ArgumentParser) -> None:
    out = verb(
        "export",
        cmd_export,
        "write memories out as plaintext files (Markdown notes or JSON Lines), by your choice",
        scoped,
    )
    out.add_argument(
        "dest", metavar="DEST", help="a new folder for the export (created; never overwritten)"
    )
    out.add_argument(
        "--format",
        choices=FORMATS,
        default="markdown",
        help="markdown: a notes folder for Obsidian or any editor; jsonl: everything, for "
        "`cairn import` (default: markdown)",
    )
    back = verb("import", cmd_import, "restore a JSON Lines export into a new vault")
    back.add_argument(
        "file", metavar="FILE", help="the .jsonl file `cairn export --format jsonl` wrote"
    )
