"""Nodes as a library shelves them: the newest of a shelf, and how many each shelf holds.

A shelf is mostly a type, but a file is shelved by what it holds: a Document whose media type
is one of a caller's list (Markdown and text notes, for the app) goes with another type's
nodes, and the rest of the Documents stand apart. The app decides which types and media types
make a shelf (``ShelfFilter``); this module only turns that into SQL, filtered by scope and
status like every read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from cairn.storage.connection import Connection, placeholders
from cairn.storage.graph_rows import NODE_COLUMNS
from cairn.storage.rows import NodeRow

DOCUMENT_TYPE = "Document"  # the nodes an ingested file becomes, with a media_type attribute
_MEDIA_TYPE = "json_extract(attrs, '$.media_type')"


@dataclass(frozen=True)
class ShelfFilter:
    """Nodes of ``types``, plus Documents whose media type is in ``documents_of``, plus (with
    ``other_documents``) Documents whose media type is not in it; with ``types`` None, every
    node but those of ``except_types``."""

    types: tuple[str, ...] | None = None
    documents_of: tuple[str, ...] = ()
    other_documents: bool = False
    except_types: tuple[str, ...] = ()

    def sql(self) -> tuple[str, list[Any]]:
        if self.types is None:
            if not self.except_types:
                return "1", []
            return f"type NOT IN ({placeholders(self.except_types)})", list(self.except_types)
        clauses: list[str] = []
        params: list[Any] = []
        if self.types:
            clauses.append(f"type IN ({placeholders(self.types)})")
            params += self.types
        if self.documents_of:
            media = placeholders(self.documents_of)
            kept = "NOT IN" if self.other_documents else "IN"
            clauses.append(f"(type = ? AND coalesce({_MEDIA_TYPE}, '') {kept} ({media}))")
            params += [DOCUMENT_TYPE, *self.documents_of]
        elif self.other_documents:
            clauses.append("type = ?")
            params.append(DOCUMENT_TYPE)
        return (f"({' OR '.join(clauses)})" if clauses else "0"), params


def newest(
    conn: Connection,
    wanted: ShelfFilter,
    scopes: Sequence[str],
    statuses: Sequence[str],
    limit: int,
) -> list[NodeRow]:
    """The newest nodes ``wanted`` names in ``statuses``, newest first."""
    if not scopes or not statuses:
        return []
    shelf, params = wanted.sql()
    rows = conn.execute(
        f"SELECT {NODE_COLUMNS} FROM nodes WHERE status IN ({placeholders(statuses)}) "
        f"AND scope IN ({placeholders(scopes)}) AND {shelf} ORDER BY seq DESC LIMIT ?",
        (*statuses, *scopes, *params, limit),
    )
    return [cast(NodeRow, dict(row)) for row in rows]


def counts_by_type_and_media(
    conn: Connection, scopes: Sequence[str], statuses: Sequence[str]
) -> dict[tuple[str, str | None], int]:
    """How many nodes in ``statuses`` each type holds, Documents also by media type (the
    others with None); the app folds these into its shelves."""
    if not scopes or not statuses:
        return {}
    rows = conn.execute(
        f"SELECT type, CASE WHEN type = ? THEN {_MEDIA_TYPE} END AS media, count(*) "
        f"FROM nodes WHERE status IN ({placeholders(statuses)}) "
        f"AND scope IN ({placeholders(scopes)}) GROUP BY type, media",
        (DOCUMENT_TYPE, *statuses, *scopes),
    )
    return {(row[0], row[1]): row[2] for row in rows}


def attrs_of(conn: Connection, ids: Sequence[str], scopes: Sequence[str]) -> dict[str, str]:
    """Each node's attributes as stored (JSON text), for the ids it can see."""
    if not ids or not scopes:
        return {}
    rows = conn.execute(
        # +scope: look the rows up by id; the scope index would walk whole scopes, a cost
        # that grows with the vault on every search.
        f"SELECT id, attrs FROM nodes WHERE id IN ({placeholders(ids)}) "
        f"AND +scope IN ({placeholders(scopes)})",
        (*ids, *scopes),
    )
    return {row[0]: row[1] for row in rows}


def containing_documents(
    conn: Connection, ids: Sequence[str], scopes: Sequence[str]
) -> dict[str, tuple[str, str, str]]:
    """For each of ``ids`` that is ``part_of`` a Document it can see: that Document's id,
    title and attributes (JSON text). A passage of a message in a mailbox gets the message."""
    if not ids or not scopes:
        return {}
    rows = conn.execute(
        f"SELECT e.src, d.id, d.title, d.attrs FROM edges e JOIN nodes d ON d.id = e.dst "
        f"WHERE e.type = 'part_of' AND e.src IN ({placeholders(ids)}) AND d.type = ? "
        f"AND d.scope IN ({placeholders(scopes)}) ORDER BY e.seq",
        (*ids, DOCUMENT_TYPE, *scopes),
    )
    found: dict[str, tuple[str, str, str]] = {}
    for row in rows:
        found.setdefault(row[0], (row[1], row[2], row[3]))
    return found


def parts(conn: Connection, document_id: str, scopes: Sequence[str], limit: int) -> list[NodeRow]:
    """What is ``part_of`` a Document (its passages, or a file's part Documents), in the order
    they stand in it (their ordinal, then the order they were written)."""
    if not scopes:
        return []
    rows = conn.execute(
        f"SELECT {', '.join('n.' + c.strip() for c in NODE_COLUMNS.split(','))} FROM edges e "
        f"JOIN nodes n ON n.id = e.src WHERE e.dst = ? AND e.type = 'part_of' "
        f"AND n.scope IN ({placeholders(scopes)}) "
        f"ORDER BY coalesce(json_extract(n.attrs, '$.ordinal'), 1e18), n.seq LIMIT ?",
        (document_id, *scopes, limit),
    )
    return [cast(NodeRow, dict(row)) for row in rows]
