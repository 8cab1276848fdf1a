"""A write beside a long document's ingest waits its turn and is never refused busy: real
``cairn ingest`` of a long PDF and a long WhatsApp export, and another process writing notes
through the service (as ``cairn add`` does) while the document is written
(``bench.writes_during_ingest``). ``make stress`` runs the sizes that once made adds fail:
6,000 pages, a million messages, 100 adds each; ``make test`` a smaller pair."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench import writes_during_ingest as beside
from cairn.app.ingestion.preparation import WHOLE_PASSAGES

FULL = os.environ.get("CAIRN_STRESS_FULL") == "1"
PAGES, LINES, ADDS = (6000, 1_000_000, 100) if FULL else (40, 8_000, 10)


@pytest.mark.crash
@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("kind", ["pdf", "chat"])
def test_adds_beside_a_long_document_are_never_refused(kind: str, tmp_path: Path) -> None:
    document = tmp_path / ("long.pdf" if kind == "pdf" else "long-chat.txt")
    if kind == "pdf":
        beside.long_pdf(document, PAGES)
    else:
        beside.long_chat(document, LINES)
    result = beside.measure(tmp_path, document, ADDS, every=1.0 if FULL else 0.2)
    print(json.dumps(result))  # `make stress` shows each line's waits
    assert result["passages"] > WHOLE_PASSAGES, result  # it was written in parts
    assert result["adds_while_writing"] >= 3, result  # the adds met the document's writing
    assert result["refused"] == 0, result["refusals"]
