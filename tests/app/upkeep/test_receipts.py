"""The receipt chain: appended by every change, content-free, and tamper-evident."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from cairn.app.service import MemoryService
from cairn.app.upkeep import receipts
from cairn.storage import records
from cairn.storage.vault import Vault

ALL = ["personal"]


def _rows(vault: Vault) -> list[dict]:
    with vault.read() as conn:
        return records.receipts(conn)


def test_every_change_appends_a_receipt(service: MemoryService, vault: Vault) -> None:
    before = len(_rows(vault))
    a = service.write("Person", "Ida North").node
    b = service.write("Note", "Met Ida", "Coffee at the station.").node
    service.link(b.id, a.id, "mentions", scopes=ALL)
    service.archive(b.id, scopes=ALL)
    service.inbox_capture("remember the umbrella")
    kinds = [row["kind"] for row in _rows(vault)[before:]]
    assert kinds == ["write", "write", "link", "archive", "inbox"]
    assert service.verify().ok


def test_receipts_carry_no_text_titles_or_ids(service: MemoryService, vault: Vault) -> None:
    node = service.write("Note", "Zanzibar holiday", "Flights on the 3rd of May.").node
    service.inbox_capture("Zanzibar visa")
    for row in _rows(vault):
        flat = json.dumps(row)
        assert "Zanzibar" not in flat
        assert node.id not in flat
        assert all(isinstance(v, int) for v in json.loads(row["counts"]).values())


def test_an_altered_receipt_is_detected(service: MemoryService, vault: Vault) -> None:
    for i in range(3):
        service.write("Note", f"note {i}")
    with vault.write() as conn:
        conn.execute("UPDATE receipts SET counts = '{\"nodes\":5}' WHERE seq = 2")
    report = service.verify()
    assert not report.ok
    assert report.receipts["problem"] == "receipt 2 was altered"


def test_a_removed_receipt_is_detected(service: MemoryService, vault: Vault) -> None:
    for i in range(3):
        service.write("Note", f"note {i}")
    with vault.write() as conn:
        conn.execute("DELETE FROM receipts WHERE seq = 2")
    report = service.verify()
    assert not report.ok
    assert "does not follow" in report.receipts["problem"]


def test_a_reordered_chain_is_detected(service: MemoryService, vault: Vault) -> None:
    for i in range(2):
        service.write("Note", f"note {i}")
    rows = _rows(vault)
    rows[1], rows[2] = rows[2], rows[1]
    assert not receipts.verify(rows).ok


counts = st.dictionaries(st.sampled_from(["nodes", "edges", "files"]), st.integers(0, 10**6))


@given(st.lists(st.tuples(st.sampled_from(sorted(receipts.KINDS)), counts), max_size=12), st.data())
def test_any_chain_verifies_and_any_single_edit_breaks_it(
    events: list, data: st.DataObject
) -> None:
    rows, prev = [], receipts.GENESIS
    for i, (kind, count) in enumerate(events):
        counts_json = json.dumps(count, sort_keys=True, separators=(",", ":"))
        at = f"2026-01-01T00:00:{i:02d}"
        digest = receipts.receipt_hash(prev, at, kind, counts_json)
        rows.append(
            {"at": at, "kind": kind, "counts": counts_json, "prev_hash": prev, "hash": digest}
        )
        prev = digest
    report = receipts.verify(rows)
    assert report.ok and report.count == len(rows) and report.head == prev
    if rows:
        victim = data.draw(st.integers(0, len(rows) - 1))
        field = data.draw(st.sampled_from(["at", "kind", "counts"]))
        edited = {
            "at": rows[victim]["at"] + "Z",
            "kind": rows[victim]["kind"] + "x",
            "counts": '{"tampered":1}',
        }[field]
        rows[victim] = {**rows[victim], field: edited}
        assert not receipts.verify(rows).ok
