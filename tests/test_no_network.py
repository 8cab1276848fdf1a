"""The isolation fixture really blocks the network (invariant I5 rests on it)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import NetworkBlocked


def test_a_connection_beyond_this_machine_fails_the_test() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock, pytest.raises(NetworkBlocked):
        sock.connect(("192.0.2.1", 80))  # TEST-NET-1: never routed


def test_name_lookups_and_datagrams_are_blocked() -> None:
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo("example.org", 443)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock, pytest.raises(NetworkBlocked):
        sock.sendto(b"x", ("192.0.2.1", 53))


def test_loopback_stays_open() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.create_connection(server.getsockname(), timeout=5):
            pass


def test_the_embedder_keeps_onnxruntime_from_phoning_home(tmp_path: Path) -> None:
    """onnxruntime on Linux writes a device id and an event queue under ~/.cache/Microsoft and
    sends them from native threads unless ORT_DISABLE_TELEMETRY is set before it loads; the
    cairn packages set it. A fresh home must stay empty after embedding."""
    home = tmp_path / "fresh home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    env.pop("ORT_DISABLE_TELEMETRY", None)
    code = (
        "from cairn.app.embedding.model import default_embedder\n"
        "default_embedder().embed(['a memory'])\n"
    )
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120)
    assert list(home.iterdir()) == []
