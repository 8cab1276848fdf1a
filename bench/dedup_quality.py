"""The dedup gate on labelled pairs: a confusion table of its decisions (``make bench-quality``).

Each pair of ``tests/data/dedup_pairs.json`` is written through the real write path
(``MemoryService.write``: real embedder, real vault) into its own scope, so pairs never meet:
first ``a``, then ``b``; the outcome of ``b`` is the gate's decision for the pair. The test
``tests/app/dedup/test_dedup_pairs.py`` runs the same and holds the hard lines; this prints the
table.

A paraphrase or restatement counts as *caught* when the gate absorbs it, merge-links it, or
holds it for review as a possible duplicate (the person then merges or keeps both): anything but
a silent second copy.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from cairn.app.service import MemoryService

PAIRS = Path(__file__).resolve().parent.parent / "tests" / "data" / "dedup_pairs.json"
OUTCOMES = ("absorbed", "merge_linked", "pending", "inserted")
CAUGHT = frozenset({"absorbed", "merge_linked", "pending"})
CONTRADICTIONS = ("contradiction_number", "contradiction_date", "contradiction_negation")
# Kinds that are two memories: the gate must store the second as its own, never absorb it,
# merge it or hold it for review (a relates_to link is fine: the outcome is still inserted).
KEPT_APART = ("distinct_event", "distinct_turn", "templated_title", "unrelated")
# Kinds that say one memory again: caught when absorbed, merge-linked or held for review.
SAID_AGAIN = ("restatement", "paraphrase", "conversational_restatement")


def load_pairs(path: Path = PAIRS) -> list[dict[str, Any]]:
    pairs: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return pairs


def run_pairs(service: MemoryService, pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Write each pair into a scope of its own; returns one decision per pair."""
    decisions = []
    for pair in pairs:
        scope = pair["id"].lower()
        service.add_scope(scope)
        # A pair with titles is a title over a body (a conversation's turns, a journal's days);
        # without, each side is a title alone.
        if "title_a" in pair:
            service.write(pair["type"], pair["title_a"], pair["a"], scope=scope)
            second = service.write(pair["type"], pair["title_b"], pair["b"], scope=scope)
        else:
            service.write(pair["type"], pair["a"], scope=scope)
            second = service.write(pair["type"], pair["b"], scope=scope)
        decisions.append(
            {
                "id": pair["id"],
                "kind": pair["kind"],
                "outcome": second.outcome,
                "flags": list(second.flags),
                "score": second.matched.score if second.matched else None,
            }
        )
    return decisions


def confusion(decisions: list[dict[str, Any]]) -> dict[str, Counter[str]]:
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for decision in decisions:
        table[decision["kind"]][decision["outcome"]] += 1
    return dict(table)


def caught_rate(table: dict[str, Counter[str]], kind: str) -> float:
    row = table.get(kind, Counter())
    total = sum(row.values())
    return sum(row[o] for o in CAUGHT) / total if total else 0.0


def render(table: dict[str, Counter[str]]) -> str:
    lines = [f"{'kind':24}" + "".join(f"{o:>14}" for o in OUTCOMES) + f"{'caught':>9}"]
    for kind in sorted(table):
        row = table[kind]
        lines.append(
            f"{kind:24}"
            + "".join(f"{row[o]:>14}" for o in OUTCOMES)
            + f"{caught_rate(table, kind):>9.0%}"
        )
    return "\n".join(lines)


def main() -> dict[str, Any]:
    from cairn.app import compose

    pairs = load_pairs()
    with tempfile.TemporaryDirectory(prefix="cairn-dedup-") as folder:
        service = compose.create_vault(Path(folder) / "pairs.cairn", "bench: dedup pairs")
        try:
            decisions = run_pairs(service, pairs)
        finally:
            service.close()
    table = confusion(decisions)
    print(f"Dedup gate on {len(pairs)} labelled pairs (decision for the second of each):")
    print(render(table))
    absorbed = sum(table.get(kind, Counter())["absorbed"] for kind in CONTRADICTIONS)
    print(f"contradictions absorbed: {absorbed} (must be 0)")
    print(f"paraphrases caught: {caught_rate(table, 'paraphrase'):.1%} (must be >= 90%)")
    for kind in SAID_AGAIN:
        print(f"{kind} caught: {caught_rate(table, kind):.1%}")
    for kind in KEPT_APART:
        row = table.get(kind, Counter())
        apart = row["inserted"] / sum(row.values()) if row else 0.0
        print(f"{kind} kept apart (inserted): {apart:.1%}")
    return {"table": {k: dict(v) for k, v in table.items()}, "decisions": decisions}


if __name__ == "__main__":
    result = main()
    out = Path(__file__).resolve().parent / "results" / "dedup_quality.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2, sort_keys=True), encoding="utf-8")
    sys.exit(0)
