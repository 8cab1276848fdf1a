"""The LoCoMo conversations of the test corpus, and the scoring of their recall protocol.

Pure code, no model and no vault: the turns as the protocol writes them, the scored questions,
and Recall@k over a ranking of *memories*, each holding one or more turns (a turn the dedup gate
absorbed belongs to the memory that absorbed it). A baseline that ranks turns directly is the
same computation with every turn its own memory.

The protocol is ``../shared/corpus/README.md``, section "Conversational recall protocol".
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.corpus import PROJECT_ROOT

LOCOMO = PROJECT_ROOT.parent / "shared" / "corpus" / "07_conversations" / "locomo_dev"
LOCOMO_FILE = LOCOMO / "locomo_dev.json"
KS = (5, 10, 20)
FULL_RECALL_K = 10
# A turn of at most this many words is "short" (chit-chat, mostly): the share of such turns among
# the top FULL_RECALL_K hits shows whether content-poor memories crowd out substantive ones.
SHORT_WORDS = 8
# LoCoMo's question categories (Maharana et al., 2024); 5, adversarial, is not scored. The
# numbering is the dataset's: category 1 asks about several turns (2.9 evidence turns on
# average here), 4 about one.
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    date_time: str  # the session's, as the dataset writes it: "7:48 pm on 21 May, 2023"
    text: str
    blip_caption: str | None

    @property
    def title(self) -> str:
        return f"{self.speaker}, {self.date_time}"

    @property
    def body(self) -> str:
        body = f"{self.speaker}: {self.text}"
        if self.blip_caption:
            body += f" [shares a photo: {self.blip_caption}]"
        return body


@dataclass(frozen=True)
class Question:
    index: int  # its place in the conversation's qa list, to find it again
    text: str
    category: int
    gold: frozenset[str]  # the evidence ids that name a turn of the conversation


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    turns: list[Turn]
    questions: list[Question]
    skipped_questions: int  # category 1-4 with no evidence id naming a turn
    dropped_evidence: list[str]  # evidence ids that name no turn, as written


def load(path: Path = LOCOMO_FILE) -> list[Conversation] | None:
    """The conversations of ``path`` in file order, or None when the file is missing."""
    if not path.is_file():
        return None
    return [conversation(sample) for sample in json.loads(path.read_text(encoding="utf-8"))]


def conversation(sample: Mapping[str, Any]) -> Conversation:
    """One LoCoMo sample: its turns session by session, in order, and its scored questions.

    An evidence id is kept only when it is a turn's ``dia_id`` exactly: the file has a few that
    are not ("D8:6; D9:17", "D:11:26"), which the protocol drops rather than guesses at.
    """
    talk = sample["conversation"]
    sessions = sorted(
        (int(key.removeprefix("session_")), key)
        for key, value in talk.items()
        if key.startswith("session_") and isinstance(value, list)
    )
    turns = [
        Turn(
            raw["dia_id"],
            raw["speaker"],
            talk[f"{key}_date_time"],
            raw["text"],
            raw.get("blip_caption") or None,
        )
        for _, key in sessions
        for raw in talk[key]
    ]
    known = {turn.dia_id for turn in turns}
    questions: list[Question] = []
    skipped = 0
    dropped: list[str] = []
    for index, qa in enumerate(sample["qa"]):
        if qa["category"] not in CATEGORIES:
            continue
        evidence = list(qa.get("evidence") or [])
        dropped += [e for e in evidence if e not in known]
        gold = frozenset(e for e in evidence if e in known)
        if not gold:
            skipped += 1
            continue
        questions.append(Question(index, qa["question"], qa["category"], gold))
    return Conversation(sample["sample_id"], turns, questions, skipped, dropped)


def turns_found(
    ranked: Sequence[str], holds: Mapping[str, Collection[str]], k: int
) -> frozenset[str]:
    """The turns held by the first ``k`` memories of ``ranked`` (a memory unknown to ``holds``
    holds none)."""
    found: set[str] = set()
    for memory in ranked[:k]:
        found.update(holds.get(memory, ()))
    return frozenset(found)


def recall(
    ranked: Sequence[str], holds: Mapping[str, Collection[str]], gold: Collection[str], k: int
) -> float:
    """|gold turns among the turns of the first ``k`` memories| / |gold turns|."""
    if not gold:
        raise ValueError("a scored question has at least one gold turn")
    return len(turns_found(ranked, holds, k) & frozenset(gold)) / len(gold)


def holdings(turn_memory: Mapping[str, str | None]) -> dict[str, set[str]]:
    """Memory id -> the turns it holds, from turn -> the memory its write ended in (None: the
    write kept nothing, so the turn is in no memory)."""
    holds: dict[str, set[str]] = {}
    for turn, memory in turn_memory.items():
        if memory is not None:
            holds.setdefault(memory, set()).add(turn)
    return holds


def identity_holdings(turns: Iterable[str]) -> dict[str, set[str]]:
    """Every turn its own memory: how a baseline that ranks turns is scored."""
    return {turn: {turn} for turn in turns}


@dataclass(frozen=True)
class Scored:
    """One question's recall at each k."""

    conversation: str
    question: int
    category: int
    recall: dict[int, float]  # k -> R@k
    short_share: float = 0.0  # of the first FULL_RECALL_K memories, those holding only short turns


def score(
    conversation_id: str,
    question: Question,
    ranked: Sequence[str],
    holds: Mapping[str, Collection[str]],
    short: Collection[str] = frozenset(),
) -> Scored:
    at = {k: recall(ranked, holds, question.gold, k) for k in KS}
    shown = [holds[m] for m in ranked[:FULL_RECALL_K] if holds.get(m)]
    crowd = sum(1 for held in shown if all(turn in short for turn in held))
    share = crowd / len(shown) if shown else 0.0
    return Scored(conversation_id, question.index, question.category, at, share)


def short_turns(turns: Iterable[Turn]) -> frozenset[str]:
    """The turns whose text has at most ``SHORT_WORDS`` words."""
    return frozenset(t.dia_id for t in turns if len(t.text.split()) <= SHORT_WORDS)


def summarize(scored: Sequence[Scored]) -> dict[str, Any]:
    """Mean R@k overall and per category, and the share of questions with every gold turn in
    the top ``FULL_RECALL_K``."""

    def means(group: Sequence[Scored]) -> dict[str, Any]:
        if not group:
            return {"n": 0}
        out: dict[str, Any] = {
            f"r@{k}": round(statistics.fmean(s.recall[k] for s in group), 4) for k in KS
        }
        full = sum(1 for s in group if s.recall[FULL_RECALL_K] == 1.0) / len(group)
        out[f"full_recall@{FULL_RECALL_K}"] = round(full, 4)
        short = statistics.fmean(s.short_share for s in group)
        out[f"short_share@{FULL_RECALL_K}"] = round(short, 4)
        out["n"] = len(group)
        return out

    result = means(scored)
    result["by_category"] = {
        name: means([s for s in scored if s.category == number])
        for number, name in CATEGORIES.items()
    }
    return result
