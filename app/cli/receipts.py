"""``cairn receipts export`` and ``cairn receipts verify``: proof that history was not rewritten.

``export`` prints the receipt chain's head hash and count, for the person to keep somewhere
else; ``verify --head H --count N`` later checks that receipt number N still has hash H, so the
chain then is a prefix of the chain now. Receipts hold kinds, times and counters only, so what
leaves the vault this way says nothing about what the memories are.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from cairn.app.cli.common import after_nested_verb, emit, open_service
from cairn.app.upkeep.receipts import ChainExport, exported

Verb = Callable[..., argparse.ArgumentParser]
EXIT_BROKEN = 1


def cmd_receipts(args: argparse.Namespace) -> int:
    # Checked before the passphrase is asked for: a mistyped hash needs no vault.
    expected = None if args.receipts_verb == "export" else exported(args.head, args.count)
    # No model: checking hashes needs none, and a broken model must not block the check.
    with open_service(args, with_embedder=False) as service:
        if args.receipts_verb == "export":
            return _export(args, service.export_receipts())
        head, count = expected or (None, None)
        report = service.verify_receipts(head=head, count=count)

    def human() -> None:
        if not report.ok:
            print(f"The receipt chain is not intact: {report.problem}.")
            return
        print(f"receipts: {report.count}, intact")
        if expected is not None:
            print(
                f"receipt {expected[1]} still has the hash you exported: "
                "since then, history was only added to."
            )

    given = None if expected is None else {"head": expected[0], "count": expected[1]}
    emit(args, {**report.as_dict(), "exported": given}, human)
    return 0 if report.ok else EXIT_BROKEN


def _export(args: argparse.Namespace, chain: ChainExport) -> int:
    report = chain.report
    if not report.ok:
        # A head taken from a broken chain would vouch for a history already changed.
        print(
            f"cairn: the receipt chain is not intact ({report.problem}); nothing was exported. "
            "`cairn receipts verify` checks it.",
            file=sys.stderr,
        )
        return EXIT_BROKEN
    if args.full and not args.json:
        # JSON lines, one receipt each in chain order: the last line's hash is the head, the
        # number of lines the count. The summary goes to stderr so `> file` keeps only lines.
        for receipt in chain.receipts:
            print(json.dumps(receipt, ensure_ascii=False, sort_keys=True, separators=(",", ":")))
        print(f"head {report.head}, count {report.count}", file=sys.stderr)
        return 0

    def human() -> None:
        print(f"head:  {report.head}")
        print(f"count: {report.count}")
        print(
            "Keep both somewhere other than this computer. Later, "
            f"`cairn receipts verify --head {report.head} --count {report.count}` "
            "shows whether the history up to now was rewritten."
        )

    emit(args, chain.as_dict(full=args.full), human)
    return 0


def register(verb: Verb) -> None:
    receipts = verb("receipts", cmd_receipts, "prove later that history was not rewritten")
    verbs = receipts.add_subparsers(dest="receipts_verb", required=True)
    after = after_nested_verb()
    export = verbs.add_parser(
        "export", parents=[after], help="print the chain's head hash and count, to keep elsewhere"
    )
    export.add_argument(
        "--full", action="store_true", help="the receipts themselves, one JSON line each"
    )
    check = verbs.add_parser(
        "verify", parents=[after], help="check the chain, and that it still holds an exported head"
    )
    check.add_argument("--head", metavar="HASH", help="the head hash an export printed")
    check.add_argument("--count", type=int, metavar="N", help="the count the same export printed")
