"""An ingest's writes, cut into transactions of about half a second each.

An ingest writes for minutes; a person's own write (a `cairn add`, an edit in the window)
waits for the write lock meanwhile, and gives up with "busy" after 5 s. So a run never holds
the lock long: a transaction takes no new item (a file, a passage, a note's links) once it has
run for ``WRITE_SLICE_S``, commits, and the next one takes the rest. Each item is whole in one
transaction, so what a kill interrupts is an item not yet begun.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from cairn.storage.connection import Connection
from cairn.storage.vault import Vault

# Another writer waits about this long plus one item's write (a passage: a few milliseconds
# on a quiet machine, ten times that on a loaded one; a short file: up to 64 passages).
WRITE_SLICE_S = 0.5

Item = TypeVar("Item")
Result = TypeVar("Result")


def write_in_slices(
    vault: Vault,
    items: Sequence[Item],
    write: Callable[[Connection, Item], Result],
    close: Callable[[Connection, list[Result]], object] = lambda conn, done: None,
) -> list[Result]:
    """``write`` each item in order, in as many transactions as the time asks; ``close``
    runs last in each (a receipt of what it wrote). Returns every result, in order."""
    results: list[Result] = []
    pending = list(items)
    while pending:
        with vault.write() as conn:
            until = time.monotonic() + WRITE_SLICE_S
            done: list[Result] = []
            for item in pending:
                done.append(write(conn, item))
                if time.monotonic() > until:
                    break
            close(conn, done)
        results += done
        pending = pending[len(done) :]
    return results
