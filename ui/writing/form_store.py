"""What the memory form's Save writes, in a worker: a new memory through the dedup gate and the
entity resolver (``MemoryService.write``), a capture sorted into one (``inbox_promote``), or a
new version of the memory the form edits (``revise``), and the sentence that says what it came
to. Plain functions and values, apart from the widgets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cairn.app.api import MemoryService, Node
from cairn.ui.writing.write_outcome import outcome_sentence

DEFAULT_SCOPE = "personal"
SUPERSEDES = "supersedes"
TITLE_CHARS = 80  # a capture's first line as a title, cut at a word (as the inbox cuts it)
VERSION_SAVED = "Saved as a new version; the one before stays in its history."


@dataclass(frozen=True)
class Request:
    """One save: what to write, and how (a new memory, a capture sorted, or an edit)."""

    type: str
    title: str
    body: str
    attrs: dict[str, Any] = field(default_factory=dict)
    scope: str = DEFAULT_SCOPE
    node_id: str | None = None  # an edit of this memory
    capture: str | None = None  # an inbox capture this memory is made of
    force_new: bool = False


@dataclass(frozen=True)
class Stored:
    """What a save came to: the memory (None when nothing was stored) and the sentence."""

    node: Node | None
    sentence: str


def store(service: MemoryService, request: Request, family: str) -> Stored:
    """Write ``request`` (runs in a worker)."""
    scopes = service.scopes()
    if request.node_id is not None:
        history = service.revise(
            request.node_id, request.title, request.body, scopes=scopes, attrs=request.attrs
        )
        newest = history.chain[history.position].id
        node = service.get([newest], scopes=scopes, use=False).nodes[0].node
        return Stored(node, VERSION_SAVED)
    if request.capture is not None:
        result = service.inbox_promote(
            request.capture,
            scopes=scopes,
            type=request.type,
            title=request.title,
            body=request.body,
            attrs=request.attrs or None,
        )
    else:
        result = service.write(
            request.type,
            request.title,
            request.body,
            attrs=request.attrs or None,
            scope=request.scope,
            force_new=request.force_new,
        )
    return Stored(result.node, outcome_sentence(result, request.type, family))


def first_line(text: str) -> str:
    """A capture's first line, cut at a word: the title it is offered with."""
    lines = text.strip().splitlines()
    first = lines[0].strip() if lines else ""
    if len(first) <= TITLE_CHARS:
        return first
    return first[:TITLE_CHARS].rsplit(" ", 1)[0] + "…"


def versioned_types(service: MemoryService | None) -> set[str]:
    """The types the pack lets supersede themselves: those an edit keeps versions of."""
    if service is None:
        return set()
    pack = service.pack_rules()
    return {name for name in pack.node_types if pack.edge_for(name, name, (SUPERSEDES,))}
