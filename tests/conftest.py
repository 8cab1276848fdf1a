"""Shared fixtures. Every test runs isolated: data directories point at a temp path, and any
socket connection to a non-loopback address fails the test (invariant I5)."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from cairn.app import compose
from cairn.app.embedding.model import Embedder, MiniLMEmbedder
from cairn.app.process import diagnostic_log
from cairn.app.service import MemoryService
from cairn.ingest import whisper_model
from cairn.storage.vault import Vault

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CORPUS = PROJECT_ROOT.parent / "shared" / "corpus"
PASSPHRASE = "correct horse battery staple"


class NetworkBlocked(AssertionError):
    """A test (or the code under it) tried to reach beyond this machine."""


def _is_loopback(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX paths
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: Any) -> Any:
        if not _is_loopback(address):
            raise NetworkBlocked(f"network access to {address!r} attempted")
        return real_connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> Any:
        if not _is_loopback(address):
            raise NetworkBlocked(f"network access to {address!r} attempted")
        return real_connect_ex(self, address)

    real_sendto = socket.socket.sendto
    real_getaddrinfo = socket.getaddrinfo

    def guarded_sendto(self: socket.socket, data: Any, *args: Any) -> Any:
        if not _is_loopback(args[-1]):
            raise NetworkBlocked(f"datagram to {args[-1]!r} attempted")
        return real_sendto(self, data, *args)

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        # A name lookup of anything but this machine is already a network access.
        if host not in (None, "localhost", "") and not _is_loopback((host,)):
            raise NetworkBlocked(f"name lookup of {host!r} attempted")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket.socket, "sendto", guarded_sendto)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test of the window is marked ``window``, and every test that loads the embedding
    model (the ``embedder`` fixture, under every ``service``) ``model``, where it is collected,
    so that ``make check-fast`` can leave them out without each file saying so."""
    tests = PROJECT_ROOT / "tests"
    for item in items:
        first = Path(str(item.path)).relative_to(tests).parts[0]
        fixtures = set(getattr(item, "fixturenames", ()))
        if first in {"ui", "bundle"} or fixtures & {"qtbot", "qapp"}:
            item.add_marker(pytest.mark.window)
        if "embedder" in fixtures:
            item.add_marker(pytest.mark.model)


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test touches the real home: data, config and cache all live under tmp_path."""
    home = tmp_path / "home"
    for name in ("data", "config", "cache"):
        (home / name).mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("CAIRN_DATA_DIR", str(home / "data" / "cairn"))
    for name in ("CAIRN_VAULT", "CAIRN_PASSPHRASE", "CAIRN_NEW_PASSPHRASE"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(autouse=True)
def _log_closed_after() -> Iterator[None]:
    """A command's diagnostic log (``compose.start_log``) ends with its test: the next test's
    records never land in this one's data folder."""
    yield
    diagnostic_log.stop()


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    """The real bundled model, loaded once for the whole run."""
    return MiniLMEmbedder()


@pytest.fixture
def vault_path(tmp_path: Path) -> Path:
    return tmp_path / "test.cairn"


@pytest.fixture
def service_vault(vault_path: Path) -> Iterator[Vault]:
    """A fresh vault with the personal pack: the storage under the ``service`` fixture (which
    closes it first). Tests ask for it as ``vault``; this name is for a module that has a
    ``vault`` fixture of its own."""
    made = compose.new_vault(vault_path, PASSPHRASE)
    yield made
    made.close()


@pytest.fixture
def vault(service_vault: Vault) -> Vault:
    """The storage vault under the ``service`` fixture, for a test that reads or writes rows
    beneath the service (the service's own calls never hand it out)."""
    return service_vault


@pytest.fixture
def service(service_vault: Vault, embedder: MiniLMEmbedder) -> Iterator[MemoryService]:
    """A fresh vault's service (``service_vault``), with the real embedder."""
    svc = compose.service_for(service_vault, embedder)
    yield svc
    svc.close()


class Opened(NamedTuple):
    """A vault's service and the storage vault beneath it, opened as ``compose.open_vault``
    opens them (see ``open_service``)."""

    service: MemoryService
    vault: Vault

    def __enter__(self) -> Opened:
        return self

    def __exit__(self, *exc: object) -> None:
        self.service.close()


def open_service(
    path: Path,
    embedder: Embedder | None,
    *,
    passphrase: str = PASSPHRASE,
    vectors_in_background: bool = False,
) -> Opened:
    """Open the vault at ``path`` and build its service, keeping the vault in hand for a test
    that checks rows beneath the service. Closing the service closes the vault."""
    opened = Vault.open(path, passphrase)
    try:
        made = compose.service_for(opened, embedder, vectors_in_background=vectors_in_background)
    except BaseException:
        opened.close()
        raise
    return Opened(made, opened)


def create_service(
    path: Path, embedder: Embedder | None, *, passphrase: str = PASSPHRASE
) -> Opened:
    """``open_service`` for a new vault at ``path`` (as ``compose.create_vault`` makes it)."""
    made = compose.new_vault(path, passphrase)
    try:
        return Opened(compose.service_for(made, embedder), made)
    except BaseException:
        made.close()
        raise


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"the shared test corpus is not at {CORPUS}")
    return CORPUS


def damaged_whisper_source(folder: Path) -> dict[str, Any]:
    """The installed Whisper model's pieces, with the second piece of ``model.bin`` replaced by
    a copy in ``folder`` that has one byte flipped."""
    source: dict[str, Any] = dict(whisper_model.installed_source())
    first, second = source["model.bin"]
    damaged = bytearray(second.read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    copy = folder / "model.bin.part2"
    copy.write_bytes(damaged)
    source["model.bin"] = (first, copy)
    return source


# Drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from a root process and what it runs, so file
# permissions bind it as they bind a person's own account (setpriv is util-linux's, on every
# Debian). The suite runs as root in CI, where a chmod 000 file would otherwise read fine.
_NO_OVERRIDE = "-dac_override,-dac_read_search"


def without_root_override(argv: list[str]) -> list[str]:
    """``argv`` run so that file permissions bind it: as it is for a person's own account, and
    through ``setpriv`` without the override capabilities when the tests run as root."""
    if os.geteuid() != 0:
        return argv
    return [
        "setpriv",
        f"--bounding-set={_NO_OVERRIDE}",
        f"--inh-caps={_NO_OVERRIDE}",
        *argv,
    ]
