"""The ``cli`` fixture: run ``cairn`` in-process on the test's vault and get its output."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.cli.main import main
from cairn.app.embedding.model import MiniLMEmbedder
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


@pytest.fixture
def cli_from_init(
    vault_path: Path,
    embedder: MiniLMEmbedder,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Cli:
    """``cairn`` in-process on a vault it creates itself (``cairn init``), with the model the
    session loaded instead of loading it again for each verb."""
    monkeypatch.setenv("CAIRN_VAULT", str(vault_path))
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    monkeypatch.setattr(compose, "default_embedder", lambda: embedder)

    def run(*argv: str, expect: int = 0) -> tuple[str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        assert code == expect, (out, err)
        return out, err

    run("init")
    return run
