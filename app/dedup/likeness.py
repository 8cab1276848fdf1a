"""What two statements the embedding finds alike actually share, for the dedup gate.

An embedding of title and body says two memories are about the same thing. On real material it
says so far too often:

- **Titles that repeat a pattern** (a speaker and a date, "Meeting notes", a file's stem) make
  every memory written under them alike. A title says something about *this* pair only when a
  word of it is neither in the other title nor repeated in its own body, nor a date or figure:
  otherwise the pair is compared on its bodies (``content_pair``). The title stays in the index.
- **Distinct events** ("Esther emailed Nadia on 2024-03-19 from the Lyon workshop" / "Yusuf
  emailed Nadia on 2025-05-11 from the Warsaw workshop") differ in who, when or where, which an
  embedding barely weighs. ``compare`` reads the slots that differ:

  - *distinct event*: both name a date or time and not the same one (a pattern title's date
    counts), or both tell of something that happened (a past-tense verb) and differ in a
    number, a negation or a name (another person, place or project in the same frame). Two
    occasions: both are kept, never absorbed, never asked about.
  - *changed value*: a standing statement whose number, negation or name changed ("the rent
    is 900" / "the rent is 950", "Lena works at Acme" / "Lena works at Globex"). That may be
    an update: it is flagged, with a suggestion to supersede.
  - *same*: nothing that commits differs; the words decide between a restatement and more.

Pure functions of the text, deterministic, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cairn.app.dedup.anchors import anchors_with_openers
from cairn.app.text.statements import contradiction, fold_accents, jaccard, occasions, word_set

# Words that never make a title distinctive: a title of only these and dates or figures is a
# pattern ("Notes, 3 May 2024", "Meeting notes", "Caroline, 1:56 pm on 8 May, 2023").
_FILLER = frozenset({
    "a", "an", "the", "of", "on", "at", "in", "for", "to", "and", "or", "by", "from", "with",
    "about", "re", "fw", "fwd", "am", "pm", "notes", "note", "meeting", "minutes", "log", "entry",
    "journal", "page", "untitled", "draft", "copy", "new", "memo"
})  # fmt: skip
_DATE_WORDS = frozenset({
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
    "sept", "oct", "nov", "dec", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
    "today", "yesterday", "tomorrow", "morning", "afternoon", "evening", "night", "noon",
    "midnight"
})  # fmt: skip
_TOKEN = re.compile(r"[^\W_]+")


# A changed value keeps the rest of its statement: "the rent is 900 euros a month" and "... 950
# ..." share 6 of 8 words. Two remarks that merely both hold a "not" share far fewer.
SAME_FRAME = 0.5


@dataclass(frozen=True)
class Difference:
    kind: str  # same, changed_value, distinct_event
    reason: str | None  # what differs, for the person
    overlap: float  # word-set Jaccard of the compared contents
    titles_dropped: bool  # the titles were a pattern: the bodies were compared
    compared: tuple[str, str] = ("", "")  # the texts compared: new, kept


def split_statement(text: str) -> tuple[str, str]:
    """A searchable text's title (its first line) and the rest."""
    title, _, rest = text.partition("\n")
    return title, rest


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(fold_accents(text.casefold()))


def _title_residue(title: str, other_title: str, body: str) -> set[str]:
    """The words of ``title`` that distinguish it: not in the other title, not in its own
    body, not a date, figure or filler word."""
    other = set(_tokens(other_title))
    own_body = set(_tokens(body))
    return {
        word
        for word in _tokens(title)
        if word not in other
        and word not in own_body
        and word not in _FILLER
        and word not in _DATE_WORDS
        and not word.isdigit()
        and not re.fullmatch(r"\d+(st|nd|rd|th|am|pm|h)?", word)
    }


def content_pair(a: str, b: str) -> tuple[str, str, bool]:
    """The texts to compare for two searchable texts: their bodies when neither title says
    anything the pair does not (a pattern), else the whole texts. The flag says which."""
    title_a, body_a = split_statement(a)
    title_b, body_b = split_statement(b)
    if not body_a.strip() or not body_b.strip():
        return a, b, False
    if _title_residue(title_a, title_b, body_a) or _title_residue(title_b, title_a, body_b):
        return a, b, False
    return body_a, body_b, True


def _names(text: str) -> tuple[set[str], set[str]]:
    """The names of a statement (capitalised words, figures aside), and those of them that
    stand mid-sentence somewhere: only those surely are names, not an opening capital."""
    found = {w: opens for w, opens in anchors_with_openers(text).items() if not w[0].isdigit()}
    return set(found), {word for word, opens in found.items() if not opens}


def _substituted(a: str, b: str) -> list[str]:
    """Names each side has that the other lacks, when both sides have one: another person,
    place or project in the same frame. A name only one side adds is more detail, not that."""
    all_a, mid_a = _names(a)
    all_b, mid_b = _names(b)
    only_a, only_b = mid_a - all_b, mid_b - all_a
    return sorted(only_a | only_b) if only_a and only_b else []


# Irregular past forms common in notes and talk; with "-ed" verbs, what makes a statement a
# narrated occasion ("Olivia called Xena") rather than a standing fact ("Lena works at Acme").
_PAST = frozenset({
    "went", "met", "had", "took", "told", "flew", "ran", "ate", "saw", "gave", "made", "came",
    "got", "sent", "wrote", "said", "bought", "brought", "found", "left", "lost", "paid", "put",
    "read", "sold", "spent", "taught", "thought", "won", "began", "drove", "fell", "felt",
    "forgot", "heard", "held", "kept", "knew", "led", "lent", "meant", "rode", "rang", "sat",
    "slept", "spoke", "stood", "swam", "threw", "understood", "woke", "wore", "did", "was", "were",
    "became", "broke", "chose", "drew", "drank", "grew", "hid", "hung", "let", "mistook", "sang",
    "shut", "sank", "stole", "struck", "swore", "tore"
})  # fmt: skip
_PAST_ED = re.compile(r"\b(?<!\bis )(?<!\bare )(?<!\bam )(?<!\bbe )(?<!\bbeen )[a-z]{3,}ed\b")


def narrated(text: str) -> bool:
    """Whether a statement tells of something that happened (a past-tense verb)."""
    folded = fold_accents(text.casefold())
    return bool(set(_TOKEN.findall(folded)) & _PAST) or bool(_PAST_ED.search(folded))


def _other_occasion(a: str, b: str) -> bool:
    found_a, found_b = occasions(a), occasions(b)
    return bool(found_a) and bool(found_b) and found_a != found_b


def compare(a: str, b: str) -> Difference:
    """What differs between searchable texts ``a`` (new) and ``b`` (kept)."""
    left, right, dropped = content_pair(a, b)
    overlap = jaccard(word_set(left), word_set(right))
    # A pattern title still dates its memory: a note of another day is another occasion.
    titles = (split_statement(a)[0], split_statement(b)[0]) if dropped else ("", "")
    if _other_occasion(left, right) or _other_occasion(*titles):
        return Difference("distinct_event", "another date or time", overlap, dropped, (left, right))
    clash = contradiction(left, right)
    names = _substituted(left, right)
    reasons = [clash] if clash else []
    if names:
        reasons.append(f"names differ: {', '.join(names)}")
    reason = "; ".join(reasons) or None
    if reason is None:
        return Difference("same", None, overlap, dropped, (left, right))
    if narrated(left) and narrated(right):
        return Difference("distinct_event", reason, overlap, dropped, (left, right))
    if overlap >= SAME_FRAME:
        return Difference("changed_value", reason, overlap, dropped, (left, right))
    # Different words around the difference: another statement, or the same one reworded.
    # The band decides, but nothing that differs in what it commits to is ever absorbed.
    return Difference("same", reason, overlap, dropped, (left, right))
