"""The review panel's work off the UI thread: reading what waits for the person in one call,
and carrying out a decision. Apart from the panel so the widget code reads on its own."""

from __future__ import annotations

from dataclasses import dataclass, field

from cairn.app.api import MemoryService, Proposal, ReviewItem, StubToEnrich


@dataclass(frozen=True)
class ReviewQueue:
    """Everything the panel shows, read in one worker call."""

    items: dict[str, list[ReviewItem]] = field(default_factory=dict)  # by kind
    stubs: list[StubToEnrich] = field(default_factory=list)
    sources: dict[str, str | None] = field(default_factory=dict)  # memory id → its source
    proposals: list[Proposal] = field(default_factory=list)  # faded: archive or keep?

    @property
    def decisions(self) -> int:
        return sum(len(found) for found in self.items.values()) + len(self.proposals)


def load_queue(service: MemoryService) -> ReviewQueue:
    """The open review items of every scope, the stubs worth describing, and where each
    memory of a pair came from (worker side)."""
    scopes = service.scopes()
    items: dict[str, list[ReviewItem]] = {"duplicate": [], "label_conflict": []}
    items["revive_candidate"] = []
    for item in service.pending(scopes=scopes, kinds=list(items)):
        items.setdefault(item.kind, []).append(item)
    sides = [side for found in items.values() for i in found for side in (i.node, i.other)]
    sources = {side.id: side.source for side in sides if side is not None}
    stubs = service.briefing(scopes=scopes).stubs_to_enrich
    return ReviewQueue(items, stubs, sources, service.retention_proposals(scopes=scopes))


def settle(service: MemoryService, item_id: str, action: str) -> str:
    """Carry out a decision (worker side); returns what happened, in words."""
    scopes = service.scopes()
    if action == "dismiss":
        service.dismiss(item_id, scopes=scopes)
        return "Kept both: they are different things."
    result = service.resolve_duplicate(item_id, action, scopes=scopes)
    if action == "distinct":
        return "Kept both, joined as related."
    title = result.node.title if result.node else "the kept memory"
    return f"Merged into “{title}”. Its text is kept there as an addendum."


def settle_proposal(service: MemoryService, node_id: str, action: str) -> str:
    """Archive or keep a faded memory the supervisor proposed (worker side)."""
    scopes = service.scopes()
    if action == "archive":
        service.archive_proposal(node_id, scopes=scopes)
        return (
            "Archived. It no longer shows in search; the Archive shelf of the library lists "
            "it, and Unarchive brings it back."
        )
    service.keep(node_id, scopes=scopes)
    return "Kept. It is no longer counted as short-lived."


def archive_stub(service: MemoryService, node_id: str) -> str:
    """A name found in memories that is no name to the person: archived with its links, and
    not made again when a memory names it later (worker side)."""
    service.archive(node_id, scopes=service.scopes())
    return (
        "Archived as not a name: it no longer shows in search, and a memory that names it does "
        "not make it again. The Archive shelf of the library lists it; Unarchive brings it back."
    )
