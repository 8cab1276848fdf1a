"""``Vault.data_version``: how a vault learns that another connection committed to its file,
on the real SQLCipher. Another ``Vault`` on the same file stands for another program: it has
connections of its own, as ``cairn add`` beside the window has."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.storage import records
from cairn.storage.errors import VaultClosed
from cairn.storage.vault import Vault
from tests.conftest import PASSPHRASE


@pytest.fixture
def other(vault: Vault, vault_path: Path) -> Iterator[Vault]:
    """The same file opened a second time, as another program opens it."""
    opened = Vault.open(vault_path, PASSPHRASE)
    yield opened
    opened.close()


def _set(vault: Vault, key: str, value: int) -> None:
    with vault.write() as conn:
        records.set_setting(conn, key, value)


def test_another_connections_commit_changes_it(vault: Vault, other: Vault) -> None:
    before = vault.data_version()
    assert before is not None
    assert vault.data_version() == before  # asking changes nothing
    _set(other, "elsewhere", 1)
    after = vault.data_version()
    assert after is not None and after != before
    assert vault.data_version() == after  # once per commit, not once per question
    _set(other, "elsewhere", 2)
    assert vault.data_version() != after


def test_its_own_writes_leave_it_alone(vault: Vault, other: Vault) -> None:
    before = vault.data_version()
    for number in range(3):
        _set(vault, "here", number)
    with vault.read() as conn:  # its readers see the writes; they commit nothing
        assert records.get_setting(conn, "here") == 2
    assert vault.data_version() == before
    # The other program sees this vault's writes as news.
    seen_there = other.data_version()
    _set(vault, "here", 3)
    assert other.data_version() != seen_there


def test_while_it_writes_it_answers_none_instead_of_waiting(vault: Vault) -> None:
    writing, release = threading.Event(), threading.Event()

    def hold_the_writer() -> None:
        with vault.write() as conn:
            records.set_setting(conn, "long write", 1)
            writing.set()
            release.wait(10)

    writer = threading.Thread(target=hold_the_writer)
    writer.start()
    try:
        assert writing.wait(10)
        assert vault.data_version() is None
    finally:
        release.set()
        writer.join()
    assert vault.data_version() is not None


def test_a_closed_vault_refuses_the_question(vault: Vault) -> None:
    vault.close()
    with pytest.raises(VaultClosed):
        vault.data_version()
