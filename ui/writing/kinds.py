"""The kinds of memory a person writes by hand in a form, read from the vault's pack: every
type of a person's own memories and entities (facts, events, tasks, people, places, projects…),
but not a note (it has its own editor) nor a file's documents and passages (they come from
files). A pack of the person's own is offered the same way.

What a kind is called where a person reads it is the pack's name, but for the one type whose
name is not everyday speech: a Commitment is a "Task".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from cairn.app.api import NodeType

NOTE = "Note"
HAND_WRITTEN_FAMILIES = ("memory", "entity")
LABELS = {"Commitment": "Task"}
# The kinds a person reaches for most, first; the others follow by name.
EVERYDAY = ("Fact", "Person", "Place", "Project", "Commitment", "Event")


def kind_label(type_name: str) -> str:
    """What a person calls a memory of ``type_name`` ("Task" for a Commitment)."""
    return LABELS.get(type_name, type_name)


def form_types(node_types: Mapping[str, NodeType]) -> list[str]:
    """The types the form writes, everyday ones first, the rest by their label."""
    chosen = [
        name
        for name, spec in node_types.items()
        if spec.family in HAND_WRITTEN_FAMILIES and name != NOTE
    ]
    return sorted(chosen, key=_order)


def _order(type_name: str) -> tuple[int, str]:
    rank = EVERYDAY.index(type_name) if type_name in EVERYDAY else len(EVERYDAY)
    return rank, kind_label(type_name)


def with_mnemonic(text: str, taken: set[str]) -> str:
    """``text`` with an "&" before its first letter not in ``taken`` (which gains it), so each
    field or command of one window has its own Alt key; unchanged when every letter is taken."""
    for index, char in enumerate(text):
        key = char.casefold()
        if char.isalpha() and key not in taken:
            taken.add(key)
            return f"{text[:index]}&{text[index:]}"
    return text


def taken_letters(texts: Iterable[str]) -> set[str]:
    """The Alt keys ``texts`` already use ("&Save" takes "s")."""
    letters = set()
    for text in texts:
        at = text.replace("&&", "").find("&")
        if 0 <= at < len(text) - 1:
            letters.add(text.replace("&&", "")[at + 1].casefold())
    return letters
