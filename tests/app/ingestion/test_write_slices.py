"""An ingest's writes in short transactions (``ingestion.slices``): each item whole in one,
none held past the slice's time, a receipt-like close in each, everything in order."""

from __future__ import annotations

import time

from cairn.app.ingestion import slices
from cairn.storage import records
from cairn.storage.connection import Connection
from cairn.storage.vault import Vault


def test_a_slow_run_of_writes_commits_every_half_second(vault: Vault) -> None:
    closed: list[list[int]] = []

    def write(conn: Connection, n: int) -> int:
        records.set_setting(conn, f"test.item{n}", n)
        time.sleep(slices.WRITE_SLICE_S / 2)  # two items fill a transaction's time
        return n

    def close(conn: Connection, done: list[int]) -> None:
        assert conn.in_transaction  # inside the transaction it closes
        closed.append(done)

    results = slices.write_in_slices(vault, list(range(7)), write, close)
    assert results == list(range(7))
    assert [n for group in closed for n in group] == list(range(7))
    assert len(closed) >= 3 and all(1 <= len(group) <= 3 for group in closed), closed
    with vault.read() as conn:
        assert [records.get_setting(conn, f"test.item{n}", None) for n in range(7)] == list(
            range(7)
        )


def test_a_quick_run_is_one_transaction(vault: Vault) -> None:
    closed: list[list[int]] = []
    slices.write_in_slices(
        vault,
        list(range(5)),
        lambda conn, n: records.set_setting(conn, f"test.quick{n}", n) or n,
        lambda conn, done: closed.append(done),
    )
    assert closed == [list(range(5))]
