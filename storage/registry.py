"""The type registry inside the vault: node types, their attributes, edge types and rules.

A pack (see ``cairn.app.packs``) is installed into these tables; the schema's triggers read them
to validate every row.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from cairn.storage.connection import Connection


@dataclass(frozen=True)
class AttrRow:
    node_type: str
    name: str
    kind: str
    required: bool
    description: str = ""


@dataclass(frozen=True)
class NodeTypeRow:
    name: str
    family: str
    description: str = ""


@dataclass(frozen=True)
class EdgeTypeRow:
    name: str
    layer: str
    directed: bool
    description: str = ""


@dataclass(frozen=True)
class EdgeRuleRow:
    edge_type: str
    src_type: str
    dst_type: str


def install(
    conn: Connection,
    node_types: Iterable[NodeTypeRow],
    attrs: Iterable[AttrRow],
    edge_types: Iterable[EdgeTypeRow],
    rules: Iterable[EdgeRuleRow],
) -> None:
    """Add (or update) the given registry rows; rows already present stay."""
    conn.executemany(
        "INSERT INTO node_types(name, family, description) VALUES (?, ?, ?) "
        "ON CONFLICT(name) DO UPDATE SET family = excluded.family, "
        "description = excluded.description",
        [(t.name, t.family, t.description) for t in node_types],
    )
    conn.executemany(
        "INSERT INTO node_type_attrs(node_type, name, kind, required, description) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT(node_type, name) DO UPDATE SET "
        "kind = excluded.kind, required = excluded.required, description = excluded.description",
        [(a.node_type, a.name, a.kind, int(a.required), a.description) for a in attrs],
    )
    conn.executemany(
        "INSERT INTO edge_types(name, layer, directed, description) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(name) DO UPDATE SET layer = excluded.layer, directed = excluded.directed, "
        "description = excluded.description",
        [(e.name, e.layer, int(e.directed), e.description) for e in edge_types],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO edge_rules(edge_type, src_type, dst_type) VALUES (?, ?, ?)",
        [(r.edge_type, r.src_type, r.dst_type) for r in rules],
    )


def read(
    conn: Connection,
) -> tuple[list[NodeTypeRow], list[AttrRow], list[EdgeTypeRow], list[EdgeRuleRow]]:
    node_types = [
        NodeTypeRow(r["name"], r["family"], r["description"])
        for r in conn.execute("SELECT name, family, description FROM node_types ORDER BY name")
    ]
    attrs = [
        AttrRow(r["node_type"], r["name"], r["kind"], bool(r["required"]), r["description"])
        for r in conn.execute(
            "SELECT node_type, name, kind, required, description FROM node_type_attrs "
            "ORDER BY node_type, name"
        )
    ]
    edge_types = [
        EdgeTypeRow(r["name"], r["layer"], bool(r["directed"]), r["description"])
        for r in conn.execute(
            "SELECT name, layer, directed, description FROM edge_types ORDER BY name"
        )
    ]
    rules = [
        EdgeRuleRow(r["edge_type"], r["src_type"], r["dst_type"])
        for r in conn.execute(
            "SELECT edge_type, src_type, dst_type FROM edge_rules "
            "ORDER BY edge_type, src_type, dst_type"
        )
    ]
    return node_types, attrs, edge_types, rules
