"""``cairn watch add|list|remove|run``: the folders whose changes are added while the vault is
open. The window watches them whenever the vault is unlocked; ``cairn watch run`` does the same
in a terminal until Ctrl-C."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from cairn.app.cli.common import after_nested_verb, emit, open_service
from cairn.app.cli.ingest import describe
from cairn.app.ingestion.priority import lower_priority
from cairn.app.ingestion.report import CancelToken
from cairn.app.ingestion.request import IngestRequest
from cairn.app.ingestion.watch_list import WatchedFolder
from cairn.app.ingestion.watching import WatchBatch

Verb = Callable[..., argparse.ArgumentParser]


def cmd_watch(args: argparse.Namespace) -> int:
    if args.what == "run":
        return _run(args)
    with open_service(args, with_embedder=False) as service:
        if args.what == "add":
            folders = service.watch_folder(args.path, scope=args.scope or "personal")
        elif args.what == "remove":
            folders = service.unwatch_folder(args.path)
        else:
            folders = service.watched_folders()

    def human() -> None:
        if not folders:
            print("No watched folders; `cairn watch add FOLDER` adds one.")
        for folder in folders:
            print(f"{folder.path}  (scope {folder.scope})")
        if args.what == "add":
            print("Its changes are added while the vault is open: in the window, or with")
            print("`cairn watch run` in a terminal.")

    emit(args, [folder.as_dict() for folder in folders], human)
    return 0


def _run(args: argparse.Namespace) -> int:
    """Watch until Ctrl-C: first a catch-up of each folder, then each batch of changes."""
    lower_priority()  # what is read in the background yields to what the person does
    stop = threading.Event()
    cancel = CancelToken()

    def interrupted(signum: int, frame: Any) -> None:
        print(
            "\ncairn: stopping now; what was read is kept, and the file being read is let go.",
            file=sys.stderr,
        )
        cancel.cancel()
        stop.set()

    previous = signal.signal(signal.SIGINT, interrupted)
    try:
        with open_service(args) as service:

            def run(batch: WatchBatch) -> None:
                if cancel.cancelled:
                    return
                request = IngestRequest.of(batch.folders, scope=batch.scope, changed=batch.changed)
                report = service.ingest(request, cancel=cancel)
                if report.files or report.removed or report.not_found:
                    emit(args, report.as_dict(), lambda: describe(report))
                sys.stdout.flush()

            def problem(message: str) -> None:
                print(f"cairn: {message}", file=sys.stderr, flush=True)

            watching = service.start_watching(run, problem)
            _announce(watching)
            if not watching:
                return 1
            stop.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
    return 0


def _announce(watching: list[WatchedFolder]) -> None:
    if not watching:
        print("cairn: no folder to watch; `cairn watch add FOLDER` adds one.", file=sys.stderr)
    for folder in watching:
        print(f"watching {folder.path} (scope {folder.scope}); Ctrl-C stops", file=sys.stderr)
    sys.stderr.flush()


def register(verb: Verb) -> None:
    watch = verb("watch", cmd_watch, "folders whose changes are added while the vault is open")
    verbs = watch.add_subparsers(dest="what", required=True)
    after = after_nested_verb()
    add = verbs.add_parser("add", parents=[after], help="watch a folder (and all in it)")
    add.add_argument("path", metavar="PATH")
    add.add_argument("--scope", help="scope its files go to (default: personal)")
    verbs.add_parser("list", parents=[after], help="the watched folders")
    remove = verbs.add_parser("remove", parents=[after], help="stop watching (memories are kept)")
    remove.add_argument("path", metavar="PATH")
    verbs.add_parser("run", parents=[after], help="watch in this terminal until Ctrl-C")
