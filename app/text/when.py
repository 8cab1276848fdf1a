"""When a text says something happened: its time expressions resolved to spans of days.

"I went to a support group yesterday", written on 8 May 2023, happened on 7 May 2023; "my school
event last week", said on 9 June 2023, in the week of 29 May. A memory's words alone do not say
that: "yesterday" is in hundreds of memories and means a different day in each. So each
expression is resolved against the memory's *own* date (:func:`own_day`: the date its title names,
as a dated conversation's session does, else its date attribute, else when it was valid or
written), and a question's expressions against the day it is asked (today, or an as-of read's
date). Two spans that overlap speak of the same time.

What :func:`spans` recognises (English; each is a rule below), with ``r`` the reference day:

- absolute: ISO dates, "21 May 2023" = "May 21st, 2023" (without a year: ``r``'s year), "May
  2023", a year after a preposition ("in 2022"), a capitalised month after one ("in May");
- days: today, tonight, this morning/afternoon/evening, yesterday, last night, tomorrow, the day
  before yesterday, the day after tomorrow, the other day (the week before ``r``);
- relative: last/this/next/past week, weekend, month, year; last/this/next/coming Friday and "on
  Friday" (the one before ``r``); last/next May; seasons, northern meteorological (summer is
  June-August; "last summer" is the one before ``r``, "summer" alone ``r``'s year's);
- counted: "two days ago", "a few weeks ago", "10 years ago", "in three days", "a month from now",
  "the past few weeks".

Not: clock times (a day is the finest span), "recently", "a while ago", durations ("for four
years": :func:`asks_when` and :func:`states_time` count them as saying when, with no span),
calendars other than the Gregorian. Weeks start on Monday.

Chosen over a library: python-dateutil parses one absolute date per string and knows no
"last week"; dateparser's relative search brings tens of megabytes of locale data and is slow
per text. The common English forms are a page of regular expressions, pure and stdlib only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import partial
from typing import Any

from cairn.app.text.statements import fold_accents


@dataclass(frozen=True, order=True)
class Span:
    """The days from ``first`` to ``last``, both included."""

    first: date
    last: date

    def overlaps(self, other: Span) -> bool:
        return self.first <= other.last and other.first <= self.last

    def __str__(self) -> str:
        return str(self.first) if self.first == self.last else f"{self.first}..{self.last}"


_Resolve = Callable[[re.Match[str], date], Span | None]

_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
_MONTH_NUMBERS = {name: number for number, name in enumerate(_MONTH_NAMES, start=1)} | {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
    "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTH_NUMBERS, key=len, reverse=True)) + r")\.?(?![a-z])"
_FULL_MONTH = r"(?P<month>" + "|".join(_MONTH_NAMES) + r")(?![a-z])"
_DAY = r"(?P<day>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?(?![\d:])"
_YEAR = r"(?P<year>(?:1[89]|20)\d\d)(?!\d)"
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = r"(?P<weekday>" + "|".join(_WEEKDAYS) + r")"
# Meteorological seasons of the northern hemisphere: (first month, months long).
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_SEASON = r"(?P<season>spring|summer|autumn|fall|winter)"
_COUNTS = {
    "a": (1, 1), "an": (1, 1), "one": (1, 1), "two": (2, 2), "three": (3, 3), "four": (4, 4),
    "five": (5, 5), "six": (6, 6), "seven": (7, 7), "eight": (8, 8), "nine": (9, 9),
    "ten": (10, 10), "eleven": (11, 11), "twelve": (12, 12), "a couple of": (2, 2),
    "a couple": (2, 2), "couple of": (2, 2), "a few": (2, 4), "few": (2, 4), "several": (3, 7),
}  # fmt: skip
_COUNT = (
    r"(?P<count>\d{1,3}|" + "|".join(sorted(map(re.escape, _COUNTS), key=len, reverse=True)) + ")"
)
_UNIT = r"(?P<unit>day|week|month|year)s?"
_PREPOSITION = r"(?:in|since|during|by|before|after|until|till|of|from|around|early|late|mid)"
# Words that make "past" and "this past" mean "last".
_LAST = r"(?P<rel>last|this\s+past|past|this|next|coming|this\s+coming)"


def _day(value: date) -> Span:
    return Span(value, value)


def _month_span(year: int, month: int) -> Span:
    first = date(year, month, 1)
    return Span(first, _shift_months(first, 1) - timedelta(days=1))


def _year_span(year: int) -> Span:
    return Span(date(year, 1, 1), date(year, 12, 31))


def _week_span(day: date) -> Span:
    monday = day - timedelta(days=day.weekday())
    return Span(monday, monday + timedelta(days=6))


def _shift_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, 28))


def _group(match: re.Match[str], name: str) -> str:
    """A group a rule may not have, or that did not take part: "" then."""
    return match.groupdict().get(name) or ""


def _relation(match: re.Match[str]) -> int:
    """-1 for last/past, 0 for this, +1 for next/coming."""
    rel = " ".join(match["rel"].lower().split())
    if rel in ("last", "past", "this past"):
        return -1
    return 1 if rel in ("next", "coming", "this coming") else 0


# -- the resolvers: a rule's match and the reference day to a span, or None ---------------------


def _iso(match: re.Match[str], _: date) -> Span | None:
    return _safe_day(int(match["year"]), int(match["m"]), int(match["day"]))


def _safe_day(year: int, month: int, day: int) -> Span | None:
    try:
        return _day(date(year, month, day))
    except ValueError:  # 31 June: the shape of a date, not one
        return None


def _named_day(match: re.Match[str], reference: date) -> Span | None:
    year = int(_group(match, "year") or reference.year)
    return _safe_day(year, _MONTH_NUMBERS[match["month"].lower()], int(match["day"]))


def _month_year(match: re.Match[str], _: date) -> Span | None:
    return _month_span(int(match["year"]), _MONTH_NUMBERS[match["month"].lower()])


def _month_alone(match: re.Match[str], reference: date) -> Span | None:
    return _month_span(reference.year, _MONTH_NUMBERS[match["month"].lower()])


def _month_relative(match: re.Match[str], reference: date) -> Span | None:
    month = _MONTH_NUMBERS[match["month"].lower()]
    step = _relation(match)
    year = reference.year
    if step < 0 and month >= reference.month:
        year -= 1  # "last May" said in May or before it: a year ago
    elif step > 0 and month <= reference.month:
        year += 1
    return _month_span(year, month)


def _year_alone(match: re.Match[str], _: date) -> Span | None:
    return _year_span(int(match["year"]))


_DAY_WORDS = {
    "today": 0, "tonight": 0, "this morning": 0, "this afternoon": 0, "this evening": 0,
    "yesterday": -1, "last night": -1, "tomorrow": 1, "the day before yesterday": -2,
    "the day after tomorrow": 2,
}  # fmt: skip


def _day_word(match: re.Match[str], reference: date) -> Span | None:
    return _day(reference + timedelta(days=_DAY_WORDS[" ".join(match[0].lower().split())]))


def _other_day(_: re.Match[str], reference: date) -> Span | None:
    return Span(reference - timedelta(days=7), reference - timedelta(days=1))


def _period(match: re.Match[str], reference: date) -> Span | None:
    step = _relation(match)
    unit = match["period"].lower()
    if unit == "week":
        return _week_span(reference + timedelta(weeks=step))
    if unit == "weekend":
        return _weekend(reference, step)
    if unit == "month":
        return _month_span(*_year_month(_shift_months(reference, step)))
    return _year_span(reference.year + step)


def _year_month(day: date) -> tuple[int, int]:
    return day.year, day.month


def _weekend(reference: date, step: int) -> Span:
    saturday = reference + timedelta(days=5 - reference.weekday())  # this week's
    if step < 0:
        saturday -= timedelta(weeks=1)
    elif step > 0 and reference.weekday() >= 5:
        saturday += timedelta(weeks=1)  # said on a weekend, "next weekend" is the one after
    return Span(saturday, saturday + timedelta(days=1))


def _weekday(match: re.Match[str], reference: date) -> Span | None:
    wanted = _WEEKDAYS.index(match["weekday"].lower())
    step = _relation(match) if _group(match, "rel") else -1  # "on Friday": the one just gone
    if step < 0:
        back = (reference.weekday() - wanted) % 7 or 7
        return _day(reference - timedelta(days=back))
    if step == 0:
        return _day(reference + timedelta(days=wanted - reference.weekday()))
    ahead = (wanted - reference.weekday()) % 7 or 7
    return _day(reference + timedelta(days=ahead))


def _season(match: re.Match[str], reference: date) -> Span | None:
    named = _group(match, "season") or _group(match, "bare")
    start_month = _SEASONS[named.lower()]
    if _group(match, "year"):
        year = int(_group(match, "year"))
    else:
        # The season of the reference year (winter: the one starting that December, unless the
        # reference is in January or February, which close the winter that began before).
        year = reference.year - (1 if start_month == 12 and reference.month < 3 else 0)
        step = _relation(match) if _group(match, "rel") else 0
        start = date(year, start_month, 1)
        if step < 0 and _shift_months(start, 3) > reference:
            year -= 1  # "last summer" said before this summer ended
        elif step > 0 and start <= reference:
            year += 1
    first = date(year, start_month, 1)
    return Span(first, _shift_months(first, 3) - timedelta(days=1))


def _counted(match: re.Match[str], reference: date) -> Span | None:
    low, high = _count(match["count"])
    unit = match["unit"].lower()
    sign = -1 if _group(match, "ago") else 1
    near, far = _moved(reference, unit, sign * low), _moved(reference, unit, sign * high)
    first, last = min(near, far), max(near, far)
    return _widened(Span(first, last), unit)


def _past_few(match: re.Match[str], reference: date) -> Span | None:
    _, high = _count(_group(match, "count") or "one")
    return Span(_moved(reference, match["unit"].lower(), -high), reference)


def _count(word: str) -> tuple[int, int]:
    word = " ".join(word.lower().split())
    return (int(word), int(word)) if word.isdigit() else _COUNTS[word]


def _moved(reference: date, unit: str, amount: int) -> date:
    if unit == "day":
        return reference + timedelta(days=amount)
    if unit == "week":
        return reference + timedelta(weeks=amount)
    months = amount * (12 if unit == "year" else 1)
    return _shift_months(reference, months)


def _widened(span: Span, unit: str) -> Span:
    """Counted weeks, months and years are loose ("two months ago" is any day of that month)."""
    if unit == "week":
        return Span(_week_span(span.first).first, _week_span(span.last).last)
    if unit == "month":
        return Span(
            _month_span(*_year_month(span.first)).first, _month_span(*_year_month(span.last)).last
        )
    if unit == "year":
        return Span(date(span.first.year, 1, 1), date(span.last.year, 12, 31))
    return span


def _rule(
    pattern: str, resolve: _Resolve, flags: int = re.IGNORECASE
) -> tuple[re.Pattern[str], _Resolve]:
    return re.compile(pattern, flags), resolve


# Longest and most specific first: each match is blanked, so "21 May 2023" is not read again
# as "May 2023", nor "last Friday" as "on Friday".
_RULES: list[tuple[re.Pattern[str], _Resolve]] = [
    _rule(r"(?<![\d-])(?P<year>\d{4})-(?P<m>\d{1,2})-(?P<day>\d{1,2})(?![\d-])", _iso),
    _rule(rf"(?<![a-z]){_MONTH}\s+(?:the\s+)?{_DAY}(?:\s*,?\s*{_YEAR})?", _named_day),
    _rule(rf"(?<![\w.]){_DAY}\s+(?:of\s+)?{_MONTH}(?:\s*,?\s*{_YEAR})?", _named_day),
    _rule(rf"(?<![a-z]){_MONTH}\s*,?\s*(?:of\s+)?{_YEAR}", _month_year),
    _rule(rf"\b(?:the\s+)?{_SEASON}\s+(?:of\s+)?{_YEAR}", _season),
    _rule(r"\b(?:the\s+day\s+(?:before\s+yesterday|after\s+tomorrow)|today|tonight"
          r"|this\s+(?:morning|afternoon|evening)|yesterday|last\s+night|tomorrow)\b", _day_word),
    _rule(r"\bthe\s+other\s+day\b", _other_day),
    _rule(rf"\b(?:the\s+)?past\s+(?:{_COUNT}\s+)?{_UNIT}\b", _past_few),
    _rule(rf"\b{_COUNT}\s+{_UNIT}\s+(?P<ago>ago|back)\b", _counted),
    _rule(rf"\bin\s+{_COUNT}\s+{_UNIT}\b", _counted),
    _rule(rf"\b{_COUNT}\s+{_UNIT}\s+from\s+now\b", _counted),
    _rule(rf"\b{_LAST}\s+(?P<period>week|weekend|month|year)\b", _period),
    _rule(rf"\b{_LAST}\s+{_WEEKDAY}\b", _weekday),
    _rule(rf"\bon\s+{_WEEKDAY}\b", _weekday),
    _rule(rf"\b{_LAST}\s+{_FULL_MONTH}", _month_relative),
    _rule(rf"\b{_LAST}\s+{_SEASON}\b", _season),
    # A bare season word is this year's; "fall" only after a word that makes it a season.
    _rule(r"\b(?:(?:(?:in|during)(?:\s+the)?|this)\s+(?P<season>fall)|(?P<bare>spring|summer|autumn|winter))"
          r"\b", _season),
    # A bare month only capitalised after a preposition: "in May", not "may" the verb.
    _rule(rf"(?i:\b{_PREPOSITION}\s+(?:the\s+)?(?:(?:early|late|mid)[\s-]+)?)"
          rf"(?P<month>{'|'.join(n.capitalize() for n in _MONTH_NAMES)})\b", _month_alone, 0),
    _rule(rf"\b{_PREPOSITION}\s+(?:the\s+year\s+)?{_YEAR}(?![.,]?\d)(?!\s*%)", _year_alone),
]  # fmt: skip


# Every rule above needs one of these (a digit, "day" in yesterday and the weekdays, a unit, a
# season, a month's first letters): a text with none is passed over without running the rules,
# as most lines of a conversation are.
_MAYBE_TIME = re.compile(
    r"\d|day|week|month|year|ago|tonight|tomorrow|morning|afternoon|evening|night"
    r"|spring|summer|autumn|fall|winter|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec",
    re.IGNORECASE,
)


def spans(text: str, reference: date) -> tuple[Span, ...]:
    """The spans of days ``text``'s time expressions name, resolved against ``reference`` (the
    day it was said), in reading order; each expression is read once."""
    if _MAYBE_TIME.search(text) is None:
        return ()
    text = fold_accents(text)
    found: list[tuple[int, Span]] = []
    for pattern, resolve in _RULES:
        text = pattern.sub(partial(_take, resolve=resolve, reference=reference, found=found), text)
    return tuple(span for _, span in sorted(found))


def _take(
    match: re.Match[str], *, resolve: _Resolve, reference: date, found: list[tuple[int, Span]]
) -> str:
    """A match's span kept with its place, and the match blanked so no later rule reads it."""
    try:
        span = resolve(match, reference)
    except (ValueError, OverflowError):  # a year past the calendar's end
        span = None
    if span is None:
        return match[0]
    found.append((match.start(), span))
    return " " * len(match[0])


# -- durations and questions ----------------------------------------------------------------

# "for four years", "since I moved": says how long, which answers "how long" and "since when".
_DURATION = re.compile(
    rf"\b(?:for|over)\s+(?:the\s+)?(?:(?:last|past)\s+)?{_COUNT}\s+{_UNIT}\b|\bsince\s+\w", re.I
)
# A question asking for a time: "When did …", "What year …", "How long ago …".
_ASKS_WHEN = re.compile(
    r"(?:^|[,;:]\s*|\b(?:and|so|but|remember|know)\s+)when\b"
    r"|\b(?:what|which)\s+(?:time|date|day|week|month|year|season)\b"
    r"|\bhow\s+long\b|\bsince\s+when\b|\bhow\s+many\s+(?:days|weeks|months|years)\b",
    re.I,
)


def asks_when(question: str) -> bool:
    """Whether ``question`` asks when something happened, or for how long."""
    return _ASKS_WHEN.search(question.strip()) is not None


def says_how_long(text: str) -> bool:
    """Whether ``text`` states a duration ("for four years", "since we met")."""
    return _DURATION.search(text) is not None


def states_time(text: str, reference: date) -> bool:
    """Whether ``text`` says when (a time expression) or for how long (a duration)."""
    return bool(spans(text, reference)) or says_how_long(text)


# -- a memory's own date --------------------------------------------------------------------

# Attributes that hold when a memory's content was made: a mail's or a file's date.
DATE_ATTRS = ("date", "sent", "created", "modified")
# A full date in a title: the named-day rules with a year, and ISO.
_TITLE_DAYS = (
    re.compile(rf"(?<![\w.]){_DAY}\s+(?:of\s+)?{_MONTH}\s*,?\s*{_YEAR}", re.I),
    re.compile(rf"(?<![a-z]){_MONTH}\s+{_DAY}\s*,?\s*{_YEAR}", re.I),
)


def own_day(title: str, attrs: Mapping[str, Any], valid_from: str | None, recorded_at: str) -> date:
    """The day a memory speaks from: the full date its title names (a dated session, "Ines,
    3:10 pm on 4 March, 2024"), else its first date attribute, else when it became valid, else
    when it was written."""
    named = _title_day(title)
    if named is not None:
        return named
    for key in DATE_ATTRS:
        value = attrs.get(key)
        if isinstance(value, str) and (day := _iso_day(value)) is not None:
            return day
    return _iso_day(valid_from or "") or _iso_day(recorded_at) or date.today()


def _title_day(title: str) -> date | None:
    title = fold_accents(title)
    for pattern in _TITLE_DAYS:
        if (match := pattern.search(title)) is not None and (span := _named_day(match, date.min)):
            return span.first
    iso = _RULES[0][0].search(title)
    span = _iso(iso, date.min) if iso is not None else None
    return span.first if span is not None else None


def _iso_day(text: str) -> date | None:
    try:
        return datetime.fromisoformat(text.strip()[:10]).date()
    except ValueError:
        return None
