"""Packs: declarative TOML files naming node types, their attributes, edge types and rules.

A pack is installed into the vault's registry tables when the vault is created; from then on the
vault describes itself (``Pack.from_vault``) and its triggers enforce it on every row.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from cairn.app.errors import PackError
from cairn.storage import dedup_rows, registry
from cairn.storage.connection import Connection

ATTR_KINDS = ("string", "date", "number", "boolean", "list")
FAMILIES = ("entity", "memory", "document")
LAYERS = ("entity", "temporal", "causal", "semantic")
_TYPE_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_ATTR_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_EDGE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
DEFAULT_PACK = "personal"


@dataclass(frozen=True)
class AttrSpec:
    name: str
    kind: str
    required: bool = False
    description: str = ""


@dataclass(frozen=True)
class NodeType:
    name: str
    family: str
    attrs: dict[str, AttrSpec] = field(default_factory=dict)
    description: str = ""
    # The type's status words (casefolded): each canonical value and synonym -> canonical.
    statuses: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EdgeType:
    name: str
    layer: str
    directed: bool
    rules: tuple[tuple[str, str], ...]
    description: str = ""


@dataclass(frozen=True)
class Pack:
    name: str
    version: int
    node_types: dict[str, NodeType]
    edge_types: dict[str, EdgeType]

    # -- reading ------------------------------------------------------------------------------

    @classmethod
    def from_toml(cls, text: str, source: str) -> Pack:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise PackError(source, str(exc)) from None
        return cls._from_data(data, source)

    @classmethod
    def from_file(cls, path: Path) -> Pack:
        return cls.from_toml(path.read_text(encoding="utf-8"), str(path))

    @classmethod
    def bundled(cls, name: str = DEFAULT_PACK) -> Pack:
        text = (
            resources.files("cairn.app").joinpath(f"bundled_packs/{name}.toml").read_text("utf-8")
        )
        return cls.from_toml(text, f"{name}.toml")

    @classmethod
    def from_data(cls, data: dict[str, Any], source: str) -> Pack:
        """A pack from data shaped like its TOML file (an export carries one), checked alike."""
        return cls._from_data(data, source)

    @classmethod
    def _from_data(cls, data: dict[str, Any], source: str) -> Pack:
        meta = data.get("pack", {})
        if not isinstance(meta.get("name"), str) or not isinstance(meta.get("version"), int):
            raise PackError(source, "[pack] needs a name and an integer version")
        node_types = {
            name: _node_type(name, spec, source) for name, spec in data.get("types", {}).items()
        }
        if not node_types:
            raise PackError(source, "it declares no node types")
        edge_types = {
            name: _edge_type(name, spec, node_types, source)
            for name, spec in data.get("edges", {}).items()
        }
        return cls(meta["name"], meta["version"], node_types, edge_types)

    @classmethod
    def from_vault(cls, conn: Connection, name: str, version: int) -> Pack:
        type_rows, attr_rows, edge_rows, rule_rows = registry.read(conn)
        statuses: dict[str, dict[str, str]] = {t.name: {} for t in type_rows}
        for node_type, word, canonical in dedup_rows.status_words(conn):
            statuses[node_type][word] = canonical
        attrs: dict[str, dict[str, AttrSpec]] = {t.name: {} for t in type_rows}
        for a in attr_rows:
            attrs[a.node_type][a.name] = AttrSpec(a.name, a.kind, a.required, a.description)
        rules: dict[str, list[tuple[str, str]]] = {e.name: [] for e in edge_rows}
        for r in rule_rows:
            rules[r.edge_type].append((r.src_type, r.dst_type))
        return cls(
            name,
            version,
            {
                t.name: NodeType(t.name, t.family, attrs[t.name], t.description, statuses[t.name])
                for t in type_rows
            },
            {
                e.name: EdgeType(e.name, e.layer, e.directed, tuple(rules[e.name]), e.description)
                for e in edge_rows
            },
        )

    # -- writing into a vault -----------------------------------------------------------------

    def install(self, conn: Connection) -> None:
        registry.install(
            conn,
            [
                registry.NodeTypeRow(t.name, t.family, t.description)
                for t in self.node_types.values()
            ],
            [
                registry.AttrRow(t.name, a.name, a.kind, a.required, a.description)
                for t in self.node_types.values()
                for a in t.attrs.values()
            ],
            [
                registry.EdgeTypeRow(e.name, e.layer, e.directed, e.description)
                for e in self.edge_types.values()
            ],
            [
                registry.EdgeRuleRow(e.name, src, dst)
                for e in self.edge_types.values()
                for src, dst in e.rules
            ],
        )
        dedup_rows.set_status_words(
            conn,
            [
                (t.name, word, canonical)
                for t in self.node_types.values()
                for word, canonical in sorted(t.statuses.items())
            ],
        )

    def entity_types(self) -> list[str]:
        return sorted(n for n, t in self.node_types.items() if t.family == "entity")

    def edge_for(self, src_type: str, dst_type: str, preferred: tuple[str, ...]) -> str | None:
        """The first of ``preferred`` edge types whose rules let it join these node types."""
        for name in preferred:
            spec = self.edge_types.get(name)
            if spec is None:
                continue
            for rule_src, rule_dst in spec.rules:
                forward = rule_src in ("*", src_type) and rule_dst in ("*", dst_type)
                backward = rule_src in ("*", dst_type) and rule_dst in ("*", src_type)
                if forward or (not spec.directed and backward):
                    return name
        return None


def _node_type(name: str, spec: Any, source: str) -> NodeType:
    if not _TYPE_NAME.match(name):
        raise PackError(source, f"node type {name!r} must be CamelCase letters and digits")
    if not isinstance(spec, dict) or spec.get("family") not in FAMILIES:
        raise PackError(source, f"node type {name} needs a family, one of {', '.join(FAMILIES)}")
    attrs = {}
    for attr_name, attr in spec.get("attrs", {}).items():
        if not _ATTR_NAME.match(attr_name):
            raise PackError(source, f"{name}.{attr_name}: attribute names are lower_snake_case")
        if not isinstance(attr, dict) or attr.get("kind") not in ATTR_KINDS:
            raise PackError(source, f"{name}.{attr_name} needs a kind: {', '.join(ATTR_KINDS)}")
        attrs[attr_name] = AttrSpec(
            attr_name, attr["kind"], bool(attr.get("required", False)), attr.get("description", "")
        )
    statuses = _statuses(name, spec.get("statuses"), attrs, source)
    return NodeType(name, spec["family"], attrs, spec.get("description", ""), statuses)


def _statuses(name: str, spec: Any, attrs: dict[str, AttrSpec], source: str) -> dict[str, str]:
    if spec is None:
        return {}
    values = spec.get("values") if isinstance(spec, dict) else None
    synonyms = spec.get("synonyms", {}) if isinstance(spec, dict) else None
    if not (isinstance(values, list) and values and all(isinstance(v, str) for v in values)):
        raise PackError(source, f"{name}.statuses needs values: a list of words")
    if not isinstance(synonyms, dict) or not all(isinstance(v, str) for v in synonyms.values()):
        raise PackError(source, f"{name}.statuses.synonyms maps words to values")
    if "status" not in attrs or "status_note" not in attrs:
        raise PackError(source, f"{name} has statuses, so it needs status and status_note attrs")
    words = {value.casefold(): value.casefold() for value in values}
    for word, canonical in synonyms.items():
        if canonical.casefold() not in words:
            raise PackError(source, f"{name}.statuses: {word!r} means an unknown {canonical!r}")
        words[word.casefold()] = canonical.casefold()
    return words


def _edge_type(name: str, spec: Any, node_types: dict[str, NodeType], source: str) -> EdgeType:
    if not _EDGE_NAME.match(name):
        raise PackError(source, f"edge type {name!r} must be lower_snake_case")
    if not isinstance(spec, dict) or spec.get("layer") not in LAYERS:
        raise PackError(source, f"edge type {name} needs a layer, one of {', '.join(LAYERS)}")
    rules = []
    for rule in spec.get("rules", []):
        if not (isinstance(rule, list) and len(rule) == 2):
            raise PackError(source, f"edge type {name}: each rule is [source type, target type]")
        for end in rule:
            if end != "*" and end not in node_types:
                raise PackError(source, f"edge type {name} names an unknown node type {end!r}")
        rules.append((rule[0], rule[1]))
    if not rules:
        raise PackError(source, f"edge type {name} has no rules, so it could never be used")
    return EdgeType(
        name,
        spec["layer"],
        bool(spec.get("directed", True)),
        tuple(rules),
        spec.get("description", ""),
    )
