"""The receipt chain: a content-free SHA-256 hash chain appended by every change.

A receipt says what kind of change happened, how many things it touched and when; never text,
titles, ids or names. Each receipt's hash covers the previous hash, so editing, removing or
reordering any receipt breaks every hash after it (``verify`` finds the first break).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cairn.app.clock import now_iso, utc_stamp
from cairn.app.errors import InvalidRequest
from cairn.storage import records
from cairn.storage.connection import Connection

GENESIS = "0" * 64
HASH = re.compile(r"^[0-9a-f]{64}$")
COUNTER = re.compile(r"^[a-z][a-z_]{0,31}$")
KINDS = frozenset(
    {
        "create",
        "write",
        "absorb",
        "resolve",
        "link",
        "unlink",
        "archive",
        "unarchive",
        "supersede",
        "unrevise",
        "unmerge",
        "inbox",
        "rekey",
        "reindex",
        "ingest",
        "forget",
        "import",
    }
)


def receipt_hash(prev_hash: str, at: str, kind: str, counts_json: str) -> str:
    payload = json.dumps(
        {"at": at, "counts": json.loads(counts_json), "kind": kind, "prev": prev_hash},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def append(conn: Connection, kind: str, counts: Mapping[str, int]) -> str:
    """Add a receipt inside the caller's transaction; returns its hash."""
    if kind not in KINDS:
        raise ValueError(f"unknown receipt kind {kind!r}")
    # The same rule ``audit`` holds exports to, so a receipt written is a receipt exportable.
    if not all(
        isinstance(k, str) and COUNTER.match(k) and type(v) is int for k, v in counts.items()
    ):
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


# -- leaving the vault ------------------------------------------------------------------------
#
# The head hash and count of the chain, kept somewhere else (written down, mailed to oneself),
# later prove that history was only appended to: with SHA-256 no other history has a receipt
# at that position with that hash, so a rewrite before it, even one that recomputes every
# hash with the key, shows as a different hash there.


@dataclass(frozen=True)
class ChainExport:
    report: ChainReport
    receipts: list[dict[str, Any]]

    def as_dict(self, *, full: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"head": self.report.head, "count": self.report.count}
        if full:
            out["receipts"] = self.receipts
        return out


def export(rows: Iterable[Mapping[str, Any]]) -> ChainExport:
    """The chain as it may leave the vault: the five hashed fields of each receipt (not the
    row number), counts parsed. ``report`` is not ok when the chain is broken or a receipt
    holds anything but a kind, a time stamp and integer counters; then nothing should leave."""
    rows = list(rows)
    report = audit(rows)
    payloads = [
        {
            "at": row["at"],
            "kind": row["kind"],
            "counts": json.loads(row["counts"]),
            "prev_hash": row["prev_hash"],
            "hash": row["hash"],
        }
        for row in rows
    ]
    return ChainExport(report, payloads if report.ok else [])


def audit(rows: Iterable[Mapping[str, Any]]) -> ChainReport:
    """``verify``, and every receipt content-free by construction: a known kind, a Cairn time
    stamp, counter names and integers. A rewrite that recomputed the hashes could otherwise
    smuggle text into what ``export`` hands out."""
    rows = list(rows)
    report = verify(rows)
    if not report.ok:
        return report
    for position, row in enumerate(rows, start=1):
        counts = json.loads(row["counts"])
        if (
            row["kind"] not in KINDS
            or utc_stamp(row["at"]) != row["at"]
            or not isinstance(counts, dict)
            or not all(COUNTER.match(k) and type(v) is int for k, v in counts.items())
        ):
            return ChainReport(
                False, report.count, report.head, f"receipt {position} holds more than counters"
            )
    return report


def exported(head: str | None, count: int | None) -> tuple[str, int] | None:
    """The head and count a person brings back from ``export``, checked; None if neither."""
    if head is None and count is None:
        return None
    if head is None or count is None:
        raise InvalidRequest(
            "Give --head and --count together, both as `cairn receipts export` printed them."
        )
    head = head.strip().lower()
    if not HASH.match(head):
        raise InvalidRequest(
            f"--head is the 64-character hash `cairn receipts export` printed, not {head!r}."
        )
    if count < 0:
        raise InvalidRequest(f"--count is the number of receipts exported, not {count}.")
    return head, count


def verify_against(rows: Iterable[Mapping[str, Any]], head: str, count: int) -> ChainReport:
    """``audit``, and the receipt at position ``count`` (1 is the first; 0 the empty chain,
    whose head is ``GENESIS``) has hash ``head``: the chain exported then is a prefix of the
    chain now, so history since was appended to, not rewritten."""
    rows = list(rows)
    report = audit(rows)
    if not report.ok:
        return report
    if count > report.count:
        return ChainReport(
            False,
            report.count,
            report.head,
            f"the chain no longer contains the head you exported (it holds {report.count} "
            f"receipts, the export counted {count}: receipts were removed, or this is an "
            "older copy of the vault)",
        )
    found = GENESIS if count == 0 else str(rows[count - 1]["hash"])
    if found != head:
        return ChainReport(
            False,
            report.count,
            report.head,
            f"the chain no longer contains the head you exported (receipt {count} has another "
            "hash: the history up to it was rewritten, or this is another vault)",
        )
    return report
