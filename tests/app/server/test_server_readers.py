"""How the graph server holds connections: a few reused read-only vault connections behind any
number of clients, HTTP keep-alive, and no request body ever read as the next request."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from cairn.app.server import http_server as server_module
from cairn.app.server.http_server import GraphServer, ServeOptions
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.app.server.server_probe import running

pytestmark = pytest.mark.serial

CLIENTS = 8


@pytest.fixture
def secret(service: MemoryService) -> str:
    service.write("Note", "Garden plans", "Plant tomatoes by the south wall in May.")
    return service.create_token(["personal"], name="load")[1]


@pytest.fixture
def server(service: MemoryService, secret: str) -> Iterator[GraphServer]:
    yield from running(service, ServeOptions(port=0))


def _search(conn: http.client.HTTPConnection, server: GraphServer, secret: str) -> int:
    headers = {"Host": f"127.0.0.1:{server.port}", "Authorization": f"Bearer {secret}"}
    conn.request("GET", "/v1/search?q=tomatoes", headers=headers)
    response = conn.getresponse()
    body = response.read()
    assert b"Garden plans" in body or response.status != 200
    return response.status


def _readers(vault: Vault) -> dict[int, Any]:
    """The vault's read connections by thread, for threads of the server's reader pool."""
    pool = {t.ident for t in threading.enumerate() if t.name.startswith("cairn-serve")}
    return {ident: conn for ident, conn in vault._readers.items() if ident in pool}


def test_many_clients_share_a_few_read_only_connections_that_stay_open(
    service: MemoryService, vault: Vault, server: GraphServer, secret: str
) -> None:
    statuses: list[int] = []

    def client() -> None:
        for _ in range(3):  # a new connection per request: each has its own handler thread
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            try:
                statuses.append(_search(conn, server, secret))
            finally:
                conn.close()

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert statuses == [200] * CLIENTS * 3
    first = _readers(vault)
    assert 1 <= len(first) <= server_module.READERS
    for conn in first.values():
        assert conn.execute("PRAGMA query_only").fetchone()[0] == 1
    # Later requests reuse those connections (and their warm caches); none is opened anew.
    for _ in range(2 * server_module.READERS):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        assert _search(conn, server, secret) == 200
        conn.close()
    later = _readers(vault)
    assert set(later) <= set(first)
    assert all(later[ident] is first[ident] for ident in later)


def test_a_client_keeps_its_connection_between_requests(server: GraphServer, secret: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        assert _search(conn, server, secret) == 200
        kept = conn.sock
        assert kept is not None
        for _ in range(3):
            assert _search(conn, server, secret) == 200
            assert conn.sock is kept
    finally:
        conn.close()


def _exchange(server: GraphServer, data: bytes) -> bytes:
    """Everything the server sends back for ``data`` until it closes the connection."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(data)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def test_a_request_body_is_never_taken_for_the_next_request(
    server: GraphServer, secret: str
) -> None:
    host = f"Host: 127.0.0.1:{server.port}\r\n".encode()
    auth = f"Authorization: Bearer {secret}\r\n".encode()
    hidden = b"GET /v1/search?q=tomatoes HTTP/1.1\r\n" + host + auth + b"\r\n"
    for first in (b"POST /v1/search", b"GET /v1/health"):
        length = f"Content-Length: {len(hidden)}\r\n".encode()
        answer = _exchange(server, first + b" HTTP/1.1\r\n" + host + length + b"\r\n" + hidden)
        assert answer.count(b"HTTP/1.1 ") == 1, answer
        assert b"Connection: close" in answer and b"Garden plans" not in answer


def test_an_idle_connection_is_closed(server: GraphServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_module._Handler, "timeout", 0.3)
    start = time.monotonic()
    assert _exchange(server, b"") == b""
    assert time.monotonic() - start < 5


def test_answers_on_a_kept_connection_are_not_held_back(server: GraphServer, secret: str) -> None:
    # Head and body are two writes: with Nagle's algorithm on, each answer on a kept-open
    # connection would wait for the client's delayed ACK (about 40 ms) before its body.
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    times = []
    try:
        for _ in range(9):
            start = time.perf_counter()
            conn.request("GET", "/v1/health", headers={"Host": f"127.0.0.1:{server.port}"})
            assert conn.getresponse().read()
            times.append(time.perf_counter() - start)
    finally:
        conn.close()
    assert sorted(times)[4] < 0.025
