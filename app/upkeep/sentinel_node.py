"""Giving every vault its sentinel (``cairn.storage.sentinel`` says what it is and why).

The sentinel is a node, so it needs a node type of the vault's pack: Note when the pack has it,
else the first type without required attributes, else the first type with placeholder values
for the attributes it requires (the schema's triggers check every node, this one included).
"""

from __future__ import annotations

import json
from typing import Any

from cairn.app.clock import now_iso
from cairn.app.packs import Pack
from cairn.storage import sentinel
from cairn.storage.connection import Connection
from cairn.storage.vault import Vault

PREFERRED_TYPE = "Note"
# A value of each attribute kind that the schema's triggers accept.
_PLACEHOLDERS: dict[str, Any] = {
    "string": "cairn",
    "date": "1970-01-01",
    "number": 0,
    "boolean": False,
    "list": [],
}


def add(conn: Connection, pack: Pack) -> None:
    """Insert the sentinel inside the caller's transaction (a vault being created)."""
    type_name, attrs = _type_and_attrs(pack)
    sentinel.add(conn, type_name, json.dumps(attrs, sort_keys=True), now_iso())


def ensure(vault: Vault, pack: Pack) -> None:
    """Add the sentinel to a vault made before it existed; a look only when it is there."""
    with vault.read() as conn:
        if sentinel.present(conn):
            return
    with vault.write() as conn:
        add(conn, pack)


def _type_and_attrs(pack: Pack) -> tuple[str, dict[str, Any]]:
    names = sorted(pack.node_types)
    if PREFERRED_TYPE in pack.node_types:
        names.insert(0, PREFERRED_TYPE)
    for name in names:
        if not any(spec.required for spec in pack.node_types[name].attrs.values()):
            return name, {}
    first = pack.node_types[names[0]]
    return first.name, {a.name: _PLACEHOLDERS[a.kind] for a in first.attrs.values() if a.required}
