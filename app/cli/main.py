"""The ``cairn`` command line: every verb of the service, human output or ``--json``.

The CLI has no memory semantics of its own: it parses, calls ``MemoryService`` and prints.
Errors a user can cause print one line on stderr and exit non-zero.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from cairn.app import compose
from cairn.app.cli import ask as asking
from cairn.app.cli import (
    backup,
    doctor,
    edit,
    ingest,
    memory,
    portability,
    receipts,
    retention,
    serve,
    tokens,
    watch,
)
from cairn.app.cli.common import (
    ProgressLine,
    ask,
    create_service,
    emit,
    highlight,
    one_line,
    open_service,
    scopes_of,
    vault_path,
)
from cairn.app.errors import CairnError, InvalidRequest
from cairn.app.process import diagnostic_log, privacy
from cairn.app.service import MemoryService

EXIT_ERROR = 1
_WHITESPACE = re.compile(r"\s")
EXIT_INTERRUPTED = 130
VERSION = "0.1.0"


# -- verbs ------------------------------------------------------------------------------------


def cmd_init(args: argparse.Namespace) -> int:
    path = vault_path(args)
    create_service(args, path).close()
    emit(args, {"vault": str(path), "created": True}, lambda: print(f"Created {path}"))
    return 0


_TRUE = {"true", "yes", "y", "1"}
_FALSE = {"false", "no", "n", "0"}


def _parse_attrs(service: MemoryService, type_name: str, pairs: Sequence[str]) -> dict[str, Any]:
    """``key=value`` pairs typed as the pack declares them; a value that does not fit is an
    error that says so, never a silent guess."""
    node_type = service.node_types().get(type_name)
    attrs: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        value = value.strip()
        if not sep or not key.strip():
            raise InvalidRequest(f"--attr takes key=value, got {pair!r}.")
        if not value:
            raise InvalidRequest(f"--attr {key} has no value; leave the attribute out instead.")
        spec = node_type.attrs.get(key) if node_type else None
        kind = spec.kind if spec else "string"
        if kind == "list":
            attrs[key] = [item.strip() for item in value.split(",") if item.strip()]
        elif kind == "number":
            attrs[key] = _number(key, value)
        elif kind == "boolean":
            if value.lower() not in _TRUE | _FALSE:
                raise InvalidRequest(f"{key} is yes or no (true/false), got {value!r}.")
            attrs[key] = value.lower() in _TRUE
        else:
            attrs[key] = value
    return attrs


def _number(key: str, value: str) -> int | float:
    try:
        number = float(value) if any(c in value for c in ".eE") else int(value)
    except ValueError:
        raise InvalidRequest(f"{key} is a number, got {value!r}.") from None
    if not math.isfinite(number):
        raise InvalidRequest(f"{key} is a finite number, got {value!r}.")
    return number


def cmd_add(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        body = sys.stdin.read() if args.body == "-" else (args.body or "")
        result = service.write(
            args.type,
            args.title,
            body,
            attrs=_parse_attrs(service, args.type, args.attr),
            scope=args.scope or compose.DEFAULT_SCOPE,
            source="cli",
            valid_from=args.valid_from,
            force_new=args.force_new,
        )
    emit(args, result.as_dict(), lambda: memory.describe_write(result))
    return 0 if result.node is not None else EXIT_ERROR


def cmd_search(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        response = service.search(
            args.query,
            scopes=scopes_of(service, args),
            limit=args.limit,
            include_archived=args.archived,
            include_history=args.history,
            profile=args.profile,
            as_of=args.as_of,
            diagnostics=args.diagnostics,
        )

    def human() -> None:
        for note in response.notes:
            print(f"note: {note}", file=sys.stderr)
        if not response.results:
            print("No memories match.")
        for i, hit in enumerate(response.results, start=1):
            status = "" if hit.status == "active" else f" ({hit.status})"
            status += " (awaiting review)" if hit.awaiting_review else ""
            print(f"{i:2}. [{hit.type}] {hit.title}{status}  ({hit.id})")
            # Whitespace becomes single spaces, one for one, so the highlight spans still fit.
            flat = _WHITESPACE.sub(" ", hit.snippet)
            print(f"    {highlight(flat, hit.highlights)}")
            if hit.collapsed:
                print(f"    (+{len(hit.collapsed)} near-identical)")
            if hit.diagnostics is not None:
                ranks = ", ".join(f"{leg} {rank or '-'}" for leg, rank in hit.ranks.items())
                print(f"    ranks: {ranks}; {hit.diagnostics}")

    emit(args, response.as_dict(), human)
    return 0


def cmd_get(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        response = service.get(args.ids, scopes=scopes_of(service, args))

    def human() -> None:
        for detail in response.nodes:
            node = detail.node
            print(f"{node.id}  [{node.type}] {node.title}  ({node.status}, {node.scope})")
            waiting = detail.awaiting_review
            if waiting:
                print(
                    f"  awaiting review: may repeat {waiting.other_title} "
                    f"({waiting.other_id}): {waiting.reason}; "
                    f"cairn resolve {waiting.item} distinct|merge"
                )
            if node.body:
                print(f"  {node.body}")
            for key, value in sorted(node.attrs.items()):
                shown = ", ".join(map(str, value)) if isinstance(value, list) else value
                print(f"  {key}: {shown}")
            if detail.merged_ids:
                print(f"  merged ids: {', '.join(detail.merged_ids)}")
            for edge in detail.edges:
                arrow = "->" if edge.direction == "out" else "<-"
                print(
                    f"  {arrow} {edge.type} {edge.other_id} [{edge.other_type}] {edge.other_title}"
                )
        for missing in response.missing:
            print(f"missing: {missing}", file=sys.stderr)

    emit(args, response.as_dict(), human)
    return 0 if response.nodes or not response.missing else EXIT_ERROR


def cmd_link(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        result = service.link(
            args.src, args.dst, args.type, scopes=scopes_of(service, args), rationale=args.why
        )
    emit(
        args,
        result.as_dict(),
        lambda: print(
            f"{'linked' if result.created else 'already linked'}: "
            f"{result.src} -{result.type}-> {result.dst}"
        ),
    )
    return 0


def cmd_traverse(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        response = service.traverse(
            args.id,
            scopes=scopes_of(service, args),
            depth=args.depth,
            direction=args.direction,
            edge_types=args.edge_type or None,
            as_of=args.as_of,
        )

    def human() -> None:
        for node in response.nodes:
            print(f"{'  ' * node.depth}[{node.type}] {node.title}  ({node.id})")
        if response.truncated:
            print("(stopped early: too many memories reached; narrow with --edge-type)")

    emit(args, response.as_dict(), human)
    return 0


def cmd_archive(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        scopes = scopes_of(service, args)
        act = service.unarchive if args.undo else service.archive
        node = act(args.id, scopes=scopes)
    emit(args, node.as_dict(), lambda: print(f"{node.status}: {node.title}"))
    return 0


def cmd_inbox(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        scopes = scopes_of(service, args)
        if args.inbox_verb == "add":
            item = service.inbox_capture(
                " ".join(args.text), scope=args.scope[0] if args.scope else compose.DEFAULT_SCOPE
            )
            emit(args, item.as_dict(), lambda: print(f"captured {item.id}"))
        elif args.inbox_verb == "list":
            items = service.inbox_list(scopes=scopes, include_decided=args.all)

            def human() -> None:
                for i in items:
                    print(f"{i.id}  {i.state:9} {one_line(i.text)[:70]}")
                if not items:
                    print("The inbox is empty.")

            emit(args, {"items": [i.as_dict() for i in items]}, human)
        elif args.inbox_verb == "promote":
            result = service.inbox_promote(args.id, scopes=scopes, type=args.type, title=args.title)
            emit(args, result.as_dict(), lambda: print(f"promoted to {result.id}"))
        else:
            item = service.inbox_discard(args.id, scopes=scopes)
            emit(args, item.as_dict(), lambda: print(f"discarded {item.id}"))
    return 0


def cmd_scope(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        if args.scope_verb == "add":
            created = service.add_scope(args.name)
            emit(
                args,
                {"scope": args.name, "created": created},
                lambda: print(("created " if created else "exists: ") + args.name),
            )
        else:
            names = service.scopes()
            emit(args, {"scopes": names}, lambda: print("\n".join(names)))
    return 0


def cmd_passwd(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        new = ask("New passphrase: ", "CAIRN_NEW_PASSPHRASE", twice=True)
        service.change_passphrase(new)
    emit(args, {"changed": True}, lambda: print("Passphrase changed."))
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        stats = service.stats(scopes=scopes_of(service, args))

    def human() -> None:
        total = sum(stats.nodes_by_type.values())
        print(
            f"{stats.vault}: {total} memories, {stats.edges} links, {stats.file_bytes / 1e6:.1f} MB"
        )
        for name, count in stats.nodes_by_type.items():
            print(f"  {name:14} {count}")
        print(f"vector search: {'on' if stats.vector_search else 'off'} ({stats.embedder})")

    emit(args, stats.as_dict(), human)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    with open_service(args) as service:
        report = service.verify()

    def human() -> None:
        print("vault: ok" if not report.integrity_problems else "vault: DAMAGED")
        for problem in report.integrity_problems + report.index_problems:
            print(f"  {problem}")
        chain = report.receipts
        print(f"receipts: {chain['count']}, {'intact' if chain['ok'] else chain['problem']}")

    emit(args, report.as_dict(), human)
    return 0 if report.ok else EXIT_ERROR


def cmd_reindex(args: argparse.Namespace) -> int:
    progress = ProgressLine(args, "embedding")
    with open_service(args) as service:
        count = service.rebuild_vectors(progress)
    progress.end()
    emit(args, {"embedded": count}, lambda: print(f"{count} memories embedded."))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from cairn.app.cli.demo import run_demo

    return run_demo()


# -- parser -----------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--vault", help="vault file (default: $CAIRN_VAULT, else the data dir)")
    common.add_argument("--json", action="store_true", help="print JSON")
    # The same options after a nested verb (`cairn inbox add ... --json`); SUPPRESS keeps the
    # nested parser from resetting a value given before the nested verb.
    nested = argparse.ArgumentParser(add_help=False)
    nested.add_argument("--vault", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    nested.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    nested.add_argument("--scope", action="append", default=argparse.SUPPRESS, help="scope")
    scoped = argparse.ArgumentParser(add_help=False)
    scoped.add_argument("--scope", action="append", help="scope to see (repeat; default: all)")

    parser = argparse.ArgumentParser(prog="cairn", description="Your memory, on your computer.")
    parser.add_argument("--version", action="version", version=f"cairn {VERSION}")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    def verb(
        name: str,
        handler: Callable[[argparse.Namespace], int],
        help_: str,
        *parents: argparse.ArgumentParser,
    ) -> argparse.ArgumentParser:
        sub = verbs.add_parser(name, parents=[common, *parents], help=help_)
        sub.set_defaults(handler=handler)
        return sub

    verb("init", cmd_init, "create a new vault")
    add = verb("add", cmd_add, "write a memory")
    add.add_argument("--type", required=True, help="node type, e.g. Note, Fact, Person")
    add.add_argument("--title", required=True)
    add.add_argument("--body", help="text, or - to read it from stdin")
    add.add_argument("--attr", action="append", default=[], metavar="KEY=VALUE")
    add.add_argument("--scope", help="scope to write to (default: personal)")
    add.add_argument("--valid-from", help="when it became true (YYYY-MM-DD)")
    add.add_argument(
        "--force-new", action="store_true", help="store an entity even if it looks like a duplicate"
    )
    search = verb("search", cmd_search, "find memories by meaning and words", scoped)
    search.add_argument("query")
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("--archived", action="store_true", help="include archived memories")
    search.add_argument("--history", action="store_true", help="include superseded memories")
    search.add_argument(
        "--profile",
        choices=["fast", "balanced"],
        default="balanced",
        help="fast: words and meaning; balanced: also what the top hits link to through people, "
        "places, projects (the same as fast where nothing is linked)",
    )
    search.add_argument("--as-of", help="what was true at this date (YYYY-MM-DD)")
    search.add_argument("--diagnostics", action="store_true", help="show each leg's ranks")
    get = verb("get", cmd_get, "show memories by id", scoped)
    get.add_argument("ids", nargs="+")
    link = verb("link", cmd_link, "connect two memories", scoped)
    link.add_argument("src")
    link.add_argument("dst")
    link.add_argument("--type", required=True, help="edge type, e.g. mentions, works_at")
    link.add_argument("--why", help="rationale kept with the link")
    trav = verb("traverse", cmd_traverse, "walk the graph from a memory", scoped)
    trav.add_argument("id")
    trav.add_argument("--depth", type=int, default=1)
    trav.add_argument("--direction", choices=["out", "in", "both"], default="both")
    trav.add_argument("--edge-type", action="append")
    trav.add_argument("--as-of", help="walk the graph as it stood at this date (YYYY-MM-DD)")
    archive = verb("archive", cmd_archive, "hide a memory from default reads", scoped)
    archive.add_argument("id")
    archive.add_argument("--undo", action="store_true", help="bring it back")
    inbox = verb("inbox", cmd_inbox, "quick captures", scoped)
    inbox_verbs = inbox.add_subparsers(dest="inbox_verb", required=True)
    inbox_add = inbox_verbs.add_parser("add", help="capture text", parents=[nested])
    inbox_add.add_argument("text", nargs="+")
    inbox_list = inbox_verbs.add_parser("list", help="list open captures", parents=[nested])
    inbox_list.add_argument("--all", action="store_true", help="also promoted and discarded")
    promote = inbox_verbs.add_parser(
        "promote", help="turn a capture into a memory", parents=[nested]
    )
    promote.add_argument("id")
    promote.add_argument("--type", default="Note")
    promote.add_argument("--title")
    discard = inbox_verbs.add_parser(
        "discard", help="set a capture aside (kept, not deleted)", parents=[nested]
    )
    discard.add_argument("id")
    scope = verb("scope", cmd_scope, "list or add scopes")
    scope_verbs = scope.add_subparsers(dest="scope_verb", required=True)
    scope_add = scope_verbs.add_parser("add", parents=[nested])
    scope_add.add_argument("name")
    scope_verbs.add_parser("list", parents=[nested])
    verb("passwd", cmd_passwd, "change the passphrase")
    verb("stats", cmd_stats, "counts and sizes", scoped)
    verb("verify", cmd_verify, "check the file's integrity and the receipt chain")
    verb("reindex", cmd_reindex, "embed memories that lack a vector (turns vector search on)")
    verb("demo", cmd_demo, "a tour of the sample on a temporary vault")
    memory.register(verb, scoped)
    asking.register(verb, scoped)
    edit.register(verb, scoped)
    ingest.register(verb)
    watch.register(verb)
    receipts.register(verb)
    backup.register(verb)
    doctor.register(verb)
    tokens.register(verb)
    serve.register(verb)
    retention.register(verb, scoped)
    portability.register(verb, scoped)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # Before anything is read: a crash of this process must not write memory to a core file.
    privacy.protect()
    # Ingest reads each file in a worker started with the spawn method, which in a frozen
    # (PyInstaller) build re-runs this program: the worker must branch off before any parsing.
    multiprocessing.freeze_support()
    # Faults and the long operations' timings go to the data folder's log (never a memory).
    compose.start_log("cli")
    args = build_parser().parse_args(argv)
    # An export killed before it finished left plaintext beside its destination: it goes
    # now, whatever this command is, and the person hears what went.
    for swept in compose.sweep_unfinished_exports():
        print(f"cairn: {swept.sentence()}", file=sys.stderr)
    try:
        return int(args.handler(args))
    except CairnError as error:
        print(f"cairn: {error}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as error:
        if isinstance(error, BrokenPipeError):  # `cairn search ... | head` closed early
            # Python would complain again at exit while flushing stdout into the closed pipe.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_ERROR
        where = f" ({error.filename})" if error.filename else ""
        print(f"cairn: {error.strerror or error}{where}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("cairn: interrupted; nothing half-written was kept.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # a bug: its frames to the log, and Python's traceback as ever
        diagnostic_log.fault(error, f"the command line (cairn {args.verb})")
        print(
            "cairn: something went wrong inside Cairn, a fault and not something you did. "
            f"Please report this{diagnostic_log.with_the_log()}.",
            file=sys.stderr,
        )
        raise


if __name__ == "__main__":
    sys.exit(main())
