"""The graph server run inside the window's process: started and stopped with a switch.

``cairn serve`` owns its process and stops with it. The window instead serves while the person
works, so the server lives on a thread of its own and must be stoppable at any moment, above
all before the vault locks: ``stop`` ends the accept loop, lets answers being computed finish
(they read through the service that is about to close), cuts every connection still open (a
client may keep one between requests), and joins every thread of the server, so no thread
outlives the server or reads a closed vault.

From the window the server listens on 127.0.0.1 only: a switch in a window is too easy to flip
for a server other machines could reach; ``cairn serve --host`` is the deliberate way to that.
"""

from __future__ import annotations

import contextlib
import errno
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from cairn.app.errors import InvalidRequest
from cairn.app.server.http_server import DEFAULT_HOST, GraphServer, ServeOptions, ServerRefused
from cairn.app.service import MemoryService

WINDOW_HOST = DEFAULT_HOST
MIN_PORT, MAX_PORT = 1024, 65535
# How often the accept loop looks for a stop request: the upper bound of a stop when idle.
POLL_INTERVAL_S = 0.1
# How long a stop waits for answers being computed before it cuts their connections.
GRACE_S = 2.0
JOIN_S = 2.0
T = TypeVar("T")


@dataclass(frozen=True)
class ServerState:
    running: bool
    url: str | None = None  # http://127.0.0.1:PORT while running
    port: int | None = None
    allow_without_token: bool = False


class _OwnedServer(GraphServer):
    """A GraphServer that knows its connections, the threads serving them, and how many
    answers are being computed, so that a stop can tell an idle kept-open connection (cut at
    once) from a request being answered (given time to finish)."""

    def __init__(self, service: MemoryService, options: ServeOptions) -> None:
        self._open: dict[socket.socket, threading.Thread | None] = {}
        self._request_threads: set[threading.Thread] = set()  # every one not yet ended
        self._answering = 0
        self._served = threading.Condition()
        super().__init__(service, options)

    def process_request(self, request: Any, client_address: Any) -> None:
        # Counted before its thread starts: a stop right after must cut and wait for it too.
        with self._served:
            self._open[request] = None
        super().process_request(request, client_address)

    def finish_request(self, request: Any, client_address: Any) -> None:
        current = threading.current_thread()
        current.name = "cairn-graph-request"  # findable in a thread dump (and by tests)
        with self._served:
            self._request_threads = {t for t in self._request_threads if t.is_alive()}
            self._request_threads.add(current)
            self._open[request] = current
        try:
            super().finish_request(request, client_address)
        finally:
            with self._served:
                self._open.pop(request, None)
                self._served.notify_all()

    def answer(self, work: Callable[[], T]) -> T:
        with self._served:
            self._answering += 1
        try:
            return super().answer(work)
        finally:
            with self._served:
                self._answering -= 1
                self._served.notify_all()

    def wait_answered(self, timeout_s: float) -> bool:
        """Wait until no answer is being computed; False if one still is after the wait."""
        with self._served:
            return self._served.wait_for(lambda: self._answering == 0, timeout_s)

    def wait_closed(self, timeout_s: float) -> bool:
        """Wait until every connection has been let go by its thread."""
        with self._served:
            return self._served.wait_for(lambda: not self._open, timeout_s)

    def cut(self) -> None:
        """Shut every connection still open: a thread waiting to read from one (a client that
        keeps its connection between requests) returns at once instead of after its timeout."""
        with self._served:
            hanging = list(self._open)
        for connection in hanging:
            with contextlib.suppress(OSError):  # already closed by its own thread meanwhile
                connection.shutdown(socket.SHUT_RDWR)

    def request_threads(self) -> list[threading.Thread]:
        with self._served:
            return [each for each in self._request_threads if each.is_alive()]


class ServerControl:
    """At most one server, over the service it was started with. Thread-safe: the window stops
    it from the UI thread when locking and from a worker when the switch is turned off."""

    def __init__(self, *, grace_s: float = GRACE_S) -> None:
        self._grace_s = grace_s
        self._lock = threading.Lock()
        self._server: _OwnedServer | None = None
        self._thread: threading.Thread | None = None
        self._left: list[threading.Thread] = []

    @property
    def state(self) -> ServerState:
        server = self._server
        if server is None:
            return ServerState(False)
        return ServerState(
            True, f"http://{WINDOW_HOST}:{server.port}", server.port, server.allow_without_token
        )

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(
        self, service: MemoryService, port: int, *, allow_without_token: bool = False
    ) -> ServerState:
        """Listen on 127.0.0.1:``port``; binding is quick, so this may run on the UI thread.
        A running server is stopped first (a new port or a new choice about tokens)."""
        if port == 0:
            raise InvalidRequest(
                "Port 0 would pick a different port each time, so programs could not find the "
                f"server; choose one from {MIN_PORT} to {MAX_PORT}."
            )
        if not MIN_PORT <= port <= MAX_PORT:
            raise InvalidRequest(f"Choose a port from {MIN_PORT} to {MAX_PORT}; {port} is not.")
        self.stop()
        options = ServeOptions(WINDOW_HOST, port, allow_without_token)
        with self._lock:
            try:
                server = _OwnedServer(service, options)
            except ServerRefused as refused:
                raise _plainer(refused, port) from None
            thread = threading.Thread(
                target=server.serve_forever,
                kwargs={"poll_interval": POLL_INTERVAL_S},
                name=f"cairn-graph-server-{port}",
                daemon=True,  # never keeps a crashed window's process alive
            )
            thread.start()
            self._server, self._thread = server, thread
        return self.state

    def stop(self) -> bool:
        """Stop serving and wait for every thread of the server; True when all have ended.
        Quick when idle (one poll interval); a few seconds at most (``grace_s`` for answers
        being computed, then ``JOIN_S``) when a request hangs. Stopping twice is harmless."""
        with self._lock:
            server, thread = self._server, self._thread
            self._server = self._thread = None
            if server is None or thread is None:
                return not self._left_alive()
            server.shutdown()  # the accept loop ends; no new connection is taken
            # Answers being computed read through the service that may close next: let them
            # finish, then cut every connection, idle ones included, before the reader threads
            # go (``server_close``), so no request is left waiting on a closed pool.
            server.wait_answered(self._grace_s)
            server.cut()
            server.wait_closed(JOIN_S)
            server.server_close()
            threads = server.request_threads()
            deadline = time.monotonic() + JOIN_S
            for each in [thread, *threads]:
                each.join(max(0.0, deadline - time.monotonic()))
            self._left = [each for each in [*self._left, thread, *threads] if each.is_alive()]
            return not self._left

    def _left_alive(self) -> bool:
        self._left = [each for each in self._left if each.is_alive()]
        return bool(self._left)


def _plainer(refused: ServerRefused, port: int) -> InvalidRequest:
    """The server's refusal said for a window (no command-line flags in the sentence)."""
    cause = refused.__context__
    code = cause.errno if isinstance(cause, OSError) else None
    if code == errno.EADDRINUSE:
        return InvalidRequest(f"Port {port} is in use by another program; choose another port.")
    return refused
