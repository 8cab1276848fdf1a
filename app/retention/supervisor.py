"""The retention supervisor: how strongly each memory is held, and letting faded trivia go.

Each memory carries importance (0..1), stability ``S`` (days), its last access and an access
count. Its retrievability after ``t`` days without use is the forgetting curve

    R(t) = exp(-t / S)

with ``t`` counted from the last access, or from when it was recorded if it was never used.
Use reinforces it: each access sets the last access to now, counts one, and grows stability
by how far the memory had faded (the spacing effect; a re-read a minute later adds nothing):

    S' = min(S_MAX, S * (1 + GROWTH * (1 - R)))

Uses are: opening it (``get``: a search hit opened, the detail pane, ``cairn get``) and linking
it. The graph server's reads are not uses: the server never writes.

A new memory is labelled by a classifier (``retention_rules``); the label clamps its importance
and starting stability. A supervisor pass (``run``) proposes archiving the active ephemeral
memories whose R fell below the vault's ``retention_fade_below`` setting, least important and
most faded first; with ``retention_mode = auto`` it archives them itself. Critical and normal
memories are never proposed. Archiving hides a memory from default search and is reversible;
the supervisor never deletes. Every decision is a row of the retention log, with its reason.
"""

from __future__ import annotations

import contextlib
import json
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from cairn.app import memory_settings
from cairn.app.clock import now_iso
from cairn.app.errors import InvalidRequest, NodeNotFound
from cairn.app.retention import labels as retention_rules
from cairn.app.retention.labels import AdvisedClassifier, Advisor, Candidate, Classifier, Verdict
from cairn.storage import records, retention_rows
from cairn.storage.connection import Connection
from cairn.storage.errors import VaultError
from cairn.storage.rows import RetentionEntryRow
from cairn.storage.vault import Vault

GROWTH = 2.0
S_MAX = 36_500.0  # a hundred years: past this, stability means nothing more
_LABEL_BATCH = 2_000  # memories labelled per transaction when an older vault catches up

# set_status(node_id, status, scopes, kind): the writer's archive, with its receipt.
StatusSetter = Callable[[str, str, list[str], str], Any]


def _days_between(earlier: str, later: datetime) -> float:
    start = datetime.fromisoformat(earlier.replace("Z", "+00:00"))
    return max(0.0, (later - start).total_seconds() / 86_400)


def retrievability(stability: float, last_seen: str, now: datetime) -> float:
    return math.exp(-_days_between(last_seen, now) / stability)


def reinforced(stability: float, recall: float) -> float:
    return min(S_MAX, stability * (1 + GROWTH * (1 - recall)))


def candidate_of(row: Any, family: str) -> Candidate:
    attrs = row["attrs"]
    return Candidate(
        type=row["type"],
        family=family,
        title=row["title"],
        body=row["body"],
        attrs=json.loads(attrs) if isinstance(attrs, str) else attrs,
        status=row["status"],
        source=row["source"],
    )


@dataclass(frozen=True)
class Proposal:
    """An ephemeral memory that has faded: archiving it is proposed (or was done)."""

    id: str
    type: str
    title: str
    scope: str
    retrievability: float
    importance: float
    days_unused: float
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PassReport:
    dry_run: bool
    mode: str  # propose or auto
    labelled: int  # older memories that got their label in this pass
    proposals: list[Proposal]
    archived: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "mode": self.mode,
            "labelled": self.labelled,
            "proposals": [p.as_dict() for p in self.proposals],
            "archived": self.archived,
        }


class Retention:
    def __init__(
        self,
        vault: Vault,
        family_of: Callable[[str], str],
        set_status: StatusSetter,
    ) -> None:
        self._vault = vault
        self._family_of = family_of
        self._set_status = set_status
        self.classifier: Classifier = retention_rules.RuleClassifier()
        self._unsaved: dict[str, tuple[str, int]] = {}  # id -> (last access, uses since)
        self._unsaved_lock = threading.Lock()

    def plug_advisor(self, advisor: Advisor | None) -> None:
        """Consult ``advisor`` on new memories from now on (``None``: the rules alone)."""
        rules = retention_rules.RuleClassifier()
        self.classifier = rules if advisor is None else AdvisedClassifier(rules, advisor)

    # -- labels -------------------------------------------------------------------------------

    def judge(self, candidate: Candidate) -> tuple[Verdict, float, float]:
        """The label of a memory about to be stored, with its clamped importance and stability.
        A classifier that answers nonsense does not stop a write: the rules decide instead."""
        verdict = self.classifier.classify(candidate)
        if verdict.label not in retention_rules.LABELS:
            verdict = retention_rules.RuleClassifier().classify(candidate)
        return (verdict, *retention_rules.clamped(verdict))

    def record_label(self, conn: Connection, node_id: str, verdict: Verdict, at: str) -> None:
        retention_rows.log(
            conn,
            at=at,
            node_id=node_id,
            action="labelled",
            label=verdict.label,
            actor=verdict.actor,
            reason=verdict.reason,
        )

    def _label_older(self, at: str) -> int:
        """Label memories stored before the supervisor existed, a batch per transaction so
        another program's writes are not held up for long."""
        done = 0
        while True:
            with self._vault.write() as conn:
                rows = retention_rows.unlabelled(conn, _LABEL_BATCH)
                for row in rows:
                    candidate = candidate_of(row, self._family_of(row["type"]))
                    verdict, importance, stability = self.judge(candidate)
                    retention_rows.set_keeping(
                        conn,
                        row["id"],
                        label=verdict.label,
                        importance=importance,
                        stability=stability,
                    )
                    self.record_label(conn, row["id"], verdict, at)
            done += len(rows)
            if len(rows) < _LABEL_BATCH:
                return done

    # -- use ----------------------------------------------------------------------------------

    def reinforce(self, conn: Connection, ids: Sequence[str], at: str, uses: int = 1) -> None:
        """Count a use of each of ``ids`` inside the caller's write."""
        now = datetime.fromisoformat(at.replace("Z", "+00:00"))
        for row in retention_rows.keeping(conn, list(ids)):
            recall = retrievability(row["stability"], row["last_access"] or row["recorded_at"], now)
            retention_rows.record_access(
                conn,
                row["id"],
                at=at,
                stability=reinforced(row["stability"], recall),
                added_count=uses,
            )

    def opened(self, ids: Sequence[str]) -> None:
        """Note that ``ids`` were read by a person. Saved at once if the vault is free; if
        another program is writing, kept in memory and saved with the next use or at close,
        so reading never waits for a writer."""
        at = now_iso()
        with self._unsaved_lock:
            for node_id in ids:
                _, uses = self._unsaved.get(node_id, (at, 0))
                self._unsaved[node_id] = (at, uses + 1)
        self.save_uses(patient=False)

    def save_uses(self, *, patient: bool = True) -> None:
        with self._unsaved_lock:
            pending, self._unsaved = self._unsaved, {}
        if not pending:
            return
        try:
            with self._vault.write(patient=patient) as conn:
                for node_id, (at, uses) in pending.items():
                    self.reinforce(conn, [node_id], at, uses)
        except VaultError:
            with self._unsaved_lock:  # busy or closing: the uses wait for the next turn
                for node_id, (at, uses) in pending.items():
                    newer_at, newer_uses = self._unsaved.get(node_id, (at, 0))
                    self._unsaved[node_id] = (max(at, newer_at), uses + newer_uses)
            if patient:
                raise

    def save_uses_before_close(self) -> None:
        # A vault that cannot be written now loses only the count of its latest reads.
        with contextlib.suppress(VaultError):
            self.save_uses()

    # -- the supervisor's pass ----------------------------------------------------------------

    def run(self, *, dry_run: bool = False, now: str | None = None) -> PassReport:
        """Label older memories, then propose (or, in auto mode, archive) faded ephemeral ones.
        A dry run changes nothing and logs nothing."""
        at = now or now_iso()
        with self._vault.read() as conn:
            mode = memory_settings.read(conn).retention_mode
        if dry_run:
            with self._vault.read() as conn:
                return PassReport(True, mode, 0, self._faded(conn, at, None), [])
        labelled = self._label_older(at)
        with self._vault.write() as conn:
            faded = self._faded(conn, at, None)
            already = retention_rows.last_actions(conn, [p.id for p in faded])
            archived: list[str] = []
            scopes = records.scope_names(conn)
            for proposal in faded:
                if mode == "auto":
                    self._set_status(proposal.id, "archived", scopes, "archive")
                    self._log(conn, at, proposal.id, "archived", "supervisor", proposal.reason)
                    archived.append(proposal.id)
                elif already.get(proposal.id, ("",))[0] != "proposed":
                    self._log(conn, at, proposal.id, "proposed", "supervisor", proposal.reason)
        return PassReport(False, mode, labelled, faded, archived)

    def proposals(self, scopes: Sequence[str], now: str | None = None) -> list[Proposal]:
        """The faded ephemeral memories in ``scopes`` waiting for the person's decision."""
        with self._vault.read() as conn:
            return self._faded(conn, now or now_iso(), list(scopes))

    def _faded(self, conn: Connection, at: str, scopes: list[str] | None) -> list[Proposal]:
        floor = memory_settings.read(conn).retention_fade_below
        now = datetime.fromisoformat(at.replace("Z", "+00:00"))
        found = []
        for row in retention_rows.active_with_label(conn, "ephemeral", scopes):
            last_seen = row["last_access"] or row["recorded_at"]
            recall = retrievability(row["stability"], last_seen, now)
            if recall >= floor:
                continue
            days = _days_between(last_seen, now)
            reason = (
                f"ephemeral, unused for {days:.0f} days: retrievability {recall:.2f} "
                f"below {floor:.2f}"
            )
            found.append(
                Proposal(
                    row["id"],
                    row["type"],
                    row["title"],
                    row["scope"],
                    recall,
                    row["importance"],
                    days,
                    reason,
                )
            )
        found.sort(key=lambda p: (p.importance * p.retrievability, p.id))
        return found

    # -- the person's decisions ---------------------------------------------------------------

    def archive(self, node_id: str, scopes: list[str]) -> None:
        """Archive a proposed memory (the person agreed); reversible with unarchive."""
        with self._vault.write() as conn:
            self._set_status(node_id, "archived", scopes, "archive")
            self._log(conn, now_iso(), node_id, "archived", "you", "you archived a proposal")

    def keep(self, node_id: str, scopes: list[str]) -> None:
        """The person wants it kept: it counts as used and is no longer ephemeral."""
        at = now_iso()
        with self._vault.write() as conn:
            rows = retention_rows.keeping(conn, [node_id], scopes)
            if not rows:
                raise NodeNotFound(node_id)
            verdict = Verdict("normal", "you chose to keep it", actor="you")
            importance, stability = retention_rules.clamped(verdict)
            retention_rows.set_keeping(
                conn, node_id, label="normal", importance=importance, stability=stability
            )
            self.reinforce(conn, [node_id], at)
            self._log(conn, at, node_id, "kept", "you", verdict.reason, "normal")

    def log(
        self, scopes: Sequence[str], *, node_id: str | None = None, limit: int = 100
    ) -> list[RetentionEntryRow]:
        if not 1 <= limit <= 10_000:
            raise InvalidRequest("limit must be between 1 and 10000.")
        with self._vault.read() as conn:
            return retention_rows.entries(conn, list(scopes), node_id=node_id, limit=limit)

    def _log(
        self,
        conn: Connection,
        at: str,
        node_id: str,
        action: str,
        actor: str,
        reason: str,
        label: str | None = "ephemeral",
    ) -> None:
        retention_rows.log(
            conn, at=at, node_id=node_id, action=action, label=label, actor=actor, reason=reason
        )
