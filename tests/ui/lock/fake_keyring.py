"""A keyring that keeps its secrets in this process, standing in for the desktop's (this
machine has none). Not viable on its own: keyring registers every backend subclass and would
otherwise choose it for every other test; only ``installed()`` puts it in place."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import keyring
from keyring.backend import KeyringBackend, properties


class MemoryKeyring(KeyringBackend):
    @properties.classproperty
    def priority(cls) -> float:
        raise RuntimeError("a test's stand-in, used only when set explicitly")

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.secrets.pop((service, username), None)


@contextmanager
def installed() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    memory = MemoryKeyring()
    keyring.set_keyring(memory)
    try:
        yield memory
    finally:
        keyring.set_keyring(previous)
