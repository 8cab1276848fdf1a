"""How a new memory is labelled for keeping: ephemeral, normal or critical, with the reason.

A ``Classifier`` takes a ``Candidate`` and returns a ``Verdict``. The default, ``RuleClassifier``,
is a short list of local rules (no model, no network). An ``Advisor`` (a smarter classifier a
person may plug in) can be consulted through ``AdvisedClassifier``; the rules keep the last word
on safety: an advisor may raise a label, and may lower one only from normal to ephemeral, so
nothing the rules call critical can ever fade. Whatever a classifier proposes for importance and
stability, ``clamped`` holds it inside the label's band: the engine, not the classifier, decides
what a label means.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

LABELS = ("ephemeral", "normal", "critical")


@dataclass(frozen=True)
class Band:
    """What a label allows: importance in [0, 1] and stability in days (see ``retention``)."""

    importance: tuple[float, float]
    stability: tuple[float, float]
    default_importance: float
    default_stability: float


BANDS: dict[str, Band] = {
    # Trivia of the day: fades within about a week unless it is used.
    "ephemeral": Band((0.05, 0.3), (1.0, 7.0), 0.2, 3.0),
    "normal": Band((0.3, 0.8), (7.0, 365.0), 0.5, 30.0),
    # Never proposed for archiving, whatever its retrievability.
    "critical": Band((0.8, 1.0), (365.0, 36_500.0), 0.9, 3_650.0),
}


@dataclass(frozen=True)
class Candidate:
    """A memory about to be stored, as a classifier sees it."""

    type: str
    family: str  # the pack's family: memory, entity or document
    title: str
    body: str
    attrs: Mapping[str, Any]
    status: str
    source: str | None


@dataclass(frozen=True)
class Verdict:
    label: str
    reason: str
    actor: str = "rules"
    importance: float | None = None  # a classifier's own estimate; clamped into the band
    stability: float | None = None


class Classifier(Protocol):
    def classify(self, candidate: Candidate) -> Verdict: ...


class Advisor(Protocol):
    """An optional second opinion; ``None`` means it has none for this memory."""

    name: str

    def advise(self, candidate: Candidate) -> Verdict | None: ...


def clamped(verdict: Verdict) -> tuple[float, float]:
    """The importance and stability the engine stores for ``verdict``."""
    band = BANDS[verdict.label]
    importance = band.default_importance if verdict.importance is None else verdict.importance
    stability = band.default_stability if verdict.stability is None else verdict.stability
    return (
        min(max(importance, band.importance[0]), band.importance[1]),
        min(max(stability, band.stability[0]), band.stability[1]),
    )


# Words that mark a matter of health, law, money or identity: losing these costs dearly.
_CRITICAL_WORDS = (
    "allergy",
    "allergic",
    "anaphylaxis",
    "epipen",
    "medication",
    "prescription",
    "dosage",
    "diagnosis",
    "blood type",
    "vaccination",
    "emergency contact",
    "passport",
    "insurance",
    "policy number",
    "mortgage",
    "lease",
    "contract",
    "tax return",
    "last will",
    "power of attorney",
)
# Words of the moment: where the car is, what to buy on the way home.
_TRANSIENT_WORDS = (
    "today",
    "tonight",
    "tomorrow",
    "this morning",
    "this afternoon",
    "this evening",
    "parked",
    "parking",
    "lunch",
    "coffee",
    "groceries",
    "shopping list",
    "pick up",
    "call back",
    "remind me",
    "for now",
)
_CRITICAL_TAGS = {"critical", "important", "keep-forever"}
_EPHEMERAL_TAGS = {"ephemeral", "temp", "temporary", "scratch"}
_SHORT_WORDS = 25  # a transient note is a line or two
_SHORT_CAPTURE_WORDS = 12


def _found(words: tuple[str, ...], text: str) -> str | None:
    for word in words:
        if re.search(rf"\b{re.escape(word)}\b", text):
            return word
    return None


class RuleClassifier:
    """The local default. Each verdict names the rule that decided it."""

    def classify(self, candidate: Candidate) -> Verdict:
        tags = {str(t).lower().lstrip("#") for t in candidate.attrs.get("tags") or []}
        if tags & _CRITICAL_TAGS:
            return Verdict("critical", f"tagged {sorted(tags & _CRITICAL_TAGS)[0]}")
        if candidate.family == "document":
            return Verdict("normal", "a file you kept, and its passages, stay with it")
        if candidate.family == "entity":
            return Verdict("normal", "people, places, organisations, projects and topics stay")
        text = f"{candidate.title}\n{candidate.body}".lower()
        critical = _found(_CRITICAL_WORDS, text)
        if critical:
            return Verdict("critical", f"mentions {critical!r}")
        if tags & _EPHEMERAL_TAGS:
            return Verdict("ephemeral", f"tagged {sorted(tags & _EPHEMERAL_TAGS)[0]}")
        if candidate.type == "Commitment":
            return Verdict("normal", "a commitment stays until it is done or dropped")
        words = len(text.split())
        if candidate.type == "Note" and words <= _SHORT_WORDS:
            transient = _found(_TRANSIENT_WORDS, text)
            if transient:
                return Verdict("ephemeral", f"a short note about {transient!r}")
        if candidate.source == "inbox" and words <= _SHORT_CAPTURE_WORDS:
            return Verdict("ephemeral", f"a quick capture of {words} words")
        return Verdict("normal", "no rule applied: kept like most memories")


class AdvisedClassifier:
    """The rules, with an advisor's second opinion taken where it is safe (see module doc)."""

    def __init__(self, rules: Classifier, advisor: Advisor) -> None:
        self.rules = rules
        self.advisor = advisor

    def classify(self, candidate: Candidate) -> Verdict:
        ruled = self.rules.classify(candidate)
        try:
            advice = self.advisor.advise(candidate)
        except Exception as exc:  # an advisor is someone else's code: its failure is not ours
            return replace(ruled, reason=f"{ruled.reason}; advisor failed ({type(exc).__name__})")
        if advice is None or advice.label not in LABELS:
            return ruled
        if advice.label == ruled.label:
            return replace(advice, actor=self.advisor.name)
        if LABELS.index(advice.label) < LABELS.index(ruled.label) and ruled.label == "critical":
            return replace(
                ruled, reason=f"{ruled.reason}; advisor said {advice.label}, not taken for this"
            )
        return replace(advice, actor=self.advisor.name)
