"""A question's time matched against the time its candidates speak of (``retrieval.timing``):
"When did …?" prefers the memory that says when, "… in May 2023?" the memories of that time,
relative words included, and an as-of read resolves the question's words against its own date.
Real vault, real model; each case is also asked with the match switched off, to show that the
match is what moved the hits, by exactly its weight."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from cairn.app.ingestion.request import IngestRequest
from cairn.app.retrieval import timing
from cairn.app.service import MemoryService

ALL = ["personal"]
JUNE_SESSION = "Ines, 3:10 pm on 2 June, 2023"
MARCH_SESSION = "Ines, 9:40 am on 4 March, 2024"


def _write(service: MemoryService, title: str, body: str, valid_from: str | None = None) -> str:
    node = service.write("Note", title, body, valid_from=valid_from).node
    assert node is not None
    return node.id


def _hits(
    service: MemoryService, question: str, as_of: str | None = None
) -> dict[str, tuple[float, bool]]:
    """Each hit's score and whether its time matched, by id."""
    response = service.search(question, scopes=ALL, limit=10, diagnostics=True, as_of=as_of)
    return {
        hit.id: (hit.score, bool(hit.diagnostics and hit.diagnostics["time_match"]))
        for hit in response.results
    }


def _check_moved_by_the_match(
    service: MemoryService,
    monkeypatch: pytest.MonkeyPatch,
    question: str,
    matched: str,
    other: str,
) -> None:
    with_time = _hits(service, question)
    assert with_time[matched][1] and not with_time[other][1]
    assert with_time[matched][0] > with_time[other][0]
    weight = timing.TIME_WEIGHT
    monkeypatch.setattr(timing, "TIME_WEIGHT", 0.0)
    without = _hits(service, question)
    # Only the match moved them: the gap between the two shrinks by exactly its weight.
    gap_with = with_time[matched][0] - with_time[other][0]
    gap_without = without[matched][0] - without[other][0]
    assert gap_with - gap_without == pytest.approx(weight, abs=1e-6)


def test_a_when_question_prefers_the_memory_that_says_when(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    timeless = _write(
        service, MARCH_SESSION, "Ines: I painted the harbour at dawn, my favourite view."
    )
    dated = _write(service, JUNE_SESSION, "Ines: I painted the harbour at dawn last week.")
    _write(service, MARCH_SESSION, "Ines: The kiln needs a new shelf before the next firing.")
    _check_moved_by_the_match(
        service, monkeypatch, "When did Ines paint the harbour at dawn?", dated, timeless
    )


def test_a_question_naming_a_month_finds_last_week_said_after_it(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Said on 2 June 2023, "last week" is 22-28 May: the turn is about May, though no word says so.
    in_may = _write(service, JUNE_SESSION, "Ines: We drove to the coast last week to see whales.")
    in_june = _write(service, JUNE_SESSION, "Ines: We are driving to the coast to see whales.")
    _check_moved_by_the_match(
        service, monkeypatch, "Where did Ines drive to see whales in May 2023?", in_may, in_june
    )


def test_an_as_of_read_resolves_the_question_against_its_own_date(
    service: MemoryService,
) -> None:
    early = _write(service, "Dentist", "Booked the dentist for the kids' checkup.", "2024-01-10")
    late = _write(service, "Dentist again", "Booked the dentist for the kids.", "2024-03-04")
    question = "What did I book yesterday for the kids?"
    # On 5 March 2024, "yesterday" is the day the second booking became valid.
    on_the_fifth = _hits(service, question, as_of="2024-03-05")
    assert (on_the_fifth[early][1], on_the_fifth[late][1]) == (False, True)
    assert on_the_fifth[late][0] > on_the_fifth[early][0]
    # Asked today, "yesterday" is neither.
    today = _hits(service, question)
    assert (today[early][1], today[late][1]) == (False, False)


MAIL = """From: Ines Duarte <ines@example.org>
To: me@example.org
Subject: {subject}
Date: {date}
Message-ID: <{subject}@example.org>
Content-Type: text/plain; charset=utf-8

Yesterday I painted the old harbour with Ana; the light on the cranes was lovely.
"""


def test_a_passage_speaks_from_its_documents_day(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Two mails say the same words; read in today, each passage speaks from its mail's day.
    for subject, sent in (
        ("june", "Fri, 2 Jun 2023 10:00:00 +0000"),
        ("july", "Mon, 3 Jul 2023 10:00:00 +0000"),
    ):
        (tmp_path / f"{subject}.eml").write_text(MAIL.format(subject=subject, date=sent))
    report = service.ingest(IngestRequest.of([tmp_path / "june.eml", tmp_path / "july.eml"]))
    assert [outcome.state for outcome in report.files] == ["ingested", "ingested"]
    passages = {
        hit.title.split(" ")[0]: hit.id
        for hit in service.search("painted the old harbour", scopes=ALL, limit=10).results
        if hit.type == "Passage"
    }
    _check_moved_by_the_match(
        service,
        monkeypatch,
        "What did Ines paint on 1 June 2023?",
        passages["june"],
        passages["july"],
    )


def test_only_a_question_naming_a_time_looks_deeper() -> None:
    asked_on = date(2024, 3, 5)
    assert timing.read_question("What did Ines cook in May 2023?", asked_on).depth_factor() > 1
    assert timing.read_question("When did Ines cook risotto?", asked_on).depth_factor() == 1
    assert timing.read_question("What does Ines cook?", asked_on).depth_factor() == 1
    assert not timing.read_question("What does Ines cook?", asked_on).about_time
