"""Stubs that ask to be described: a name several memories link to, with no memory of its own yet.

Both sides need it: the write path tells the person when a link makes a stub popular, and the
read path (a memory's detail, the briefing) shows the same nudge, so it lives apart from either
and reads only the graph's rows.
"""

from __future__ import annotations

from cairn.storage import graph_rows
from cairn.storage.connection import Connection

# A stub pointed to this often is worth describing.
ENRICH_DEGREE = 3
# A stub (a name no one has described) joins at most this many memories: a name found in
# every other memory ("Foam" in Foam's own notes, a chat partner's name) would otherwise become
# a hub that ties a whole neighbourhood together and drowns the graph leg of search. Once the
# person describes it (it is no longer a stub) it links like any entity.
STUB_REACH = 30


def can_join(conn: Connection, node_id: str) -> bool:
    """Whether one more memory may be linked to ``node_id``: anything but a stub at its reach."""
    if graph_rows.status_of(conn, node_id) != "stub":
        return True
    return graph_rows.degree(conn, node_id) < STUB_REACH


def enrich_hint(conn: Connection, node_id: str) -> str | None:
    """A nudge for a stub that several memories point to; None for anything else."""
    if graph_rows.status_of(conn, node_id) != "stub":
        return None
    degree = graph_rows.degree(conn, node_id)
    if degree < ENRICH_DEGREE:
        return None
    return (
        f"It is linked from {degree} memories but has no description yet: "
        "write it as a Person, Project, Place... to fill it in."
    )
