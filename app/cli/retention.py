"""``cairn retention run|proposals|archive|keep|log``: the retention supervisor from a shell.

``run`` is the pass the window runs on a schedule; ``--dry-run`` only says what it would
propose. Whether the pass archives by itself is the vault's ``retention_mode`` setting
(``cairn settings retention_mode auto``); by default it only proposes.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from cairn.app.cli.common import after_nested_verb, emit, open_service, scopes_of
from cairn.app.retention.supervisor import Proposal

Verb = Callable[..., argparse.ArgumentParser]


def _print_proposals(proposals: list[Proposal]) -> None:
    for proposal in proposals:
        print(f"{proposal.id}  {proposal.type:<10} {proposal.title}")
        print(f"    {proposal.reason}")


def cmd_retention(args: argparse.Namespace) -> int:
    with open_service(args, with_embedder=False) as service:
        if args.what == "run":
            report = service.run_retention(dry_run=args.dry_run)

            def ran() -> None:
                if report.labelled:
                    print(f"Labelled {report.labelled} older memories.")
                if report.archived:
                    print(f"Archived {len(report.archived)} faded ephemeral memories:")
                elif report.proposals:
                    verb = "would propose" if report.dry_run else "proposes"
                    print(f"The supervisor {verb} archiving {len(report.proposals)} memories:")
                else:
                    print("Nothing has faded; nothing to archive.")
                _print_proposals(report.proposals)
                if report.proposals and not report.archived and not report.dry_run:
                    print(
                        "Archive one with `cairn retention archive ID`, or keep it with "
                        "`cairn retention keep ID`."
                    )

            emit(args, report.as_dict(), ran)
            return 0
        scopes = scopes_of(service, args)
        if args.what == "proposals":
            proposals = service.retention_proposals(scopes=scopes)

            def listed() -> None:
                if not proposals:
                    print("No proposals: nothing ephemeral has faded.")
                _print_proposals(proposals)

            emit(args, [p.as_dict() for p in proposals], listed)
            return 0
        if args.what in ("archive", "keep"):
            decide = service.archive_proposal if args.what == "archive" else service.keep
            decide(args.id, scopes=scopes)
            done = (
                "archived (undo: `cairn archive --undo ID`)" if args.what == "archive" else "kept"
            )
            emit(args, {"id": args.id, "decision": args.what}, lambda: print(f"{args.id} {done}"))
            return 0
        entries = service.retention_log(scopes=scopes, node_id=args.id, limit=args.limit)

    def logged() -> None:
        if not entries:
            print("The retention log is empty.")
        for entry in entries:
            label = f" [{entry['label']}]" if entry["label"] else ""
            print(
                f"{entry['at'][:19]}  {entry['action']:<8}{label} {entry['title']!r} "
                f"by {entry['actor']}: {entry['reason']}"
            )

    emit(args, entries, logged)
    return 0


def register(verb: Verb, scoped: argparse.ArgumentParser) -> None:
    retention = verb("retention", cmd_retention, "what fades, what stays, and why")
    verbs = retention.add_subparsers(dest="what", required=True)
    after = after_nested_verb()
    run = verbs.add_parser(
        "run", parents=[after], help="the supervisor's pass: propose (or archive) faded memories"
    )
    run.add_argument("--dry-run", action="store_true", help="say what it would do; change nothing")
    verbs.add_parser(
        "proposals", parents=[after, scoped], help="faded ephemeral memories awaiting a decision"
    )
    for name, about in (
        ("archive", "archive a proposed memory"),
        ("keep", "keep it: not ephemeral"),
    ):
        decide = verbs.add_parser(name, parents=[after, scoped], help=about)
        decide.add_argument("id")
    log = verbs.add_parser("log", parents=[after, scoped], help="every decision with its reason")
    log.add_argument("--id", help="one memory's decisions")
    log.add_argument("--limit", type=int, default=50)
