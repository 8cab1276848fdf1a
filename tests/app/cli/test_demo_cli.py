"""``cairn demo``: the sample, toured on a temporary vault that is gone afterwards."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.cli.main import main
from cairn.app.embedding.model import MiniLMEmbedder


def test_the_demo_tours_the_sample_removes_it_and_leaves_no_vault(
    embedder: MiniLMEmbedder,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(compose, "default_embedder", lambda: embedder)
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "wrote Person       Ottilie Brask" in out
    assert "linked Kasimir Dunmore -works_at-> Wendle Vale Council" in out
    assert "waiting for review: Site visit, typed up later" in out
    searched = out.split('search "weight limit":\n')[1].splitlines()
    assert searched[0] == "  [Fact] Footbridge load limit"
    assert "[superseded] The Old Mill Footbridge is rated for 5 tonnes." in out
    assert re.search(r"Removed the sample: \d+ memories forgotten", out)
    assert "verify: ok" in out
    vault = Path(re.findall(r"Creating an encrypted vault at (\S+) \.\.\.", out)[0])
    assert not vault.exists() and not vault.parent.exists()
