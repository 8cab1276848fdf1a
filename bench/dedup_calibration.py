"""``python -m bench.dedup_calibration``: how the dedup gate's signals behave on labelled pairs.

For each pair of ``tests/data/dedup_pairs.json`` (restatements, paraphrases, contradictions of a
number, a date or a negation, new information, unrelated statements, distinct events that share
people or places): the cosine of the real model's vectors of the two texts, the Jaccard of their
word sets, and whether ``statements.contradiction`` fires. Prints, per kind, the cosine spread,
the share in each band of DESIGN §4 (>= 0.95 same topic, [0.80, 0.95) pending review), the
Jaccard, the contradiction-flag rate, and the outcome the gate's rules would give; then the pairs
whose outcome is wrong for their kind.

The texts are embedded raw, not through ``text.searchable_text``: a title-only memory's
searchable text is its title, so this is what the gate sees for one-line memories. Runs offline
(the model comes from an installed package) in a few seconds.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.memory_settings import SETTINGS
from cairn.app.text.statements import contradiction, jaccard, word_set

PAIRS = Path(__file__).resolve().parent.parent / "tests" / "data" / "dedup_pairs.json"
# The defaults of the per-vault settings (DESIGN §4; the bands are the embedding model's).
HIGH = SETTINGS["dedup_high"].default
LOW = SETTINGS["dedup_low"].default
ABSORB_JACCARD = SETTINGS["dedup_jaccard"].default
# Absorb thresholds to compare with the default, on the pairs that reach the Jaccard test.
JACCARD_SWEEP = (0.5, 0.6, 0.7, 0.8, 0.9)
KIND_ORDER = (
    "restatement",
    "paraphrase",
    "contradiction_number",
    "contradiction_date",
    "contradiction_negation",
    "new_information",
    "distinct_event",
    "unrelated",
)
# What the gate should do with each kind: absorbing is right only for saying the same thing
# again; "pending" (the person decides) is acceptable for everything above the low band.
WRONG_OUTCOMES = {
    "restatement": {"inserted"},
    "paraphrase": {"inserted"},
    "contradiction_number": {"absorbed"},
    "contradiction_date": {"absorbed"},
    "contradiction_negation": {"absorbed"},
    "new_information": {"absorbed"},
    "distinct_event": {"absorbed"},
    "unrelated": {"absorbed", "merge_linked"},
}


@dataclass(frozen=True)
class Measured:
    id: str
    kind: str
    a: str
    b: str
    cosine: float
    jaccard: float
    flag: str | None

    @property
    def outcome(self) -> str:
        """The gate's rule (``dedup/gate.py`` ``decide``) for a pair whose best candidate is the
        other."""
        if self.cosine < LOW:
            return "inserted"
        if self.cosine < HIGH:
            return "pending"
        if self.flag or self.jaccard < ABSORB_JACCARD:
            return "merge_linked"
        return "absorbed"


def measure(pairs: Sequence[dict[str, str]], embedder: MiniLMEmbedder) -> list[Measured]:
    vectors = embedder.embed([text for p in pairs for text in (p["a"], p["b"])])
    rows = []
    for index, pair in enumerate(pairs):
        cosine = float(np.dot(vectors[2 * index], vectors[2 * index + 1]))
        overlap = jaccard(word_set(pair["a"]), word_set(pair["b"]))
        flag = contradiction(pair["a"], pair["b"])
        rows.append(Measured(pair["id"], pair["kind"], pair["a"], pair["b"], cosine, overlap, flag))
    return rows


def _share(values: Sequence[bool]) -> str:
    return f"{sum(values) / len(values):.2f}" if values else "-"


def table(rows: Sequence[Measured]) -> str:
    by_kind: dict[str, list[Measured]] = defaultdict(list)
    for row in rows:
        by_kind[row.kind].append(row)
    head = (
        f"{'kind':<23}{'n':>4}{'cos min':>9}{'med':>6}{'max':>6}{'>=.95':>7}{'.80-.95':>8}"
        f"{'J med':>7}{'J>=.8':>7}{'flag':>6}   gate outcome (absorbed/merge/pending/insert)"
    )
    lines = [head, "-" * len(head)]
    for kind in sorted(by_kind, key=lambda k: KIND_ORDER.index(k) if k in KIND_ORDER else 99):
        group = by_kind[kind]
        cosines = [r.cosine for r in group]
        outcomes = Counter(r.outcome for r in group)
        lines.append(
            f"{kind:<23}{len(group):>4}{min(cosines):>9.3f}{statistics.median(cosines):>6.3f}"
            f"{max(cosines):>6.3f}{_share([c >= HIGH for c in cosines]):>7}"
            f"{_share([LOW <= c < HIGH for c in cosines]):>8}"
            f"{statistics.median(r.jaccard for r in group):>7.2f}"
            f"{_share([r.jaccard >= ABSORB_JACCARD for r in group]):>7}"
            f"{_share([r.flag is not None for r in group]):>6}   "
            + "/".join(
                str(outcomes[o]) for o in ("absorbed", "merge_linked", "pending", "inserted")
            )
        )
    return "\n".join(lines)


def jaccard_sweep(rows: Sequence[Measured]) -> str:
    """Among pairs that reach the Jaccard test (cosine >= HIGH, no contradiction), how many of
    each kind each absorb threshold would absorb: only restatements (and paraphrases) should."""
    reached = [r for r in rows if r.cosine >= HIGH and r.flag is None]
    kinds = [k for k in KIND_ORDER if any(r.kind == k for r in reached)]
    head = f"{'J >=':<6}" + "".join(f"{kind:>18}" for kind in kinds)
    lines = [head, "-" * len(head)]
    for threshold in JACCARD_SWEEP:
        cells = []
        for kind in kinds:
            group = [r for r in reached if r.kind == kind]
            absorbed = sum(r.jaccard >= threshold for r in group)
            cells.append(f"{absorbed:>3}/{len(group):<3}absorbed")
        lines.append(f"{threshold:<6}" + "".join(f"{cell:>18}" for cell in cells))
    return "\n".join(lines)


def surprises(rows: Sequence[Measured]) -> list[str]:
    """Pairs whose gate outcome is wrong for their kind, and flags raised on non-contradictions
    that say the same thing (restatements, paraphrases)."""
    lines = []
    for row in rows:
        wrong = row.outcome in WRONG_OUTCOMES.get(row.kind, set())
        false_flag = row.flag is not None and row.kind in ("restatement", "paraphrase")
        if wrong or false_flag:
            why = f"{row.outcome}" + (f", flag: {row.flag}" if row.flag else "")
            lines.append(
                f"{row.id} {row.kind:<22} cos {row.cosine:.3f} J {row.jaccard:.2f} -> {why}\n"
                f"      a: {row.a}\n      b: {row.b}"
            )
    return lines


def main() -> list[Measured]:
    pairs = json.loads(PAIRS.read_text(encoding="utf-8"))
    rows = measure(pairs, MiniLMEmbedder())
    print(f"{len(rows)} pairs from {PAIRS.name}; bands >= {HIGH} same topic, >= {LOW} pending;")
    print(f"absorb at Jaccard >= {ABSORB_JACCARD} unless contradiction() fires\n")
    print(table(rows))
    print("\nPairs reaching the Jaccard test (cosine >= HIGH, contradiction() silent):")
    print(jaccard_sweep(rows))
    found = surprises(rows)
    print(f"\n{len(found)} pairs the gate would get wrong, or flagged though they agree:")
    print("\n".join(found) if found else "  none")
    return rows


if __name__ == "__main__":
    main()
