"""Names in any text: the people, organisations, places and other proper names a memory names,
found by the shape of the words and by what the rest of the vault says about them.

No named-entity model ships with Cairn (a measured choice: see the ingest notes of issue 28);
this recogniser reads capitalisation, which English uses to mark names, and rejects what
capitals mark for other reasons, each by a mechanism rather than a list of one vault's words:

- **Case evidence.** ``CaseEvidence`` counts, over the texts of a vault, how often each word is
  written in lower case and how often capitalised inside a sentence. A capitalised word that is
  mostly seen in lower case elsewhere ("Example", "Glad", "Awesome") is an ordinary word put at
  the head of a sentence or a heading, not a name. A word at the head of a sentence is taken
  only when the vault has seen it capitalised inside a sentence more often than in lower case.
- **Lines whose capitals say nothing**: a heading or a line in Title Case, code (fenced or
  inline), addresses (URLs, mail), and licence or copyright boilerplate are not read for names.
- **Address, not mention**: a name that stands alone in its clause with at most one other word
  ("Thanks, Caroline!", "Hey Mel!") speaks to someone; it does not say something about them.
- **Closed word classes** of English (pronouns, determiners, conjunctions, prepositions, the
  days and months) are never names and split a run of capitals: "Your Company" is no name.
- **An acronym alone** ("PDF", "API") is more often a term than a name: it is not taken.

The type is read from the words around and in the name: a title (Dr, Ms ...) or a word of
kinship or acquaintance before it ("my friend Ana") says Person; an organisation word (Ltd,
University, Foundation ...) says Organization; a place word (Street, River ...) or a preposition
of place before it ("in Lisbon", "from Ghent") says Place; any other name is a Topic (a subject
memories gather around), which the person can retype in one step.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from cairn.app.text import said
from cairn.app.text.words import FUNCTION_WORDS

MAX_NAME_WORDS = 4
# A capitalised word must be seen capitalised inside a sentence at least this often for every
# time it is seen in lower case to count as a name at the head of a sentence.
NAME_SHARE = 0.5
# A line of at least this many words, most of them capitalised, is a heading or a title.
TITLE_LINE_WORDS = 3
TITLE_LINE_SHARE = 0.6


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_FUNCTION_WORDS = FUNCTION_WORDS | _words(
    # The calendar: capitalised by rule, dates rather than names.
    "monday tuesday wednesday thursday friday saturday sunday january february march april "
    "june july august september october november december today tomorrow yesterday mon tue "
    "tues wed thu thur thurs fri sat sun jan feb mar apr jun jul aug sep sept oct nov dec"
)
_PREPOSITIONS = _words(
    "of in on at to for from by with without about into onto over under after before during "
    "since until upon via per near like as than"
)
_CONNECTORS = frozenset({"of", "de", "del", "da", "van", "von", "der", "den", "du", "la", "le"})
_ARTICLES = frozenset({"the", "a", "an"})
# A contraction ("I'm", "don't") is made of function words; a possessive is not.
_CONTRACTION = re.compile(r"['’](?:m|ve|ll|d|re|t)$|n['’]t$", re.IGNORECASE)
_QUOTES = frozenset({'"', "“", "”"})
_HONORIFICS = frozenset({"mr", "mrs", "ms", "mx", "dr", "prof", "sir", "dame", "miss"})
_KIN = _words(
    "friend friends sister brother mom mum mother dad father wife husband son daughter aunt "
    "uncle cousin niece nephew grandma grandpa grandmother grandfather colleague coworker "
    "boss partner neighbour neighbor girlfriend boyfriend fiance fiancee teacher doctor"
)
_ORG_WORDS = _words(
    "inc ltd llc gmbh ag sa corp corporation company co university institute foundation "
    "bank association society agency council ministry department college school hospital "
    "club church team group"
)
# "Park" is left out: it is as often a family name.
_PLACE_WORDS = _words(
    "street road avenue lane square river lake mountain mountains island islands bay county "
    "province airport valley harbour harbor beach"
)
# A name someone is known by in a note: "serviced by Hendrik", "a book recommended by Ana".
_AGENT_CUES = frozenset({"by"})
# What follows a person's name: "Hendrik from Warmtech" (who they are with), "Ines called".
_PERSON_FOLLOWERS = _words(
    "from said says told asked called calls wrote writes mentioned suggested recommended thinks "
    "thought replied answered"
)
# "in" is left out: "in Logseq" names a program as often as "in Lisbon" a city.
_PLACE_PREPOSITIONS = frozenset({"from", "near", "visited", "visit", "moved"})
_BOILERPLATE = re.compile(
    r"copyright|\(c\)|©|licen[cs]e|all rights reserved|permission is hereby granted|warrant",
    re.IGNORECASE,
)
# A patch's lines: added or removed (a sign straight before the text, unlike a list item's
# "- "), a hunk's head, a file's header.
_DIFF_LINE = re.compile(r"^(?:[+-](?:\t|[^\s+-])|[+-]{3} \S|@@ |diff --git |index [0-9a-f]{7,})")
_QUOTE_MARKS = re.compile(r"^(?:[ \t]*>)+[ \t]?")
_CODE_SYMBOLS = frozenset("{}[]();=<>&|*/\\_#$")
# A line of at least this many characters (spaces aside) with this share of code's symbols is
# code: prose has a bracket or a slash now and then, "if (rc) {" has one in three characters.
CODE_LINE_CHARS = 8
CODE_SYMBOL_SHARE = 0.12
_CODE_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_ADDRESS = re.compile(r"\b\w+://\S+|\bwww\.\S+|\S+@\S+\.\w+|\[\[[^\]\n]*\]\]|\(\([^)\n]*\)\)")
_MARKDOWN_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
# Words, the punctuation that ends a clause, and a dash, bullet or heading mark standing alone
# (a list's items and a heading run on in a passage's text: each starts a sentence).
_TOKEN = re.compile(
    r"[^\W\d_][\w'’&.-]*[\w]|[^\W\d_]|\d[\w.,:/-]*|[,;:!?()\"“”]|(?<!\w)\.|\.(?!\w)"
    r"|(?<!\S)[-–—#*>|]+(?!\S)"
)
_SENTENCE_END = frozenset({".", "!", "?", ":", ";", "(", ")"})
_CLAUSE_END = _SENTENCE_END | _QUOTES | {","}
_POSSESSIVE = re.compile(r"['’]s?$")


@dataclass(frozen=True)
class Mention:
    name: str
    type: str  # Person, Organization, Place or Topic


class CaseEvidence:
    """How each word is written across the texts it has been shown: in lower case, or
    capitalised inside a sentence (where a capital means a name)."""

    def __init__(self) -> None:
        self.lower: Counter[str] = Counter()
        self.capital: Counter[str] = Counter()
        # Who speaks in the vault's chats ("Ana: see you!"): the people a chat is between are
        # spoken to far more often than spoken of, and every line of theirs would name them.
        self.speakers: set[str] = set()

    def learn(self, text: str) -> None:
        """Counts the words of ``text``. Only a capital right after a word in lower case is
        evidence of a name: at the head of a sentence, after a comma or a quote mark, a
        capital is put there by habit ("Wow, Congrats!")."""
        self.speakers.update(m.group(1).casefold() for m in said.SAID_LINE.finditer(text))
        for sentence in _sentences(text):
            for at, word in enumerate(sentence):
                if not _is_word(word):
                    continue
                key = word.casefold()
                if word[:1].islower():
                    self.lower[key] += 1
                elif at > 0 and sentence[at - 1][:1].islower() and not _is_acronym(word):
                    self.capital[_POSSESSIVE.sub("", key)] += 1

    def mostly_lower(self, word: str) -> bool:
        key = word.casefold()
        return self.lower[key] > self.capital[key]

    def seen_as_name(self, word: str) -> bool:
        key = word.casefold()
        return self.capital[key] > 0 and self.capital[key] >= NAME_SHARE * 2 * self.lower[key]


def recognise(text: str, evidence: CaseEvidence) -> list[Mention]:
    """The names ``text`` states, each once, in order of first mention. ``evidence`` should
    already have learnt ``text``."""
    found: dict[str, Mention] = {}
    for sentence in _sentences(text):
        for mention in _names_in(sentence, evidence):
            found.setdefault(mention.name.casefold(), mention)
    return list(found.values())


def prose(text: str) -> str:
    """``text`` without what is not prose: code, addresses, links' targets, boilerplate and
    title lines."""
    text = _CODE_FENCE.sub("\n", text)
    text = _INLINE_CODE.sub(" . ", text)
    text = _MARKDOWN_LINK.sub(r"\1", text)
    text = _ADDRESS.sub(" . ", text)  # a link is a unit of its own: a sentence break
    lines = []
    in_patch = False
    for line in text.splitlines():
        # A patch (quoted in a reply or not): its lines, and the context lines of its hunks.
        unquoted = _QUOTE_MARKS.sub("", line)
        in_patch = bool(_DIFF_LINE.match(unquoted)) or (in_patch and unquoted[:1] in " \t")
        if in_patch or _BOILERPLATE.search(line) or _title_line(line) or _code_line(line):
            continue
        lines.append(line)
    return "\n".join(lines)


def _code_line(line: str) -> bool:
    """A line dense with code's symbols, as mail and pasted notes carry outside any fence."""
    chars = "".join(line.split())
    symbols = sum(1 for c in chars if c in _CODE_SYMBOLS)
    return len(chars) >= CODE_LINE_CHARS and symbols >= CODE_SYMBOL_SHARE * len(chars)


def _title_line(line: str) -> bool:
    if line.lstrip().startswith("#"):
        return True
    words = [w for w in re.findall(r"[^\W\d_][\w'’-]*", line) if w.casefold() not in _CONNECTORS]
    capitals = sum(1 for w in words if w[:1].isupper())
    if line.rstrip().endswith((".", "!", "?")):
        return False  # a sentence, however many names it holds
    if len(words) < TITLE_LINE_WORDS:  # "Outline View" alone on its line is a heading
        return len(words) > 1 and capitals == len(words)
    return capitals >= TITLE_LINE_SHARE * len(words)


def _sentences(text: str) -> Iterator[list[str]]:
    """Each sentence (or list item, or line) of the prose of ``text`` as its tokens: words and
    the punctuation that ends a clause."""
    for line in prose(text).splitlines():
        line = re.sub(r"^\s*(?:[-*+>]|\d+[.)])\s+", "", line)  # a list item starts a sentence
        sentence: list[str] = []
        heading = False  # a heading run on in a passage ("- ## Setup Guide"): no prose
        for piece in _TOKEN.findall(line):
            if piece == "." and sentence and sentence[-1].casefold() in _HONORIFICS:
                continue  # "Dr. Ana Lima": the title's full stop ends no sentence
            sentence.append(piece)
            if piece in _SENTENCE_END or piece[0] in "-–—#*>|":
                if not heading:
                    yield sentence
                sentence, heading = [], piece[0] == "#"
        if sentence and not heading:
            yield sentence


def _is_word(token: str) -> bool:
    return token[:1].isalpha()


def _is_acronym(word: str) -> bool:
    """Capitals throughout, a plural's s aside: "PDF", "URLs", "IDs"."""
    letters = [c for c in word.removesuffix("s") if c.isalpha()]
    return len(letters) > 1 and all(c.isupper() for c in letters)


def _capitalised(token: str) -> bool:
    """Whether ``token`` may be a word of a name (a title such as "Dr" stands before one)."""
    bare = token.casefold().rstrip(".")
    return (
        token[:1].isupper()
        and bare not in _FUNCTION_WORDS
        and not (bare.endswith("s") and bare[:-1] in _FUNCTION_WORDS)  # "on Sundays", "Mondays"
        and bare not in _HONORIFICS
        and not _CONTRACTION.search(token)
        and "_" not in token  # an identifier ("TCP_ServerInfo"), never a name
    )


def _names_in(sentence: list[str], evidence: CaseEvidence) -> Iterator[Mention]:
    at = 0
    while at < len(sentence):
        if not (_is_word(sentence[at]) and _capitalised(sentence[at])):
            at += 1
            continue
        end = at + 1
        while end < len(sentence) and _is_word(sentence[end]):
            if _capitalised(sentence[end]):
                end += 1
            elif (joins := _joins(sentence, end)) > 0:
                end += joins
            else:
                break
        mention = _mention(sentence, at, end, evidence)
        if mention is not None:
            yield mention
        at = end


def _joins(sentence: list[str], at: int) -> int:
    """How many words from ``at`` join two capitalised words into one name: "of" in "Bank
    of England", "of the" in "Lord of the Rings"; 0 for none."""
    words = [t.casefold() for t in sentence[at : at + 3]]
    for length in (2, 1):
        if len(sentence) <= at + length or not _capitalised(sentence[at + length]):
            continue
        if words[0] in _CONNECTORS and (length == 1 or words[1] in _ARTICLES):
            return length
    return 0


def _mention(sentence: list[str], at: int, end: int, evidence: CaseEvidence) -> Mention | None:
    words = [w.rstrip(".") for w in sentence[at:end]]
    # "Ana's book" names Ana; "the Philosopher's Stone" keeps its inner possessive.
    words[-1] = _POSSESSIVE.sub("", words[-1])
    before = sentence[at - 1] if at > 0 else ""
    opening = at - 1
    while opening > 0 and sentence[opening].casefold() in _ARTICLES:
        opening -= 1  # "The Name of the Wind": the article is inside the quotes
    quoted = (
        opening >= 0
        and sentence[opening] in _QUOTES
        and end < len(sentence)
        and sentence[end] in _QUOTES
    )
    if quoted:  # "The Name of the Wind": a title in quotes is a name, whatever its words
        return Mention(" ".join(words), "Topic")
    # At the head of a sentence or a clause, a capital is put there by habit: a word alone
    # there is a name only if the vault has seen it so, and the first word of a longer run is
    # dropped if it is an ordinary word ("Glad Ana Lima came").
    heading = not before[:1].isalpha() and not evidence.seen_as_name(words[0])
    # "Rehearsal of the Brahms" at a sentence's head is a phrase; "Bank of England" a name.
    joined = (
        len(words) > 1
        and words[1].casefold() in _CONNECTORS
        and words[0].casefold() not in _ORG_WORDS | _PLACE_WORDS
    )
    if heading and (len(words) == 1 or joined or evidence.mostly_lower(words[0])):
        words, at = words[1:], at + 1
        before = ""
    while words and words[0].casefold() in _CONNECTORS | _ARTICLES:
        words, at = words[1:], at + 1
    while words and words[-1].casefold() in _CONNECTORS:
        words.pop()
    if not words or len(words) > MAX_NAME_WORDS or _addressed(sentence, at, end):
        return None
    if " ".join(words).casefold() in evidence.speakers:
        return None
    cue = before.casefold().rstrip(".")
    following = sentence[end].casefold() if end < len(sentence) else ""
    kind = _kind(words, cue, following)
    if len(words) == 1:
        word = words[0]
        if cue in _HONORIFICS:
            return Mention(word, "Person")
        if len(word) < 2 or _is_acronym(word) or evidence.mostly_lower(word):
            return None
        if word.casefold() in _ORG_WORDS | _PLACE_WORDS:
            return None  # "Your Company", "the River": the kind of a name, not one
    elif kind == "Topic" and all(evidence.mostly_lower(w) for w in words):
        return None  # "Getting Started": ordinary words given capitals
    return Mention(" ".join(words), kind)


def _addressed(sentence: list[str], at: int, end: int) -> bool:
    """The name stands alone in its clause, with at most one other word: it is spoken to."""
    left = at
    while left > 0 and not _ends_clause(sentence[left - 1]):
        left -= 1
    right = end
    while right < len(sentence) and not _ends_clause(sentence[right]):
        right += 1
    others = [t.casefold() for t in sentence[left:at] + sentence[end:right] if _is_word(t)]
    bounded = right < len(sentence) or left > 0
    # "by Patrick Rothfuss." is a phrase about him: a preposition does not speak to anyone.
    return bounded and len(others) <= 1 and not _PREPOSITIONS.intersection(others)


def _ends_clause(token: str) -> bool:
    return token in _CLAUSE_END or token[0] in "-–—"


def _kind(words: list[str], before: str, after: str = "") -> str:
    last = words[-1].casefold()
    if before in _HONORIFICS or before in _KIN:
        return "Person"
    if last in _ORG_WORDS or words[0].casefold() in {"university", "bank", "ministry"}:
        return "Organization"
    if last in _PLACE_WORDS or before in _PLACE_PREPOSITIONS:
        return "Place"
    # A short name someone acts by or that acts: "serviced by Hendrik", "Ines called".
    if len(words) <= 3 and (before in _AGENT_CUES or after in _PERSON_FOLLOWERS):
        return "Person"
    return "Topic"


def learn_all(evidence: CaseEvidence, texts: Iterable[str]) -> CaseEvidence:
    for text in texts:
        evidence.learn(text)
    return evidence
