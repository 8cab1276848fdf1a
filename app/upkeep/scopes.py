"""The vault's scopes: which exist, a new one, and the check every call that names scopes
passes first (a typo is an error, not an empty vault)."""

from __future__ import annotations

from collections.abc import Sequence

from cairn.app.clock import now_iso
from cairn.app.errors import SCOPE_NAME, SCOPE_RULE, InvalidRequest, UnknownScope
from cairn.storage import records, sentinel
from cairn.storage.vault import Vault


class Scopes:
    def __init__(self, vault: Vault) -> None:
        self._vault = vault

    def names(self) -> list[str]:
        with self._vault.read() as conn:
            return records.scope_names(conn)

    def add(self, name: str) -> bool:
        """Create a scope; False if it existed."""
        if not SCOPE_NAME.match(name):
            raise InvalidRequest(f"A scope name is {SCOPE_RULE}; {name!r} is not.")
        if name == sentinel.ENGINE_SCOPE:
            raise InvalidRequest(f"The scope name {name!r} is Cairn's own; choose another.")
        with self._vault.write() as conn:
            return records.add_scope(conn, name, now_iso())

    def checked(self, scopes: Sequence[str]) -> list[str]:
        """The scopes a call names, each of which must exist, in order and once each."""
        chosen = _listed(scopes)
        known = self.names()
        for name in chosen:
            if name not in known:
                raise UnknownScope(name, known)
        return chosen

    def checked_or_all(self, scopes: Sequence[str] | None) -> list[str]:
        """``checked(scopes)``, or every scope when the caller names none."""
        return self.names() if scopes is None else self.checked(scopes)


def _listed(scopes: Sequence[str]) -> list[str]:
    if isinstance(scopes, str):
        raise InvalidRequest("Scopes are a list of names, not one string.")
    chosen = list(dict.fromkeys(scopes))
    if not chosen:
        raise InvalidRequest("A read must name at least one scope it may see.")
    return chosen
