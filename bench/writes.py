"""What the write path did to a run of writes: each write's outcome, which memory it ended in,
and whether that memory is still shown by a default read at the end.

A write's ``WriteResult.node`` is the memory that holds what was written: the new node for
``inserted``, ``merge_linked`` and ``pending``, the absorbing memory for ``absorbed``. Whether
a default search can show it depends on that memory's status at the end (a vault may keep a
pending write out of sight until the person decides, and a memory superseded later is history),
which :func:`statuses_of` reads and :func:`hidden` counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cairn.app.dedup.gate import POSSIBLE_CONTRADICTION
from cairn.app.models import VISIBLE_STATUSES, WriteResult
from cairn.app.service import MemoryService

OUTCOMES = ("inserted", "absorbed", "merge_linked", "pending")
GET_BATCH = 25  # the most ids one ``MemoryService.get`` takes


@dataclass
class WriteLog:
    outcomes: Counter[str] = field(default_factory=Counter)
    contradictions: int = 0  # writes flagged possible_contradiction
    memories: list[str | None] = field(default_factory=list)  # per write, in order
    per_write: list[str] = field(default_factory=list)  # each write's outcome, in order

    def record(self, result: WriteResult) -> str | None:
        """Count ``result``; returns the id of the memory that holds the write."""
        self.outcomes[result.outcome] += 1
        self.per_write.append(result.outcome)
        if POSSIBLE_CONTRADICTION in result.flags:
            self.contradictions += 1
        self.memories.append(result.id)
        return result.id

    def summary(self) -> dict[str, Any]:
        writes = sum(self.outcomes.values())
        return {
            "writes": writes,
            "outcomes": {o: self.outcomes[o] for o in OUTCOMES}
            | {o: n for o, n in self.outcomes.items() if o not in OUTCOMES},
            "pending_share": round(self.outcomes["pending"] / writes, 4) if writes else 0.0,
            "possible_contradiction": self.contradictions,
        }


def statuses_of(service: MemoryService, ids: Sequence[str], scope: str) -> dict[str, str]:
    """Each memory's status now (a merged id answers with the memory it was merged into)."""
    wanted = list(dict.fromkeys(ids))
    found: dict[str, str] = {}
    for first in range(0, len(wanted), GET_BATCH):
        got = service.get(wanted[first : first + GET_BATCH], scopes=[scope], use=False)
        for detail in got.nodes:
            found[detail.requested_as or detail.node.id] = detail.node.status
    return found


def hidden(memories: Sequence[str | None], statuses: dict[str, str]) -> int:
    """How many writes ended in no memory, or in one a default read does not show."""
    return sum(1 for m in memories if m is None or statuses.get(m) not in VISIBLE_STATUSES)
