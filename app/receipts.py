"""The receipt chain: a content-free SHA-256 hash chain appended by every change.

A receipt says what kind of change happened, how many things it touched and when; never text,
titles, ids or names. Each receipt's hash covers the previous hash, so editing, removing or
reordering any receipt breaks every hash after it (``verify`` finds the first break).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cairn.app.clock import now_iso
from cairn.storage import records

GENESIS = "0" * 64
KINDS = frozenset(
    {
        "create",
        "write",
        "absorb",
        "resolve",
        "link",
        "archive",
        "unarchive",
        "supersede",
        "inbox",
        "rekey",
        "reindex",
        "ingest",
        "forget",
    }
)


def receipt_hash(prev_hash: str, at: str, kind: str, counts_json: str) -> str:
    payload = json.dumps(
        {"at": at, "counts": json.loads(counts_json), "kind": kind, "prev": prev_hash},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def append(conn: Any, kind: str, counts: Mapping[str, int]) -> str:
    """Add a receipt inside the caller's transaction; returns its hash."""
    if kind not in KINDS:
        raise ValueError(f"unknown receipt kind {kind!r}")
    if not all(isinstance(k, str) and type(v) is int for k, v in counts.items()):
        raise ValueError("receipt counts are names of counters with integer values only")
    counts_json = json.dumps(dict(counts), sort_keys=True, separators=(",", ":"))
    prev = records.last_receipt_hash(conn) or GENESIS
    at = now_iso()
    digest = receipt_hash(prev, at, kind, counts_json)
    records.append_receipt(
        conn, at=at, kind=kind, counts_json=counts_json, prev_hash=prev, hash_=digest
    )
    return digest


@dataclass(frozen=True)
class ChainReport:
    ok: bool
    count: int
    head: str
    problem: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "count": self.count, "head": self.head, "problem": self.problem}


def verify(rows: Iterable[Mapping[str, Any]]) -> ChainReport:
    """Walk the chain from the start; the first inconsistency is reported with its position."""
    prev = GENESIS
    count = 0
    for count, row in enumerate(rows, start=1):
        if row["prev_hash"] != prev:
            return ChainReport(
                False, count, prev, f"receipt {count} does not follow its predecessor"
            )
        expected = receipt_hash(prev, row["at"], row["kind"], row["counts"])
        if row["hash"] != expected:
            return ChainReport(False, count, prev, f"receipt {count} was altered")
        prev = row["hash"]
    return ChainReport(True, count, prev)
