"""``cairn ask``: a question answered from the vault's own sentences, each cited."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from cairn.app.answering.extract import Answer, Citation
from cairn.app.cli.common import emit, open_service, scopes_of

Verb = Callable[..., argparse.ArgumentParser]


def cmd_ask(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        answer = service.ask(args.question, scopes=scopes_of(service, args), as_of=args.as_of)
    emit(args, answer.as_dict(), lambda: print_answer(answer))
    return 0


def print_answer(answer: Answer) -> None:
    for note in answer.notes:
        print(f"note: {note}")
    if answer.abstained:
        print(answer.note)
        if answer.closest is not None:
            _print_citation(answer.closest)
        return
    for citation in answer.cited:
        _print_citation(citation)
    if answer.note:
        print(answer.note)
    print(f"confidence {answer.confidence:.2f}")


def _print_citation(citation: Citation) -> None:
    who = f"{citation.said_by}: " if citation.said_by else ""
    where = f", {citation.locator}" if citation.locator else ""
    print(f'  {who}"{citation.quote}"')
    print(f"    - {citation.title}{where} ({citation.id})")


def register(verb: Verb, scoped: argparse.ArgumentParser) -> None:
    ask = verb("ask", cmd_ask, "answer a question from your memories, with citations", scoped)
    ask.add_argument("question")
    ask.add_argument("--as-of", help="ask as of this date (YYYY-MM-DD)")
