"""Comparing two statements for the dedup gate (DESIGN §4.2).

An embedding says two texts are about the same thing; it cannot say whether they agree. "The
meeting is at 3pm" and "The meeting is at 4pm" are near neighbours, and so are "I like tea" and
"I don't like tea". So the gate asks two more questions of a near-duplicate, both answered here
by pure, deterministic functions of the text (stdlib only, no model):

- :func:`word_set` and :func:`jaccard`: does the new statement bring words the old one lacks
  (novel: merge-link it) or say the same words again (absorbable)?
- :func:`contradiction`: do the two disagree about a number, a date or time, or a negation? If
  so they are never absorbed, whatever the similarity; at best merge-linked and flagged.

Both lean towards keeping both statements: a false "these differ" costs a link that a person can
fold later, a false "these are the same" throws away what they wrote.

What :func:`contradiction` recognises, deliberately modest (each is a regular expression below):

- numbers: digits with optional thousands commas and decimals ("10,000" = "10000" = "10k",
  "3.50" = "3.5"), the words zero to ninety-nine with hundred / thousand / million / billion,
  "a dozen", "half a dozen", ordinals ("3rd" = "third" = 3; not a bare "first" or "second"),
  percentages ("40%" = "40 percent") and money ("$40" = "40 dollars"; "$40" differs from "€40"
  and from a bare "40").
  Not: "a couple", "a few", "half", "once", "twice", fractions, signs.
- dates: ISO dates, d/m/y with "/", "." or "-", "March 3" = "3rd of March", with or without a
  year, "March 2024", a bare year 1800-2099, decades ("the 1990s"), weekdays, today / tonight /
  tomorrow / yesterday, "next week" and the like, seasons (not "fall"), and a bare month name when
  capitalised after a preposition ("in June"; "June called" is a person).
- times: "3pm" = "3 pm" = "3 p.m." = "15:00", noon, midnight, morning / afternoon / evening.
- negation: not, no, never, none, nobody, nothing, nowhere, neither, without, unable, cannot
  and every "n't" (also typed without the apostrophe: "dont"). "won't" and "will not" are one
  negation each; "no longer" is one; "nor" is not counted, so "neither X nor Y" = "not X or Y";
  "not only" is not a negation.

"Differ" means the multisets extracted from the two sides are not equal. One side mentioning a
number, date or time the other lacks is a difference too: it is new information or a
contradiction, and neither may be absorbed into the other. Negations are compared by count, not
by word, so "I don't drink coffee" and "I never drink coffee" pass, and so (a known limit) does
swapping which half of a sentence is negated.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache, partial

# -- word sets --------------------------------------------------------------------------------

# No stop list: the small words a stop list would drop ("not", "no", "never", "without") are
# the ones that turn a statement into its opposite, and "a"/"the" cost a restatement little.
# Thousands commas are dropped ("10,000" = "10000"); a decimal point stays part of its number.
_WORD = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?|[^\W\d_]+")
# Contractions are spelled out, so "I'd" = "I would" and "don't" = "do not" word for word; a
# restatement that only contracts a word then keeps its Jaccard. "'s" is dropped: it is "is",
# "has" or a possessive, and "Dev's allergic" / "Dev is allergic" / "Dev's car" all keep "dev".
_CONTRACTION = re.compile(
    r"\b(?:won't|can't|shan't|cannot)\b|n't\b|(?<=\w)'(?:ll|re|ve|m|d|s)\b|(?<=\w)'(?=\w)"
)
_SPELLED_OUT = {
    "won't": "will not", "can't": "can not", "shan't": "shall not", "cannot": "can not",
    "n't": " not", "'ll": " will", "'re": " are", "'ve": " have", "'m": " am", "'d": " would",
    "'s": "", "'": "",  # the last: any other inner apostrophe, "O'Neil" -> "oneil"
}  # fmt: skip
# Typographic quotes become ASCII ones so "don’t" and "don't" read alike. Letters with a stroke
# and the ligatures have no decomposition in Unicode, so NFKD alone leaves "Tromsø" unlike the
# "Tromso" typed on a keyboard without it.
_FOLD = str.maketrans(
    {"’": "'", "‘": "'", "ʼ": "'", "`": "'", "“": '"', "”": '"'}
    | {"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ħ": "h", "Ħ": "H"}
    | {"æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE"}
)


@lru_cache(maxsize=4096)  # the gate folds the same candidates' texts for write after write
def fold_accents(text: str) -> str:
    """NFKD, then drop the combining marks: "Zoë" -> "Zoe", "ﬁ" -> "fi", no-break space -> space."""
    if text.isascii():  # nothing to fold: the common case, and a long passage's cost
        return text
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    if decomposed.isascii():
        return decomposed
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@lru_cache(maxsize=4096)  # the gate asks again for the same texts, candidate after candidate
def word_set(text: str) -> frozenset[str]:
    """The casefolded, accent-free words and numbers of ``text``, contractions spelled out
    ("won't" -> "will", "not"); punctuation is dropped."""
    # casefold before NFKD: "İ" casefolds to "i" plus a combining dot, which NFKD then strips.
    folded = fold_accents(text.casefold())
    folded = _CONTRACTION.sub(lambda m: _SPELLED_OUT[m[0]], folded)
    return frozenset(token.replace(",", "") for token in _WORD.findall(folded))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b|; two empty sets are identical, so 1.0."""
    union = a | b
    if not union:
        return 1.0
    return len(a & b) / len(union)


# -- what a statement commits to --------------------------------------------------------------


@dataclass(frozen=True)
class _Mention:
    start: int  # offset in the statement, so a reason lists mentions in reading order
    key: str  # canonical value: what is compared between the two statements
    surface: str  # the words as written, for the reason shown to the person


_Convert = Callable[[re.Match[str]], str | None]

_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
_MONTH_ABBREVIATIONS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
    "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES, start=1)}
_MONTHS.update(_MONTH_ABBREVIATIONS)
# Full names before abbreviations, so "march" is not read as "mar" + "ch"; only an abbreviation
# takes a dot ("Sept."), so a full name leaves the sentence's full stop alone.
_MONTH = (
    rf"(?P<month>{'|'.join(_MONTH_NAMES)}"
    rf"|(?:{'|'.join(sorted(_MONTH_ABBREVIATIONS, key=len, reverse=True))})\.?)(?![a-z])"
)
_DAY = r"(?P<day>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?(?![\d:])"
_YEAR = r"(?P<year>(?:1[89]|20)\d\d)(?!\d)"
# Only these make a capitalised bare month name a month: "June called" is a person, "in June"
# is not. Abbreviations never count bare ("Jan" is a name, "mar" a verb).
_MONTH_PREPOSITIONS = (
    "in|since|until|till|by|before|after|during|through|throughout|last|next|this|early|late"
    "|mid|of|around|every|each"
)
_CAPITALISED_MONTHS = "|".join(name.capitalize() for name in _MONTH_NAMES)
_CURRENCY_WORDS = {
    "dollar": "$", "dollars": "$", "bucks": "$", "usd": "$",
    "euro": "€", "euros": "€", "eur": "€",
    "gbp": "£", "quid": "£",
    "yen": "¥", "jpy": "¥",
}  # fmt: skip
_MULTIPLIERS = {"k": 1000, "thousand": 1000, "million": 10**6, "billion": 10**9, "bn": 10**9}
# What may follow a number and belong to it: a multiplier, then a percent sign or a currency.
_AFTER_NUMBER = (
    r"(?:\s*(?P<mult>k|thousand|million|billion|bn)(?![a-z]))?"
    r"(?:\s*(?P<pct>%|per\s?cent(?![a-z]))|\s+(?P<curw>"
    + "|".join(_CURRENCY_WORDS)
    + r")(?![a-z]))?"
)

_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
# Ordinal words from "third": "tenth anniversary" = "ten years". "first" and "second" count only
# inside "twenty-first" and the like; alone they are too often not numbers ("at first", "a
# second opinion", "wait a second").
_ORDINALS = {
    "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
    "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
    "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60,
    "seventieth": 70, "eightieth": 80, "ninetieth": 90,
}  # fmt: skip
_LATE_ORDINALS = {"first": 1, "second": 2}
_SCALES = {"thousand": 1000, "million": 10**6, "billion": 10**9}


def _alternation(words: Iterable[str]) -> str:
    # Longest first, so "seventeen" is not read as "seven" and then a stray "teen".
    return "|".join(sorted(words, key=len, reverse=True))


_NUMBER_WORD = _alternation([*_SMALL, *_TENS, *_ORDINALS, "hundred", *_SCALES, "dozen"])
_NUMBER_WORD_NEXT = _alternation(
    [*_SMALL, *_TENS, *_ORDINALS, *_LATE_ORDINALS, "hundred", *_SCALES, "dozen"]
)
# "one" is a number in "one sister" but a pronoun in "the blue one", "no one", "one of them".
# A small fixed list, not a grammar: "the red one is mine" still reads as the number 1, so such
# a pair is flagged, which costs a link, never a lost statement.
_ONE_PRONOUN_BEFORE = frozenset(
    {
        "no", "the", "this", "that", "which", "each", "every", "any", "some", "another", "a",
        "an", "only", "same", "other", "such", "favourite", "favorite", "little", "last",
        "next", "first", "right", "wrong", "new", "old",
    }
)  # fmt: skip
_ONE_PRONOUN_AFTER = frozenset({"of", "another", "day", "by"})


def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# -- times --


def _clock_12(match: re.Match[str]) -> str | None:
    hour = int(match["hour"]) % 12 + (12 if match["half"].lower() == "p" else 0)
    return f"{hour:02d}:{match['minute'] or '00'}"


def _clock_24(match: re.Match[str]) -> str | None:
    return f"{int(match['hour']):02d}:{match['minute']}"


_NAMED_TIMES = {"noon": "12:00", "midday": "12:00", "midnight": "00:00"}

_TIME_RULES: list[tuple[re.Pattern[str], _Convert]] = [
    (
        _compile(
            r"(?<![\w:.])(?P<hour>1[0-2]|0?[1-9])(?::(?P<minute>[0-5]\d))?\s*"
            r"(?P<half>[ap])(?:\.\s?m\.?|\s?m)(?![a-z])"
        ),
        _clock_12,
    ),
    (_compile(r"(?<![\w:.])(?P<hour>[01]?\d|2[0-3]):(?P<minute>[0-5]\d)(?![\d:])"), _clock_24),
    (
        _compile(r"(?<!\w)(?:12\s*)?(?P<word>noon|midday|midnight)(?!\w)"),
        lambda m: _NAMED_TIMES[m["word"].lower()],
    ),
    (_compile(r"\b(?P<word>morning|afternoon|evening)s?\b"), lambda m: m["word"].lower()),
]

# -- dates --


def _ymd(year: str | None, month: int | None, day: str | None) -> str | None:
    if month is not None and not 1 <= month <= 12:
        return None
    if day is not None and not 1 <= int(day) <= 31:
        return None
    parts = [year or "?", f"{month:02d}" if month else "?", f"{int(day):02d}" if day else "?"]
    return "-".join(parts)


def _named_month(match: re.Match[str]) -> str | None:
    groups = match.groupdict()
    return _ymd(groups.get("year"), _MONTHS[match["month"].lower().rstrip(".")], groups.get("day"))


def _numeric_date(match: re.Match[str]) -> str | None:
    # Day-first or month-first cannot be told apart, so the three numbers are compared as
    # written (without leading zeros): "3/4/2024" and "03/04/2024" agree, "4/3/2024" does not.
    return "/".join(str(int(match[g])) for g in ("p1", "p2", "p3"))


_DATE_RULES: list[tuple[re.Pattern[str], _Convert]] = [
    (
        _compile(r"(?<![\d-])(?P<year>\d{4})-(?P<m>\d{1,2})-(?P<day>\d{1,2})(?![\d-])"),
        lambda m: _ymd(m["year"], int(m["m"]), m["day"]),
    ),
    (
        _compile(
            r"(?<![\d/.-])(?P<p1>\d{1,2})(?P<sep>[/.-])(?P<p2>\d{1,2})(?P=sep)"
            r"(?P<p3>\d{4}|\d{2})(?![/.-]?\d)"
        ),
        _numeric_date,
    ),
    (_compile(rf"(?<![a-z]){_MONTH}\s+(?:the\s+)?{_DAY}(?:\s*,?\s*{_YEAR})?"), _named_month),
    (
        _compile(rf"(?<![\w.])(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}(?:\s*,?\s*{_YEAR})?"),
        _named_month,
    ),
    (_compile(rf"(?<![a-z]){_MONTH}\s*,?\s*{_YEAR}"), _named_month),
    (
        re.compile(
            rf"(?i:\b(?:{_MONTH_PREPOSITIONS})\s+(?:(?:early|late)\s+)?|\bmid-)"
            rf"(?P<month>{_CAPITALISED_MONTHS})\b"
        ),
        _named_month,
    ),
    (
        _compile(r"(?<![\w'])(?:the\s+)?(?P<decade>(?:1[89]|20)\d0)'?s\b"),
        lambda m: m["decade"] + "s",
    ),
    (
        # A bare year; not one that is money, a percentage or a count of thousands.
        _compile(
            rf"(?<![\w$£€¥])(?<!\d[.,]){_YEAR}(?![.,]\d)(?!\w)(?!\s*%)"
            r"(?!\s*(?:per\s?cent|k|thousand|million|billion|" + "|".join(_CURRENCY_WORDS) + r")\b)"
        ),
        lambda m: m["year"],
    ),
    (
        _compile(r"\b(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"),
        lambda m: m["day"].lower(),
    ),
    (
        _compile(
            r"\b(?:(?P<rel>next|last|this)\s+(?P<span>week|weekend|month|year)"
            r"|(?P<word>today|tonight|tomorrow|yesterday|spring|summer|autumn|winter))\b"
        ),
        lambda m: m["word"].lower() if m["word"] else f"{m['rel']} {m['span']}".lower(),
    ),
]

# -- numbers --


def _amount(value: Decimal, match: re.Match[str]) -> str:
    """Canonical key of a number with what follows it: "40 percent" -> "40%", "$1.5k" -> "$1500"."""
    if match["mult"]:
        value *= _MULTIPLIERS[match["mult"].lower()]
    text = format(value.normalize(), "f")
    code = (match["cur"] or match["curw"] or "").strip().lower()
    if code:
        return _CURRENCY_WORDS.get(code, code) + text  # "usd 40", "$40", "40 dollars" -> "$40"
    return text + ("%" if match["pct"] else "")


def _digits(match: re.Match[str]) -> str | None:
    return _amount(Decimal(match["num"].replace(",", "")), match)


def _words(match: re.Match[str]) -> str | None:
    phrase = match["words"].lower()
    if phrase == "one":
        before = match.string[: match.start("words")].split()
        after = match.string[match.end("words") :].lstrip()
        # "... than a printed one." : a "one" that ends a clause stands for a noun.
        if (
            (before and before[-1].lower() in _ONE_PRONOUN_BEFORE)
            or not after
            or after[0] in ".,;:!?)"
            or after.split()[0].lower() in _ONE_PRONOUN_AFTER
        ):
            return None
    values = _parse_number_words(phrase)
    # A run like "two three" is two numbers; the key keeps them apart and in order.
    return "+".join(_amount(Decimal(v), match) for v in values)


def _parse_number_words(phrase: str) -> list[int]:
    """ "two hundred and fifty thousand" -> [250000]; a run that is not one number splits."""
    if phrase.startswith("half a dozen"):
        return [6]
    values: list[int] = []
    total = current = 0
    previous = ""  # "", "unit", "tens", "hundred", "scale" or "ordinal" (ends a number)
    for word in re.findall(r"[a-z]+", phrase):
        if word == "and":
            continue
        if word in _LATE_ORDINALS:
            if previous != "tens":  # "one second" is not 12
                break
            current += _LATE_ORDINALS[word]
            previous = "ordinal"
            continue
        if word in _ORDINALS:
            value = _ORDINALS[word]
            if not (previous in ("", "hundred", "scale") or (previous == "tens" and value < 10)):
                values.append(total + current)
                total = current = 0
            current += value
            previous = "ordinal"
            continue
        if word == "a":
            current = 1  # "a hundred", "a dozen": the pattern lets "a" only start a run
            previous = "unit"
        elif word in _SMALL or word in _TENS:
            value = _SMALL.get(word, _TENS.get(word, 0))
            fits = previous in ("", "hundred", "scale") or (previous == "tens" and 0 < value < 10)
            if not fits:
                values.append(total + current)
                total = current = 0
            current += value
            previous = "tens" if word in _TENS else "unit"
        elif word == "hundred":
            current = (current or 1) * 100
            previous = "hundred"
        elif word == "dozen":
            current = (current or 1) * 12
            previous = "scale"
        else:
            total += (current or 1) * _SCALES[word]
            current = 0
            previous = "scale"
    values.append(total + current)
    return values


_CURRENCY_PREFIX = r"(?:(?P<cur>[$£€¥]|(?:usd|eur|gbp)\s?)\s?)?"
_NUMBER_RULES: list[tuple[re.Pattern[str], _Convert]] = [
    (
        _compile(
            rf"(?<![\w.]){_CURRENCY_PREFIX}"
            r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?)" + _AFTER_NUMBER
        ),
        _digits,
    ),
    (
        _compile(
            rf"(?<!\w){_CURRENCY_PREFIX}(?P<words>half\s+a\s+dozen|"
            rf"(?:a\s+(?=hundred|thousand|million|billion|dozen))?(?:{_NUMBER_WORD})"
            rf"(?:(?:[\s-]+|\s+and\s+)(?:{_NUMBER_WORD_NEXT}))*)(?!\w)" + _AFTER_NUMBER
        ),
        _words,
    ),
]

# -- negation --

_NEGATION = _compile(
    # "no longer" is one negation, shown whole; "No. 5" is a number, not a negation.
    r"\b(?:not(?!\s+only\b)|no\s+longer|no(?!\.?\s*\d)|never|none|nobody|nothing|nowhere"
    r"|neither|without|unable|cannot|[a-z]+n't"
    r"|dont|doesnt|didnt|isnt|wasnt|arent|werent|cant|wont|couldnt|shouldnt|wouldnt|havent"
    r"|hasnt|hadnt|aint|mustnt|neednt)\b"
)


def _take(
    rules: Iterable[tuple[re.Pattern[str], _Convert]], text: str
) -> tuple[list[_Mention], str]:
    """Every mention the rules find, in reading order, and the text with those spans blanked.

    Blanking (not deleting) keeps offsets and word boundaries, and stops a later rule from
    reading the same words again: "3pm" is a time, not also the number 3.
    """
    found: list[_Mention] = []
    for pattern, convert in rules:
        text = pattern.sub(partial(_blank, convert, found), text)
    return sorted(found, key=lambda mention: mention.start), text


def _blank(convert: _Convert, found: list[_Mention], match: re.Match[str]) -> str:
    key = convert(match)
    if key is None:  # the rule's shape matched but not its sense ("the blue one"): leave it
        return match[0]
    found.append(_Mention(match.start(), key, " ".join(match[0].split())))
    return " " * len(match[0])


@dataclass(frozen=True)
class _Commitments:
    times: tuple[_Mention, ...]
    dates: tuple[_Mention, ...]
    numbers: tuple[_Mention, ...]
    negations: tuple[str, ...]


# The gate compares one new text with each of its candidates, and asks about each text's dates
# and times more than once per pair: reading a text once saves most of an ingest's gate time.
@lru_cache(maxsize=4096)
def _commitments(text: str) -> _Commitments:
    # Accents folded but case kept: a capital is what makes a bare "June" a month.
    text = fold_accents(text)
    negations = tuple(" ".join(m[0].split()) for m in _NEGATION.finditer(text))
    times, text = _take(_TIME_RULES, text)
    dates, text = _take(_DATE_RULES, text)
    numbers, _ = _take(_NUMBER_RULES, text)
    return _Commitments(tuple(times), tuple(dates), tuple(numbers), negations)


def forget_texts() -> None:
    """Drop the texts the caches above hold: memories must not outlive a closed vault in the
    process's memory (nor reach swap from there)."""
    _commitments.cache_clear()
    word_set.cache_clear()
    fold_accents.cache_clear()  # its keys are the texts themselves: search's times fold them too


def occasions(text: str) -> frozenset[str]:
    """The dates and times a statement names, canonical ("3 May" = "May 3rd"): two statements
    that both name one and name different ones speak of two occasions."""
    found = _commitments(text)
    return frozenset(mention.key for mention in [*found.dates, *found.times])


def _difference(label: str, a: Sequence[_Mention], b: Sequence[_Mention]) -> str | None:
    only_a = Counter(m.key for m in a) - Counter(m.key for m in b)
    only_b = Counter(m.key for m in b) - Counter(m.key for m in a)
    if not only_a and not only_b:
        return None
    return f"{label} differ: {_surfaces(a, only_a)} vs {_surfaces(b, only_b)}"


def _surfaces(mentions: Sequence[_Mention], keys: Counter[str]) -> str:
    left = Counter(keys)
    shown = []
    for mention in mentions:
        if left[mention.key] > 0:
            left[mention.key] -= 1
            shown.append(mention.surface)
    return ", ".join(shown) or "none"


def contradiction(a: str, b: str) -> str | None:
    """Why ``a`` and ``b`` may not be absorbed into each other, or None if nothing differs.

    The reason names each kind that differs, "; "-joined, e.g. "times differ: 3pm vs 4pm" or
    "negation differs: don't vs none".
    """
    left, right = _commitments(a), _commitments(b)
    reasons = [
        _difference("numbers", left.numbers, right.numbers),
        _difference("dates", left.dates, right.dates),
        _difference("times", left.times, right.times),
    ]
    if len(left.negations) != len(right.negations):
        shown_a = ", ".join(left.negations) or "none"
        shown_b = ", ".join(right.negations) or "none"
        reasons.append(f"negation differs: {shown_a} vs {shown_b}")
    found = [reason for reason in reasons if reason]
    return "; ".join(found) if found else None
