"""A program that ingests as the window does, in a child process of its own (``ApartRuns``):
``python -m tests.app.ingestion.apart_run VAULT FILE...``, with the passphrase in
``CAIRN_PASSPHRASE``.
Tests kill it to see what becomes of its child. It prints each stage of the run on stdout."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cairn.app import compose
from cairn.app.ingestion.request import IngestRequest


def main(vault: str, paths: list[str]) -> int:
    with compose.open_vault(Path(vault), os.environ["CAIRN_PASSPHRASE"]) as service:
        report = service.ingest(
            IngestRequest.of([Path(p) for p in paths]),
            separate_process=True,
            progress=lambda event: print(event.stage, flush=True),
        )
    print(report.counts(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
