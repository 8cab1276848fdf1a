"""What every ``cairn`` verb shares: opening the vault, choosing scopes, printing."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cairn.app import compose
from cairn.app.embedding.model import default_embedder, serving_embedder
from cairn.app.errors import InvalidRequest, VaultNotFound
from cairn.app.service import MemoryService

# -- passphrases and vault --------------------------------------------------------------------


def ask(prompt: str, env: str, *, twice: bool = False) -> str:
    value = os.environ.get(env)
    if value is not None:
        return value
    if not sys.stdin.isatty():
        raise InvalidRequest(f"No passphrase: set {env} or run cairn in a terminal to be asked.")
    first = getpass.getpass(prompt)
    if twice and getpass.getpass("Repeat it: ") != first:
        raise InvalidRequest("The two passphrases differ; nothing was changed.")
    return first


def vault_path(args: argparse.Namespace) -> Path:
    if args.vault:
        return Path(args.vault).expanduser()
    if os.environ.get("CAIRN_VAULT"):
        return Path(os.environ["CAIRN_VAULT"]).expanduser()
    return compose.Config.from_environment().default_vault


def open_service(
    args: argparse.Namespace, *, with_embedder: bool = True, serving: bool = False
) -> MemoryService:
    """The vault the arguments name, with the passphrase asked for; ``serving`` gives it the
    graph server's embedder (see ``embedding_model.serving_embedder``)."""
    path = vault_path(args)
    if not path.exists():
        raise VaultNotFound(path)  # before asking for a passphrase or loading the model
    passphrase = ask(f"Passphrase for {path}: ", "CAIRN_PASSPHRASE")
    load = serving_embedder if serving else default_embedder
    return compose.open_vault(path, passphrase, with_embedder=with_embedder, load_embedder=load)


def create_service(args: argparse.Namespace, path: Path) -> MemoryService:
    """A new vault at ``path``, its passphrase asked twice (``cairn init``, ``cairn import``)."""
    if not args.vault and not os.environ.get("CAIRN_VAULT"):
        compose.Config.from_environment().ensure_data_dir()
    passphrase = ask(f"New passphrase for {path}: ", "CAIRN_PASSPHRASE", twice=True)
    if not passphrase:
        raise InvalidRequest("Choose a passphrase: an empty one would leave the vault open.")
    return compose.create_vault(path, passphrase)


class ProgressLine:
    """A long run's ``done/total`` on one rewritten stderr line, left out with ``--json`` and
    when stderr is not a terminal (a log would fill with carriage returns)."""

    def __init__(self, args: argparse.Namespace, doing: str) -> None:
        self._doing = doing
        self._shown = not args.json and sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if self._shown and total:
            print(f"\r{self._doing} {done}/{total}", end="", file=sys.stderr, flush=True)

    def end(self) -> None:
        if self._shown:
            print(file=sys.stderr)


def scopes_of(service: MemoryService, args: argparse.Namespace) -> list[str]:
    return list(args.scope) if getattr(args, "scope", None) else service.scopes()


# -- output -----------------------------------------------------------------------------------


def emit(args: argparse.Namespace, data: Any, human: Callable[[], None]) -> None:
    if args.json:
        json.dump(data, sys.stdout, ensure_ascii=False, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    else:
        human()


def highlight(snippet: str, spans: Sequence[Sequence[int]]) -> str:
    if not sys.stdout.isatty():
        return snippet
    out, last = [], 0
    for start, end in spans:
        out += [snippet[last:start], "\033[1m", snippet[start:end], "\033[0m"]
        last = end
    out.append(snippet[last:])
    return "".join(out)


def one_line(text: str) -> str:
    return " ".join(text.split())


def after_nested_verb() -> argparse.ArgumentParser:
    """A parent parser that lets --vault and --json also follow a nested verb
    (``cairn token list --json``); SUPPRESS keeps a value given before the verb."""
    after = argparse.ArgumentParser(add_help=False)
    after.add_argument("--vault", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    after.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    return after
