"""``cairn serve``: the read-only graph server (see ``app/server/http_server.py``) until Ctrl+C."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from cairn.app.cli.common import open_service
from cairn.app.errors import InvalidRequest
from cairn.app.server.http_server import DEFAULT_HOST, DEFAULT_PORT, GraphServer, ServeOptions

Verb = Callable[..., argparse.ArgumentParser]


def cmd_serve(args: argparse.Namespace) -> int:
    secret = _secret(Path(args.token_file).expanduser()) if args.token_file else None
    options = ServeOptions(args.host, args.port, args.allow_loopback_without_token, secret)
    with open_service(args, serving=True) as service:
        server = GraphServer(service, options)
        try:
            print(f"Serving {server.url} (read-only); Ctrl+C stops.", flush=True)
            print(f"A page that draws the graph: {server.url}view")
            if secret is not None:
                print("Only the token in the token file is accepted.")
            elif not options.allow_loopback_without_token:
                print("Requests need a token: `cairn token create --scopes ...` makes one.")
            server.serve_forever()
        except KeyboardInterrupt:
            print("Stopped.")
        finally:
            server.server_close()
    return 0


def _secret(path: Path) -> str:
    """The secret in a token file: the file must be the owner's alone, as a key file is."""
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise InvalidRequest(f"Cannot read the token file {path}: {exc.strerror or exc}.") from None
    if mode & 0o077:
        raise InvalidRequest(
            f"The token file {path} is readable by other users; `chmod 600 {path}` first."
        )
    if not text or len(text.split()) != 1:
        raise InvalidRequest(
            f"The token file {path} should hold one secret, as `cairn token create` printed it."
        )
    return text


def register(verb: Verb) -> None:
    serve = verb("serve", cmd_serve, "let local tools read the graph over HTTP (read-only)")
    serve.add_argument("--host", default=DEFAULT_HOST, help=f"address (default {DEFAULT_HOST})")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    serve.add_argument(
        "--allow-loopback-without-token",
        action="store_true",
        help="answer requests without a token (127.0.0.1 only: every scope is readable)",
    )
    serve.add_argument(
        "--token-file",
        metavar="F",
        help="accept only the token whose secret this file holds (owner-only file)",
    )
