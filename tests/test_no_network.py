"""The isolation fixture really blocks the network (invariant I5 rests on it)."""

from __future__ import annotations

import socket

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
