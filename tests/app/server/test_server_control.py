"""The graph server as the window runs it: started on a thread, stopped with nothing left
behind, and refusals said plainly."""

from __future__ import annotations

import http.client
import socket
import threading
import time

import pytest

from cairn.app.errors import InvalidRequest
from cairn.app.server.control import ServerControl
from cairn.app.service import MemoryService
from tests.app.server.server_probe import HOST, free_port, get, refused

pytestmark = pytest.mark.serial


def _server_threads() -> list[threading.Thread]:
    """The accept loop, every connection's thread (named so by the control), the readers."""
    names = ("cairn-graph-", "cairn-serve")
    return [t for t in threading.enumerate() if t.name.startswith(names)]


def test_started_it_answers_and_stopped_it_is_gone(service: MemoryService) -> None:
    control = ServerControl()
    port = free_port()
    state = control.start(service, port)
    assert state.running and state.port == port and state.url == f"http://{HOST}:{port}"
    assert not state.allow_without_token
    assert get(port, "/v1/health") == 200
    assert get(port, "/v1/search?q=x") == 401  # a token is needed unless asked otherwise
    started = time.monotonic()
    assert control.stop() is True
    assert time.monotonic() - started < 1.0  # idle: one poll interval
    assert refused(port)
    assert not control.running and _server_threads() == []
    assert control.stop() is True  # twice is harmless


def test_without_a_token_when_asked(service: MemoryService) -> None:
    control = ServerControl()
    port = free_port()
    control.start(service, port, allow_without_token=True)
    try:
        assert control.state.allow_without_token
        assert get(port, "/v1/search?q=x") == 200
    finally:
        control.stop()


def test_a_busy_port_is_said_plainly(service: MemoryService) -> None:
    with socket.socket() as other:
        other.bind((HOST, 0))
        other.listen()
        port = other.getsockname()[1]
        with pytest.raises(InvalidRequest, match=rf"^Port {port} is in use .*choose another"):
            ServerControl().start(service, port)


@pytest.mark.parametrize("port", [0, 80, 70000])
def test_a_port_the_window_cannot_use_is_refused(service: MemoryService, port: int) -> None:
    control = ServerControl()
    with pytest.raises(InvalidRequest, match=r"from 1024"):
        control.start(service, port)
    assert not control.running


def test_a_silent_client_does_not_keep_a_thread_alive(service: MemoryService) -> None:
    control = ServerControl(grace_s=0.2)
    port = free_port()
    control.start(service, port)
    with socket.create_connection((HOST, port)) as silent:  # connects, never asks
        deadline = time.monotonic() + 5
        while not [t for t in _server_threads() if t.name == "cairn-graph-request"]:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert control.stop() is True
        assert silent.recv(1) == b""  # its connection was cut
    assert _server_threads() == []


def test_starting_again_moves_the_server(service: MemoryService) -> None:
    control = ServerControl()
    first, second = free_port(), free_port()
    control.start(service, first)
    control.start(service, second)
    try:
        assert refused(first) and get(second, "/v1/health") == 200
    finally:
        control.stop()


def test_a_kept_open_connection_is_cut_at_once(service: MemoryService) -> None:
    control = ServerControl()
    port = free_port()
    control.start(service, port)
    kept = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        kept.request("GET", "/v1/health", headers={"Host": f"{HOST}:{port}"})
        response = kept.getresponse()
        response.read()
        assert response.status == 200 and not response.will_close  # kept for the next one
        started = time.monotonic()
        assert control.stop() is True
        assert time.monotonic() - started < 1.0  # not the server's idle timeout
        assert _server_threads() == []
    finally:
        kept.close()
