"""Bearer tokens for the read-only graph server: each grants a set of scopes.

A token's secret is shown once, when it is created, and only its SHA-256 is stored: whoever
reads the vault (or a backup of it) learns which tokens exist and what they grant, never one
that works. The secret is 32 random bytes, so a plain hash needs no salt or slow derivation:
there is nothing to guess. Checking compares hashes in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from cairn.app.clock import new_id, now_iso
from cairn.app.errors import CairnError, InvalidRequest, UnknownScope
from cairn.app.upkeep.scopes import Scopes
from cairn.storage import token_rows
from cairn.storage.rows import TokenRow
from cairn.storage.vault import Vault

NAME_MAX = 80


class TokenNotFound(CairnError):
    def __init__(self, token_id: str) -> None:
        super().__init__(f"No token with id {token_id}; `cairn token list` shows them.")
        self.token_id = token_id


@dataclass(frozen=True)
class Token:
    """What a token grants; never its secret."""

    id: str
    name: str
    scopes: list[str]
    created_at: str
    revoked_at: str | None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def create(
    vault: Vault, scopes: Sequence[str], known_scopes: Sequence[str], *, name: str = ""
) -> tuple[Token, str]:
    """A new token for ``scopes`` (each must exist) and its secret, which is not kept."""
    chosen = list(dict.fromkeys(s.strip() for s in scopes if s.strip()))
    if not chosen:
        raise InvalidRequest("A token needs at least one scope: --scopes personal,work.")
    for scope in chosen:
        if scope not in known_scopes:
            raise UnknownScope(scope, list(known_scopes))
    name = name.strip()
    if len(name) > NAME_MAX:
        raise InvalidRequest(f"A token name is at most {NAME_MAX} characters.")
    secret = secrets.token_urlsafe(32)
    token = Token(new_id(), name, chosen, now_iso(), None)
    with vault.write() as conn:
        token_rows.insert(
            conn,
            token_id=token.id,
            name=token.name,
            secret_sha256=_digest(secret),
            created_at=token.created_at,
            scopes=json.dumps(chosen),
        )
    return token, secret


def listed(vault: Vault) -> list[Token]:
    with vault.read() as conn:
        return [_token(row) for row in token_rows.all_rows(conn)]


def revoke(vault: Vault, token_id: str) -> Token:
    """Revoke a token; revoking one already revoked keeps its first revocation time."""
    with vault.write() as conn:
        if token_rows.revoke(conn, token_id, now_iso()) is None:
            raise TokenNotFound(token_id)
        rows = [row for row in token_rows.all_rows(conn) if row["id"] == token_id]
    return _token(rows[0])


def verify(vault: Vault, secret: str) -> Token | None:
    """The live token whose secret this is, or None. Every live hash is compared in constant
    time, so the answer's timing says nothing about how close a guess came."""
    given = _digest(secret)
    with vault.read() as conn:
        rows = token_rows.live_rows(conn)
    found = None
    for row in rows:
        if hmac.compare_digest(given, row["secret_sha256"]):
            found = row
    return None if found is None else _token(found)


def any_live(vault: Vault) -> bool:
    with vault.read() as conn:
        return bool(token_rows.live_rows(conn))


class Tokens:
    """One vault's tokens, for the service: a new one may grant only scopes that exist."""

    def __init__(self, vault: Vault, scopes: Scopes) -> None:
        self._vault = vault
        self._scopes = scopes

    def create(self, scopes: Sequence[str], *, name: str = "") -> tuple[Token, str]:
        return create(self._vault, scopes, self._scopes.names(), name=name)

    def listed(self) -> list[Token]:
        return listed(self._vault)

    def revoke(self, token_id: str) -> Token:
        return revoke(self._vault, token_id)

    def verify(self, secret: str) -> Token | None:
        return verify(self._vault, secret)

    def any_live(self) -> bool:
        return any_live(self._vault)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _token(row: TokenRow) -> Token:
    return Token(
        row["id"], row["name"], json.loads(row["scopes"]), row["created_at"], row["revoked_at"]
    )
