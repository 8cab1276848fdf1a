"""Time expressions resolved against the day a text was said (``text.when``): generated text
with known answers, properties that hold for any reference day, and real turns of the dev
conversations, each resolved against its own session's date."""

from __future__ import annotations

import re
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench import locomo
from cairn.app.text.when import Span, asks_when, own_day, says_how_long, spans

# A Monday, so weeks and weekdays are easy to read below.
MONDAY = date(2023, 5, 8)


def _days(text: str, reference: date = MONDAY) -> list[str]:
    return [str(span) for span in spans(text, reference)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I went to a support group yesterday.", ["2023-05-07"]),
        ("We're meeting tomorrow", ["2023-05-09"]),
        ("the day before yesterday", ["2023-05-06"]),
        ("I finished it this morning", ["2023-05-08"]),
        ("my school event last week", ["2023-05-01..2023-05-07"]),
        ("next week is busy", ["2023-05-15..2023-05-21"]),
        ("this past weekend we hiked", ["2023-05-06..2023-05-07"]),
        ("ran a charity race last Saturday", ["2023-05-06"]),
        ("I saw it on Friday", ["2023-05-05"]),
        ("next Friday works", ["2023-05-12"]),
        ("a conference this month", ["2023-05-01..2023-05-31"]),
        ("signed up last month", ["2023-04-01..2023-04-30"]),
        ("we moved last year", ["2022-01-01..2022-12-31"]),
        ("two days ago", ["2023-05-06"]),
        ("3 weeks ago", ["2023-04-17..2023-04-23"]),
        ("a few weeks ago", ["2023-04-10..2023-04-30"]),
        ("ten years ago, for my 18th birthday", ["2013-01-01..2013-12-31"]),
        ("in three days", ["2023-05-11"]),
        ("the past few weeks", ["2023-04-10..2023-05-08"]),
        ("the other day", ["2023-05-01..2023-05-07"]),
        ("last summer at the lake", ["2022-06-01..2022-08-31"]),
        ("kids are excited about summer break", ["2023-06-01..2023-08-31"]),
        ("the summer of 2021", ["2021-06-01..2021-08-31"]),
        ("last fall", ["2022-09-01..2022-11-30"]),
        ("last May", ["2022-05-01..2022-05-31"]),
        ("next May", ["2024-05-01..2024-05-31"]),
        ("going camping in June", ["2023-06-01..2023-06-30"]),
        ("What did she do in May 2023?", ["2023-05-01..2023-05-31"]),
        ("on 21 May, 2023 and May 3rd", ["2023-05-21", "2023-05-03"]),
        ("the 2023-02-14 invoice", ["2023-02-14"]),
        ("since 2016", ["2016-01-01..2016-12-31"]),
    ],
)
def test_an_expression_resolves_against_the_day_it_was_said(text: str, expected: list[str]) -> None:
    assert _days(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I may come along",  # the verb, not the month
        "The fall of the leaves",  # a fall, not autumn
        "It costs 2023 dollars",  # a number, not a year
        "We spent four hours on it",  # a duration, not a time
        "on 31 June",  # the shape of a date, not one
        "",
    ],
)
def test_what_is_not_a_time_resolves_to_nothing(text: str) -> None:
    assert _days(text) == []


def test_winter_spans_the_turn_of_the_year() -> None:
    assert _days("last winter", date(2024, 4, 2)) == ["2023-12-01..2024-02-29"]
    assert _days("this winter", date(2024, 1, 20)) == ["2023-12-01..2024-02-29"]


def test_a_weekend_said_on_a_weekend() -> None:
    sunday = date(2023, 5, 14)
    assert _days("next weekend", sunday) == ["2023-05-20..2023-05-21"]
    assert _days("last weekend", sunday) == ["2023-05-06..2023-05-07"]


def test_each_expression_is_read_once() -> None:
    # "21 May 2023" is one day, not also the month "May 2023"; "last Friday" not also "Friday".
    assert len(spans("On 21 May 2023, last Friday", MONDAY)) == 2


@given(st.dates(min_value=date(1900, 3, 1), max_value=date(2099, 10, 1)))
def test_relative_days_follow_the_reference(reference: date) -> None:
    day_before = reference - timedelta(days=1)
    assert spans("yesterday", reference) == (Span(day_before, day_before),)
    (week,) = spans("last week", reference)
    assert week.last - week.first == timedelta(days=6) and week.first.weekday() == 0
    assert week.last < reference <= week.last + timedelta(days=7)
    (month,) = spans("next month", reference)
    assert month.first.day == 1 and month.first > reference
    assert (month.first - timedelta(days=1)).month == reference.month


@given(
    st.dates(min_value=date(1900, 3, 1), max_value=date(2099, 10, 1)),
    st.sampled_from(
        ["last week", "two months ago", "next summer", "last winter", "on Sunday", "this year"]
    ),
)
def test_every_span_runs_forward(reference: date, text: str) -> None:
    (span,) = spans(text, reference)
    assert span.first <= span.last


def test_questions_that_ask_when() -> None:
    for question in (
        "When did Ines paint the harbour?",
        "How long ago was her 18th birthday?",
        "What year did they move?",
        "Do you remember when we met?",
        "Since when has he played chess?",
    ):
        assert asks_when(question), question
    for question in ("Where did she go when it rained?", "What does Ines paint?"):
        assert not asks_when(question), question


def test_a_duration_says_how_long() -> None:
    assert says_how_long("I've known these friends for 4 years")
    assert says_how_long("ever since I moved here")
    assert not says_how_long("four friends came")


def test_own_day_prefers_the_title_then_a_date_attribute_then_the_stamps() -> None:
    written = "2026-01-05T10:00:00.000000+00:00"
    assert own_day("Ines, 3:10 pm on 4 March, 2024", {}, None, written) == date(2024, 3, 4)
    assert own_day("Notes of June 9, 2023", {}, None, written) == date(2023, 6, 9)
    assert own_day("Kiln", {"created": "2020-02-03T10:00:00"}, None, written) == date(2020, 2, 3)
    assert own_day("Kiln", {}, "2021-07-01", written) == date(2021, 7, 1)
    assert own_day("Kiln", {"created": "soon"}, None, written) == date(2026, 1, 5)


# -- real turns -------------------------------------------------------------------------------


@pytest.fixture
def turns(corpus: Path) -> list[locomo.Turn]:
    loaded = locomo.load(corpus / "07_conversations" / "locomo_dev" / "locomo_dev.json")
    if loaded is None:
        pytest.skip("the LoCoMo dev conversations are not in the shared corpus")
    return [turn for conversation in loaded for turn in conversation.turns]


def _session_day(turn: locomo.Turn) -> date:
    return own_day(turn.title, {}, None, "2000-01-01T00:00:00+00:00")


def test_every_real_turn_speaks_from_its_session_date(turns: list[locomo.Turn]) -> None:
    # The title is "{speaker}, {session date_time}": never the fallback stamp.
    assert all(_session_day(turn).year >= 2020 for turn in turns)


def test_real_yesterdays_are_the_day_before_their_session(turns: list[locomo.Turn]) -> None:
    said = [t for t in turns if "yesterday" in t.text.lower()]
    assert len(said) >= 20
    for turn in said:
        day = _session_day(turn)
        assert Span(day - timedelta(days=1), day - timedelta(days=1)) in spans(turn.body, day)


def test_real_last_weeks_are_the_week_before_their_session(turns: list[locomo.Turn]) -> None:
    said = [t for t in turns if re.search(r"\blast week\b", t.text, re.I)]
    assert len(said) >= 40
    for turn in said:
        day = _session_day(turn)
        week = [s for s in spans(turn.body, day) if s.last - s.first == timedelta(days=6)]
        assert week and week[0].last < day <= week[0].last + timedelta(days=7), turn.text


def test_most_real_turns_state_no_time(turns: list[locomo.Turn]) -> None:
    # The match is worth something only if it sets some turns apart: a recogniser that found a
    # time in nearly every line of chat would be reading words that are not times.
    stating = sum(1 for turn in turns if spans(turn.body, _session_day(turn)))
    assert 0.05 < stating / len(turns) < 0.2
