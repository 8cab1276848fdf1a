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
