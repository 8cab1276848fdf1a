"""``cairn token create|list|revoke``: the bearer tokens the graph server accepts."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from cairn.app.cli.common import after_nested_verb, emit, open_service

Verb = Callable[..., argparse.ArgumentParser]


def cmd_token(args: argparse.Namespace) -> int:
    # Tokens need no model: the embedder is not loaded.
    with open_service(args, with_embedder=False) as service:
        if args.what == "create":
            scopes = args.scopes.split(",")
            token, secret = service.create_token(scopes, name=args.name or "")

            def created() -> None:
                print(f"token {token.id} ({', '.join(token.scopes)})")
                print(secret)
                print("This secret is shown only now and is not stored; keep it somewhere safe.")

            emit(args, {**token.as_dict(), "secret": secret}, created)
            return 0
        if args.what == "revoke":
            token = service.revoke_token(args.id)
            emit(args, token.as_dict(), lambda: print(f"token {token.id} revoked"))
            return 0
        listed = service.list_tokens()

    def human() -> None:
        if not listed:
            print("No tokens; `cairn token create --scopes personal` makes one.")
        for token in listed:
            state = f"revoked {token.revoked_at}" if token.revoked else "live"
            name = f" {token.name!r}" if token.name else ""
            print(f"{token.id}{name}  scopes: {','.join(token.scopes)}  {state}")

    emit(args, [token.as_dict() for token in listed], human)
    return 0


def register(verb: Verb) -> None:
    token = verb("token", cmd_token, "bearer tokens for `cairn serve`")
    verbs = token.add_subparsers(dest="what", required=True)
    after = after_nested_verb()
    create = verbs.add_parser(
        "create", parents=[after], help="a token that may read the given scopes"
    )
    create.add_argument("--scopes", required=True, help="comma-separated, e.g. personal,work")
    create.add_argument("--name", help="a label, to tell tokens apart")
    verbs.add_parser("list", parents=[after], help="every token, with its scopes and state")
    revoke = verbs.add_parser("revoke", parents=[after], help="refuse a token from now on")
    revoke.add_argument("id", help="the token's id, as `cairn token list` shows it")
