"""What a run records for a file it does not read, or could not store: the outcome the report
shows (failed, duplicate, unsupported, unchanged, planned, cancelled) and the file's source row
(``storage/source_rows.py``), which carries a failure's reason to the next run and to
``cairn sources --failed``. The pipeline (``pipeline``) calls these inside its transactions.
"""

from __future__ import annotations

import os

from cairn.app.clock import now_iso
from cairn.app.ingestion.plan import FOLDER, Plan, PlannedFile
from cairn.app.ingestion.report import FileOutcome
from cairn.app.ingestion.store import source_row
from cairn.ingest.file_names import readable
from cairn.storage import source_rows
from cairn.storage.connection import Connection
from cairn.storage.errors import RowRejected


def rejected(conn: Connection, planned: PlannedFile, scope: str, exc: RowRejected) -> FileOutcome:
    """A file whose rows the vault refused: a failure, recorded."""
    message = f"{planned.name} could not be stored: {exc.reason}"
    record_failure(conn, planned, scope, message)
    return FileOutcome(planned.source, planned.action, "failed", error=message, size=planned.size)


def forget_recovered_folders(conn: Connection, plan: Plan) -> None:
    """A folder that could not be listed last time and now could be: its failure is over."""
    failing = {p.source for p in plan.files if p.kind == FOLDER}
    recovered = []
    for root in plan.roots:
        shown = readable(root)
        rows = source_rows.listed(conn, states=("failed",), under=shown + os.sep)
        rows += [r for r in [source_rows.get(conn, shown)] if r and r["state"] == "failed"]
        recovered += [
            row["path"]
            for row in rows
            if row["media_type"] == FOLDER
            and row["path"] in plan.folders
            and row["path"] not in failing
        ]
    source_rows.remove(conn, recovered)


def settle_unread(conn: Connection, planned: PlannedFile, scope: str) -> FileOutcome:
    """A planned file that is not read this run: its outcome, and its source row set."""
    path = planned.source
    if planned.action == "unreadable":
        message = planned.problem or f"{planned.name} could not be read."
        record_failure(conn, planned, scope, message)
        return FileOutcome(path, "unreadable", "failed", error=message)
    if planned.action == "duplicate" and planned.same_as is not None:
        source_rows.put(conn, source_row(planned, scope, "duplicate", planned.same_as))
        return FileOutcome(
            path, "duplicate", "duplicate", planned.same_as["document_id"], size=planned.size
        )
    if planned.action == "other_scope" and planned.previous is not None:
        message = (
            f"{planned.name} is already kept in the scope {planned.previous['scope']!r}; "
            "a file is kept in one scope. Copy it under another name to keep it in both."
        )
        return FileOutcome(path, "other_scope", "failed", error=message, size=planned.size)
    if planned.action == "unsupported":
        if planned.root is None:  # named on its own: the person expected it to be read
            message = (
                f"Cairn does not read {planned.path.suffix or 'extension-less'} files: "
                "convert it to PDF, text or an image and add that."
            )
            source_rows.put(conn, source_row(planned, scope, "failed", error=message))
            return FileOutcome(path, "unsupported", "failed", error=message, size=planned.size)
        return FileOutcome(path, "unsupported", "skipped", size=planned.size)
    if planned.previous is not None and planned.previous["state"] == "missing":
        source_rows.put(conn, {**planned.previous, "state": "ingested", "updated_at": now_iso()})
    document_id = planned.previous["document_id"] if planned.previous else None
    return FileOutcome(path, planned.action, "unchanged", document_id, size=planned.size)


def record_failure(conn: Connection, planned: PlannedFile, scope: str, message: str) -> None:
    """The file's source row says it failed, and why."""
    # The old version of a changed file (or the unfinished one a stopped run began) stays
    # what the vault keeps for it.
    previous = planned.previous
    keep = previous["document_id"] if previous and previous["state"] != "duplicate" else None
    row = source_row(planned, scope, "failed", error=message)
    row["document_id"] = keep
    source_rows.put(conn, row)


def planned(file: PlannedFile, state: str = "planned") -> FileOutcome:
    """A file's outcome before (or instead of) its run: planned, or cancelled."""
    error = file.problem if file.action == "unreadable" else None
    return FileOutcome(file.source, file.action, state, error=error, size=file.size)
