"""Structural feedback on a write (Engrama DDR-006): a memory should land *connected*.

- ``[[Name]]`` links in a body become ``references`` edges to the entity of that name, or to a
  new *stub* when the vault does not know the name yet. A later write that describes the stub
  clears it; a stub many memories point to asks to be described (``enrich_hint``).
- Tags (``tags`` attribute or ``#tag`` in the text) that name an anchor entity (a person,
  project, place...) become suggested edges, or edges, as the ``tag_anchoring`` setting says.
- The response tells the node's degree; at degree 0 an ``orphan_warning`` with what it might be
  linked to.
- A type's ``status`` attribute is brought into the pack's vocabulary; a word outside it moves
  to ``status_note`` rather than being lost.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cairn.app.dedup import resolver
from cairn.app.linking.stubs import enrich_hint
from cairn.app.models import EnrichHint, EntityMatch, Link, Relation, Similar, StubCreated
from cairn.app.packs import NodeType, Pack
from cairn.app.text.names import normalize
from cairn.storage import graph_rows
from cairn.storage.connection import Connection
from cairn.storage.rows import NodeRow

# [[Target]], [[Target|shown text]], [[Target#Heading]]: the target is the name.
_WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:[#|][^\[\]\n]*)?\]\]")
# #tag at a word start; not "#1" (a number) and not inside a URL fragment or a heading "# ".
_HASHTAG = re.compile(r"(?<![\w#&/])#([^\W\d_][\w/-]*)")
LINK_EDGES = ("references",)
TAG_EDGES = ("involves", "mentions", "relates_to")
SUGGESTION_EDGE = ("relates_to",)
# The type a stub gets when a link names something unknown: the most general entity. Writing
# the entity later under its real type retypes the stub.
STUB_TYPE = "Topic"
MAX_LINKS = 100  # per memory: a body with more is a document and belongs in ingest
MAX_SUGGESTIONS = 8


@dataclass
class Feedback:
    links: list[Link] = field(default_factory=list)
    stubs_created: list[StubCreated] = field(default_factory=list)
    suggested_relations: list[Relation] = field(default_factory=list)
    relations_from_tags: list[Relation] = field(default_factory=list)
    enrich_hints: list[EnrichHint] = field(default_factory=list)
    new_stub_seqs: list[tuple[int, str]] = field(default_factory=list)  # (seq, name)


def inline_links(body: str) -> list[str]:
    """The names ``[[linked]]`` in a text, in order, each once (by normalised name)."""
    seen: dict[str, str] = {}
    for match in _WIKILINK.finditer(body):
        name = " ".join(match.group(1).split())
        norm = normalize(name)
        if norm and norm not in seen:
            seen[norm] = name
    return list(seen.values())[:MAX_LINKS]


def tags_of(attrs: dict[str, Any], body: str) -> list[str]:
    tags = [t for t in attrs.get("tags", []) if isinstance(t, str)]
    tags += _HASHTAG.findall(body)
    seen: dict[str, str] = {}
    for tag in tags:
        name = tag.strip().lstrip("#").replace("/", " ")
        norm = normalize(name)
        if norm and norm not in seen:
            seen[norm] = name
    return list(seen.values())


def normalize_status(node_type: NodeType, attrs: dict[str, Any]) -> dict[str, Any]:
    """Bring ``attrs['status']`` into the type's vocabulary; keep an unknown word in
    ``status_note`` (the canonical status is then left unset, not guessed)."""
    value = attrs.get("status")
    if not node_type.statuses or not isinstance(value, str):
        return attrs
    word = " ".join(value.casefold().replace("_", " ").replace("-", " ").split())
    canonical = node_type.statuses.get(word)
    attrs = dict(attrs)
    if canonical is not None:
        attrs["status"] = canonical
    else:
        del attrs["status"]
        attrs["status_note"] = value.strip()
    return attrs


def resolve_link(conn: Connection, name: str, scope: str) -> resolver.NameMatch | None:
    """The live entity (active or stub) ``name`` names exactly, if there is one; else the one
    note (a Document) of that title or alias, as a notes app links ``[[Ferry times]]`` to the
    note "Ferry times". Two notes of one name are not guessed between."""
    for match in resolver.lookup(conn, [name], [scope], fuzzy=False):
        if match.exact and match.status in ("active", "stub"):
            return match
    notes = graph_rows.documents_named(conn, name, scope)
    if len(notes) == 1:
        [note] = notes
        reason = "same name" if note["title"].casefold() == name.casefold() else "alias"
        return resolver.NameMatch(
            note["id"], note["type"], note["title"], note["status"], 1.0, reason, note["seq"]
        )
    return None


def connect(
    conn: Connection,
    pack: Pack,
    node: NodeRow,
    links: Sequence[str],
    tags: Sequence[str],
    tag_mode: str,
    make_stub: Any,
    make_edge: Any,
) -> Feedback:
    """Turn ``links`` and ``tags`` of the stored ``node`` into edges and suggestions.

    ``make_stub(name) -> row`` stores a stub entity; ``make_edge(src, dst, type, why) -> bool``
    stores an edge (False if it existed). Both run in the caller's transaction.
    """
    out = Feedback()
    scope = node["scope"]
    for name in links:
        target = resolve_link(conn, name, scope)
        if target is None:
            stub = make_stub(name)
            out.stubs_created.append(StubCreated(stub["id"], stub["type"], name))
            out.new_stub_seqs.append((stub["seq"], name))
            target_id, target_type, target_title = stub["id"], stub["type"], name
        else:
            target_id, target_type, target_title = target.id, target.type, target.title
        if target_id == node["id"]:
            continue
        edge = pack.edge_for(node["type"], target_type, LINK_EDGES)
        if edge and make_edge(node["id"], target_id, edge, f"[[{name}]]"):
            # A link names its edge's type and its target's; the one once replaced the other.
            out.links.append(Link(target_id, edge, target_title, target_type))
    if tag_mode != "off":
        for tag in tags:
            target = resolve_link(conn, tag, scope)
            if target is None or target.id == node["id"] or target.status != "active":
                continue
            edge = pack.edge_for(node["type"], target.type, TAG_EDGES)
            if edge is None:
                continue
            relation = Relation(edge, target.id, target.type, target.title, f"tag #{tag}")
            if tag_mode == "auto":
                make_edge(node["id"], target.id, edge, f"tag #{tag}")
                out.relations_from_tags.append(relation)
            else:
                out.suggested_relations.append(relation)
    for linked in out.links:
        hint = enrich_hint(conn, linked.id)
        if hint:
            out.enrich_hints.append(EnrichHint(linked.id, linked.title, hint))
    return out


def orphan_suggestions(
    relations: Sequence[Relation],
    duplicates: Sequence[EntityMatch],
    resonance: Sequence[Similar],
) -> list[Relation]:
    """What a memory with no edges might be linked to: tag anchors, then similar entities,
    then related memories, each once."""
    suggestions: dict[str, Relation] = {}
    for relation in relations:
        suggestions.setdefault(relation.id, relation)
    alike: list[EntityMatch | Similar] = [*duplicates, *resonance]
    for item in alike:
        said = item.reason if isinstance(item, EntityMatch) else ""
        reason = said or f"similar meaning ({item.score:.2f})"
        suggestions.setdefault(
            item.id, Relation(SUGGESTION_EDGE[0], item.id, item.type, item.title, reason)
        )
    return list(suggestions.values())[:MAX_SUGGESTIONS]
