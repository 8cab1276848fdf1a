"""``cairn doctor``: what is missing or too open on this computer, and what to do about it.

Needs no passphrase and opens no vault. Exit 0 when nothing fails (warnings are fine), 1 when
something does.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from cairn.app.cli.common import emit
from cairn.app.doctor import checks

Verb = Callable[..., argparse.ArgumentParser]
EXIT_FAILED = 1


def cmd_doctor(args: argparse.Namespace) -> int:
    situation = checks.Situation.from_environment(Path(args.vault) if args.vault else None)
    findings = checks.run_checks(situation)
    failed = any(finding.status == checks.FAIL for finding in findings)

    def human() -> None:
        width = max(len(finding.name) for finding in findings)
        for finding in findings:
            advice = f"  -> {finding.advice}" if finding.advice else ""
            print(f"{finding.status:4}  {finding.name:{width}}  {finding.detail}{advice}")

    emit(args, {"ok": not failed, "findings": checks.as_dicts(findings)}, human)
    return EXIT_FAILED if failed else 0


def register(verb: Verb) -> None:
    verb(
        "doctor",
        cmd_doctor,
        "check encryption, models, OCR, Qt, disk space and permissions (no passphrase needed)",
    )
