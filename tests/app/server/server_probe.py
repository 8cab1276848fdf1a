"""Speaking to a running graph server from a test: one started on a thread, ``cairn serve`` as
a child process, a free port, a GET, a held-open client."""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from cairn.app.server.http_server import GraphServer, ServeOptions
from cairn.app.service import MemoryService
from tests.conftest import PASSPHRASE

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


@contextlib.contextmanager
def serve_child(vault: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """``cairn serve`` on ``vault`` as a child process, and the port it listens on. The child
    gets Ctrl+C as from a terminal, and dumps its threads if it is sent SIGABRT (faulthandler);
    one still running at the end is killed, reaped, and its pipes closed."""
    serve = ["serve", "--vault", str(vault), "--port", "0"]
    child = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-m", "cairn.app.cli", *serve],
        env={**os.environ, "CAIRN_PASSPHRASE": PASSPHRASE},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A suite started in the background of a script inherits Ctrl+C ignored, and Python
        # then never turns it into KeyboardInterrupt.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/v1/", line)
        assert found, line
        yield child, int(found[1])
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()  # reaps it and closes its pipes


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
