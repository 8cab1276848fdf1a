"""What the detail pane loads and what its buttons do, apart from the pane: the memory with
its sections and history (``load_detail``), the service calls that run in a worker, and the
rules for which actions a memory allows (the editors themselves are ``ui/writing``'s).

Editing never overwrites: it writes the new text as a new version and supersedes the old one,
so the history keeps what the memory said before. The pack decides which types may be
superseded (the personal pack: every kind but a document's passage), so only those can be
edited here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cairn.app.api import (
    DOCUMENT,
    SECTION,
    History,
    LinkResult,
    MemoryService,
    Node,
    NodeDetail,
    Pack,
    is_note_file,
    shelf_of,
)
from cairn.ui.detail.parts import document_text

SUPERSEDES = "supersedes"
PART_OF = "part_of"  # a section's link to its note or document
GET_LIMIT = 25  # ids per ``get`` (the service's cap)


@dataclass(frozen=True)
class Loaded:
    """What the pane shows for one id: the memory and its versions, or nothing if it is gone.
    A section of a note asked for shows the note (``focus`` is the section); a document's
    sections come in their order."""

    asked: str
    detail: NodeDetail | None
    history: History | None
    sections: tuple[Node, ...] = ()
    focus: Node | None = None
    # The title and text of each memory it links to, for a drag out of the Links list.
    linked: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """What the memory says: its body; a file whose Document keeps no text (a PDF, a
        recording, a note read before Cairn kept a note's text whole) has its sections' text,
        in order: a note's as it runs, another file's under each section's place."""
        if self.detail is None:
            return ""
        node = self.detail.node
        if node.body or node.type != DOCUMENT or not self.sections:
            return node.body
        if is_note_file(node.type, node.attrs):
            return "\n\n".join(section.body for section in self.sections)
        return document_text(self.sections, node.title)


def load_detail(service: MemoryService, node_id: str, use: bool = True) -> Loaded:
    """A memory with its history; ``use``: it counts as used (the person opened it)."""
    scopes = service.scopes()
    got = service.get([node_id], scopes=scopes, use=use)
    if not got.nodes:
        return Loaded(node_id, None, None)
    detail, focus = got.nodes[0], None
    owner = _note_of(service, detail, use)
    if owner is not None:  # a section of a note: the note, at that section
        detail, focus = owner, detail.node
    node = detail.node
    sections = service.sections(node.id, scopes=scopes) if node.type == DOCUMENT else []
    history = service.history(node.id, scopes=scopes)
    return Loaded(node_id, detail, history, tuple(sections), focus, _linked(service, detail))


def _note_of(service: MemoryService, section: NodeDetail, use: bool) -> NodeDetail | None:
    """The note file a section belongs to, or None (not a section, or of another file)."""
    if section.node.type != SECTION:
        return None
    owners = [e.other_id for e in section.edges if e.type == PART_OF and e.direction == "out"]
    if not owners:
        return None
    got = service.get(owners[:1], scopes=service.scopes(), use=use).nodes
    if got and is_note_file(got[0].node.type, got[0].node.attrs):
        return got[0]
    return None


def _linked(service: MemoryService, detail: NodeDetail) -> dict[str, tuple[str, str]]:
    ids = list(dict.fromkeys(edge.other_id for edge in detail.edges))
    found: dict[str, tuple[str, str]] = {}
    for start in range(0, len(ids), GET_LIMIT):
        got = service.get(ids[start : start + GET_LIMIT], scopes=service.scopes(), use=False)
        found |= {d.node.id: (d.node.title, d.node.body) for d in got.nodes}
    return found


def link_and_name(
    service: MemoryService, src: str, dst: str, edge_type: str, other_id: str
) -> tuple[LinkResult, str]:
    """Make a link; with it, the title of its other end (what Undo will name)."""
    result = service.link(src, dst, edge_type, scopes=service.scopes())
    got = service.get([other_id], scopes=service.scopes(), use=False).nodes
    return result, got[0].node.title if got else other_id


def write_new_version(service: MemoryService, old: Node, title: str, body: str) -> str:
    """The edited text as a new version that supersedes ``old`` (one transaction: see
    ``MemoryService.revise``); returns the new id."""
    versions = service.revise(old.id, title, body, scopes=service.scopes())
    return versions.chain[versions.position].id


def supersede(service: MemoryService, old_id: str, new_id: str) -> str:
    service.supersede(old_id, new_id, scopes=service.scopes())
    return new_id


def can_supersede(pack: Pack, node: Node) -> bool:
    """Whether the pack lets a newer memory replace this one (and it is not history already)."""
    if node.status == "superseded":
        return False
    return pack.edge_for(node.type, node.type, (SUPERSEDES,)) is not None


def can_edit(pack: Pack, node: Node) -> bool:
    """Whether the window edits this memory's text: a memory the pack lets have versions,
    but not a file other than a note (a PDF or a recording is kept as it was read)."""
    if node.type in (DOCUMENT, SECTION) and shelf_of(node.type, node.attrs) != "Note":
        return False
    return can_supersede(pack, node)


def why_not_editable(pack: Pack, node: Node) -> str:
    if node.status == "superseded":
        return "This is an older version: open the newest one to change it."
    if node.type in (DOCUMENT, SECTION):
        return (
            "A file is kept as it was read, and its text is not edited here. Write a note "
            "about it instead, and link the two."
        )
    return (
        f"A {node.type} is not edited here: Cairn keeps versions of notes, facts, events and "
        "the like, and the pack does not let one replace another of this kind."
    )


NAMED_SEARCH = 10  # hits looked through for a memory of the name a [[link]] gives


def find_named(service: MemoryService, name: str) -> str | None:
    """The memory a ``[[name]]`` in a text means: one titled so (case aside), the newest if
    several; else None."""
    wanted = name.casefold().strip()
    hits = service.search(name, scopes=service.scopes(), limit=NAMED_SEARCH).results
    for hit in hits:
        owner = hit.part_of
        if hit.title.casefold().strip() == wanted:
            return hit.id
        if owner is not None and owner.title.casefold().strip() == wanted:
            return owner.id
    return None
