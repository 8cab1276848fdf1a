"""The briefing: what to look at at the start of a day (DESIGN §5).

Commitments due within a week (or overdue), the newest memories, decisions waiting in the
review queue, and stubs that many memories point to but nobody has described yet.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import cast

from cairn.app.errors import InvalidRequest
from cairn.app.linking.stubs import ENRICH_DEGREE
from cairn.app.models import (
    Briefing,
    DueItem,
    RecentItem,
    ReviewKind,
    ReviewSummary,
    StubToEnrich,
)
from cairn.app.packs import Pack
from cairn.storage import dedup_rows, graph_rows
from cairn.storage.rows import NodeRow
from cairn.storage.vault import Vault

DUE_WITHIN_DAYS = 7
RECENT = 10
REVIEWS_SHOWN = 5
STUBS_SHOWN = 10


def briefing(vault: Vault, pack: Pack, scopes: list[str], today: str | None = None) -> Briefing:
    try:
        day = date.fromisoformat(today) if today else date.today()
    except ValueError:
        raise InvalidRequest(f"today is a date (YYYY-MM-DD), not {today!r}.") from None
    until = (day + timedelta(days=DUE_WITHIN_DAYS)).isoformat()
    memory_types = sorted(n for n, t in pack.node_types.items() if t.family == "memory")
    with vault.read() as conn:
        due = (
            graph_rows.due_before(conn, "Commitment", "due", until, scopes, 20)
            if "Commitment" in pack.node_types
            else []
        )
        recent = graph_rows.recent(conn, memory_types, scopes, RECENT)
        # A new memory may be a possible duplicate: listed like any other, marked as waiting.
        waiting = dedup_rows.awaiting_review(conn, [r["id"] for r in recent], scopes)
        reviews = dedup_rows.review_items(
            conn,
            scopes,
            kinds=("duplicate", "label_conflict", "revive_candidate"),
            limit=REVIEWS_SHOWN,
        )
        review_count = dedup_rows.review_count(conn, scopes)
        stubs = graph_rows.stubs_by_degree(conn, scopes, ENRICH_DEGREE, STUBS_SHOWN)
    return Briefing(
        today=day.isoformat(),
        due=[DueItem(*_brief(r), due=r["due"], overdue=r["due"] < day.isoformat()) for r in due],
        recent=[RecentItem(*_brief(r), awaiting_review=r["id"] in waiting) for r in recent],
        reviews=[
            ReviewSummary(r["id"], cast(ReviewKind, r["kind"]), r["reason"], r["score"])
            for r in reviews
        ],
        review_count=review_count,
        stubs_to_enrich=[StubToEnrich(s["id"], s["type"], s["title"], s["degree"]) for s in stubs],
    )


def _brief(row: NodeRow) -> tuple[str, str, str, str]:
    """A row's id, type, title and recorded_at: how every list of the briefing starts."""
    return row["id"], row["type"], row["title"], row["recorded_at"]
