"""``cairn export`` and ``cairn import``: the memory out as plaintext files, and a JSON Lines
export back into a new vault."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from cairn.app import compose
from cairn.app.cli.common import ask, emit, open_service, vault_path
from cairn.app.errors import InvalidRequest
from cairn.app.portability.exporting import FORMATS, PLAINTEXT_WARNING
from cairn.app.service import MemoryService

Verb = Callable[..., argparse.ArgumentParser]


def cmd_export(args: argparse.Namespace) -> int:
    # Said before anything is written (on stderr, so --json output stays JSON): the person
    # chose plaintext, and should know it.
    print(f"note: {PLAINTEXT_WARNING}", file=sys.stderr)

    def progress(done: int, total: int) -> None:
        if not args.json and total and sys.stderr.isatty():
            print(f"\rexporting {done}/{total}", end="", file=sys.stderr, flush=True)

    # No model: an export reads what is stored and embeds nothing.
    with open_service(args, with_embedder=False) as service:
        report = service.export(
            args.dest, format=args.format, scopes=args.scope or None, progress=progress
        )
    if not args.json and sys.stderr.isatty():
        print(file=sys.stderr)

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
    service = _new_vault(args, path) if created else open_service(args)

    def embedding(done: int, total: int) -> None:
        if not args.json and total and sys.stderr.isatty():
            print(f"\rembedding {done}/{total}", end="", file=sys.stderr, flush=True)

    try:
        with service:
            report = service.import_jsonl(source, embed_progress=embedding)
    except BaseException:
        if created:  # the vault this command made holds nothing: it goes with the failure
            _remove_new_vault(path)
        raise
    if not args.json and sys.stderr.isatty():
        print(file=sys.stderr)

    def human() -> None:
        counts = report.counts
        print(
            f"Imported {counts.get('node', 0)} memories and {counts.get('edge', 0)} links "
            f"into {'the new vault ' if created else ''}{path}; {report.embedded} embedded."
        )
        head = report.source_receipts
        if head.get("head"):
            print(
                f"The exported vault's receipt chain: {head['count']} receipts, head {head['head']}"
            )

    emit(args, {"vault": str(path), "created": created, **report.as_dict()}, human)
    return 0


def _remove_new_vault(path: Path) -> None:
    for leftover in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))):
        leftover.unlink(missing_ok=True)


def _new_vault(args: argparse.Namespace, path: Path) -> MemoryService:
    if not args.vault and not os.environ.get("CAIRN_VAULT"):
        compose.Config.from_environment().ensure_data_dir()
    passphrase = ask(f"New passphrase for {path}: ", "CAIRN_PASSPHRASE", twice=True)
    if not passphrase:
        raise InvalidRequest("Choose a passphrase: an empty one would leave the vault open.")
    return compose.create_vault(path, passphrase)


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
