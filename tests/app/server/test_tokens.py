"""Bearer tokens of the graph server: stored hashed, scoped, revocable; and their CLI."""

from __future__ import annotations

import json

import pytest

from cairn.app.errors import InvalidRequest, UnknownScope
from cairn.app.service import MemoryService
from cairn.app.upkeep import tokens
from cairn.storage.vault import Vault
from tests.app.cli_runner import Cli


def _table(vault: Vault) -> list[dict[str, object]]:
    with vault.read() as conn:
        return [dict(row) for row in conn.execute("SELECT * FROM api_tokens")]


def test_only_the_hash_of_the_secret_is_stored(service: MemoryService, vault: Vault) -> None:
    token, secret = tokens.create(vault, ["personal"], service.scopes(), name="agent")
    rows = _table(vault)
    assert len(rows) == 1 and rows[0]["id"] == token.id
    assert all(secret not in str(value) for value in rows[0].values())
    assert rows[0]["secret_sha256"] != secret and len(str(rows[0]["secret_sha256"])) == 64
    assert tokens.verify(vault, secret) == token
    assert tokens.verify(vault, secret + "x") is None
    assert tokens.verify(vault, str(rows[0]["secret_sha256"])) is None


def test_each_token_has_its_own_secret_and_scopes(service: MemoryService, vault: Vault) -> None:
    service.add_scope("work")
    first, secret1 = tokens.create(vault, ["personal"], service.scopes())
    second, secret2 = tokens.create(vault, ["work", "personal"], service.scopes())
    assert secret1 != secret2
    assert tokens.verify(vault, secret1).scopes == ["personal"]  # type: ignore[union-attr]
    assert tokens.verify(vault, secret2).scopes == ["work", "personal"]  # type: ignore[union-attr]
    assert [t.id for t in tokens.listed(vault)] == [first.id, second.id]


def test_a_revoked_token_is_refused_and_listed_as_revoked(
    service: MemoryService, vault: Vault
) -> None:
    token, secret = tokens.create(vault, ["personal"], service.scopes())
    revoked = tokens.revoke(vault, token.id)
    assert revoked.revoked and tokens.verify(vault, secret) is None
    assert tokens.listed(vault)[0].revoked_at == revoked.revoked_at
    assert not tokens.any_live(vault)
    with pytest.raises(tokens.TokenNotFound, match="cairn token list"):
        tokens.revoke(vault, "01NOSUCHTOKEN")


def test_unknown_or_missing_scopes_are_refused(service: MemoryService, vault: Vault) -> None:
    with pytest.raises(UnknownScope, match="cairn scope add health"):
        tokens.create(vault, ["health"], service.scopes())
    with pytest.raises(InvalidRequest, match="at least one scope"):
        tokens.create(vault, [" ", ""], service.scopes())
    assert _table(vault) == []


def test_cli_creates_lists_and_revokes(service: MemoryService, vault: Vault, cli: Cli) -> None:
    out, _ = cli("token", "create", "--scopes", "personal", "--name", "notes agent")
    secret = out.splitlines()[1]
    assert "not stored" in out
    token = tokens.verify(vault, secret)
    assert token is not None and token.name == "notes agent"
    out, _ = cli("token", "list", "--json")
    listed = json.loads(out)
    assert [t["id"] for t in listed] == [token.id] and "secret" not in listed[0]
    assert secret not in out
    cli("token", "revoke", token.id)
    assert tokens.verify(vault, secret) is None
    out, _ = cli("token", "list")
    assert "revoked" in out


def test_cli_refuses_an_unknown_scope_with_a_way_out(service: MemoryService, cli: Cli) -> None:
    _, err = cli("token", "create", "--scopes", "personal,health", expect=1)
    assert "no scope 'health'" in err and "cairn scope add health" in err
    _, err = cli("token", "revoke", "01NOSUCHTOKEN", expect=1)
    assert "cairn token list" in err
