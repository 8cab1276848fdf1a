"""Every error Cairn raises on purpose, as one tree.

The root and the vault errors are defined in ``cairn.storage.errors`` (the lowest layer, so every
layer can raise under one root without importing upwards) and re-exported here. Anything that
is not a ``CairnError`` is a bug and is allowed to propagate.

    CairnError
     ├── VaultError                  a vault file (has .path)
     │    ├── VaultNotFound, VaultExists, NotAVault
     │    ├── WrongPassphrase        no page opens with the key (storage/damage.py)
     │    ├── SchemaTooNew
     │    ├── VaultBusy, DiskFull, VaultCorrupt, VaultClosed, VaultUnreachable
     │    │    VaultDamaged (a VaultCorrupt): the key is right, a page it reads is not
     │    ├── RowRejected            the schema refused a row (pack validation)
     │    └── TargetExists, CopyFailed, CopyRejected   backup and restore
     ├── EmbedderError               (cairn.app.embedding.model)
     │    ├── ModelMissing
     │    └── ModelCorrupt
     ├── PackError                   a pack file is malformed
     ├── InvalidRequest              an argument outside what the contract accepts
     │    ├── UnknownScope
     │    └── UnknownType
     ├── NodeNotFound                an id that does not exist in the caller's scopes
     ├── InboxItemNotFound
     └── ReviewItemNotFound          a review item (pending duplicate...) that is not there
"""

from __future__ import annotations

import re

from cairn.storage.errors import (
    CairnError,
    CopyFailed,
    CopyRejected,
    DiskFull,
    NotAVault,
    RowRejected,
    SchemaTooNew,
    TargetExists,
    VaultBusy,
    VaultClosed,
    VaultCorrupt,
    VaultDamaged,
    VaultError,
    VaultExists,
    VaultNotFound,
    VaultUnreachable,
    WrongPassphrase,
)

__all__ = [
    "CairnError",
    "CopyFailed",
    "CopyRejected",
    "DiskFull",
    "InboxItemNotFound",
    "InvalidRequest",
    "NodeNotFound",
    "NotAVault",
    "PackError",
    "ReviewItemNotFound",
    "RowRejected",
    "SchemaTooNew",
    "TargetExists",
    "UnknownScope",
    "UnknownType",
    "VaultBusy",
    "VaultClosed",
    "VaultCorrupt",
    "VaultDamaged",
    "VaultError",
    "VaultExists",
    "VaultNotFound",
    "VaultUnreachable",
    "WrongPassphrase",
]


class PackError(CairnError):
    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"The pack {source} is malformed: {problem}.")
        self.source = source


class InvalidRequest(CairnError):
    """An argument outside what the service accepts (a limit over 25, a depth over 4, ...)."""


SCOPE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
SCOPE_RULE = "lowercase letters, digits, - and _, at most 40, starting with a letter or digit"


class UnknownScope(InvalidRequest):
    def __init__(self, scope: str, known: list[str]) -> None:
        create = f" Create it with `cairn scope add {scope}`." if SCOPE_NAME.match(scope) else ""
        super().__init__(
            f"There is no scope {scope!r} (known: {', '.join(known) or 'none'}).{create}"
        )
        self.scope = scope


class UnknownType(InvalidRequest):
    def __init__(self, type_name: str, known: list[str]) -> None:
        super().__init__(f"There is no node type {type_name!r}; the pack has {', '.join(known)}.")
        self.type_name = type_name


class ReviewItemNotFound(CairnError):
    def __init__(self, item_id: str) -> None:
        super().__init__(
            f"No review item with id {item_id} (in the scopes you can see); "
            "`cairn pending` lists them."
        )
        self.item_id = item_id


class InboxItemNotFound(CairnError):
    def __init__(self, item_id: str) -> None:
        super().__init__(f"No inbox item with id {item_id} (in the scopes you can see).")
        self.item_id = item_id


class NodeNotFound(CairnError):
    def __init__(self, node_id: str) -> None:
        super().__init__(f"No memory with id {node_id} (in the scopes you can see).")
        self.node_id = node_id
