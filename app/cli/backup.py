"""``cairn backup``, ``cairn restore`` and ``cairn verify-restore``: copies of the vault.

A backup is an encrypted copy taken while the vault stays open (the window may keep writing);
it opens only with the vault's passphrase. ``restore`` puts a checked copy of a backup in place;
``verify-restore`` checks a backup or a restored vault without changing it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from cairn.app.cli.common import ask, emit, open_service
from cairn.app.upkeep import backups
from cairn.app.upkeep.backups import CopyReport, CopyResult
from cairn.app.upkeep.receipts import exported

Verb = Callable[..., argparse.ArgumentParser]
EXIT_FAILED = 1


def cmd_backup(args: argparse.Namespace) -> int:
    # No model: copying pages needs none, and a broken model must not block a backup.
    with open_service(args, with_embedder=False) as service:
        result = service.backup(args.dest, overwrite=args.force)

    def human() -> None:
        state = "checks out" if result.report.ok else "is whole"
        print(f"Backed up to {result.path} ({_size(result.size)}); the copy {state}.")
        _chain_lines(result)
        for problem in result.report.problems:  # a broken receipt chain, copied as it is
            print(f"note: {problem} `cairn receipts verify` checks the vault.", file=sys.stderr)
        print("It opens only with this vault's passphrase.")
        _removed_line(result)

    emit(args, result.as_dict(), human)
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    src, dest = Path(args.src).expanduser(), Path(args.dest).expanduser()
    backups.check_restore_target(src, dest, overwrite=args.force)
    passphrase = ask(f"Passphrase for {src}: ", "CAIRN_PASSPHRASE")
    result = backups.restore(src, dest, passphrase, overwrite=args.force)

    def human() -> None:
        print(f"Restored {src} to {result.path}; the copy checks out.")
        _chain_lines(result)
        _removed_line(result)
        if result.replaced:
            print(
                f"The vault it replaced is kept at {result.replaced}; "
                "delete it once the restored vault is as you expect."
            )

    emit(args, result.as_dict(), human)
    return 0


def cmd_verify_restore(args: argparse.Namespace) -> int:
    exported(args.head, args.count)  # a mistyped hash is said before the passphrase is asked
    path = backups.require_copy(Path(args.file))
    passphrase = ask(f"Passphrase for {path}: ", "CAIRN_PASSPHRASE")
    report = backups.verify_copy(path, passphrase, head=args.head, count=args.count)
    emit(args, report.as_dict(), lambda: _describe(report))
    return 0 if report.ok else EXIT_FAILED


def _describe(report: CopyReport) -> None:
    if not report.ok:
        print(f"{report.path}: FAILED")
        for problem in report.problems:
            print(f"  {problem}")
        return
    chain = report.receipts
    count = 0 if chain is None else chain.count
    print(f"{report.path}: ok (sound, a whole Cairn vault, {count} receipts intact)")
    if report.expected is not None:
        print(
            f"receipt {report.expected[1]} still has the hash you exported: "
            "since then, history was only added to."
        )


def _chain_lines(result: CopyResult) -> None:
    chain = result.report.receipts
    if chain is not None:
        print(f"receipts: {chain.count}, head {chain.head}")


def _removed_line(result: CopyResult) -> None:
    count = len(result.removed_partials)
    if count:
        print(
            f"Removed {count} temporary file{'s' if count > 1 else ''} "
            f"({_size(result.removed_bytes)}) that an interrupted backup or restore had left "
            f"beside {result.path}."
        )


def _size(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.0f} kB"


def register(verb: Verb) -> None:
    dump = verb("backup", cmd_backup, "an encrypted copy of the vault, taken while it is open")
    dump.add_argument("dest", metavar="DEST", help="the backup file, or a folder to put it in")
    dump.add_argument("--force", action="store_true", help="replace DEST if it exists")
    back = verb("restore", cmd_restore, "put a checked copy of a backup in place as a vault")
    back.add_argument("src", metavar="SRC", help="the backup file")
    back.add_argument("dest", metavar="DEST", help="where the restored vault goes")
    back.add_argument(
        "--force",
        action="store_true",
        help="replace DEST if it exists (only once the copy checks out; the old file is kept)",
    )
    check = verb(
        "verify-restore", cmd_verify_restore, "check a backup or restored vault, changing nothing"
    )
    check.add_argument("file", metavar="FILE")
    check.add_argument("--head", metavar="HASH", help="a head hash `cairn receipts export` printed")
    check.add_argument("--count", type=int, metavar="N", help="the count the same export printed")
