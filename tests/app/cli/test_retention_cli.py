"""``cairn retention`` on a real vault, with a note recorded a month ago."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.app.cli_runner import Cli

ALL = ["personal"]


def _month_old_note(service: MemoryService, vault: Vault) -> str:
    node = service.write("Note", "Parked on level 3 today").node
    assert node is not None
    then = (datetime.now(UTC) - timedelta(days=30)).isoformat(timespec="microseconds")
    with vault.write() as conn:  # as if it had been written a month ago
        conn.execute("UPDATE nodes SET recorded_at = ? WHERE id = ?", (then, node.id))
    return node.id


def test_run_proposes_then_the_person_archives(
    service: MemoryService, vault: Vault, cli: Cli
) -> None:
    note = _month_old_note(service, vault)
    out, _ = cli("retention", "run", "--dry-run")
    assert "would propose archiving 1 memories" in out and note in out
    assert service.retention_log(scopes=ALL, node_id=note)[0]["action"] == "labelled"
    out, _ = cli("retention", "run")
    assert "cairn retention archive ID" in out
    listed = json.loads(cli("retention", "proposals", "--json")[0])
    assert [p["id"] for p in listed] == [note]
    out, _ = cli("retention", "archive", note)
    assert "archived" in out
    assert service.get([note], scopes=ALL, use=False).nodes[0].node.status == "archived"
    log = json.loads(cli("retention", "log", "--id", note, "--json")[0])
    assert [e["action"] for e in log] == ["archived", "proposed", "labelled"]
    assert "Nothing has faded" in cli("retention", "run")[0]


def test_auto_mode_from_the_settings_verb(service: MemoryService, vault: Vault, cli: Cli) -> None:
    note = _month_old_note(service, vault)
    cli("settings", "retention_mode", "auto")
    report = json.loads(cli("retention", "run", "--json")[0])
    assert report["archived"] == [note] and report["mode"] == "auto"


def test_keep_and_unknown_ids(service: MemoryService, vault: Vault, cli: Cli) -> None:
    note = _month_old_note(service, vault)
    assert cli("retention", "keep", note)[0].strip().endswith("kept")
    assert "No proposals" in cli("retention", "proposals")[0]
    _, err = cli("retention", "keep", "01NOSUCHMEMORY0000000000000", expect=1)
    assert "01NOSUCHMEMORY0000000000000" in err


def test_forget_from_the_shell_needs_a_confirmation(service: MemoryService, cli: Cli) -> None:
    node = service.write("Note", "The spare key is under the blue pot").node
    assert node is not None
    _, err = cli("forget", node.id, expect=1)  # stdin is not a terminal here
    assert "add --yes" in err
    assert service.get([node.id], scopes=ALL, use=False).nodes
    out, _ = cli("forget", node.id, "--yes")
    assert "Forgotten: 'The spare key is under the blue pot'" in out
    assert not service.get([node.id], scopes=ALL, use=False).nodes
    _, err = cli("forget", node.id, "--yes", expect=1)
    assert node.id in err
