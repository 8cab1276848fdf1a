"""What a reader's unforeseen failure is told as (``ingest/failures.py``): a sentence, never an
exception's name; a trace for a developer that says where, not what the file held; and the
depth of a nested file, measured without the recursion that gave out."""

from __future__ import annotations

import json
import logging
from xml.etree import ElementTree

import pytest

from cairn.ingest import chat, failures, textfile
from cairn.ingest.document import ExtractionError
from tests.app import hostile_files as hostile


def _raised(error: Exception) -> Exception:
    try:
        raise error
    except Exception as caught:
        return caught


def test_a_part_that_fails_is_a_clause_and_an_unforeseen_error_leaves_a_trace(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR, logger="cairn.ingest")
    assert failures.part_reason(ExtractionError("x.odt is damaged."), "r") == "x.odt is damaged."
    assert failures.part_reason(_raised(RecursionError("deep")), "r") == failures.NESTED_TOO_DEEP
    assert failures.part_reason(_raised(MemoryError()), "r") == failures.NEEDS_MEMORY
    assert failures.part_reason(_raised(OSError("bad")), "r", (OSError,)) == failures.DAMAGED
    assert not caplog.records  # foreseen, each of them: nothing for a developer
    secret = "the text of the file, QUOLLMARZIPAN"
    reason = failures.part_reason(_raised(KeyError(secret)), "the PDF reader")
    assert reason == failures.UNFORESEEN
    (record,) = caplog.records
    logged = record.getMessage()
    assert logged.startswith("the PDF reader met an unexpected KeyError")
    assert "_raised" in logged and "test_failures.py" in logged  # where it happened
    assert "QUOLLMARZIPAN" not in logged  # not what it said: that may quote the file


def test_depths_are_measured_without_recursion() -> None:
    assert failures.json_depth('{"a": [1, {"b": "]]]"}], "c": "[[[[\\"["}') == 3
    assert failures.json_depth("[" * 300_000 + "]" * 300_000) == 300_000
    root = ElementTree.fromstring("<a><b><c/></b><d/></a>")
    assert failures.xml_depth(root) == 3
    deep = ElementTree.fromstring("<x>" * 50_000 + "</x>" * 50_000)
    assert failures.xml_depth(deep) == 50_000


def test_a_telegram_export_nested_deeper_than_the_parser_goes_says_how_deep() -> None:
    with pytest.raises(ExtractionError) as failed:
        chat.telegram_export(hostile.nested_telegram(200_000), "result.json")
    said = str(failed.value)
    assert said.startswith(
        "result.json is nested 200,001 levels deep (lists and objects inside each other), "
        "more than Cairn reads"
    )
    assert "export the chat again from Telegram Desktop" in said
    # Deep, but within the parser: read, and a piece of text nested in it is not spelled out.
    within = {
        "name": "Ada",
        "type": "personal_chat",
        "messages": [
            {"type": "message", "date": "2024-03-05T09:30:00", "from": "Ada",
             "text": ["Bring the lamp", {"type": "bold", "text": [[["no"]]]}]},
        ],
    }  # fmt: skip
    document = chat.telegram_export(json.dumps(within).encode(), "result.json")
    assert document is not None
    assert document.segments[0].text.endswith("Ada: Bring the lamp")


def test_front_matter_nested_or_repeated_beyond_the_limits_is_kept_as_text() -> None:
    deep = textfile.extract(
        ("---\ntags: " + "[" * 100_000 + "]" * 100_000 + "\n---\nBody.\n").encode(), "n.md"
    )
    assert deep.warnings == (
        "the front matter is nested more than 32 levels deep, more than Cairn reads; kept as text",
    )
    assert deep.metadata == {}
    bomb = textfile.extract(hostile.alias_bomb_front_matter(), "aliases.md")
    assert bomb.metadata == {} and "front matter's aliases" in bomb.warnings[0]
    itself = textfile.extract(b"---\na: &x [*x]\n---\nBody.\n", "self.md")
    assert itself.metadata == {} and "front matter's aliases" in itself.warnings[0]
    kept = textfile.extract(b"---\ntitle: Plans\nx: {y: {z: [1, 2]}}\n---\nBody.\n", "p.md")
    assert kept.warnings == () and kept.metadata["x"] == {"y": {"z": [1, 2]}}
