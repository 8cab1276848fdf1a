"""The ``cli`` fixture: run ``cairn`` in-process on the test's vault and get its output."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cairn.app.cli.main import main
from cairn.app.service import MemoryService
from tests.conftest import PASSPHRASE

Cli = Callable[..., tuple[str, str]]


@pytest.fixture
def cli(
    service: MemoryService,
    vault_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Cli:
    monkeypatch.setenv("CAIRN_VAULT", str(vault_path))
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)

    def run(*argv: str, expect: int = 0) -> tuple[str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        assert code == expect, out + err
        return out, err

    return run
