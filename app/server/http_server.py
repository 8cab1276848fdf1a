"""The read-only graph server behind ``cairn serve``: local tools and agents read the graph.

Rules, each because of a concrete attack or mistake:
- Bound to 127.0.0.1 by default. Another address is refused unless the vault has a live bearer
  token (``cairn token create``): without one, anyone on the network could read.
- The Host header must name the bound address (or localhost) with its port: a web page whose
  name was re-pointed at 127.0.0.1 (DNS rebinding) sends its own name and is refused (421).
- GET and HEAD only (others 405): nothing a browser form or a confused tool sends can change a
  memory. No CORS header, so a web page's script cannot read the answers.
- Every request needs a token, which sees only its scopes (403 for another one), unless the
  server was started with ``allow_loopback_without_token`` on a loopback address.
- Handlers call only read methods of ``MemoryService``, which read through ``Vault.read()``:
  a read-only (``query_only``) connection per thread, never the writer, so reads go on while
  the window writes (WAL). Requests are answered on a few long-lived threads (``READERS``),
  not on each connection's thread: the vault keeps a read connection with its cache of
  decrypted pages per thread, so a thread per connection would open and warm a new one for
  every request of a client that does not keep its connection, and hold one per idle client.
- Connections stay open between requests (HTTP/1.1, every answer has its Content-Length)
  until idle for ``IDLE_S``; a request with a body, which is never read, closes its connection
  so the body cannot be taken for the next request.
- Clients that open connections and trickle their requests must not starve the others: at
  most ``MAX_CONNECTIONS`` are open, each request head must arrive within ``HEAD_DEADLINE_S``
  in all, and when every place is taken a new connection gets the place of the one waiting
  longest (over ``SLOW_AFTER_S``) for a request, or a 503 at once. A hang-up is no error.
- Request lines are not logged: a search's query string is memory content.
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

from cairn.app.errors import CairnError, InvalidRequest, NodeNotFound
from cairn.app.process import diagnostic_log
from cairn.app.server import routes
from cairn.app.server.connections import HeadReader, Place, raw_answer, refuse
from cairn.app.server.endpoint import Reply
from cairn.app.service import MemoryService

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
ALLOW = "GET, HEAD"
_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
# Threads answering requests, each with its own read connection (up to a 64 MB page cache):
# enough to keep two cores busy while one waits on the disk, and a bound on the connections
# however many clients there are. Measured at 100k memories with 8 clients (`make bench`):
# search p95 175 ms against 189 with a connection per request thread, 165 MB less memory.
READERS = 4
IDLE_S = 15.0  # an idle kept-open connection is closed after this long
# Connections open at once: each holds a thread and a file descriptor, so without a bound a
# client opening connections it never uses runs the process out of descriptors (1024 by
# default) and no one is answered. Local tools open a few each (a browser six).
MAX_CONNECTIONS = 64
# Connections the kernel holds until the accept loop takes (or refuses) each: they use no
# descriptor of this process, and a burst larger than the queue waits a second (SYN retry).
BACKLOG = 128
# The whole request line and headers must arrive within this, however they trickle in: a head
# is a few hundred bytes, sent in milliseconds by a client on this machine or a LAN.
HEAD_DEADLINE_S = 10.0
# When every place is taken, a connection that has waited this long for its request (silent,
# trickling, or idle between requests) gives its place to a new one: far more than a working
# client needs, so only slow or idle ones are ever cut.
SLOW_AFTER_S = 1.0
# A client that hung up before its answer, or was too slow: no fault of the server.
_HANG_UPS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)
T = TypeVar("T")


class ServerRefused(InvalidRequest):
    """The server will not start as asked (an address it must not bind)."""


@dataclass(frozen=True)
class ServeOptions:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    allow_loopback_without_token: bool = False
    # The secret of the one token this server accepts (``--token-file``); None: any live one.
    only_secret: str | None = None


def is_loopback(host: str) -> bool:
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class GraphServer(ThreadingHTTPServer):
    """One server over one open service; ``serve_forever`` in a thread, ``shutdown`` to stop.

    ``max_connections``, ``head_deadline_s`` and ``slow_after_s`` may be set on an instance
    (tests lower them) before or while it serves."""

    daemon_threads = True
    request_queue_size = BACKLOG
    max_connections = MAX_CONNECTIONS
    head_deadline_s = HEAD_DEADLINE_S
    slow_after_s = SLOW_AFTER_S

    def __init__(self, service: MemoryService, options: ServeOptions) -> None:
        host = options.host.strip("[]")
        loopback = is_loopback(host)
        if options.allow_loopback_without_token and not loopback:
            raise ServerRefused(
                f"--allow-loopback-without-token is for 127.0.0.1 only; {host} is reachable "
                "from other machines. Drop the flag and use a token."
            )
        self.only_token: str | None = None
        if options.only_secret is not None and options.allow_loopback_without_token:
            raise ServerRefused(
                "A token file and --allow-loopback-without-token contradict each other: choose one."
            )
        if options.only_secret is not None:
            only = service.verify_token(options.only_secret)
            if only is None:
                raise ServerRefused(
                    "The token file does not hold a live token of this vault; "
                    "`cairn token list` shows them, `cairn token create` makes one."
                )
            self.only_token = only.id
        if not loopback and not service.any_live_token():
            raise ServerRefused(
                f"Refusing to serve on {host}, which other machines can reach, without a "
                "token: create one with `cairn token create --scopes personal`, or serve on "
                "127.0.0.1."
            )
        if ":" in host:
            self.address_family = socket.AF_INET6
        self.service = service
        self._readers = ThreadPoolExecutor(READERS, thread_name_prefix="cairn-serve")
        self._places: dict[socket.socket, Place] = {}
        self._places_lock = threading.Lock()
        self.allow_without_token = options.allow_loopback_without_token
        self.loopback = loopback
        try:
            super().__init__((host, options.port), _Handler)
        except OSError as exc:
            raise ServerRefused(
                f"Cannot listen on {host}:{options.port} ({exc.strerror or exc}); choose "
                "another --port or stop what uses it."
            ) from None
        self.port = int(self.server_address[1])
        bound = f"[{host}]" if ":" in host else host
        self.hosts = {f"{name}:{self.port}".lower() for name in (*_LOOPBACK_NAMES, bound)}

    def answer(self, work: Callable[[], T]) -> T:
        """``work`` run on one of the reader threads (see the module's notes)."""
        return self._readers.submit(work).result()

    def server_close(self) -> None:
        super().server_close()
        self._readers.shutdown(wait=True)

    # -- places: at most ``max_connections`` open connections ---------------------------------

    @property
    def connections(self) -> int:
        """Connections open now (each with its thread), those given away not counted."""
        return len(self._places)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        """Called by the accept loop for each new connection: a place, or a 503 at once."""
        now = time.monotonic()
        with self._places_lock:
            admitted = len(self._places) < self.max_connections or self._give_away_one(now)
            if admitted:
                self._places[request] = Place(waiting_since=now)
        if not admitted:
            refuse(request)
        return admitted

    def _give_away_one(self, now: float) -> bool:
        """Cut the connection waiting longest for a request, if over ``slow_after_s``: its
        thread's read ends at once. Under the lock, so its socket is not closed meanwhile."""
        since = {s: p.waiting_since for s, p in self._places.items() if p.waiting_since is not None}
        slow = [s for s, t in since.items() if now - t >= self.slow_after_s]
        if not slow:
            return False
        sock = min(slow, key=since.__getitem__)
        self._places.pop(sock).given_away = True
        with contextlib.suppress(OSError):  # the client may have gone already
            sock.shutdown(socket.SHUT_RDWR)
        return True

    def place_of(self, request: Any) -> Place:
        with self._places_lock:  # none: it was given away before its thread started
            return self._places.get(request) or Place(None, given_away=True)

    def waiting(self, place: Place) -> None:
        with self._places_lock:
            place.waiting_since = time.monotonic()

    def answering(self, place: Place) -> bool:
        """Its head has arrived: no longer to be given away. False if it already was."""
        with self._places_lock:
            place.waiting_since = None
            return not place.given_away

    def shutdown_request(self, request: Any) -> None:
        with self._places_lock:  # before the close: never given away once its fd may be reused
            self._places.pop(request, None)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up is quiet; anything else is a bug, said with where it happened
        but not its message, which may quote the request (memory text)."""
        error = sys.exc_info()[1]
        if error is None or isinstance(error, _HANG_UPS):
            return
        diagnostic_log.fault(error, "the graph server")
        where = "".join(traceback.TracebackException.from_exception(error).stack.format())
        print(f"cairn serve: internal error: {type(error).__name__}\n{where}", file=sys.stderr)

    @property
    def url(self) -> str:
        host = str(self.server_address[0])
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}/v1/"

    def host_allowed(self, header: str | None) -> bool:
        if header is None:
            return False
        value = header.strip().lower()
        if value in self.hosts:
            return True
        if self.loopback:
            return False
        # Bound beyond loopback (0.0.0.0, a LAN address): an address typed as digits cannot be
        # re-pointed by DNS, so any IP literal with our port is as safe as the bound one.
        name, _, port = value.rpartition(":")
        try:
            ipaddress.ip_address(name.strip("[]"))
        except ValueError:
            return False
        return port == str(self.port)


class _Handler(BaseHTTPRequestHandler):
    server: GraphServer
    server_version = "cairn"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    timeout = IDLE_S
    # The head and the body go out in two writes; on a kept-open connection Nagle's algorithm
    # would hold the body until the client's delayed ACK of the head (40 ms on Linux).
    disable_nagle_algorithm = True

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # read instead through the deadline below (the socket stays open)
        self._place = self.server.place_of(self.request)
        self._head = HeadReader(self.connection, self.timeout or IDLE_S)
        self._head.expect(time.monotonic() + self.server.head_deadline_s)  # from the accept
        self.rfile = io.BufferedReader(self._head)

    def handle_one_request(self) -> None:
        super().handle_one_request()  # a TimeoutError there closes the connection
        if self._head.expired and self._head.started:
            self._too_slow()
        # Kept open, the next head's deadline starts with its first byte (idle until then).
        self.server.waiting(self._place)
        self._head.expect(None, after_first_byte=self.server.head_deadline_s)

    def parse_request(self) -> bool:
        # A head cut short (the client hung up, or its place was given away) is not answered:
        # what arrived of it may lack the headers that matter, such as Host or Authorization.
        if self._head.ended:
            self.close_connection = True
            return False
        if not super().parse_request():
            return False
        if self._head.ended or not self.server.answering(self._place):
            self.close_connection = True
            return False
        self.connection.settimeout(self.timeout)  # for writing the answer (no more is read)
        return True

    def _too_slow(self) -> None:
        """Part of a head came, not all of it in time: say so before the close."""
        self.close_connection = True
        reply = Reply.error(
            HTTPStatus.REQUEST_TIMEOUT,
            f"The request took too long to arrive (over {self.server.head_deadline_s:g} s); "
            "send the request line and headers at once.",
        )
        with contextlib.suppress(OSError):  # the client may be gone; it is being closed anyway
            self.connection.settimeout(1.0)
            self.connection.sendall(raw_answer(reply))

    def do_GET(self) -> None:
        self._serve(head=False)

    def do_HEAD(self) -> None:
        self._serve(head=True)

    def _not_allowed(self) -> None:
        self._send(
            Reply.error(HTTPStatus.METHOD_NOT_ALLOWED, "This server only reads: use GET or HEAD."),
            head=False,
            extra={"Allow": ALLOW},
        )

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _not_allowed

    def __getattr__(self, name: str) -> Any:
        # Any other method (QUERY, PROPFIND, a made-up one) is refused the same way: http.server
        # would answer 501, a server error, to what is only a request this server does not take.
        if name.startswith("do_"):
            return self._not_allowed
        raise AttributeError(name)

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: a request line holds the search text, which is memory content."""

    def _serve(self, *, head: bool) -> None:
        try:
            reply, extra = self.server.answer(self._answer)
        except NodeNotFound as exc:
            reply, extra = Reply.error(HTTPStatus.NOT_FOUND, str(exc)), {}
        except InvalidRequest as exc:
            reply, extra = Reply.error(HTTPStatus.BAD_REQUEST, str(exc)), {}
        except CairnError as exc:
            reply, extra = Reply.error(HTTPStatus.SERVICE_UNAVAILABLE, str(exc)), {}
        except Exception as exc:  # a bug: answered, never a dropped connection
            diagnostic_log.fault(exc, "the graph server")
            print(f"cairn serve: internal error: {type(exc).__name__}", file=sys.stderr)
            reply = Reply.error(
                HTTPStatus.INTERNAL_SERVER_ERROR,
                "The server failed on this request; try again, and report it if it persists, "
                "with Cairn's log (`cairn doctor` says where it is).",
            )
            extra = {}
        self._send(reply, head=head, extra=extra)

    def _answer(self) -> tuple[Reply, dict[str, str]]:
        if not self.server.host_allowed(self.headers.get("Host")):
            return Reply.error(
                HTTPStatus.MISDIRECTED_REQUEST,
                "The Host header does not name this server; use the address it listens on.",
            ), {}
        url = urlsplit(self.path)
        route = routes.find(url.path)
        if route is None:
            return Reply.error(
                HTTPStatus.NOT_FOUND, f"No endpoint {url.path}; /v1/openapi.json lists them."
            ), {}
        params = parse_qs(url.query, keep_blank_values=True)
        if route.public:
            return route.call(self.server.service, route.match, params, []), {}
        granted = self._granted()
        if granted is None:
            return Reply.error(
                HTTPStatus.UNAUTHORIZED,
                "A bearer token is needed: send `Authorization: Bearer <secret>` with a token "
                "from `cairn token create`.",
            ), {"WWW-Authenticate": 'Bearer realm="cairn"'}
        asked = _listed(params, "scopes")
        for scope in asked:
            if scope not in granted:
                return Reply.error(
                    HTTPStatus.FORBIDDEN, f"This token may not read the scope {scope!r}."
                ), {}
        return route.call(self.server.service, route.match, params, asked or granted), {}

    def _granted(self) -> list[str] | None:
        """The scopes this request may read; None when it is not authorised."""
        header = self.headers.get("Authorization")
        if header is None:
            if self.server.allow_without_token:
                return self.server.service.scopes()
            return None
        kind, _, secret = header.strip().partition(" ")
        if kind.lower() != "bearer" or not secret.strip():
            return None
        token = self.server.service.verify_token(secret.strip())
        if token is None or self.server.only_token not in (None, token.id):
            return None
        return list(token.scopes)

    def _send(self, reply: Reply, *, head: bool, extra: dict[str, str]) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(reply.body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in {**reply.headers, **extra}.items():
            self.send_header(name, value)
        if self._has_body():
            self.close_connection = True
            self.send_header("Connection", "close")
        self.end_headers()
        if not head:
            self.wfile.write(reply.body)

    def _has_body(self) -> bool:
        length = (self.headers.get("Content-Length") or "0").strip()
        return self.headers.get("Transfer-Encoding") is not None or length != "0"


def _listed(params: dict[str, list[str]], name: str) -> list[str]:
    return [
        part.strip() for value in params.get(name, []) for part in value.split(",") if part.strip()
    ]
