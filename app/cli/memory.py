"""``cairn`` verbs that keep memory clean: what a write did, the review queue, supersede and
history, forget, the briefing, and the vault's memory settings."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from cairn.app.cli.common import emit, one_line, open_service, scopes_of
from cairn.app.errors import InvalidRequest
from cairn.app.models import WriteResult

Verb = Callable[..., argparse.ArgumentParser]


def describe_write(result: WriteResult) -> None:
    """What a write did and what it means, in a few lines a person can act on."""
    node = result.node
    if node is None:
        print(f"{result.outcome}: not stored, it looks like something you already have:")
        for other in result.did_you_mean:
            print(f"  did you mean [{other.type}] {other.title} ({other.id})?")
        print("  Store it anyway with --force-new.")
        return
    print(f"{result.outcome} {node.type} {node.id}: {node.title}")
    if not result.embedded:
        print("  (not embedded: vector search will need a reindex)")
    if result.matched:
        print(f"  matched [{result.matched.type}] {result.matched.title}: {result.matched.reason}")
    if result.verdict:
        print(
            f"  kept and searchable, awaiting review {result.verdict}: "
            f"cairn resolve {result.verdict} distinct|merge"
        )
    if result.suggestion:
        print(f"  {result.suggestion}")
    for kind, items in (
        ("possible duplicate of", result.possible_duplicate_of),
        ("same name as", result.label_conflict),
        ("archived, revive?", result.revive_candidate),
    ):
        for item in items:
            print(f"  {kind} [{item.type}] {item.title} ({item.id}): {item.reason}")
    for link in result.links:
        print(f"  linked -{link.type}-> {link.title}")
    for stub in result.stubs_created:
        print(f"  new stub [{stub.type}] {stub.title} (describe it later)")
    for relation in result.relations_from_tags:
        print(f"  linked -{relation.edge_type}-> {relation.title} ({relation.reason})")
    for hint in result.enrich_hints:
        print(f"  {hint.title}: {hint.hint}")
    if result.orphan_warning:
        print("  not linked to anything yet" + (": maybe" if result.suggested_relations else ""))
    for relation in result.suggested_relations:
        print(f"    -{relation.edge_type}-> {relation.title} ({relation.reason})")
    for similar in result.resonance:
        print(f"  related: {similar.title} ({similar.score:.2f})")


def cmd_pending(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        items = service.pending(scopes=scopes_of(service, args), kinds=args.kind or None)

    def human() -> None:
        if not items:
            print("Nothing waits for review.")
        for item in items:
            flags = f" [{', '.join(item.flags)}]" if item.flags else ""
            print(f"{item.id}  {item.kind}{flags}: {item.reason}")
            for label, side in (("new:  ", item.node), ("other:", item.other)):
                if side is not None:
                    print(f"   {label} [{side.type}] {side.title}: {one_line(side.text)[:100]}")

    emit(args, [item.as_dict() for item in items], human)
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        scopes = scopes_of(service, args)
        if args.decision == "dismiss":
            item = service.dismiss(args.item, scopes=scopes)
            emit(args, item.as_dict(), lambda: print(f"dismissed {item.kind} {item.id}"))
            return 0
        result = service.resolve_duplicate(args.item, args.decision, scopes=scopes)
    assert result.node is not None
    node = result.node
    emit(args, result.as_dict(), lambda: print(f"{result.outcome}: {node.title} ({node.id})"))
    return 0


def cmd_supersede(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        history = service.supersede(args.old, args.new, scopes=scopes_of(service, args))
    emit(args, history.as_dict(), lambda: _print_history(history.as_dict()))
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        history = service.history(args.id, scopes=scopes_of(service, args))
    emit(args, history.as_dict(), lambda: _print_history(history.as_dict()))
    return 0


def _print_history(data: dict[str, Any]) -> None:
    """Each version with what it said, and the words it changed from the one before."""
    for i, entry in enumerate(data["chain"]):
        here = "*" if i == data["position"] else " "
        valid = f"{entry['valid_from'] or entry['recorded_at'][:10]} .. {entry['valid_to'] or ''}"
        print(f"{here} {entry['id']}  [{entry['status']}] {entry['title']}  ({valid})")
        for line in entry.get("body", "").splitlines():
            print(f"    {line}")
        if entry.get("changes"):
            print(f"    changed: {entry['changes']}")


def cmd_briefing(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        briefing = service.briefing(scopes=scopes_of(service, args), today=args.today)

    def human() -> None:
        print(f"Briefing for {briefing.today}")
        print("Due:" if briefing.due else "Nothing due this week.")
        for item in briefing.due:
            late = " (overdue)" if item.overdue else ""
            print(f"  {item.due}{late}  {item.title}  ({item.id})")
        if briefing.review_count:
            print(f"{briefing.review_count} waiting for review (cairn pending):")
            for review in briefing.reviews:
                print(f"  {review.kind}: {review.reason}  ({review.id})")
        if briefing.stubs_to_enrich:
            print("Worth describing:")
            for stub in briefing.stubs_to_enrich:
                print(f"  {stub.title}, linked {stub.degree} times  ({stub.id})")
        print("Recent:")
        for recent in briefing.recent:
            waiting = " (awaiting review)" if recent.awaiting_review else ""
            print(f"  [{recent.type}] {recent.title}{waiting}  ({recent.id})")

    emit(args, briefing.as_dict(), human)
    return 0


def cmd_settings(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        values = (
            service.change_setting(args.name, args.value)
            if args.value is not None
            else service.settings()
        )
    if args.name and args.name not in values:
        # Fix: a mistyped name printed every setting and exited 0, as if it had been found.
        raise InvalidRequest(
            f"There is no setting {args.name!r}; there are {', '.join(sorted(values))}."
        )
    shown = {args.name: values[args.name]} if args.name else values

    def human() -> None:
        for name, value in sorted(shown.items()):
            print(f"{name} = {value}")

    emit(args, shown, human)
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    """The only deletion, so it is confirmed: at a prompt, or with --yes in a script."""
    with open_service(args, with_embedder=False) as service:
        scopes = scopes_of(service, args)
        found = service.get([args.id], scopes=scopes, use=False).nodes
        if not found:
            raise InvalidRequest(f"No memory {args.id} in the scopes you can see.")
        title = found[0].node.title
        if not args.yes:
            if not sys.stdin.isatty():
                raise InvalidRequest(
                    f"Forgetting {title!r} deletes it for good; add --yes to confirm."
                )
            answer = input(f"Forget {title!r} for good? It cannot be brought back. [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                print("Nothing forgotten.")
                return 1
        result = service.forget(args.id, scopes=scopes)

    def human() -> None:
        print(f"Forgotten: {result.title!r} ({result.forgotten} memories with its parts).")
        if result.note is not None:
            print(result.note)

    emit(args, result.as_dict(), human)
    return 0


def register(verb: Verb, scoped: argparse.ArgumentParser) -> None:
    pending = verb("pending", cmd_pending, "what waits for review (duplicates, conflicts)", scoped)
    pending.add_argument(
        "--kind", action="append", choices=["duplicate", "label_conflict", "revive_candidate"]
    )
    resolve = verb("resolve", cmd_resolve, "settle a review item", scoped)
    resolve.add_argument("item", help="the review item's id (see cairn pending)")
    resolve.add_argument(
        "decision",
        choices=["distinct", "merge", "dismiss"],
        help="distinct: keep both; merge: fold the new one into the other; dismiss: close",
    )
    supersede = verb("supersede", cmd_supersede, "mark OLD as replaced by NEW", scoped)
    supersede.add_argument("old")
    supersede.add_argument("new")
    forget = verb("forget", cmd_forget, "delete a memory for good (the only deletion)", scoped)
    forget.add_argument("id")
    forget.add_argument("--yes", action="store_true", help="confirm without a prompt")
    history = verb("history", cmd_history, "a memory's versions, oldest first", scoped)
    history.add_argument("id")
    briefing = verb("briefing", cmd_briefing, "what is due, recent, and waiting", scoped)
    briefing.add_argument("--today", help="the day to brief for (YYYY-MM-DD; default today)")
    settings = verb("settings", cmd_settings, "show or change the vault's memory settings")
    settings.add_argument("name", nargs="?")
    settings.add_argument("value", nargs="?")
