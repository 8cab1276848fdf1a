"""``cairn ingest`` and ``cairn sources``: adding files and folders, and what became of them."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from cairn.app.cli.common import emit, open_service
from cairn.app.ingestion.priority import lower_priority
from cairn.app.ingestion.report import CancelToken, IngestProgress, IngestReport
from cairn.app.ingestion.request import IngestRequest

Verb = Callable[..., argparse.ArgumentParser]
SOURCE_STATES = ("ingested", "failed", "duplicate", "missing")


def cmd_ingest(args: argparse.Namespace) -> int:
    lower_priority()  # the person's other programs (a `cairn add`, the window) come first
    cancel = CancelToken()

    def stop(signum: int, frame: Any) -> None:
        print(
            "\ncairn: stopping now; what was read is kept, and the file being read is let go.",
            file=sys.stderr,
        )
        cancel.cancel()

    request = IngestRequest.of(
        args.paths,
        scope=args.scope or "personal",
        dry_run=args.dry_run,
        ocr_languages=args.ocr_languages.split("+") if args.ocr_languages else None,
        whisper_model_dir=args.whisper_model,
    )
    previous = signal.signal(signal.SIGINT, stop)
    try:
        with open_service(args) as service:
            report = service.ingest(
                request, progress=None if args.quiet else _progress_line, cancel=cancel
            )
    finally:
        signal.signal(signal.SIGINT, previous)
    emit(args, report.as_dict(), lambda: describe(report))
    return 1 if report.failed or report.cancelled or report.not_found else 0


def _progress_line(progress: IngestProgress) -> None:
    # One line per file read, on stderr: the report on stdout stays clean for --json.
    if progress.stage == "reading" and progress.current:
        print(
            f"[{progress.files_done + 1}/{progress.files_total}] {progress.current}",
            file=sys.stderr,
            flush=True,
        )


def describe(report: IngestReport) -> None:
    counts = report.counts()
    verb = "would read" if report.dry_run else "done"
    summary = ", ".join(f"{n} {state}" for state, n in sorted(counts.items())) or "no files"
    print(f"{verb}: {summary}")
    if report.dry_run:
        for outcome in report.files:
            print(f"  {outcome.action:<11} {outcome.path}")
    for outcome in report.failed:
        print(f"  failed: {outcome.path}\n    {outcome.error}")
    for outcome in report.files:
        for warning in outcome.warnings:
            print(f"  note: {outcome.path}: {warning}")
    for outcome in report.files:
        if outcome.moved_from:
            print(f"  moved (its memory follows it): {outcome.moved_from} -> {outcome.path}")
    for path in report.removed:
        print(f"  gone from disk (its memories are kept): {path}")
    for path in report.not_found:
        print(f"  not found: {path}")
    if not report.dry_run:
        print(
            f"  {report.links} links, {report.mentions} mentions, {report.stubs} new stubs, "
            f"{report.pending_review} near-copies waiting for review (cairn pending)"
        )
    if report.cancelled:
        print("  stopped before the end: run the same command again to finish.")


def cmd_sources(args: argparse.Namespace) -> int:
    states = ["failed"] if args.failed else args.state
    with open_service(args) as service:
        rows = service.sources(states=states)

    def human() -> None:
        if not rows:
            print("no failed files" if args.failed else "no files yet: cairn ingest PATH")
        for row in rows:
            print(f"{row.state:<9} {row.path}")
            if row.error:
                print(f"    {row.error}")

    emit(args, [row.as_dict() for row in rows], human)
    return 0


def register(verb: Verb) -> None:
    ingest = verb("ingest", cmd_ingest, "add files and folders (PDF, scans, audio, notes...)")
    ingest.add_argument("paths", nargs="+", metavar="PATH")
    ingest.add_argument("--dry-run", action="store_true", help="only say what would happen")
    ingest.add_argument("--scope", help="scope to add to (default: personal)")
    ingest.add_argument("--quiet", action="store_true", help="no progress lines")
    ingest.add_argument(
        "--ocr-languages",
        metavar="LANGS",
        default=os.environ.get("CAIRN_OCR_LANGUAGES"),
        help="Tesseract languages for scans, e.g. eng+deu (default: eng)",
    )
    ingest.add_argument(
        "--whisper-model",
        metavar="DIR",
        default=os.environ.get("CAIRN_WHISPER_MODEL"),
        help="a CTranslate2 Whisper model folder to use instead of the bundled base model",
    )
    sources = verb("sources", cmd_sources, "the files Cairn keeps track of")
    sources.add_argument("--failed", action="store_true", help="only files that failed, and why")
    sources.add_argument("--state", action="append", choices=SOURCE_STATES)
