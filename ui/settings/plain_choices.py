"""The vault's memory settings as questions a person can answer, each with a few named steps.

A step sets one or more of the raw settings at once ("Very alike" is a same-topic band of 0.95
and a word overlap of 0.8); the raw numbers stay under Advanced, and numbers that match no step
show as "Custom". The recommended step of each question is the engine's defaults
(``SETTINGS``), which a test pins. The bands are chosen so that any step of one question goes
with any step of another: every review band stays below every same-topic band.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DECIMALS = 3  # as the Advanced fields show the numbers
CUSTOM = "Custom: the numbers under Advanced"


@dataclass(frozen=True)
class Step:
    name: str
    values: Mapping[str, Any]
    says: str  # what this step does, in a sentence


@dataclass(frozen=True)
class PlainChoice:
    key: str
    question: str
    steps: tuple[Step, ...]

    @property
    def settings(self) -> tuple[str, ...]:
        """The raw settings this question sets."""
        return tuple(self.steps[0].values)

    def step_for(self, values: Mapping[str, Any]) -> int | None:
        """The step whose values ``values`` holds, or None (custom numbers)."""
        for number, step in enumerate(self.steps):
            if all(_same(values.get(name), wanted) for name, wanted in step.values.items()):
                return number
        return None


def _same(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, str) or value is None:
        return bool(value == wanted)
    return round(float(value), DECIMALS) == round(float(wanted), DECIMALS)


PLAIN_CHOICES: tuple[PlainChoice, ...] = (
    PlainChoice(
        "sameness",
        "How alike must two notes be to be treated as the same?",
        (
            Step(
                "Nearly word for word",
                {"dedup_high": 0.97, "dedup_jaccard": 0.9},
                "Only a near copy counts as the same note; more notes are kept apart.",
            ),
            Step(
                "Very alike (recommended)",
                {"dedup_high": 0.95, "dedup_jaccard": 0.8},
                "A note that says the same thing in other words counts as the same note.",
            ),
            Step(
                "Alike in what they say",
                {"dedup_high": 0.92, "dedup_jaccard": 0.7},
                "Notes on one subject count as the same sooner; fewer near repeats are kept.",
            ),
        ),
    ),
    PlainChoice(
        "asking",
        "When should Cairn ask you whether a new note repeats one you have?",
        (
            Step(
                "Rarely: only for very close matches",
                {"dedup_low": 0.85, "dedup_anchored_low": 0.82},
                "Fewer questions in the review panel; a few repeats may stay unnoticed.",
            ),
            Step(
                "Sometimes (recommended)",
                {"dedup_low": 0.78, "dedup_anchored_low": 0.74},
                "Cairn asks when it is unsure, and keeps the new note meanwhile.",
            ),
            Step(
                "Often: whenever two notes look related",
                {"dedup_low": 0.72, "dedup_anchored_low": 0.68},
                "More questions, fewer repeats left unnoticed.",
            ),
        ),
    ),
    PlainChoice(
        "entities",
        "A new person, place or project has a name like one you have:",
        (
            Step(
                "Keep it and list it for review (recommended)",
                {"entity_mode": "warn"},
                "It is stored, and the review panel asks whether the two are one.",
            ),
            Step(
                "Do not store it; say which one I may mean",
                {"entity_mode": "block"},
                "Nothing is stored until you add it again on purpose.",
            ),
        ),
    ),
    PlainChoice(
        "tags",
        "A tag names a person, project or place you have:",
        (
            Step("Leave it a tag", {"tag_anchoring": "off"}, "Tags stay words."),
            Step(
                "Suggest a link (recommended)",
                {"tag_anchoring": "suggest"},
                "Cairn proposes linking the memory to what the tag names.",
            ),
            Step(
                "Link it",
                {"tag_anchoring": "auto"},
                "The memory is linked to what the tag names at once.",
            ),
        ),
    ),
    PlainChoice(
        "fading",
        "Short-lived notes you have not opened for a while:",
        (
            Step(
                "Propose them for archiving (recommended)",
                {"retention_mode": "propose"},
                "The review panel lists them; you archive or keep each.",
            ),
            Step(
                "Archive them by themselves",
                {"retention_mode": "auto"},
                "Cairn archives them and says so; the Archive brings any back.",
            ),
        ),
    ),
)
