"""The graph server's connections at the socket level: the request head read against a
deadline however it trickles in, the place each connection holds among the server's few, and the
answers sent when no request could be read (too slow, or no place free).

A per-read timeout alone lets a client sending a byte every few seconds hold a connection for
ever; a thread per connection without a bound lets a client opening connections it never uses
run the process out of descriptors. ``server.py`` uses these to prevent both.
"""

from __future__ import annotations

import contextlib
import io
import socket
import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from cairn.app.server.endpoint import Reply

RETRY_AFTER_S = 1  # what a refused client is told to wait before it tries again


@dataclass
class Place:
    """One open connection, as the accept loop sees it when every place is taken."""

    waiting_since: float | None  # since when it waits for a request head; None: answering
    given_away: bool = False


class HeadReader(io.RawIOBase):
    """The connection's reads, none waiting past the request head's deadline: a per-read
    timeout alone lets a client sending a byte every few seconds hold a connection for ever."""

    def __init__(self, sock: socket.socket, idle_s: float) -> None:
        super().__init__()
        self._sock = sock
        self._idle_s = idle_s
        self._deadline: float | None = None
        self._after_first_byte: float | None = None
        self.started = False  # a byte of the current head has arrived
        self.expired = False  # the deadline passed before the head was complete
        self.ended = False  # the client closed (or was cut) before the head was complete

    def expect(self, deadline: float | None, *, after_first_byte: float | None = None) -> None:
        """A head is awaited: by ``deadline``, or ``after_first_byte`` seconds after its first
        byte (until which the idle limit applies)."""
        self._deadline, self._after_first_byte = deadline, after_first_byte
        self.started = self.expired = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        wait = self._idle_s
        if self._deadline is not None:
            wait = min(wait, self._deadline - time.monotonic())
            if wait <= 0:
                self.expired = True
                raise TimeoutError("the request head did not arrive in time")
        self._sock.settimeout(wait)
        try:
            count = self._sock.recv_into(buffer)
        except TimeoutError:
            self.expired = self._deadline is not None and time.monotonic() >= self._deadline
            raise
        if count == 0:
            self.ended = True
        else:
            self.started = True
            if self._deadline is None and self._after_first_byte is not None:
                self._deadline = time.monotonic() + self._after_first_byte
        return count


def raw_answer(reply: Reply, extra: dict[str, str] | None = None) -> bytes:
    """A whole answer that closes its connection, for when no request was read."""
    headers = {
        "Content-Type": reply.content_type,
        "Content-Length": str(len(reply.body)),
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        **(extra or {}),
        "Connection": "close",
    }
    status = HTTPStatus(reply.status)
    head = f"HTTP/1.1 {status.value} {status.phrase}\r\n" + "".join(
        f"{name}: {value}\r\n" for name, value in headers.items()
    )
    return (head + "\r\n").encode("latin-1") + reply.body


_BUSY = raw_answer(
    Reply.error(
        HTTPStatus.SERVICE_UNAVAILABLE,
        "The graph server has too many connections open; try again in a moment.",
    ),
    {"Retry-After": str(RETRY_AFTER_S)},
)


def refuse(sock: socket.socket) -> None:
    """Say 503 without waiting on the client (the accept loop must not block), and read away
    what it sent, so that the close does not reset the connection under the answer."""
    with contextlib.suppress(OSError):
        sock.setblocking(False)
        sock.send(_BUSY)
        sock.recv(65536)
