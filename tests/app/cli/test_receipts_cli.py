"""``cairn receipts export`` and ``cairn receipts verify``, on a real encrypted vault.

Tampering goes through the storage layer with the vault's key, as anything able to rewrite the
file would; the CLI then opens the file afresh and has to notice.
"""

from __future__ import annotations

import json

import pytest

from cairn.app.service import MemoryService
from cairn.app.upkeep import receipts
from cairn.storage import records
from cairn.storage.vault import Vault
from tests.app.cli_runner import Cli

ALL = ["personal"]


def _rows(vault: Vault) -> list[dict]:
    with vault.read() as conn:
        return records.receipts(conn)


def _rehash_last(vault: Vault, counts: str) -> None:
    """Rewrite the newest receipt's counts and recompute its hash, as someone with the key
    could: the walk stays clean, only an exported head can tell."""
    last = _rows(vault)[-1]
    forged = receipts.receipt_hash(last["prev_hash"], last["at"], last["kind"], counts)
    with vault.write() as conn:
        conn.execute(
            "UPDATE receipts SET counts = ?, hash = ? WHERE seq = ?", (counts, forged, last["seq"])
        )


def _notes(service: MemoryService, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        service.write("Note", f"note {i}", f"body {i}")


def _export(cli: Cli) -> tuple[str, int]:
    out, _ = cli("receipts", "export", "--json")
    data = json.loads(out)
    return data["head"], data["count"]


def _verify(cli: Cli, head: str, count: int, expect: int) -> str:
    out, _ = cli("receipts", "verify", "--head", head, "--count", str(count), expect=expect)
    return out


# -- export and verify ------------------------------------------------------------------------


def test_export_gives_the_head_and_count_of_the_chain(
    service: MemoryService, vault: Vault, cli: Cli
) -> None:
    _notes(service, 3)
    rows = _rows(vault)
    head, count = _export(cli)
    assert (head, count) == (rows[-1]["hash"], len(rows))
    out, _ = cli("receipts", "export")
    assert f"head:  {head}" in out and f"count: {count}" in out
    assert f"--head {head} --count {count}" in out
    out, _ = cli("receipts", "verify")
    assert out.strip() == f"receipts: {count}, intact"


def test_an_exported_head_still_verifies_after_more_writes(
    service: MemoryService, cli: Cli
) -> None:
    _notes(service, 2)
    head, count = _export(cli)
    _notes(service, 3, start=2)
    service.inbox_capture("buy stamps")
    out = _verify(cli, head, count, expect=0)
    assert f"receipt {count} still has the hash you exported" in out
    out, _ = cli("receipts", "verify", "--head", head.upper(), "--count", str(count), "--json")
    report = json.loads(out)
    assert report["ok"] and report["count"] == count + 4
    assert report["exported"] == {"head": head, "count": count}


def test_the_full_export_is_the_chain_itself(
    service: MemoryService, vault: Vault, cli: Cli
) -> None:
    _notes(service, 2)
    out, err = cli("receipts", "export", "--full")
    lines = [json.loads(line) for line in out.splitlines()]
    rows = _rows(vault)
    assert len(lines) == len(rows)
    assert all(set(line) == {"at", "kind", "counts", "prev_hash", "hash"} for line in lines)
    assert f"head {rows[-1]['hash']}, count {len(rows)}" in err
    # Anyone holding the lines can re-walk the chain without the vault.
    rewalked = receipts.verify(
        {**line, "counts": json.dumps(line["counts"], sort_keys=True, separators=(",", ":"))}
        for line in lines
    )
    assert rewalked.ok and rewalked.head == rows[-1]["hash"]
    out, _ = cli("receipts", "export", "--full", "--json")
    assert json.loads(out)["receipts"] == lines


def test_the_exported_payload_holds_no_text_titles_ids_or_names(
    service: MemoryService, cli: Cli
) -> None:
    service.add_scope("quillwort")
    person = service.write("Person", "Ottoline Brackwater", attrs={"occupation": "cartographer"})
    note = service.write(
        "Note",
        "Zanzibar sundial",
        "The marmalade ledger is under the lighthouse.",
        scope="quillwort",
    )
    assert person.node is not None and note.node is not None
    service.link(note.node.id, person.node.id, "mentions", scopes=["personal", "quillwort"])
    captured = service.inbox_capture("fetch the periwinkle umbrella")
    service.archive(note.node.id, scopes=["quillwort"])
    secrets = [
        "Ottoline",
        "Brackwater",
        "cartographer",
        "Zanzibar",
        "sundial",
        "marmalade",
        "lighthouse",
        "periwinkle",
        "quillwort",
        person.node.id,
        note.node.id,
        captured.id,
    ]
    out, err = cli("receipts", "export", "--full")
    json_out, _ = cli("receipts", "export", "--full", "--json")
    summary, _ = cli("receipts", "export", "--json")
    for text in (out + err, json_out, summary):
        for secret in secrets:
            assert secret.lower() not in text.lower()
    kinds = {json.loads(line)["kind"] for line in out.splitlines()}
    assert {"write", "link", "inbox", "archive"} <= kinds  # the writes above are all in it


# -- tampering --------------------------------------------------------------------------------


def test_changed_counts_are_found(service: MemoryService, vault: Vault, cli: Cli) -> None:
    _notes(service, 3)
    with vault.write() as conn:
        conn.execute("UPDATE receipts SET counts = '{\"nodes\":7}' WHERE seq = 3")
    out, _ = cli("receipts", "verify", expect=1)
    assert out.strip() == "The receipt chain is not intact: receipt 3 was altered."
    _, err = cli("receipts", "export", expect=1)
    assert "receipt 3 was altered" in err and "nothing was exported" in err


def test_a_deleted_middle_receipt_is_found(service: MemoryService, vault: Vault, cli: Cli) -> None:
    _notes(service, 3)
    with vault.write() as conn:
        conn.execute("DELETE FROM receipts WHERE seq = 2")
    out, _ = cli("receipts", "verify", "--json", expect=1)
    report = json.loads(out)
    assert not report["ok"]
    assert report["problem"] == "receipt 2 does not follow its predecessor"


def test_swapped_head_receipts_are_found(service: MemoryService, vault: Vault, cli: Cli) -> None:
    service.write("Note", "first")
    service.inbox_capture("second")
    rows = _rows(vault)
    last, before = rows[-1], rows[-2]
    with vault.write() as conn:
        for row, other in ((last, before), (before, last)):
            conn.execute(
                "UPDATE receipts SET at = ?, kind = ?, counts = ? WHERE seq = ?",
                (other["at"], other["kind"], other["counts"], row["seq"]),
            )
    out, _ = cli("receipts", "verify", expect=1)
    assert f"receipt {len(rows) - 1} was altered" in out


def test_a_head_replaced_with_fresh_hashes_fails_against_the_export(
    service: MemoryService, vault: Vault, cli: Cli
) -> None:
    """A rewrite that recomputes the hash walks clean: only the exported head shows it."""
    _notes(service, 2)
    head, count = _export(cli)
    _rehash_last(vault, '{"nodes":0}')
    out, _ = cli("receipts", "verify")
    assert "intact" in out
    out = _verify(cli, head, count, expect=1)
    assert out.strip() == (
        "The receipt chain is not intact: the chain no longer contains the head you exported "
        f"(receipt {count} has another hash: the history up to it was rewritten, "
        "or this is another vault)."
    )


def test_a_truncated_tail_fails_against_the_export(
    service: MemoryService, vault: Vault, cli: Cli
) -> None:
    _notes(service, 4)
    head, count = _export(cli)
    with vault.write() as conn:
        conn.execute("DELETE FROM receipts WHERE seq > ?", (count - 2,))
    out, _ = cli("receipts", "verify")
    assert "intact" in out  # a shorter chain on its own is still a chain
    out = _verify(cli, head, count, expect=1)
    assert (
        f"the chain no longer contains the head you exported (it holds {count - 2} receipts, "
        f"the export counted {count}" in out
    )


def test_a_truncated_tail_with_new_receipts_appended_fails_against_the_export(
    service: MemoryService, vault: Vault, cli: Cli
) -> None:
    _notes(service, 4)
    head, count = _export(cli)
    with vault.write() as conn:
        conn.execute("DELETE FROM receipts WHERE seq > ?", (count - 2,))
    _notes(service, 5, start=4)  # real writes chain onto the cut, so the walk is clean
    out, _ = cli("receipts", "verify", "--json")
    assert json.loads(out)["count"] == count + 3
    out = _verify(cli, head, count, expect=1)
    assert f"no longer contains the head you exported (receipt {count} has another hash" in out
    # The export taken before the last good receipt still holds: that part was not touched.
    earlier = _rows(vault)[count - 3]["hash"]
    _verify(cli, earlier, count - 2, expect=0)


def test_a_rehashed_receipt_carrying_text_is_never_exported(
    service: MemoryService, vault: Vault, cli: Cli
) -> None:
    _notes(service, 1)
    _rehash_last(vault, '{"Ottoline Brackwater":1}')
    out, err = cli("receipts", "export", "--full", expect=1)
    assert "Ottoline" not in out + err
    assert f"receipt {len(_rows(vault))} holds more than counters" in err


# -- asking wrongly ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--head", "ab" * 32], "Give --head and --count together"),
        (["--count", "3"], "Give --head and --count together"),
        (["--head", "not-a-hash", "--count", "3"], "64-character hash"),
        (["--head", "ab" * 32, "--count", "-1"], "number of receipts exported"),
    ],
)
def test_a_malformed_export_is_refused_with_what_to_give(
    cli: Cli, argv: list[str], message: str
) -> None:
    _, err = cli("receipts", "verify", *argv, expect=1)
    assert message in err


def test_an_empty_chain_is_position_zero(service: MemoryService, vault: Vault, cli: Cli) -> None:
    report = receipts.verify_against([], receipts.GENESIS, 0)
    assert report.ok and report.count == 0
    rows = _rows(vault)
    assert receipts.verify_against(rows, receipts.GENESIS, 0).ok
    assert not receipts.verify_against(rows, "ab" * 32, 0).ok
