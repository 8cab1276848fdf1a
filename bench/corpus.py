"""Realistic text for the benchmark: the Vaswani (NPL) abstracts and queries when present.

The corpus lives next to the project (``../shared/corpus/02_ir/vaswani_npl``): 11,429 short
physics and electrical-engineering abstracts plus 93 queries, in TREC format. Without it, text
is generated from a fixed vocabulary with a seeded generator, so runs stay comparable.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
VASWANI = PROJECT_ROOT.parent / "shared" / "corpus" / "02_ir" / "vaswani_npl"
_DOC = re.compile(r"<DOC>\s*<DOCNO>\s*\d+\s*</DOCNO>(.*?)</DOC>", re.S)
_QUERY = re.compile(r"<title>(.*?)</title>", re.S | re.I)
_TAGS = ("physics", "circuits", "reading", "ideas", "work", "to-check")
_VOCABULARY_TEXT = (
    "signal noise circuit transistor amplifier frequency antenna wave plasma electron field "
    "magnetic voltage current resistance filter phase spectrum laser crystal lattice thermal "
    "measurement theory model equation solution boundary layer radiation scattering beam pulse "
    "detector receiver transmitter ionosphere propagation impedance network feedback stability "
    "oscillator semiconductor diode conductivity energy particle quantum surface density "
    "temperature pressure method analysis design system digital computer storage memory logic"
)
_GLUE_TEXT = "the of a in for with and by on to from is are using between at under"
_VOCABULARY = _VOCABULARY_TEXT.split()
_GLUE = _GLUE_TEXT.split()


@dataclass(frozen=True)
class Texts:
    """Passages (abstracts) and query strings, and where they came from."""

    source: str
    passages: list[str]
    queries: list[str]


def load(seed: int = 7) -> Texts:
    """The Vaswani abstracts and queries if the corpus exists, else generated text."""
    docs_file = VASWANI / "corpus" / "doc-text.trec"
    queries_file = VASWANI / "query-text.trec"
    if docs_file.is_file() and queries_file.is_file():
        passages = [_clean(m) for m in _DOC.findall(docs_file.read_text(errors="replace"))]
        queries = [_clean(m).lower() for m in _QUERY.findall(queries_file.read_text())]
        passages = [p for p in passages if p]
        queries = [q for q in queries if q]
        if passages and queries:
            return Texts(f"vaswani_npl ({len(passages)} abstracts)", passages, queries)
    rng = random.Random(seed)
    passages = [_sentence(rng, rng.randint(25, 60)) for _ in range(4000)]
    queries = [_sentence(rng, rng.randint(2, 8), glue=False) for _ in range(100)]
    return Texts("generated (corpus not found)", passages, queries)


def _clean(text: str) -> str:
    return " ".join(text.split())


def _sentence(rng: random.Random, words: int, *, glue: bool = True) -> str:
    out = []
    for _ in range(words):
        pool = _GLUE if glue and rng.random() < 0.3 else _VOCABULARY
        out.append(rng.choice(pool))
    return " ".join(out)


def memory(passages: list[str], index: int, label: str = "note") -> tuple[str, str, list[str]]:
    """Title, body and tags of memory number ``index``: an abstract cycled, made distinct.

    The title is the abstract's first words; the body the whole abstract plus a suffix naming the
    copy, so that memories built from the same abstract differ. Every fourth memory has tags.
    """
    passage = passages[index % len(passages)]
    words = passage.split()
    title = " ".join(words[:8]).capitalize() or f"Memory {index}"
    copy = index // len(passages)
    body = f"{passage} ({label} {index}, copy {copy})"
    tags = [_TAGS[index % len(_TAGS)], _TAGS[(index // 7) % len(_TAGS)]] if index % 4 == 0 else []
    return title, body, tags


def search_queries(texts: Texts, count: int = 200, seed: int = 11) -> list[str]:
    """``count`` varied query strings: the corpus queries whole, their first two words (as when
    typing, the last word is matched as a prefix), and single and paired words of passages."""
    rng = random.Random(seed)
    queries = list(texts.queries)
    queries += [" ".join(q.split()[:2]) for q in texts.queries]
    while len(queries) < count:
        words = [w for w in rng.choice(texts.passages).split() if len(w) > 3]
        if words:
            queries.append(" ".join(rng.sample(words, min(len(words), rng.choice((1, 2, 3))))))
    rng.shuffle(queries)
    return queries[:count]


def spread(passages: list[str], count: int, offset: int = 0) -> Iterator[str]:
    """``count`` passages taken evenly across the list (not only its first, similar ones)."""
    step = max(1, len(passages) // max(count, 1))
    for i in range(count):
        yield passages[(offset + i * step) % len(passages)]
