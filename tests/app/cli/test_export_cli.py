"""``cairn export`` and ``cairn import`` as a person runs them: the plaintext warning on stderr,
a one-line summary, ``--scope`` keeping other compartments out, and an import that creates
the new vault it is given."""

from __future__ import annotations

import json
from pathlib import Path

from tests.app.cli_runner import Cli


def test_export_says_it_is_plaintext_and_import_makes_a_new_vault(
    cli_from_init: Cli, tmp_path: Path
) -> None:
    cli = cli_from_init
    cli("scope", "add", "work")
    cli("add", "--type", "Note", "--title", "Garden plan", "--body", "Tomatoes by the south wall.")
    cli("add", "--type", "Note", "--title", "Merger memo", "--body", "Confidential.", "--scope",
        "work")  # fmt: skip

    out, err = cli("export", str(tmp_path / "md"), "--scope", "personal")
    assert "plaintext, not encrypted" in err
    assert out.startswith("Exported 1 memories (markdown, 1 files) from personal to ")
    assert [p.name for p in (tmp_path / "md").iterdir()] == ["Garden plan.md"]

    out, err = cli("export", str(tmp_path / "all"), "--format", "jsonl")
    assert "plaintext, not encrypted" in err
    file = tmp_path / "all" / "memories.jsonl"
    assert out.strip() == f"Exported 2 memories (jsonl) from personal, work to {file}"

    _, err = cli("export", str(tmp_path / "all"), "--format", "jsonl", expect=1)
    assert "already holds files" in err

    restored = tmp_path / "restored.cairn"
    out, _ = cli("import", str(tmp_path / "all"), "--vault", str(restored))
    assert out.startswith(f"Imported 2 memories and 0 links into the new vault {restored}")
    found, _ = cli("search", "tomatoes", "--vault", str(restored), "--json")
    assert json.loads(found)["results"][0]["title"] == "Garden plan"

    # The same import again finds its own work done (a killed run would be finished here).
    out, _ = cli("import", str(file), "--vault", str(restored))
    assert out.startswith(f"{restored} already holds this import (2 memories and 0 links); ")
    assert "nothing left to do" in out
    # Once the vault holds more than the import, an import is refused and the vault kept.
    cli("add", "--type", "Note", "--title", "Later", "--body", "Written after.", "--vault",
        str(restored))  # fmt: skip
    _, err = cli("import", str(file), "--vault", str(restored), expect=1)
    assert "already holds 3 memories (an import of another file, or memories added" in err
    assert "cairn reindex" not in err  # every memory has its vector: nothing to finish
    assert restored.exists()  # a vault it did not make is left as it was

    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(file.read_text(encoding="utf-8").splitlines(True)[:-1]))
    _, err = cli("import", str(cut), "--vault", str(tmp_path / "never.cairn"), expect=1)
    assert "cut short" in err and "Nothing was imported" in err
    assert not list(tmp_path.glob("never.cairn*"))  # the vault it made for it is gone too
