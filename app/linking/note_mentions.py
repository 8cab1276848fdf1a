"""The people, places, organisations, projects and topics a written note names, linked to it.

Ingest links each passage to the entities it names (``mentions``); a note written by hand got no
such links, so the graph leg of a search had nothing to follow from it. Here the same matcher
runs on the title and body of every new memory that is not itself an entity: each live entity
of its scope that it names unambiguously gets a ``mentions`` edge, where the pack allows one.
Its [[links]] and #tags are left to the links and to tag anchoring.

The names it states that the vault does not know yet (``recognise``: people, organisations,
places and other proper names) are found before the write lock (``new_names``) and become
stubs through the entity resolver in the write's transaction, so the next memory that names
them joins the same stub. A stub reaches at most ``stubs.STUB_REACH`` memories (see ``stubs``).
Each scope keeps the case evidence the recogniser reads, learnt from the scope's newest
memories on first use and from every memory written since.

One matcher per scope is built on the first note written in it (one pass over the name index)
and kept: an entity written through the write path is added to it at once. An entity merged,
renamed or forgotten elsewhere may leave a stale name behind, so each match is checked against
the vault before it is linked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Set
from typing import Any

from cairn.app.linking import mentions, recognise, stubs
from cairn.app.packs import Pack
from cairn.storage import graph_rows, name_index
from cairn.storage.connection import Connection
from cairn.storage.rows import NodeRow

LINKED_STATUSES = ("active", "stub")
# How many of a scope's newest memories teach the case evidence on first use: enough to know
# a vault's ordinary words, read once per scope and session.
EVIDENCE_SEED = 2000
_TAG = re.compile(r"#[\w/-]+")
EDGE = "mentions"


class NoteMentions:
    def __init__(self, pack: Pack) -> None:
        self._pack = pack
        self._matchers: dict[str, mentions.MentionMatcher] = {}
        self._evidence: dict[str, recognise.CaseEvidence] = {}

    def entity_written(self, scope: str, name: str, node_id: str) -> None:
        """A new entity (or a new name of one): notes written from now on can name it."""
        matcher = self._matchers.get(scope)
        if matcher is not None:
            matcher.add(name, node_id)

    def link(
        self,
        conn: Connection,
        row: NodeRow,
        text: str,
        add_edge: Callable[[str, str, str], Any],
        already: Set[str] = frozenset(),
    ) -> list[str]:
        """Links the memory ``row`` to the entities ``text`` names, but those in ``already``
        (its own [[links]]); returns their ids."""
        scope = row["scope"]
        matcher = self._matcher(conn, scope)
        # A #tag is the tag-anchoring setting's to link or not, never a mention.
        words = _TAG.sub(" ", text)
        found = [n for n in matcher.find(words) if n != row["id"] and n not in already]
        if not found:
            return []
        live = {
            r["id"]: r["type"]
            for r in graph_rows.nodes_by_ids(conn, found, [scope])
            if r["status"] in LINKED_STATUSES
        }
        linked = []
        for node_id in found:
            kind = live.get(node_id)
            if kind is None or not self._pack.edge_for(row["type"], kind, (EDGE,)):
                continue
            if stubs.can_join(conn, node_id):
                add_edge(row["id"], node_id, EDGE)
                linked.append(node_id)
        return linked

    def new_names(self, conn: Connection, scope: str, text: str) -> list[recognise.Mention]:
        """The names ``text`` states that no entity of ``scope`` is known by, of a type the
        pack has; read before the write lock (``conn`` may be a reader)."""
        evidence = self.evidence(conn, scope)
        evidence.learn(text)
        matcher = self._matcher(conn, scope)
        found = recognise.recognise(_TAG.sub(" ", text), evidence)
        return [m for m in found if m.type in self._pack.node_types and not matcher.find(m.name)]

    def evidence(self, conn: Connection, scope: str) -> recognise.CaseEvidence:
        evidence = self._evidence.get(scope)
        if evidence is None:
            evidence = recognise.CaseEvidence()
            memory_types = [
                name for name, t in self._pack.node_types.items() if t.family != "entity"
            ]
            for row in graph_rows.newest(conn, [scope], ["active"], memory_types, EVIDENCE_SEED):
                evidence.learn(f"{row['title']}\n{row['body']}")
            self._evidence[scope] = evidence
        return evidence

    def _matcher(self, conn: Connection, scope: str) -> mentions.MentionMatcher:
        matcher = self._matchers.get(scope)
        if matcher is None:
            matcher = mentions.MentionMatcher(name_index.mentionable(conn, [scope]))
            self._matchers[scope] = matcher
        return matcher
