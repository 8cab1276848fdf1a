"""Bearer tokens of the graph server: stored hashed, scoped, revocable; and their CLI."""

from __future__ import annotations

import json

import pytest

from cairn.app.errors import InvalidRequest, UnknownScope
from cairn.app.service import MemoryService
from cairn.app.upkeep import tokens
from tests.app.cli_runner import Cli


def _table(service: MemoryService) -> list[dict[str, object]]:
    with service._vault.read() as conn:
        return [dict(row) for row in conn.execute("SELECT * FROM api_tokens")]


def test_only_the_hash_of_the_secret_is_stored(service: MemoryService) -> None:
    token, secret = tokens.create(service._vault, ["personal"], service.scopes(), name="agent")
    rows = _table(service)
    assert len(rows) == 1 and rows[0]["id"] == token.id
    assert all(secret not in str(value) for value in rows[0].values())
    assert rows[0]["secret_sha256"] != secret and len(str(rows[0]["secret_sha256"])) == 64
    assert tokens.verify(service._vault, secret) == token
    assert tokens.verify(service._vault, secret + "x") is None
    assert tokens.verify(service._vault, str(rows[0]["secret_sha256"])) is None


def test_each_token_has_its_own_secret_and_scopes(service: MemoryService) -> None:
    service.add_scope("work")
    first, secret1 = tokens.create(service._vault, ["personal"], service.scopes())
    second, secret2 = tokens.create(service._vault, ["work", "personal"], service.scopes())
    assert secret1 != secret2
    assert tokens.verify(service._vault, secret1).scopes == ["personal"]  # type: ignore[union-attr]
    assert tokens.verify(service._vault, secret2).scopes == ["work", "personal"]  # type: ignore[union-attr]
    assert [t.id for t in tokens.listed(service._vault)] == [first.id, second.id]


def test_a_revoked_token_is_refused_and_listed_as_revoked(service: MemoryService) -> None:
    token, secret = tokens.create(service._vault, ["personal"], service.scopes())
    revoked = tokens.revoke(service._vault, token.id)
    assert revoked.revoked and tokens.verify(service._vault, secret) is None
    assert tokens.listed(service._vault)[0].revoked_at == revoked.revoked_at
    assert not tokens.any_live(service._vault)
    with pytest.raises(tokens.TokenNotFound, match="cairn token list"):
        tokens.revoke(service._vault, "01NOSUCHTOKEN")


def test_unknown_or_missing_scopes_are_refused(service: MemoryService) -> None:
    with pytest.raises(UnknownScope, match="cairn scope add health"):
        tokens.create(service._vault, ["health"], service.scopes())
    with pytest.raises(InvalidRequest, match="at least one scope"):
        tokens.create(service._vault, [" ", ""], service.scopes())
    assert _table(service) == []


def test_cli_creates_lists_and_revokes(service: MemoryService, cli: Cli) -> None:
    out, _ = cli("token", "create", "--scopes", "personal", "--name", "notes agent")
    secret = out.splitlines()[1]
    assert "not stored" in out
    token = tokens.verify(service._vault, secret)
    assert token is not None and token.name == "notes agent"
    out, _ = cli("token", "list", "--json")
    listed = json.loads(out)
    assert [t["id"] for t in listed] == [token.id] and "secret" not in listed[0]
    assert secret not in out
    cli("token", "revoke", token.id)
    assert tokens.verify(service._vault, secret) is None
    out, _ = cli("token", "list")
    assert "revoked" in out


def test_cli_refuses_an_unknown_scope_with_a_way_out(service: MemoryService, cli: Cli) -> None:
    _, err = cli("token", "create", "--scopes", "personal,health", expect=1)
    assert "no scope 'health'" in err and "cairn scope add health" in err
    _, err = cli("token", "revoke", "01NOSUCHTOKEN", expect=1)
    assert "cairn token list" in err
