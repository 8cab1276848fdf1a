"""The printed tables of ``bench.conversations``."""

from __future__ import annotations

from typing import Any

from bench import compact_recall, locomo
from bench.writes import OUTCOMES

LINE = "-" * 100


def _outcomes(writes: dict[str, Any]) -> str:
    counts = ", ".join(f"{o} {n:,}" for o, n in writes["outcomes"].items())
    return (
        f"{writes['writes']:,} writes: {counts}; pending share {writes['pending_share']:.1%}; "
        f"flagged possible_contradiction {writes['possible_contradiction']:,}"
    )


def print_conversations(section: dict[str, Any], headline: str) -> None:
    print()
    print(
        f"Conversational recall (LoCoMo: {_plural(len(section['conversations']), 'conversation')}, "
        f"{section['turns']:,} turns, {section['questions']} questions of categories 1-4; "
        f"{section['skipped_questions']} left with no gold turn, not scored)"
    )
    print(LINE)
    writes = section["writes"]
    print(f"Cairn's write path: {_outcomes(writes)}")
    hidden = writes["turns_hidden_at_end"]
    print(f"turns whose memory a default search cannot show at the end: {hidden:,}")
    if compact := section.get("compact_vectors"):
        print(compact_recall.line(compact))
    print()
    print(
        f"{'conversation':<13}{'turns':>6}"
        + "".join(f"{o:>13}" for o in OUTCOMES)
        + f"{'pending':>9}{'contra.':>8}{'hidden':>8}{'R@10 Cairn':>12}{'R@10 RRF':>10}"
    )
    for sample, line in section["per_conversation"].items():
        w = line["writes"]
        print(
            f"{sample:<13}{line['turns']:>6}"
            + "".join(f"{w['outcomes'][o]:>13}" for o in OUTCOMES)
            + f"{w['pending_share']:>9.1%}{w['possible_contradiction']:>8}"
            + f"{w['turns_hidden_at_end']:>8}"
            + f"{line['recall'][headline]['r@10']:>12.4f}"
            + f"{line['recall']['rrf(bm25, dense)']['r@10']:>10.4f}"
        )
    print()
    names = list(locomo.CATEGORIES.values())
    print(
        f"{'configuration':<26}{'R@5':>7}{'R@10':>7}{'R@20':>7}{'full@10':>9}   "
        + "".join(f"{n:>12}" for n in names)
        + f"{'short@10':>9}{'p50 ms':>9}"
    )
    print(f"{'':<56}{'(R@10 by category)':>{12 * len(names)}}")
    for name, line in section["overall"].items():
        print(
            f"{name:<26}{line['r@5']:>7.4f}{line['r@10']:>7.4f}{line['r@20']:>7.4f}"
            f"{line['full_recall@10']:>9.1%}   "
            + "".join(_cell(line["by_category"][n]) for n in names)
            + f"{line['short_share@10']:>9.1%}"
            + f"{line['p50_ms_median_of_conversations']:>9.1f}"
        )
    print(
        f"short@10: the share of the top 10 that are turns of at most {locomo.SHORT_WORDS} words; "
        f"{section['short_answer_share']:.1%} of the turns that answer a question are."
    )
    print()
    cairn = section["overall"][headline]
    print(f"{headline} by category:")
    print(f"{'category':<14}{'n':>5}{'R@5':>8}{'R@10':>8}{'R@20':>8}{'full@10':>9}")
    for number, name in locomo.CATEGORIES.items():
        line = cairn["by_category"][name]
        if not line["n"]:
            continue
        print(
            f"{f'{number} {name}':<14}{line['n']:>5}{line['r@5']:>8.4f}{line['r@10']:>8.4f}"
            f"{line['r@20']:>8.4f}{line['full_recall@10']:>9.1%}"
        )
    print(
        f"{'all':<14}{cairn['n']:>5}{cairn['r@5']:>8.4f}{cairn['r@10']:>8.4f}"
        f"{cairn['r@20']:>8.4f}{cairn['full_recall@10']:>9.1%}"
    )


def print_templated(section: dict[str, Any]) -> None:
    print()
    print(
        f"Templated workload: {section['events']:,} distinct look-alike events in one vault, "
        f"{section['queries']} questions each asking for one"
    )
    print(LINE)
    print(f"Cairn's write path: {_outcomes(section)}")
    absorbed, superseded = (
        section["distinct_events_absorbed"],
        section["distinct_events_superseded"],
    )
    print(
        f"distinct events absorbed: {absorbed:,} ({_verdict(absorbed)}), superseded: "
        f"{superseded:,} ({_verdict(superseded)}); events a default search cannot show at the "
        f"end: {section['events_hidden_at_end']:,}"
    )
    print(
        f"asked event in the top 10: {section['hit@10']:.1%} (default search); plain BM25 over "
        f"the same notes: {section['bm25_hit@10']:.1%}"
    )
    parts = [
        f"{outcome} {line['hit']:.0%} of {line['n']}"
        for outcome, line in section["hit@10_by_outcome"].items()
    ]
    print(f"  by what the gate did with the asked event: {', '.join(parts)}")
    rate = section["events"] / max(section["write_s"], 1e-9)
    print(
        f"written in {section['write_s']:.0f} s ({rate:.0f} writes/s); a search "
        f"{section['search_ms_mean']:.1f} ms on average"
    )


def _verdict(count: int) -> str:
    return "ok, must be 0" if count == 0 else "MUST BE 0"


def _cell(line: dict[str, Any]) -> str:
    return f"{line['r@10']:>12.4f}" if line["n"] else f"{'-':>12}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
