"""Taking back a link and an edit, each one transaction with a content-free receipt (the undo
of a merge is ``unmerge``; of an archive, ``unarchive``; of an unarchive, ``archive``).

``unlink`` removes exactly the edge named, nothing else: the undo of a link the person made.

``unrevise`` takes back an edit (``revise``): the version it made, N+1, goes, and the version it
replaced, N, is current again, as the person saw it before (active, found by search, valid as
before, its links as they were, its review items open again). Redo is the edit made again.

Why N+1 is forgotten rather than kept as history. An undo right after an edit is the person's
explicit act, named for what it takes back ("Undo Edit “Seeds”"), like Ctrl+Z in an editor: the
person asks for the text they just wrote to be gone, and a search that still found it, or a
history that still listed it, would contradict them. Keeping it would also break what a history
is: a chain without branches, each version superseded at most once. N+1 kept beside a current N
would leave N with a newer version while it is the newest, and N's next edit would branch the
chain. So the version goes, through the same erase as a forget (I6: deleted only by the
person's explicit act; its words purged from the full-text index too); and since nothing else
may be lost (I1), ``unrevise`` refuses when anything has come to rest on N+1 that is not the
edit's own: a newer version (undo that edit first), a memory merged into it (undo that merge
first), or N+1 archived. Links made to N+1 after the edit, and text absorbed into it, move to N;
a file's record that followed the edit names N again. The links the edit's own text made (its
[[links]], the names it mentions, the stubs made for them) go with it, as that text does.
The window's Redo writes the edit again from the text its command holds in memory.
"""

from __future__ import annotations

from cairn.app.clock import now_iso
from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest, NodeNotFound
from cairn.app.models import History
from cairn.app.packs import Pack
from cairn.app.retention import forgetting
from cairn.app.upkeep import receipts
from cairn.app.writing.history import EDGE as SUPERSEDES
from cairn.app.writing.history import EDITED, HistoryKeeper
from cairn.app.writing.nodes import NodeStore
from cairn.storage import dedup_rows, graph_rows, undo_rows
from cairn.storage.connection import Connection
from cairn.storage.rows import EdgeRow, NodeRow
from cairn.storage.vault import Vault


class Undoing:
    def __init__(
        self,
        vault: Vault,
        pack: Pack,
        space: EmbeddingSpace,
        store: NodeStore,
        history: HistoryKeeper,
    ) -> None:
        self._vault = vault
        self._pack = pack
        self._space = space
        self._store = store
        self._history = history

    # -- a link -------------------------------------------------------------------------------

    def unlink(self, src: str, dst: str, edge_type: str, scopes: list[str]) -> bool:
        """Remove the edge ``src -edge_type-> dst``; False if there was none to remove."""
        spec = self._pack.edge_types.get(edge_type)
        if spec is None:
            raise InvalidRequest(f"There is no edge type {edge_type!r}.")
        if edge_type == SUPERSEDES:
            raise InvalidRequest(
                "A newer version's link to the older one is not removed on its own: undo the "
                "edit instead."
            )
        if not spec.directed:
            src, dst = min(src, dst), max(src, dst)  # stored one way round (see ``link``)
        with self._vault.write() as conn:
            found = {n["id"] for n in graph_rows.nodes_by_ids(conn, [src, dst], scopes)}
            for node_id in (src, dst):
                if node_id not in found:
                    raise NodeNotFound(node_id)
            removed = undo_rows.delete_edge_between(conn, src, dst, edge_type)
            if removed:
                receipts.append(conn, "unlink", {"edges": 1})
        return removed

    # -- an edit ------------------------------------------------------------------------------

    def unrevise(self, new_id: str, scopes: list[str]) -> History:
        """Take back the edit that made ``new_id``; returns the history of the version it had
        replaced, which is current again."""
        with self._vault.write() as conn:
            new = self._node(conn, new_id, scopes)
            edge = self._edit_edge(conn, new)
            old = self._node(conn, edge["dst"], scopes)
            self._check_takeable(conn, new, old)
            doomed = [new, *self._edit_parts(conn, new, old, edge["created_at"])]
            gone = {row["id"] for row in doomed}
            self._carry_back(conn, new, old, edge["created_at"], gone)
            self._reinstate(conn, old, edge["created_at"])
            forgetting.erase(conn, self._space, doomed, receipt="unrevise")
            return self._history.history_in(conn, old["id"], scopes)

    def _node(self, conn: Connection, node_id: str, scopes: list[str]) -> NodeRow:
        rows = graph_rows.nodes_by_ids(conn, [node_id], scopes)
        if not rows:
            raise NodeNotFound(node_id)
        return rows[0]

    def _edit_edge(self, conn: Connection, new: NodeRow) -> EdgeRow:
        for edge in graph_rows.edges_of(conn, new["id"], SUPERSEDES):
            if edge["src"] == new["id"] and edge["rationale"] == EDITED:
                return edge
        raise InvalidRequest(
            f"{new['title']!r} is not the newer version of an edit, so there is no edit of it "
            "to undo."
        )

    def _check_takeable(self, conn: Connection, new: NodeRow, old: NodeRow) -> None:
        title = new["title"]
        if graph_rows.newest_edge_source(conn, new["id"], SUPERSEDES):
            raise InvalidRequest(f"{title!r} was edited again since: undo that edit first.")
        if dedup_rows.aliases_of(conn, new["id"]) or undo_rows.merges_into(conn, new["id"]):
            raise InvalidRequest(
                f"Another memory was merged into {title!r} since: undo that merge first."
            )
        if new["status"] != "active":
            raise InvalidRequest(
                f"{title!r} is {new['status']} now: unarchive it first, then undo the edit."
            )
        if old["status"] != "superseded":
            raise InvalidRequest(
                f"The older version of {title!r} is {old['status']} now, so the edit cannot "
                "be taken back."
            )

    def _edit_parts(
        self, conn: Connection, new: NodeRow, old: NodeRow, edit_at: str
    ) -> list[NodeRow]:
        """What the edit wrote besides its version: a note file's new sections, and the stubs
        its [[links]] made, which nothing else links to."""
        parts: list[NodeRow] = []
        for edge in graph_rows.edges_of(conn, new["id"]):
            other = edge["src"] if edge["dst"] == new["id"] else edge["dst"]
            if other == old["id"]:
                continue
            rows = graph_rows.nodes_by_ids(conn, [other], [new["scope"]])
            if not rows or rows[0]["recorded_at"] < new["recorded_at"]:
                continue
            if edge["type"] == "part_of" and edge["dst"] == new["id"]:
                parts.append(rows[0])  # a section of the edited note file's new text
            elif (
                rows[0]["status"] == "stub"
                and rows[0]["recorded_at"] <= edit_at  # made by the edit's text, not later
                and _only_linked_to(conn, other, new["id"])
            ):
                parts.append(rows[0])
        return parts

    def _carry_back(
        self, conn: Connection, new: NodeRow, old: NodeRow, edit_at: str, gone: set[str]
    ) -> None:
        """What came to rest on the newer version after the edit goes to the older one."""
        for edge in graph_rows.edges_of(conn, new["id"]):
            if edge["created_at"] <= edit_at or edge["type"] == SUPERSEDES:
                continue  # the edit's own (carried from N, or made by its text)
            src = old["id"] if edge["src"] == new["id"] else edge["src"]
            dst = old["id"] if edge["dst"] == new["id"] else edge["dst"]
            if src != dst and not {src, dst} & gone:
                graph_rows.insert_edge(conn, {**edge_fields(edge), "src": src, "dst": dst})
        undo_rows.move_addenda(conn, new["id"], old["id"])
        undo_rows.repoint_open_items(conn, new["id"], old["id"])
        undo_rows.move_document(conn, new["id"], old["id"])  # a note file's record

    def _reinstate(self, conn: Connection, old: NodeRow, edit_at: str) -> None:
        """The older version current again, valid as before the edit closed it."""
        changes = {"status": "active", "updated_at": now_iso()}
        # The edit closed an open validity at its own moment; one that was closed before stays.
        valid_to = None if old["valid_to"] == edit_at else old["valid_to"]
        graph_rows.update_node(conn, old["id"], changes | {"valid_to": valid_to})
        self._space.status_changed(old["seq"], "active")
        undo_rows.reopen_items_settled_at(conn, old["id"], "superseded", edit_at)
        row = graph_rows.nodes_by_ids(conn, [old["id"]], [old["scope"]])[0]
        self._store.reindex_text(conn, row)


def edge_fields(edge: EdgeRow) -> dict[str, object]:
    return {k: v for k, v in dict(edge).items() if k != "seq"}


def _only_linked_to(conn: Connection, node_id: str, other: str) -> bool:
    return all(other in (e["src"], e["dst"]) for e in graph_rows.edges_of(conn, node_id))
