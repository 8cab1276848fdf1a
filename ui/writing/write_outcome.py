"""What a write came to, in words a person reads after Save: stored; absorbed into a memory
they had (which one); stored and linked to one about the same thing; kept but awaiting review
as a possible duplicate; a name already linked from other memories that got its description;
added to the entity of the same name; or not stored at all because it looks like one they have
(the resolver's block mode). Each sentence names the other memory and says what to do next.
"""

from __future__ import annotations

from cairn.app.api import WriteResult
from cairn.ui.writing.kinds import kind_label

CONTRADICTION = "possible_contradiction"  # the flag the dedup gate sets (app/dedup/gate.py)


def outcome_sentence(result: WriteResult, type_name: str, family: str) -> str:
    """The sentence for ``result`` of writing a ``type_name`` of the pack's ``family``."""
    kind = kind_label(type_name).lower()
    other = f"“{result.matched.title}”" if result.matched else "a memory you have"
    if result.outcome == "blocked":
        names = ", ".join(f"“{match.title}”" for match in result.did_you_mean) or other
        return (
            f"Not stored: it looks like {names}, which you have already. Open that one to add "
            f"to it, or press Save anyway to keep a new {kind}."
        )
    if result.outcome == "absorbed" and family == "entity":
        return (
            f"You have {other} already: what you wrote was added to that one (a value that "
            "differs from its own is kept beside it)."
        )
    if result.outcome == "absorbed":
        return (
            f"You had this already: it was added to {other}, which keeps your wording "
            "beside its own."
        )
    if result.outcome == "enriched":
        return (
            f"{other} was named in your memories before it had a description; this is its "
            "description now, and what named it stays linked."
        )
    if result.outcome == "merge_linked":
        return f"Stored, and linked to {other}, which is about the same thing." + _contradicts(
            result
        )
    if result.outcome == "pending":
        return (
            f"Stored, and marked awaiting review: it may repeat {other}. The review panel lets "
            "you keep both or merge them." + _contradicts(result)
        )
    return f"Stored as a new {kind}." + _entity_notes(result)


def _contradicts(result: WriteResult) -> str:
    """A number, date or "not" differs from the memory it is like: say what to do if the new
    one is the truth now."""
    if CONTRADICTION not in result.flags:
        return ""
    return (
        " It may contradict that one: if this replaces it, open the old one and replace it "
        "with this, so it is kept as history."
    )


def _entity_notes(result: WriteResult) -> str:
    """What the resolver noticed about a new entity's name, as sentences to add."""
    notes = []
    for match in result.label_conflict:
        notes.append(
            f"A {kind_label(match.type).lower()} is also called “{match.title}”: the review "
            "panel asks whether they are the same."
        )
    for match in result.revive_candidate:
        notes.append(
            f"An archived {kind_label(match.type).lower()} is called “{match.title}” too: the "
            "review panel asks whether to bring it back."
        )
    similar = [f"“{match.title}”" for match in result.possible_duplicate_of]
    if similar:
        notes.append(f"It may be the same as {', '.join(similar)}, which you have.")
    return "".join(f" {note}" for note in notes)
