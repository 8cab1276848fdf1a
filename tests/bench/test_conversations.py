"""The conversational recall bench: its scoring, its baselines and its templated workload, against
values worked out by hand; and one small conversation through a real vault."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench import baselines, conversations, locomo, templated
from cairn.app.embedding.model import MiniLMEmbedder


def _sample() -> dict[str, Any]:
    """A LoCoMo sample in the file's own shape, small enough to reason about."""
    return {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ada",
            "speaker_b": "Bo",
            "session_2_date_time": "1:00 pm on 2 May, 2023",
            "session_2": [
                {"speaker": "Bo", "dia_id": "D2:1", "text": "Back from the coast."},
            ],
            "session_1_date_time": "7:48 pm on 21 May, 2023",
            "session_1": [
                {"speaker": "Ada", "dia_id": "D1:1", "text": "I adopted a cat."},
                {
                    "speaker": "Bo",
                    "dia_id": "D1:2",
                    "text": "Look at this!",
                    "blip_caption": "a photo of a sailboat",
                },
            ],
        },
        "qa": [
            {"question": "What did Ada adopt?", "evidence": ["D1:1"], "category": 4},
            {"question": "Who sails?", "evidence": ["D1:2", "D9:9", "D1:1; D2:1"], "category": 1},
            {"question": "Unanswerable?", "evidence": ["D1:1"], "category": 5},
            {"question": "Lost evidence?", "evidence": ["D:1:1"], "category": 3},
        ],
    }


def test_turns_are_read_in_session_order_with_the_protocols_title_and_body() -> None:
    conversation = locomo.conversation(_sample())
    assert [t.dia_id for t in conversation.turns] == ["D1:1", "D1:2", "D2:1"]
    photo = conversation.turns[1]
    assert photo.title == "Bo, 7:48 pm on 21 May, 2023"
    assert photo.body == "Bo: Look at this! [shares a photo: a photo of a sailboat]"
    assert conversation.turns[0].body == "Ada: I adopted a cat."


def test_category_5_is_not_scored_and_ids_naming_no_turn_are_dropped() -> None:
    conversation = locomo.conversation(_sample())
    assert [(q.index, q.category, set(q.gold)) for q in conversation.questions] == [
        (0, 4, {"D1:1"}),
        (1, 1, {"D1:2"}),  # "D9:9" and "D1:1; D2:1" name no turn
    ]
    assert conversation.skipped_questions == 1  # left with no gold turn
    assert conversation.dropped_evidence == ["D9:9", "D1:1; D2:1", "D:1:1"]


def test_an_absorbed_turn_is_found_through_the_memory_that_absorbed_it() -> None:
    # D1:2 was absorbed into m1; D1:4's write kept nothing.
    holds = locomo.holdings({"D1:1": "m1", "D1:2": "m1", "D1:3": "m2", "D1:4": None})
    assert holds == {"m1": {"D1:1", "D1:2"}, "m2": {"D1:3"}}
    ranked = ["m2", "x", "m1"]  # "x" is a memory holding no turn (an entity, say)
    assert locomo.recall(ranked, holds, {"D1:2"}, 2) == 0.0
    assert locomo.recall(ranked, holds, {"D1:2"}, 3) == 1.0
    assert locomo.recall(ranked, holds, {"D1:2", "D1:3", "D1:4"}, 1) == pytest.approx(1 / 3)
    assert locomo.recall(ranked, holds, {"D1:2", "D1:3", "D1:4"}, 3) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="gold"):
        locomo.recall(ranked, holds, set(), 3)


def test_summary_means_per_category_and_counts_full_recall_at_10() -> None:
    questions = [
        locomo.Question(0, "q0", 4, frozenset({"a"})),
        locomo.Question(1, "q1", 1, frozenset({"a", "b"})),
        locomo.Question(2, "q2", 1, frozenset({"c"})),
    ]
    holds = locomo.identity_holdings("abcdefghijklmnopqrstuvwxyz")
    ranking = list("axxxxxxxxxbxxxxxxxxx")  # "a" first, "b" 11th, "c" nowhere
    scored = [locomo.score("c", q, ranking, holds) for q in questions]
    summary = locomo.summarize(scored)
    assert summary["r@5"] == pytest.approx(round((1 + 0.5 + 0) / 3, 4))
    assert summary["r@20"] == pytest.approx(round((1 + 1 + 0) / 3, 4))
    assert summary["full_recall@10"] == pytest.approx(round(1 / 3, 4))
    assert summary["by_category"]["multi-hop"] == {
        "r@5": 0.25,
        "r@10": 0.25,
        "r@20": 0.5,
        "full_recall@10": 0.0,
        "short_share@10": 0.0,
        "n": 2,
    }
    assert summary["by_category"]["temporal"] == {"n": 0}


def test_the_short_share_counts_the_top_10_memories_holding_only_short_turns() -> None:
    texts = {
        "D1:1": "Ha, nice!",
        "D1:2": "We played charades and two other board games",
        "D1:3": "I started pottery classes at the studio near work",
    }
    turns = [locomo.Turn(i, "Ines", "1 May, 2023", text, None) for i, text in texts.items()]
    short = locomo.short_turns(turns)
    assert short == {"D1:1", "D1:2"}  # eight words is still short
    holds = {"m1": {"D1:1"}, "m2": {"D1:1", "D1:3"}, "m3": {"D1:3"}}
    question = locomo.Question(0, "q", 4, frozenset({"D1:3"}))
    # m1 is all short, m2 holds a substantive turn too, "x" holds none and is not counted.
    scored = locomo.score("c", question, ["m1", "x", "m2", "m3"], holds, short)
    assert scored.short_share == pytest.approx(1 / 3)
    assert locomo.score("c", question, ["x"], holds, short).short_share == 0.0


def test_bm25_scores_as_okapi_with_the_non_negative_idf() -> None:
    docs = ["apple banana", "apple apple cherry", "durian"]
    index = baselines.BM25(docs)
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    # Average length 2. Doc 0: tf 1, length 2: 1 * 2.2 / (1 + 1.2) = 1.
    # Doc 1: tf 2, length 3: 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 1.5)).
    expected = [idf, idf * 4.4 / (2 + 1.2 * 1.375), 0.0]
    assert index.scores("apple").tolist() == pytest.approx(expected)
    assert index.rank("apple", 10) == [1, 0]  # no document without the word
    assert index.rank("The apple?", 10) == [1, 0]  # stopwords and punctuation do not count
    assert index.rank("apple apple", 10) == [1, 0]
    assert index.scores("apple apple").tolist() == pytest.approx(expected)  # a word counts once
    assert index.rank("durian", 1) == [2]
    assert index.rank("mango", 10) == []
    assert index.rank("apple", 1) == [1]


def test_bm25_prefers_the_rarer_word_and_the_shorter_document() -> None:
    index = baselines.BM25(["red fox", "red dog", "red fox jumps over many lazy dogs", "red"])
    assert index.rank("fox", 10) == [0, 2]  # equal tf: the shorter document first
    assert index.idf("fox") > index.idf("red")


def test_dense_ranks_by_cosine_and_keeps_the_first_of_equal_scores() -> None:
    vectors = np.array([[1, 0], [0, 1], [1, 0], [0.6, 0.8]], dtype=np.float32)
    dense = baselines.Dense(vectors)
    assert dense.rank(np.array([1, 0], dtype=np.float32), 3) == [0, 2, 3]
    assert dense.rank(np.array([0, 1], dtype=np.float32), 2) == [1, 3]


def test_rrf_sums_reciprocal_ranks_with_k_60() -> None:
    # 1: 1/61 + 1/62; 3: 1/63 + 1/61; 2: 1/62.
    assert baselines.rrf([[1, 2, 3], [3, 1]]) == [1, 3, 2]
    assert baselines.rrf([[2], [1]]) == [1, 2]  # a tie: the lower number first
    assert baselines.rrf([[5, 6, 7], [7]]) == [7, 5, 6]
    assert baselines.rrf([[5, 6, 7], [7]], depth=2) == [5, 7, 6]  # 7 counts from leg two only
    assert baselines.rrf([[1, 2], [2]], k=0) == [2, 1]  # 1/2 + 1/1 beats 1/1


def test_templated_events_are_deterministic_and_distinct() -> None:
    first = templated.events(3_000)
    assert first == templated.events(3_000)
    assert first[:100] == templated.events(100)  # a quick run writes a prefix of the full one
    assert templated.events(300, seed=1) != templated.events(300, seed=2)
    assert len({e.key for e in first}) == len(first)
    assert all(e.actor != e.recipient for e in first)
    assert {e.shape for e in first} == set(range(len(templated.SHAPES)))
    for event in first[:50]:
        for slot in (event.actor, event.act.past, event.recipient, event.day, event.project):
            assert slot in event.body
        assert event.city in event.body
        assert event.title == f"{event.act.noun}, {event.day}"


def test_templated_questions_each_name_slots_only_their_event_has() -> None:
    written = templated.events(2_000)
    asked = templated.queries(written)
    assert asked == templated.queries(written)
    assert len(asked) == templated.QUERIES
    assert len({q.event for q in asked}) == len(asked)
    for query in asked:
        event = written[query.event]
        assert event.actor in query.text and event.recipient in query.text
        named = [
            other
            for other in written
            if other.actor == event.actor
            and other.recipient == event.recipient
            and other.act == event.act
            and sum(s in query.text for s in (other.day, other.project, other.city)) == 2
        ]
        assert named == [event]


def test_unknown_conversations_are_named_with_the_known_ones() -> None:
    loaded = [locomo.conversation(_sample() | {"sample_id": name}) for name in ("c-1", "c-2")]
    assert [c.sample_id for c in conversations.choose(loaded, "c-2, c-1", quick=False)] == [
        "c-2",
        "c-1",
    ]
    assert [c.sample_id for c in conversations.choose(loaded, None, quick=True)] == ["c-1"]
    with pytest.raises(ValueError, match="no conversation c-3 in the corpus; it has c-1, c-2"):
        conversations.choose(loaded, "c-1,c-3", quick=False)


def test_a_repeated_turn_absorbed_by_the_real_gate_is_still_found(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    sample = _sample()
    repeat = {"speaker": "Ada", "dia_id": "D1:3", "text": "I adopted a cat."}
    sample["conversation"]["session_1"].append(repeat)  # the same words, the same title
    sample["qa"] = [{"question": "What did Ada adopt?", "evidence": ["D1:3"], "category": 4}]
    conversation = locomo.conversation(sample)
    line = conversations.run_conversation(conversation, embedder, tmp_path)
    assert line["writes"]["outcomes"]["absorbed"] == 1
    assert line["memories_holding_turns"] == 3
    assert line["writes"]["turns_hidden_at_end"] == 0
    for name in (*conversations.CONFIGS, *conversations.BASELINES):
        (scored,) = line["scored"][name]["questions"]
        assert scored.recall[5] == 1.0, name


def test_the_corpus_file_reads_as_the_readme_describes(corpus: Path) -> None:
    loaded = locomo.load(corpus / "07_conversations" / "locomo_dev" / "locomo_dev.json")
    assert loaded is not None
    assert [c.sample_id for c in loaded] == ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"]
    assert sum(len(c.turns) for c in loaded) == 2_760
    assert sum(len(c.questions) + c.skipped_questions for c in loaded) == 762
    assert locomo.load(corpus / "missing.json") is None
