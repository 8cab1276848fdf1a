"""Supersede and history (DESIGN §4, item 5): a changed fact replaces the old one, and the old
one stays as history.

``supersede(old, new)`` marks the old memory superseded, closes its validity (``valid_to``) at
the moment the new one became true, and records ``new -supersedes-> old``. Supersede is always
an explicit act: the dedup gate only ever *suggests* it. Reads hide superseded memories unless
asked for history (``include_history``) or for the state of things at a time (``as_of``).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from cairn.app.clock import now_iso
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest, NodeNotFound
from cairn.app.models import History, HistoryEntry
from cairn.app.packs import Pack
from cairn.app.upkeep import receipts
from cairn.storage import dedup_rows, graph_rows
from cairn.storage.connection import Connection
from cairn.storage.rows import NodeRow
from cairn.storage.vault import Vault

EDGE = "supersedes"
# The rationale of the supersedes edge an edit makes (``revise``), which tells an edit from a
# supersede of two memories written apart: only an edit's new version is the edit's own to
# take back (``undoing.unrevise``).
EDITED = "edited by the person"
SUPERSEDED = "superseded by the person"
MAX_CHAIN = 200  # versions walked each way; a chain this long is a log, not a fact


class HistoryKeeper:
    def __init__(self, vault: Vault, pack: Pack, space: EmbeddingSpace) -> None:
        self._vault = vault
        self._pack = pack
        self._space = space

    def supersede(
        self, old_id: str, new_id: str, scopes: list[str], *, carry_links: bool = True
    ) -> History:
        with self._vault.write() as conn:
            return self.supersede_in(conn, old_id, new_id, scopes, carry_links=carry_links)

    def supersede_in(
        self,
        conn: Connection,
        old_id: str,
        new_id: str,
        scopes: list[str],
        *,
        carry_links: bool = True,
        not_carried: Sequence[str] = (),
        rationale: str = SUPERSEDED,
    ) -> History:
        """``supersede`` within a write transaction the caller holds (an edit writes the new
        version and supersedes the old one in one).

        ``carry_links``: the new version gets every link of the old one (both ways: what links
        to it, what it links to, the passages ``part_of`` it), since a link is about the
        memory, not about one wording of it: the note a reading list points at is still that
        note once edited. The old version keeps its own, so the graph as it stood (``as_of``)
        still walks them; ``graph.get`` shows a link to the newest version only. An ingest of
        a changed file says False: the new file's text states its own links and passages.
        ``not_carried``: kinds of link left with the old version (an edited note file's
        sections: the new text has its own). ``rationale``: ``EDITED`` for an edit."""
        if old_id == new_id:
            raise InvalidRequest("A memory cannot supersede itself.")
        rows = {r["id"]: r for r in graph_rows.nodes_by_ids(conn, [old_id, new_id], scopes)}
        for node_id in (old_id, new_id):
            if node_id not in rows:
                raise NodeNotFound(node_id)
        old, new = rows[old_id], rows[new_id]
        if self._pack.edge_for(new["type"], old["type"], (EDGE,)) is None:
            raise InvalidRequest(
                f"A {old['type']} cannot be superseded by a {new['type']}: the pack lets "
                f"{EDGE} join only memories of the same kind."
            )
        for row, role in ((old, "old"), (new, "new")):
            if row["status"] == "superseded":
                newer = graph_rows.newest_edge_source(conn, row["id"], EDGE)
                raise InvalidRequest(
                    f"The {role} memory {row['title']!r} is already superseded"
                    + (f" by {newer}; supersede that one instead." if newer else ".")
                )
        if old_id in {e.id for e in self._chain(conn, new_id, scopes, older=True)}:
            raise InvalidRequest(f"{old['title']!r} is already older than {new['title']!r}.")
        # The edge new -> old closes a cycle when old already (transitively) supersedes
        # new. The status check above misses it once a superseded version was made active
        # again (archive, then unarchive); the check just above looks the other way.
        if new_id in {e.id for e in self._chain(conn, old_id, scopes, older=True)}:
            raise InvalidRequest(
                f"{old['title']!r} already supersedes {new['title']!r}; the other way "
                "round would make a cycle."
            )
        at = now_iso()
        graph_rows.update_node(
            conn,
            old_id,
            {
                "status": "superseded",
                "valid_to": old["valid_to"] or new["valid_from"] or at,
                "updated_at": at,
            },
        )
        self._space.status_changed(old["seq"], "superseded")
        if new["status"] == "pending":
            graph_rows.update_node(conn, new_id, {"status": "active", "updated_at": at})
            self._space.status_changed(new["seq"], "active")
        graph_rows.insert_edge(
            conn,
            {
                "src": new_id,
                "dst": old_id,
                "type": EDGE,
                "layer": self._pack.edge_types[EDGE].layer,
                "rationale": rationale,
                "created_at": at,
            },
        )
        if carry_links:
            graph_rows.copy_edges(conn, old_id, new_id, (EDGE, *not_carried))
        dedup_rows.close_review_items_of(conn, old_id, "superseded", at)
        receipts.append(conn, "supersede", {"nodes": 2})
        return self._history(conn, new_id, scopes)

    def history(self, node_id: str, scopes: list[str]) -> History:
        with self._vault.read() as conn:
            if not graph_rows.nodes_by_ids(conn, [node_id], scopes):
                raise NodeNotFound(node_id)
            return self._history(conn, node_id, scopes)

    def history_in(self, conn: Connection, node_id: str, scopes: list[str]) -> History:
        """``history`` within a transaction the caller holds."""
        return self._history(conn, node_id, scopes)

    def _history(self, conn: Connection, node_id: str, scopes: list[str]) -> History:
        me = _entry(graph_rows.nodes_by_ids(conn, [node_id], scopes)[0])
        older = self._chain(conn, node_id, scopes, older=True)
        newer = self._chain(conn, node_id, scopes, older=False)
        chain = [*reversed(older), me, *newer]
        for index in range(1, len(chain)):
            before, after = chain[index - 1], chain[index]
            changes = word_diff(self._said(before, after), self._said(after, before))
            chain[index] = replace(after, changes=changes)
        return History(chain, len(older))

    def _said(self, entry: HistoryEntry, other: HistoryEntry) -> str:
        """What a version said, to compare with ``other``: its title, the attributes whose
        value differs between the two (a person's new phone number is a change; the ones that
        stayed would only push it out of sight) and its text. A file's attributes are its
        bookkeeping (path, hash), read from the file: its text says what changed."""
        spec = self._pack.node_types.get(entry.type)
        attrs = entry.attrs if spec is not None and spec.family != "document" else {}
        changed = sorted(name for name in attrs if other.attrs.get(name) != attrs[name])
        lines = [entry.title, *(f"{name}: {_shown(attrs[name])}" for name in changed)]
        if entry.body:
            lines.append(entry.body)
        return "\n".join(lines)

    def _chain(
        self, conn: Connection, start: str, scopes: list[str], *, older: bool
    ) -> list[HistoryEntry]:
        """Versions from ``start`` outwards (older: what it superseded; newer: what superseded
        it). A supersede chain has no branches: each memory is superseded at most once."""
        found: list[HistoryEntry] = []
        seen = {start}
        current = start
        direction = "out" if older else "in"
        while len(found) < MAX_CHAIN:
            edges = graph_rows.edges_touching(conn, [current], scopes, edge_types=[EDGE])
            step = [e for e in edges if e["direction"] == direction and e["other_id"] not in seen]
            if not step:
                break
            current = step[0]["other_id"]
            seen.add(current)
            found.append(_entry(graph_rows.nodes_by_ids(conn, [current], scopes)[0]))
        return found


def _entry(row: NodeRow) -> HistoryEntry:
    return HistoryEntry(
        row["id"],
        row["type"],
        row["title"],
        row["status"],
        row["valid_from"],
        row["valid_to"],
        row["recorded_at"],
        row["body"],
        attrs=json.loads(row["attrs"]),
    )


def _shown(value: Any) -> str:
    """An attribute's value as words: a list joined by commas, yes or no for a boolean."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    return str(value)


def word_diff(old: str, new: str) -> str:
    """``new`` word by word, with what changed from ``old`` marked as git's word diff marks it:
    ``[-gone words-]`` and ``{+new words+}``, the rest as it was (spaces between words)."""
    old_words, new_words = old.split(), new.split()
    out: list[str] = []
    matcher = difflib.SequenceMatcher(a=old_words, b=new_words, autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(new_words[b0:b1])
            continue
        if a1 > a0:
            out.append("[-" + " ".join(old_words[a0:a1]) + "-]")
        if b1 > b0:
            out.append("{+" + " ".join(new_words[b0:b1]) + "+}")
    return " ".join(out)
