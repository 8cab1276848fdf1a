"""Speaking to a running graph server from a test: one started on a thread, a free port, a
GET, a held-open client."""

from __future__ import annotations

import http.client
import socket
import threading
from collections.abc import Iterator

from cairn.app.server import GraphServer, ServeOptions
from cairn.app.service import MemoryService

HOST = "127.0.0.1"


def running(service: MemoryService, options: ServeOptions) -> Iterator[GraphServer]:
    """A real server on a thread for as long as the caller iterates (a fixture yields from
    it); then shut down, closed and joined."""
    server = GraphServer(service, options)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def free_port() -> int:
    """A port nothing listens on now (the kernel's pick, released at once)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def get(port: int, path: str, *, token: str | None = None) -> int:
    """The status of GET ``path``; ConnectionRefusedError when nothing listens."""
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    headers = {"Host": f"{HOST}:{port}"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def refused(port: int) -> bool:
    try:
        get(port, "/v1/health")
    except ConnectionRefusedError:
        return True
    return False
