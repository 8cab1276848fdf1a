"""Which known entities a passage names, and which new people, places and organisations it
seems to introduce.

**Matching known names** is a multi-pattern match over words: every entity title and alias is
split into normalised words and filed under its first word. A text is read once; at each word
the names starting with it are tried, longest first. The cost grows with the text's length, not
with the number of names, so 100,000 entities cost no more per passage than ten.

A one-word name is taken only where the text capitalises it ("Rust" the language, not "rust" on
a bike) and only if it has at least ``MIN_SINGLE_WORD`` letters; a name that several entities
share is ambiguous and is not linked (the person would have to say which one is meant).

**Candidates for new entities** come from a documented heuristic, because no named-entity
model from a known publisher is installed (spaCy's models are not part of Cairn): a title
(Mr, Ms, Dr, Prof ...) before capitalised words names a person; capitalised words ending in an
organisation word (Inc, Ltd, University, Foundation ...) or "University of X" name an
organisation; capitalised words ending in a place word (Street, River, Airport ...) or following
"City of" name a place. These cues vouch for a name and its type. Given the scope's case
evidence, the names ``recognise`` finds by their capitals join them (a name that recurs in the
document first): people, places and things named without a cue ("met Ana in Lisbon"). At most
``MAX_CANDIDATES`` per document, the most frequent first.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from cairn.app.linking import recognise
from cairn.app.text.names import normalize

MIN_SINGLE_WORD = 3
MAX_NAME_WORDS = 8
MAX_CANDIDATES = 10
# A word, with inner apostrophes and ampersands kept, as in names: "O'Brien", "AT&T". Names
# are normalised without them ("obrien"), and so is each word of a text.
_WORD = re.compile(r"\w+(?:['’&]\w+)*")

_POSSESSIVE = re.compile(r"['’]s$")
_CAPITALISED = r"[A-Z][\w'’-]*"
_GAP = r"[ \t]+"  # words of one name stand on one line
_NAME_WORDS = rf"{_CAPITALISED}(?:{_GAP}{_CAPITALISED}){{0,3}}"
_HONORIFIC = re.compile(rf"\b(?:Mr|Mrs|Ms|Mx|Dr|Prof|Sir|Dame)\.?{_GAP}({_NAME_WORDS})")
_ORG_WORDS = (
    "Inc|Ltd|LLC|GmbH|AG|SA|Corp|Corporation|Company|Co|University|Institute|Foundation|Bank|"
    "Association|Society|Agency|Council|Ministry|Department|College|School|Hospital"
)
_ORGANISATION = re.compile(
    rf"\b((?:{_CAPITALISED}{_GAP}){{1,4}}(?:{_ORG_WORDS}))\b|\b((?:University|Bank|Ministry) of "
    rf"{_NAME_WORDS})"
)
_PLACE_WORDS = (
    "Street|Road|Avenue|Lane|Square|River|Lake|Mountain|Island|Bay|County|Province|Airport|"
    "Valley|Harbour|Harbor"
)
_PLACE = re.compile(
    rf"\b((?:{_CAPITALISED}{_GAP}){{1,3}}(?:{_PLACE_WORDS}))\b|\b(?:City|Town|Republic) of "
    rf"({_NAME_WORDS})"
)
# Capitalised words that start a sentence or a heading are not names.
_NOT_NAMES = frozenset({"The", "A", "An", "This", "That", "In", "On", "At", "Of", "And", "For"})


@dataclass(frozen=True)
class Candidate:
    name: str
    type: str  # Person, Organization or Place
    count: int


class MentionMatcher:
    """Finds the entities named in a text; built once per ingest run from the name index."""

    def __init__(self, names: Iterable[tuple[str, str, str]]) -> None:
        """``names``: (normalised name, entity id, type) for every title and alias."""
        owners: dict[tuple[str, ...], set[str]] = {}
        for norm, node_id, _ in names:
            words = tuple(_WORD.findall(norm))
            if not words or len(words) > MAX_NAME_WORDS:
                continue
            if len(words) == 1 and len(words[0]) < MIN_SINGLE_WORD:
                continue
            owners.setdefault(words, set()).add(node_id)
        self._by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for words, ids in owners.items():
            if len(ids) == 1:  # several entities share this name: ambiguous, left alone
                self._by_first.setdefault(words[0], []).append((words, next(iter(ids))))
        for entries in self._by_first.values():
            entries.sort(key=lambda entry: -len(entry[0]))

    def add(self, name: str, node_id: str) -> None:
        """A name written since the matcher was built. It goes before the entries of the
        same length, so a new version of an entity is found before the one it replaced (the
        caller checks that what is found still stands)."""
        words = tuple(_WORD.findall(normalize(name)))
        if words and len(words) <= MAX_NAME_WORDS:
            entries = self._by_first.setdefault(words[0], [])
            entries.insert(0, (words, node_id))
            entries.sort(key=lambda entry: -len(entry[0]))  # stable: the newest stays first

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._by_first.values())

    def find(self, text: str) -> list[str]:
        """Ids of the entities ``text`` names, in order of first mention, each once."""
        # "Ada Lovelace's notes" names Ada Lovelace: a possessive ending is not part of a name.
        originals = [_POSSESSIVE.sub("", word) for word in _WORD.findall(text)]
        words = [normalize(word) for word in originals]
        found: dict[str, None] = {}
        at = 0
        while at < len(words):
            step = 1
            for name, node_id in self._by_first.get(words[at], ()):
                end = at + len(name)
                if tuple(words[at:end]) != name:
                    continue
                if len(name) == 1 and not originals[at][:1].isupper():
                    continue
                found.setdefault(node_id)
                step = len(name)
                break
            at += step
        return list(found)


def candidates(
    text: str, known: MentionMatcher, evidence: recognise.CaseEvidence | None = None
) -> list[Candidate]:
    """New people, organisations and places ``text`` seems to name (see the module notes),
    leaving out names the matcher already knows. With ``evidence`` (which should have learnt
    ``text``), the names found by their capitals too."""
    counts: Counter[tuple[str, str]] = Counter()
    for pattern, entity_type in (
        (_HONORIFIC, "Person"),
        (_ORGANISATION, "Organization"),
        (_PLACE, "Place"),
    ):
        for match in pattern.finditer(text):
            words = (match.group(1) or match.group(2) or "").split()
            while len(words) > 1 and words[0] in _NOT_NAMES:
                words = words[1:]  # "The Open University" is "Open University"
            name = " ".join(words)
            # "City of London" names London: the cue word vouches for a one-word name.
            vouched = match.lastindex == 2 and entity_type == "Place"
            if (len(words) > 1 or vouched) and not known.find(name):
                counts[(name, entity_type)] += 1
    if evidence is not None:
        _count_recognised(text, known, evidence, counts)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [Candidate(name, kind, count) for (name, kind), count in ranked[:MAX_CANDIDATES]]


def _count_recognised(
    text: str,
    known: MentionMatcher,
    evidence: recognise.CaseEvidence,
    counts: Counter[tuple[str, str]],
) -> None:
    """Adds the names ``recognise`` finds, once per paragraph that states them, but those
    a cue found already (under its cue's type) or the matcher knows."""
    vouched = {name.casefold() for name, _ in counts}
    for paragraph in re.split(r"\n\s*\n", text):
        for mention in recognise.recognise(paragraph, evidence):
            if mention.name.casefold() not in vouched and not known.find(mention.name):
                counts[(mention.name, mention.type)] += 1
