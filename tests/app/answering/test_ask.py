"""Ask (``answering.extract``): a question answered by a sentence of the person's own memories,
cited with its memory, its place and the words around it; a "when" answered with the day the
sentence speaks of; and an abstention, with the closest shown, when support is weak or what is
found was said by someone else than the one asked about. Real vault, real model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn.app.cli.main import main
from cairn.app.errors import InvalidRequest
from cairn.app.service import MemoryService
from tests.conftest import PASSPHRASE

ALL = ["personal"]
INES = "Ines, 3:10 pm on 2 June, 2023"
MARCO = "Marco, 3:12 pm on 2 June, 2023"


def _write(service: MemoryService, title: str, body: str) -> str:
    node = service.write("Note", title, body).node
    assert node is not None
    return node.id


@pytest.fixture
def harbour(service: MemoryService) -> tuple[str, str]:
    ines = _write(
        service,
        INES,
        "Ines: I painted the old harbour yesterday. The light on the cranes was lovely.",
    )
    marco = _write(service, MARCO, "Marco: I went sailing past the lighthouse last week.")
    _write(service, "Kiln", "The kiln needs a new shelf before the next firing.")
    return ines, marco


def test_an_answer_quotes_its_sentence_and_cites_where_it_stands(
    service: MemoryService, harbour: tuple[str, str]
) -> None:
    answer = service.ask("What did Ines paint yesterday?", scopes=ALL)
    assert not answer.abstained
    [cited] = answer.cited
    assert (cited.id, cited.title, cited.said_by) == (harbour[0], INES, "Ines")
    assert cited.quote == "I painted the old harbour yesterday."
    assert cited.after == "The light on the cranes was lovely."
    assert 0.0 < answer.confidence <= 1.0


def test_a_when_question_is_answered_with_the_day_its_sentence_speaks_of(
    service: MemoryService, harbour: tuple[str, str]
) -> None:
    # "Yesterday", said on 2 June 2023.
    answer = service.ask("When did Ines paint the harbour?", scopes=ALL)
    assert answer.cited[0].id == harbour[0]
    assert answer.when == "1 June 2023"
    answer = service.ask("When did Marco go sailing past the lighthouse?", scopes=ALL)
    assert answer.cited[0].id == harbour[1]
    assert answer.when == "22-28 May 2023"


def test_what_someone_else_did_is_no_answer(
    service: MemoryService, harbour: tuple[str, str]
) -> None:
    answer = service.ask("When did Ines go sailing past the lighthouse?", scopes=ALL)
    assert answer.abstained and answer.cited == []
    assert answer.closest is not None and answer.closest.id == harbour[1]
    assert "of Ines" in answer.note and "Marco" in answer.note


def test_an_abstention_never_names_a_speaker_a_note_does_not_have(
    service: MemoryService, harbour: tuple[str, str]
) -> None:
    # Only a plain note, said by nobody, speaks of sailing at dusk.
    plain = _write(service, "Sailing", "Sailing past the lighthouse is best at dusk.")
    answer = service.ask("When did Ines go sailing past the lighthouse at dusk?", scopes=ALL)
    assert answer.abstained and answer.closest is not None
    assert answer.closest.id in (plain, harbour[1])
    assert "None" not in answer.note and "of Ines" in answer.note


def test_a_line_of_a_longer_note_is_located_and_an_empty_vault_abstains(
    service: MemoryService,
) -> None:
    answer = service.ask("Where is the spare key?", scopes=ALL)
    assert answer.abstained and answer.closest is None
    assert answer.note == "Nothing in your memory says this."
    _write(
        service,
        "House",
        "Boiler pressure 1.5 bar.\nBins go out on Thursday.\n"
        "The spare key is under the blue flowerpot.",
    )
    answer = service.ask("Where is the spare key?", scopes=ALL)
    assert not answer.abstained
    assert answer.cited[0].quote == "The spare key is under the blue flowerpot."
    assert answer.cited[0].locator == "line 3"
    with pytest.raises(InvalidRequest, match="empty"):
        service.ask("  ", scopes=ALL)


def test_cairn_ask_answers_in_words_and_in_json(
    vault_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CAIRN_VAULT", str(vault_path))
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    body = "Ines: I painted the old harbour yesterday. The light on the cranes was lovely."
    assert main(["init"]) == 0
    capsys.readouterr()
    assert main(["add", "--type", "Note", "--title", INES, "--body", body, "--json"]) == 0
    ines = json.loads(capsys.readouterr().out)["node"]["id"]
    assert main(["ask", "When did Ines paint the harbour?"]) == 0
    out = capsys.readouterr().out
    assert 'Ines: "I painted the old harbour yesterday."' in out
    assert "When: 1 June 2023." in out
    assert main(["ask", "--json", "What did Ines paint yesterday?"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["cited"][0]["id"] == ines
    assert {"answer", "confidence", "abstained", "closest", "when"} <= set(shown)
