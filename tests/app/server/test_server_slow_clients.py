"""The graph server against clients that hold connections without finishing a request, and
clients that hang up before their answer: a cap on connections, a deadline for each request
head, and no traceback for a client that left. Real server, real vault, loopback only."""

from __future__ import annotations

import contextlib
import http.client
import select
import signal
import socket
import struct
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.server.http_server import GraphServer, ServeOptions
from cairn.app.service import MemoryService
from tests.app.server.server_probe import HOST, running, serve_child

pytestmark = pytest.mark.serial

CAP = 8  # the cap lowered for the tests, so that going past it takes a few sockets only


@pytest.fixture
def secret(service: MemoryService) -> str:
    service.write("Note", "Garden plans", "Plant tomatoes by the south wall in May.")
    return service.create_token(["personal"], name="slow")[1]


@pytest.fixture
def server(service: MemoryService, secret: str) -> Iterator[GraphServer]:
    yield from running(service, ServeOptions(port=0))


def _wait_for(condition: Callable[[], bool], within_s: float = 5.0) -> None:
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, "the server did not get there in time"
        time.sleep(0.01)


def _search(port: int, secret: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(HOST, port, timeout=5)
    headers = {"Host": f"{HOST}:{port}", "Authorization": f"Bearer {secret}"}
    try:
        conn.request("GET", "/v1/search?q=tomatoes", headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def _slow_client(port: int) -> socket.socket:
    """A connection that has sent its request line and half of a header line."""
    sock = socket.create_connection((HOST, port), timeout=5)
    sock.sendall(f"GET /v1/health HTTP/1.1\r\nHost: {HOST}:{port}\r\nX-Slow: ".encode())
    return sock


def _trickle(sockets: list[socket.socket]) -> None:
    for sock in sockets:
        with contextlib.suppress(OSError):  # one the server closed (refused or given away)
            sock.sendall(b"a")


def _read_until_closed(sock: socket.socket) -> bytes:
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def test_slow_clients_past_the_cap_do_not_starve_a_normal_one(
    server: GraphServer, secret: str
) -> None:
    server.max_connections = CAP
    give_away_after = server.slow_after_s
    server.slow_after_s = 60.0  # however slowly they are accepted, the first CAP keep theirs
    slow = [_slow_client(server.port) for _ in range(CAP + 20)]
    try:
        _wait_for(lambda: server.connections == CAP)
        # The places are full of slow clients; the others were refused at once, with a reason.
        refused: list[bytes] = []
        deadline = time.monotonic() + 5
        while len(refused) < 20 and time.monotonic() < deadline:
            readable, _, _ = select.select(slow, [], [], 0.1)
            for sock in readable:
                refused.append(_read_until_closed(sock))
                slow.remove(sock)
                sock.close()
        assert len(refused) == 20 and len(slow) == CAP
        for answer in refused:
            assert answer.startswith(b"HTTP/1.1 503 "), answer
            assert b"\r\nRetry-After: 1\r\n" in answer and b"try again" in answer
        # The slow ones keep trickling, each past the time a client needs to send a head...
        server.slow_after_s = give_away_after
        for _ in range(int(give_away_after / 0.1) + 3):
            _trickle(slow)
            time.sleep(0.1)
        assert server.connections == CAP
        # ... so a normal client takes the place of the one that has waited longest.
        started = time.monotonic()
        status, body = _search(server.port, secret)
        assert status == 200 and b"Garden plans" in body
        assert time.monotonic() - started < 2.0
        assert server.connections <= CAP  # file descriptors stay bounded by the cap
        cut = select.select(slow, [], [], 1.0)[0]
        assert len(cut) == 1 and _read_until_closed(cut[0]) == b""  # one slow client made room
    finally:
        for sock in slow:
            sock.close()


def test_when_every_place_is_busy_a_new_connection_is_refused_at_once(
    server: GraphServer, secret: str
) -> None:
    server.max_connections = 4
    server.slow_after_s = 60.0  # none of the held connections may be given away
    held = [socket.create_connection((HOST, server.port), timeout=5) for _ in range(4)]
    try:
        _wait_for(lambda: server.connections == 4)
        started = time.monotonic()
        with socket.create_connection((HOST, server.port), timeout=5) as late:
            answer = _read_until_closed(late)
        assert time.monotonic() - started < 1.0
        assert answer.startswith(b"HTTP/1.1 503 ")
        assert b"\r\nRetry-After: 1\r\n" in answer and b"\r\nConnection: close\r\n" in answer
        assert b"too many connections" in answer
    finally:
        for sock in held:
            sock.close()
    _wait_for(lambda: server.connections == 0)
    assert _search(server.port, secret)[0] == 200


def test_a_client_trickling_its_head_is_cut_at_the_deadline(server: GraphServer) -> None:
    server.head_deadline_s = 1.0
    with socket.create_connection((HOST, server.port), timeout=5) as sock:
        sock.sendall(f"GET /v1/health HTTP/1.1\r\nHost: {HOST}:{server.port}\r\n".encode())
        started = time.monotonic()
        sent, received = 0, b""
        # A whole header line every 0.2 s: no single wait is long, only the total is.
        while time.monotonic() - started < 5:
            try:
                sock.sendall(f"X-Slow-{sent}: 1\r\n".encode())
                sent += 1
            except OSError:
                break
            if select.select([sock], [], [], 0.2)[0]:
                received = _read_until_closed(sock)
                break
        elapsed = time.monotonic() - started
    assert 0.8 < elapsed < 3.0 and sent >= 4
    assert received.startswith(b"HTTP/1.1 408 ") and b"too long" in received


def test_a_silent_client_is_closed_at_the_deadline(server: GraphServer) -> None:
    server.head_deadline_s = 0.5
    with socket.create_connection((HOST, server.port), timeout=5) as sock:
        started = time.monotonic()
        assert _read_until_closed(sock) == b""  # nothing asked: nothing to answer
        assert time.monotonic() - started < 3.0
    _wait_for(lambda: server.connections == 0)


def test_a_kept_connection_may_idle_then_gets_a_new_deadline(
    server: GraphServer, secret: str
) -> None:
    server.head_deadline_s = 0.5
    conn = http.client.HTTPConnection(HOST, server.port, timeout=5)
    headers = {"Host": f"{HOST}:{server.port}", "Authorization": f"Bearer {secret}"}
    try:
        for _ in range(2):  # the wait between requests is the idle limit, not the head's
            conn.request("GET", "/v1/search?q=tomatoes", headers=headers)
            response = conn.getresponse()
            assert response.status == 200 and b"Garden plans" in response.read()
            time.sleep(0.8)
        assert conn.sock is not None  # the same connection all along
    finally:
        conn.close()


# -- clients that hang up ----------------------------------------------------------------------


def test_hang_ups_are_quiet_and_real_bugs_are_not(
    server: GraphServer, capsys: pytest.CaptureFixture[str]
) -> None:
    log = compose.start_log("cli")  # as `cairn serve` does
    for gone in (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError):
        try:
            raise gone(32, "gone")
        except OSError:
            server.handle_error(None, (HOST, 1))
    assert capsys.readouterr().err == ""
    memory_text = " ".join(["Plant", "tomatoes"])  # a message may quote the request
    try:
        raise ValueError(memory_text)
    except ValueError:
        server.handle_error(None, (HOST, 1))
    err = capsys.readouterr().err
    assert "cairn serve: internal error: ValueError" in err
    assert "test_server_slow_clients.py" in err  # where it happened
    assert "tomatoes" not in err
    written = log.read_text(encoding="utf-8")  # and in the log, for a report
    assert "a fault in the graph server" in written and "ValueError" in written
    assert "test_server_slow_clients.py" in written and "tomatoes" not in written
    assert "BrokenPipeError" not in written  # a hang-up is no fault


def test_cairn_serve_prints_no_traceback_when_clients_hang_up(
    service: MemoryService, secret: str, vault_path: Path
) -> None:
    with serve_child(vault_path) as (child, port):
        request = (
            f"GET /v1/search?q=tomatoes HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
            f"Authorization: Bearer {secret}\r\n\r\n"
        ).encode()
        for _ in range(10):
            sock = socket.create_connection((HOST, port), timeout=5)
            # Closed with a reset, before the answer: the server's write meets a gone client.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.sendall(request)
            sock.close()
        assert _search(port, secret)[0] == 200  # and the server goes on answering
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    assert child.returncode == 0 and "Stopped." in out, err
    assert "Traceback" not in err and "Error" not in err, err


def _ctrl_c_as_in_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
