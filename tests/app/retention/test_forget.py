"""Forget deletes a memory for good: nothing of its text stays in any table of the decrypted
vault (the full-text index's own segments included), a Document takes its passages along, and
the receipt counts without naming."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.app.errors import NodeNotFound
from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.app.retention.vault_pages import decrypted_pages

MARKER = "quillfeatherzebra"


def _tables(vault: Vault) -> list[str]:
    with vault.read() as conn:
        return [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]


def _holding(vault: Vault, needle: str) -> list[str]:
    """Every table whose decrypted rows hold ``needle`` (as text or inside a blob)."""
    found = []
    with vault.read() as conn:
        for table in _tables(vault):
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    data = value.encode() if isinstance(value, str) else value
                    if isinstance(data, bytes) and needle.encode() in data:
                        found.append(table)
                        break
    return sorted(set(found))


def test_a_forgotten_memory_leaves_no_trace_in_any_table(
    service: MemoryService, vault: Vault
) -> None:
    scopes = service.scopes()
    kept = service.write("Note", "Garden", f"The pond needs cleaning, not {MARKER}s.")
    gone = service.write("Note", f"About {MARKER}", f"The {MARKER} visits on Tuesdays.")
    assert gone.node is not None and kept.node is not None
    assert _holding(vault, MARKER)  # it is there before
    result = service.forget(gone.node.id, scopes=scopes)
    assert result.forgotten == 1
    holding = _holding(vault, MARKER)
    # Only the kept note still says the word: its row and its full-text entry and terms.
    assert set(holding) <= {"nodes", "search_index", "search_index_content", "search_index_data"}
    assert all(hit.id != gone.node.id for hit in service.search(MARKER, scopes=scopes).results)
    assert service.get([gone.node.id], scopes=scopes).missing == [gone.node.id]
    service.forget(kept.node.id, scopes=scopes)
    assert _holding(vault, MARKER) == []
    assert service.verify().ok


def test_forgetting_a_document_takes_its_passages(
    service: MemoryService, vault: Vault, tmp_path: Path
) -> None:
    note = tmp_path / "letter.md"
    note.write_text(f"# Letter\n\nDear friend, the {MARKER} arrived.\n", encoding="utf-8")
    report = service.ingest(IngestRequest.of([note]))
    document = report.files[0].document_id
    assert document is not None
    scopes = service.scopes()
    result = service.forget(document, scopes=scopes)
    assert result.forgotten == 1 + report.files[0].passages
    assert _holding(vault, MARKER) == []
    assert service.sources() == []  # the file's row went too: adding it again reads it anew
    assert service.ingest(IngestRequest.of([note])).counts() == {"ingested": 1}


def test_an_unknown_id_is_refused(service: MemoryService) -> None:
    with pytest.raises(NodeNotFound):
        service.forget("01NOTANIDATALL0000000000000", scopes=service.scopes())


def _in_pages(vault: Vault, needle: str) -> int:
    raw_key, _salt = vault.key_material()
    return sum(needle.encode() in page for page in decrypted_pages(vault.path, raw_key))


def test_no_page_of_the_file_or_its_log_keeps_the_forgotten_text(
    service: MemoryService, vault: Vault
) -> None:
    """Decrypted page by page, free pages and the log included: secure delete, the full-text
    purge and the vacuum leave nothing of it anywhere someone with the key could look."""
    scopes = service.scopes()
    for number in range(40):  # enough pages that freed ones would linger without a vacuum
        service.write("Note", f"Pond {number}", f"Row {number}: the pond needs cleaning. " * 20)
    gone = service.write("Note", f"About {MARKER}", f"The {MARKER} visits on Tuesdays. " * 30)
    assert gone.node is not None
    assert _in_pages(vault, MARKER) > 0  # the reading works: it is there before
    service.forget(gone.node.id, scopes=scopes)
    assert _in_pages(vault, MARKER) == 0
    wal = vault.path.with_name(vault.path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    assert service.search("pond cleaning", scopes=scopes).results  # the rest is intact
    assert service.verify().ok
