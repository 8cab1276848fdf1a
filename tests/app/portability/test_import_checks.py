"""``cairn import`` checks a file like a write: each case of ``import_corpus`` (a real export
damaged one way) is refused with a sentence naming its line and field and saying what to do,
never a traceback, and the vault it was imported into holds afterwards exactly what it held
before (the import is one transaction); the real command exits non-zero and removes the vault
it made. Damage at random gets a sentence or a whole import, never anything else."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.errors import InvalidRequest
from cairn.app.portability.jsonl_import import ImportRejected
from cairn.storage.vault import Vault
from tests.app.portability import import_corpus
from tests.app.portability.import_cases import CASES
from tests.app.portability.import_corpus import Case, file_bytes, kind_of, lines_of, names_line
from tests.conftest import PASSPHRASE, Opened, create_service

# What a refusal says to do about it.
WHAT_TO_DO = r"export again from the original vault|Export with `cairn export|Update Cairn"
# Random damages per run; a stress run (make stress) asks for many more.
ROUNDS = 10 * int(os.environ.get("CAIRN_STRESS_TRIALS", "3"))
SEED = int(os.environ.get("CAIRN_CRASH_SEED") or random.SystemRandom().randrange(1 << 32))


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Path:
    root = tmp_path_factory.mktemp("import-corpus")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CAIRN_DATA_DIR", str(root / "data"))
        with compose.create_vault(root / "source.cairn", PASSPHRASE, embedder=embedder) as source:
            return import_corpus.build(source, root)


@pytest.fixture(scope="module")
def target(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder
) -> Iterator[tuple[Opened, dict[str, Any]]]:
    """One new vault every refusal must leave as it was, and what it holds."""
    root = tmp_path_factory.mktemp("import-target")
    service, vault = create_service(root / "target.cairn", embedder)
    yield Opened(service, vault), held(vault)
    service.close()


def held(vault: Vault) -> dict[str, Any]:
    """Everything an import could have written: every row of every table it writes."""
    with vault.read() as conn:
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' "
                "AND name NOT LIKE 'search_index_%' ORDER BY name"
            )
        ]
        return {t: [tuple(r) for r in conn.execute(f"SELECT * FROM {t}")] for t in tables}


def damaged_file(case: Case, export: Path, folder: Path) -> tuple[Path, int | None]:
    damaged, line = case.damage(lines_of(export))
    file = folder / "damaged.jsonl"
    file.write_bytes(file_bytes(damaged))
    return file, line


def test_the_export_the_cases_damage_imports_whole(
    export: Path, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """So each refusal below is the damage's own, and ``get`` reads back what was imported
    (an unchecked time once made it end in a traceback)."""
    with compose.create_vault(tmp_path / "whole.cairn", PASSPHRASE, embedder=embedder) as whole:
        report = whole.import_jsonl(export)
        nodes = sum(1 for line in lines_of(export) if kind_of(line) == "node")
        assert nodes >= 19  # something of everything, and the names its texts state
        assert report.counts["node"] == nodes and report.embedded == nodes
        assert whole.verify().ok
        scopes = whole.scopes()
        ids = [n.id for n in whole.list_memories(scopes=scopes, limit=100)]
        for start in range(0, len(ids), 25):
            assert len(whole.get(ids[start : start + 25], scopes=scopes).nodes) == len(
                ids[start : start + 25]
            )


def test_the_corpus_holds_every_kind_of_damage() -> None:
    assert len(CASES) >= 40
    assert len({case.name for case in CASES}) == len(CASES)
    fields = {case.field for case in CASES if case.field}
    for kind_of_field in ("recorded_at", "access_count", "importance", "title", "attrs", "id"):
        assert kind_of_field in fields


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_a_malformed_import_is_refused_by_line_and_field_and_nothing_is_kept(
    case: Case,
    export: Path,
    target: tuple[Opened, dict[str, Any]],
    tmp_path: Path,
) -> None:
    (service, vault), before = target
    file, line = damaged_file(case, export, tmp_path)
    with pytest.raises(ImportRejected) as refused:
        service.import_jsonl(file)
    message = str(refused.value)
    assert re.search(case.says, message), message
    assert names_line(message, line, case.field), (line, case.field, message)
    assert re.search(WHAT_TO_DO, message), message
    assert held(vault) == before


SAMPLE = [
    "node recorded_at yesterday",
    "node access_count 10**40",
    "node attrs 200,000 deep",
    "node title 123",
    "pack twice",
    "bytes not UTF-8",
    "edge dst a memory not there",
]


@pytest.mark.parametrize("name", SAMPLE)
def test_the_command_refuses_with_a_sentence_and_removes_the_vault_it_made(
    name: str, export: Path, tmp_path: Path
) -> None:
    [case] = [c for c in CASES if c.name == name]
    file, line = damaged_file(case, export, tmp_path)
    vault = tmp_path / "new.cairn"
    done = subprocess.run(
        [sys.executable, "-m", "cairn.app.cli", "import", str(file), "--vault", str(vault)],
        capture_output=True,
        text=True,
        env={**os.environ, "CAIRN_PASSPHRASE": PASSPHRASE},
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("cairn: ") and "Traceback" not in done.stderr, done.stderr
    assert names_line(done.stderr, line, case.field), done.stderr
    assert re.search(case.says, done.stderr), done.stderr
    assert not list(tmp_path.glob("new.cairn*"))


@pytest.mark.crash
def test_damage_at_random_gets_a_sentence_or_a_whole_import(
    export: Path, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """``ROUNDS`` random damages (``CAIRN_CRASH_SEED`` replays a run's choices)."""
    rng = random.Random(SEED)
    lines = lines_of(export)
    service, vault = create_service(tmp_path / "t0.cairn", embedder)
    before = held(vault)
    accepted = 0
    try:
        for round_ in range(ROUNDS):
            file = tmp_path / "damaged.jsonl"
            file.write_bytes(import_corpus.scrambled(lines, rng))
            try:
                service.import_jsonl(file)
            except InvalidRequest as refused:
                assert str(refused).startswith(str(file)), (SEED, round_, str(refused))
                assert held(vault) == before, (SEED, round_)
                continue
            # Still a valid export (a flipped letter of a body): then it came in whole.
            accepted += 1
            assert service.verify().ok, (SEED, round_)
            scopes = service.scopes()
            for memory in service.list_memories(scopes=scopes, limit=100):
                assert service.get([memory.id], scopes=scopes).nodes, (SEED, round_)
            service.close()
            service, vault = create_service(tmp_path / f"t{round_ + 1}.cairn", embedder)
            before = held(vault)
    finally:
        service.close()
    assert accepted < ROUNDS, SEED  # the damage did damage
