"""What the sample vault holds: a small invented world, as plain data (``sample_vault`` writes it).

A footbridge to survey before the spring floods: three people, a council, a place, a project;
notes that link to them with ``[[links]]`` (three of them to a name nobody has described yet,
which the review panel then asks about); a load limit that was lowered, so the old fact is
history; a commitment due in a few days and an event after it; a preference; and a second,
shorter account of the site visit, which the dedup gate is expected to hold for review.
Every name is made up. Dates are counted from the day the sample is written, so the
commitment is always due soon.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

PROJECT = "project"  # the key of the memory a face opens first
OLD_LIMIT, NEW_LIMIT = "old limit", "new limit"  # the fact that was superseded, and its successor
TWIN = "twin"  # written through the dedup gate, after the rest: a possible duplicate
# Kinds of memory the sample needs of the vault's pack.
TYPES = (
    "Person",
    "Organization",
    "Place",
    "Topic",
    "Project",
    "Note",
    "Fact",
    "Commitment",
    "Event",
    "Preference",
)


@dataclass(frozen=True)
class SampleMemory:
    key: str
    type: str
    title: str
    body: str
    attrs: dict[str, Any] = field(default_factory=dict)
    valid_from: str | None = None
    status: str = "active"


def memories(today: date) -> list[SampleMemory]:
    """The sample's memories in the order they are written: entities first, so the notes'
    ``[[links]]`` find them (a name written later would get a stub of the link's own, not
    marked as the sample's)."""

    def day(offset: int) -> str:
        return (today + timedelta(days=offset)).isoformat()

    return [
        SampleMemory(
            "ottilie",
            "Person",
            "Ottilie Brask",
            "Structural engineer; leads the footbridge survey. Rather talks on the phone than "
            "writes.",
            {"occupation": "structural engineer", "aliases": ["Ottilie"]},
        ),
        SampleMemory(
            "kasimir",
            "Person",
            "Kasimir Dunmore",
            "Footpaths officer at the council: decides when a path may close.",
            {"occupation": "footpaths officer", "aliases": ["Kasimir"]},
        ),
        SampleMemory(
            "hedda",
            "Person",
            "Hedda Quill",
            "Runs the pottery studio by the river; has lived on the towpath for years.",
            {"occupation": "potter"},
        ),
        SampleMemory(
            "council",
            "Organization",
            "Wendle Vale Council",
            "The town council. It owns the Old Mill Footbridge and the towpath.",
        ),
        SampleMemory(
            "bridge",
            "Place",
            "Old Mill Footbridge",
            "The timber footbridge over the river by the old mill, built in 1962.",
        ),
        # A name the notes link to that nobody has described: the review panel asks for it.
        SampleMemory("floods", "Topic", "Spring floods", "", status="stub"),
        SampleMemory(
            PROJECT,
            "Project",
            "Footbridge survey",
            "Inspect the Old Mill Footbridge before the spring floods and decide whether it "
            "needs repair.",
            {"status": "active", "started": day(-30), "due": day(45)},
        ),
        SampleMemory(
            "site visit",
            "Note",
            "Site visit at the footbridge",
            "Walked the [[Old Mill Footbridge]] with [[Ottilie Brask]]. Hairline cracks in the "
            "north abutment, and two handrail posts are loose. Ottilie wants a load test "
            "before the [[Spring floods]].",
            {"tags": ["bridge", "inspection"]},
        ),
        SampleMemory(
            "council call",
            "Note",
            "Call with the council",
            "[[Kasimir Dunmore]] at [[Wendle Vale Council]] can close the footpath for two "
            "days for the load test, given two weeks' notice. He wants the plan in writing, "
            "and worries about the [[Spring floods]] too.",
            {"tags": ["bridge"]},
        ),
        SampleMemory(
            "pottery",
            "Note",
            "Evening at the pottery",
            "[[Hedda Quill]] says the towpath by the footbridge floods first every year; she "
            "has photographs of last year's [[Spring floods]]. Give her glaze book back.",
        ),
        SampleMemory(
            OLD_LIMIT,
            "Fact",
            "Footbridge load limit",
            "The Old Mill Footbridge is rated for 5 tonnes.",
            {"subject": "Old Mill Footbridge", "value": "5 tonnes"},
            valid_from=day(-400),
        ),
        SampleMemory(
            NEW_LIMIT,
            "Fact",
            "Footbridge load limit",
            "Since the survey, the Old Mill Footbridge is rated for 3 tonnes until the north "
            "abutment is repaired.",
            {"subject": "Old Mill Footbridge", "value": "3 tonnes"},
            valid_from=day(-7),
        ),
        SampleMemory(
            "plan",
            "Commitment",
            "Send the load test plan to Kasimir",
            "He needs it in writing two weeks before the footpath closes.",
            {"owner": "me", "due": day(4), "status": "open"},
        ),
        SampleMemory(
            "load test",
            "Event",
            "Load test on the footbridge",
            "Two days with the footpath closed; Ottilie brings the sandbags and the gauges.",
            {"date": day(21), "end": day(22), "location": "Old Mill Footbridge"},
        ),
        SampleMemory(
            "calls",
            "Preference",
            "Ottilie prefers calls before ten",
            "Ottilie would rather talk on the phone than by e-mail, and before ten in the morning.",
            {"holder": "Ottilie Brask"},
        ),
        SampleMemory(
            TWIN,
            "Note",
            "Site visit, typed up later",
            "Went round the footbridge with Ottilie. Two handrail posts are loose and the north "
            "abutment has hairline cracks; she asks for a load test before the spring floods.",
            {"tags": ["bridge"]},
        ),
    ]


# Links the texts do not state: (from, to, edge type), by key.
LINKS: tuple[tuple[str, str, str], ...] = (
    ("kasimir", "council", "works_at"),
    ("ottilie", "kasimir", "knows"),
    (PROJECT, "ottilie", "involves"),
    (PROJECT, "council", "involves"),
    (PROJECT, "bridge", "located_in"),
    ("plan", PROJECT, "part_of"),
    ("plan", "kasimir", "involves"),
    ("load test", PROJECT, "part_of"),
    ("load test", "bridge", "located_in"),
    (NEW_LIMIT, "bridge", "involves"),
    ("calls", "ottilie", "involves"),
)
