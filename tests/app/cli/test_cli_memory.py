"""The ``cairn`` verbs that keep memory clean, end to end through ``main()``: what a write did,
block mode, the review queue, supersede and history, as-of and diagnostic search, the
briefing, and the vault's settings.

Each ``main()`` call opens the vault and loads the model (about a second), so vaults are made
and filled through the service with the session's embedder, and the CLI runs only the verbs
under test.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.app import compose
from cairn.app.cli.main import main
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.memory_settings import SETTINGS
from cairn.app.service import MemoryService
from tests.conftest import PASSPHRASE

ALL = ["personal"]
Run = Callable[..., tuple[str, str]]
LUNCH = "Had lunch with Marta at the harbour cafe."
LUNCH_AGAIN = "Lunch with Marta at the cafe by the harbour, she ordered fish."
STUB_NOTES = [
    ("Market", "Met [[Zebulon Farrow]] at the Saturday market."),
    ("Ladder", "[[Zebulon Farrow]] lent me a ladder for the roof."),
    ("Card", "Birthday card for [[Zebulon Farrow]] is in the drawer."),
]
WALK = "Walked the dog along the canal towpath before breakfast."
WALK_AGAIN = "Took the dog for a walk along the canal towpath before breakfast."


@pytest.fixture
def vault(vault_path: Path, embedder: MiniLMEmbedder) -> Callable[[], MemoryService]:
    """A new vault (made with the session's model, not by ``cairn init``); calling the fixture
    opens it again for filling."""
    compose.create_vault(vault_path, PASSPHRASE, embedder=embedder).close()
    return lambda: compose.open_vault(vault_path, PASSPHRASE, embedder=embedder)


@pytest.fixture
def cli(
    vault: Callable[[], MemoryService],
    vault_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Iterator[Run]:
    monkeypatch.setenv("CAIRN_VAULT", str(vault_path))
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)

    def run(*argv: str, expect: int = 0) -> tuple[str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        assert code == expect, (out, err)
        return out, err

    yield run


def as_json(out: str) -> Any:
    return json.loads(out)


def one_line_error(err: str) -> str:
    assert err.startswith("cairn: ") and err.count("\n") == 1, err
    return err.strip()


# -- what a write did -------------------------------------------------------------------------


def test_add_reports_absorbed_and_block_mode_needs_force_new(
    cli: Run, vault: Callable[[], MemoryService]
) -> None:
    with vault() as service:
        kept = service.write("Person", "Margarethe Vollmer").id
    out, _ = cli("add", "--type", "Note", "--title", "Dog walk", "--body", WALK)
    assert out.startswith("inserted Note ")
    first = out.split()[2].rstrip(":")
    out, _ = cli("add", "--type", "Note", "--title", "Dog walk", "--body", WALK)
    assert out.startswith(f"absorbed Note {first}: Dog walk")
    assert "matched [Note] Dog walk" in out

    out, _ = cli("settings", "entity_mode", "block")
    assert out.strip() == "entity_mode = block"
    # A near spelling of a known person is held back until forced.
    out, _ = cli("add", "--type", "Person", "--title", "Margarethe Volmer", expect=1)
    assert out.startswith("blocked: not stored")
    assert f"did you mean [Person] Margarethe Vollmer ({kept})?" in out
    assert "--force-new" in out
    out, _ = cli("add", "--type", "Person", "--title", "Margarethe Volmer", "--force-new", "--json")
    forced = as_json(out)
    assert forced["outcome"] == "inserted" and forced["id"] != kept
    assert [d["id"] for d in forced["possible_duplicate_of"]] == [kept]


# -- settings ---------------------------------------------------------------------------------


def test_settings_show_defaults_and_refuse_a_bad_value_in_one_line(cli: Run) -> None:
    out, _ = cli("settings")
    shown = dict(line.split(" = ", 1) for line in out.strip().splitlines())
    assert shown == {name: str(setting.default) for name, setting in SETTINGS.items()}
    out, err = cli("settings", "dedup_low", "2", expect=1)
    assert out == ""
    message = one_line_error(err)
    assert "dedup_low" in message and "between 0 and 1" in message
    out, _ = cli("settings", "dedup_low", "--json")
    assert as_json(out) == {"dedup_low": SETTINGS["dedup_low"].default}  # unchanged
    _, err = cli("settings", "dedup_lo", expect=1)
    assert "no setting 'dedup_lo'" in one_line_error(err)


# -- the review queue -------------------------------------------------------------------------


def test_pending_lists_duplicates_and_resolve_settles_them(
    cli: Run, vault: Callable[[], MemoryService]
) -> None:
    with vault() as service:
        lunch = service.write("Note", "Lunch", LUNCH).node
        lunch_again = service.write("Note", "Lunch with Marta", LUNCH_AGAIN)
        walk = service.write("Note", "Dog walk", WALK).node
        walk_again = service.write("Note", "Morning dog walk", WALK_AGAIN)
    assert lunch is not None and walk is not None
    assert (lunch_again.outcome, walk_again.outcome) == ("pending", "pending")
    first, second = lunch_again.verdict, walk_again.verdict
    assert first is not None and second is not None

    out, _ = cli("pending")
    assert f"{first}  duplicate" in out and f"{second}  duplicate" in out
    assert "new:   [Note] Lunch with Marta: Lunch with Marta at the cafe" in out
    assert "other: [Note] Lunch: Had lunch with Marta" in out
    out, _ = cli("pending", "--json")
    items = as_json(out)
    assert [(i["id"], i["kind"], i["state"]) for i in items] == [
        (first, "duplicate", "open"),
        (second, "duplicate", "open"),
    ]
    assert items[0]["node"]["id"] == lunch_again.id and items[0]["other"]["id"] == lunch.id
    # Kept and searchable meanwhile, marked in search and get.
    out, _ = cli("search", "dog walk morning")
    assert f"[Note] Morning dog walk (awaiting review)  ({walk_again.id})" in out
    assert f"[Note] Dog walk  ({walk.id})" in out
    out, _ = cli("get", walk_again.id)
    assert f"  awaiting review: may repeat Dog walk ({walk.id}): " in out
    assert f"cairn resolve {second} distinct|merge" in out
    assert as_json(cli("get", walk.id, "--json")[0])["nodes"][0]["awaiting_review"] is None

    out, _ = cli("resolve", first, "merge")
    assert out.strip() == f"merged: Lunch ({lunch.id})"
    out, _ = cli("resolve", second, "distinct", "--json")
    settled = as_json(out)
    assert settled["outcome"] == "distinct" and settled["id"] == walk_again.id
    assert settled["node"]["status"] == "active"
    out, _ = cli("pending")
    assert out.strip() == "Nothing waits for review."
    assert "awaiting review" not in cli("search", "dog walk morning")[0]
    # Settling it twice is an error. (The item row goes with the merged memory, by the schema's
    # ON DELETE CASCADE, so the message may say "no review item" rather than "already settled".)
    _, err = cli("resolve", first, "distinct", expect=1)
    assert first in one_line_error(err)


# -- supersede, history, as-of ----------------------------------------------------------------


def test_supersede_history_and_search_as_of(cli: Run) -> None:
    rent = "The rent for the flat on Kade Street is {} euros a month."
    out, _ = cli(
        "add", "--type", "Fact", "--title", "Flat rent", "--body", rent.format(900),
        "--valid-from", "2020-01-01", "--json",
    )  # fmt: skip
    old = as_json(out)["id"]
    out, _ = cli(
        "add", "--type", "Fact", "--title", "Flat rent", "--body", rent.format(950),
        "--valid-from", "2023-06-01",
    )  # fmt: skip
    # The gate keeps the changed rent as its own memory and says how to replace the old one.
    assert out.startswith("merge_linked Fact ")
    new = out.split()[2].rstrip(":")
    assert f"cairn supersede {old} {new}" in out

    out, _ = cli("supersede", old, new)
    lines = out.rstrip("\n").splitlines()
    # Each version, what it said, and the words the newer one changed.
    assert lines == [
        f"  {old}  [superseded] Flat rent  (2020-01-01 .. 2023-06-01)",
        f"    {rent.format(900)}",
        f"* {new}  [active] Flat rent  (2023-06-01 .. )",
        f"    {rent.format(950)}",
        "    changed: Flat rent The rent for the flat on Kade Street is [-900-] {+950+} euros a "
        "month.",
    ]
    out, _ = cli("history", old, "--json")
    history = as_json(out)
    assert history["position"] == 0  # asked for the old one
    assert [(e["id"], e["status"], e["valid_to"]) for e in history["chain"]] == [
        (old, "superseded", "2023-06-01"),
        (new, "active", None),
    ]
    assert [e["body"] for e in history["chain"]] == [rent.format(900), rent.format(950)]
    assert [e["changes"] for e in history["chain"]] == [
        None,
        "Flat rent The rent for the flat on Kade Street is [-900-] {+950+} euros a month.",
    ]
    _, err = cli("supersede", old, new, expect=1)
    assert f"already superseded by {new}" in one_line_error(err)

    out, _ = cli("search", "Kade Street rent", "--as-of", "2021-06-01", "--json")
    then = as_json(out)
    assert then["as_of"] == "2021-06-01"
    assert [(h["id"], h["status"]) for h in then["results"]] == [(old, "superseded")]
    out, _ = cli("search", "Kade Street rent", "--as-of", "2024-01-01", "--json")
    assert [h["id"] for h in as_json(out)["results"]] == [new]
    out, _ = cli("search", "Kade Street rent", "--history")
    assert f"[Fact] Flat rent (superseded)  ({old})" in out
    assert f"[Fact] Flat rent  ({new})" in out


# -- search profile and diagnostics -----------------------------------------------------------


def test_search_profile_fast_with_diagnostics(cli: Run, vault: Callable[[], MemoryService]) -> None:
    with vault() as service:
        person = service.write("Person", "Wilhelmina Okafor").node
        note = service.write(
            "Note", "Greenhouse irrigation", "Installed drip irrigation for the tomatoes."
        ).node
        assert person is not None and note is not None
        service.link(note.id, person.id, "involves", scopes=ALL)

    out, _ = cli("search", "drip irrigation", "--profile", "fast", "--diagnostics")
    lines = out.splitlines()
    assert lines[0].startswith(" 1. [Note] Greenhouse irrigation")
    assert lines[2].startswith("    ranks: vector 1, text 1, graph -; {")
    assert "'cosine': 0." in lines[2] and "'graph_via': None" in lines[2]
    assert "graph 1" not in out and "graph 2" not in out  # fast has no graph leg

    out, _ = cli("search", "drip irrigation", "--diagnostics", "--json")
    balanced = as_json(out)
    assert balanced["profile"] == "balanced"
    by_id = {hit["id"]: hit for hit in balanced["results"]}
    assert by_id[person.id]["ranks"]["graph"] is not None
    assert by_id[person.id]["diagnostics"]["graph_via"] == note.id


# -- briefing ---------------------------------------------------------------------------------


def test_briefing_for_a_given_day(cli: Run, vault: Callable[[], MemoryService]) -> None:
    with vault() as service:
        late = service.write(
            "Commitment", "Return the library books", attrs={"due": "2029-12-28"}
        ).node
        soon = service.write("Commitment", "Renew the passport", attrs={"due": "2030-01-02"}).node
        service.write("Commitment", "Pay the gas bill", attrs={"due": "2030-01-02", "done": True})
        service.write("Commitment", "Plan the summer trip", attrs={"due": "2030-02-01"})
        service.write("Note", "Lunch", LUNCH)
        pending = service.write("Note", "Lunch with Marta", LUNCH_AGAIN)
        linking = [service.write("Note", title, body) for title, body in STUB_NOTES]
    assert late is not None and soon is not None and pending.outcome == "pending"
    assert [w.outcome for w in linking] == ["inserted"] * 3

    out, _ = cli("briefing", "--today", "2030-01-01", "--json")
    brief = as_json(out)
    assert brief["today"] == "2030-01-01"
    assert [(d["id"], d["overdue"]) for d in brief["due"]] == [(late.id, True), (soon.id, False)]
    assert brief["review_count"] == 1
    assert [r["id"] for r in brief["reviews"]] == [pending.verdict]
    assert [(s["title"], s["degree"]) for s in brief["stubs_to_enrich"]] == [("Zebulon Farrow", 3)]
    recent = {r["id"]: r["awaiting_review"] for r in brief["recent"]}
    assert recent[pending.id] is True and not any(v for k, v in recent.items() if k != pending.id)

    out, _ = cli("briefing", "--today", "2030-01-01")
    assert out.startswith("Briefing for 2030-01-01\nDue:\n")
    assert f"  2029-12-28 (overdue)  Return the library books  ({late.id})" in out
    assert "1 waiting for review (cairn pending):" in out
    assert "  Zebulon Farrow, linked 3 times" in out
    assert f"  [Note] Lunch with Marta (awaiting review)  ({pending.id})" in out
