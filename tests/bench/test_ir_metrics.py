"""The ranking metrics of the quality bench, against values worked out by hand."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.ir_metrics import average_precision, evaluate, ndcg_at_k, recall_at_k

# Relevant documents at ranks 1 and 3; "x" is relevant but never returned.
RANKED = ["a", "b", "c", "d", "e"]
RELEVANT = {"a", "c", "x"}
LOG2_3 = math.log2(3)  # the discount at rank 2 is 1 / log2(3) = 0.6309...


def test_ndcg_discounts_by_log2_of_rank_plus_one() -> None:
    # DCG@3 = 1/log2(2) + 0 + 1/log2(4) = 1.5; ideal = three relevant in the first three
    # ranks = 1 + 1/log2(3) + 1/2 = 2.1309...
    assert ndcg_at_k(RANKED, RELEVANT, 3) == pytest.approx(1.5 / (1.5 + 1 / LOG2_3))
    assert ndcg_at_k(RANKED, RELEVANT, 3) == pytest.approx(0.703918, abs=1e-6)


def test_ndcg_ideal_comes_from_the_qrels_and_is_cut_at_k() -> None:
    # @2: DCG = 1 (rank 1 only); ideal = 1 + 1/log2(3) with three relevant documents judged.
    assert ndcg_at_k(RANKED, RELEVANT, 2) == pytest.approx(1 / (1 + 1 / LOG2_3))
    # @1: only rank 1 counts, and it is relevant: a perfect score.
    assert ndcg_at_k(RANKED, RELEVANT, 1) == 1.0
    # @10 is @5 here (nothing after rank 3 is relevant) and the ideal stops at 3 documents.
    assert ndcg_at_k(RANKED, RELEVANT, 10) == ndcg_at_k(RANKED, RELEVANT, 3)


def test_ndcg_of_a_single_relevant_document_at_rank_two() -> None:
    assert ndcg_at_k(["b", "a"], {"a"}, 10) == pytest.approx(0.630930, abs=1e-6)


def test_ndcg_ignores_what_lies_beyond_k() -> None:
    ranked = [f"n{i}" for i in range(10)] + ["a"]
    assert ndcg_at_k(ranked, {"a"}, 10) == 0.0
    assert ndcg_at_k(ranked, {"a"}, 11) == pytest.approx(1 / math.log2(12))


def test_average_precision_averages_over_all_relevant_documents() -> None:
    # Precision 1/1 at rank 1 and 2/3 at rank 3; "x" is never found and adds 0: (1 + 2/3) / 3.
    assert average_precision(RANKED, RELEVANT) == pytest.approx(5 / 9)
    # Cut at 2: only rank 1 is found, still divided by all three relevant documents.
    assert average_precision(RANKED, RELEVANT, k=2) == pytest.approx(1 / 3)


def test_recall_at_k() -> None:
    assert recall_at_k(RANKED, RELEVANT, 2) == pytest.approx(1 / 3)
    assert recall_at_k(RANKED, RELEVANT, 5) == pytest.approx(2 / 3)
    assert recall_at_k(RANKED, RELEVANT, 100) == pytest.approx(2 / 3)


def test_a_repeated_hit_gains_once_but_keeps_its_place() -> None:
    ranked = ["a", "a", "b"]
    relevant = {"a", "b"}
    # Gains at ranks 1 and 3 (rank 2 repeats "a"): DCG = 1 + 1/2; ideal = 1 + 1/log2(3).
    assert ndcg_at_k(ranked, relevant, 3) == pytest.approx(1.5 / (1 + 1 / LOG2_3))
    assert average_precision(ranked, relevant) == pytest.approx((1 + 2 / 3) / 2)
    assert recall_at_k(ranked, relevant, 3) == 1.0


def test_no_relevant_documents_scores_zero() -> None:
    assert ndcg_at_k(RANKED, set(), 10) == 0.0
    assert average_precision(RANKED, set()) == 0.0
    assert recall_at_k(RANKED, set(), 10) == 0.0


def test_ndcg_rejects_a_cut_below_one() -> None:
    with pytest.raises(ValueError):
        ndcg_at_k(RANKED, RELEVANT, 0)


def test_evaluate_means_over_judged_queries_only() -> None:
    qrels = {"1": {"a"}, "2": {"b", "c"}, "3": set(), "4": {"d"}}
    runs = {"1": ["a"], "2": ["x", "b"], "3": ["z"]}  # "4" returned nothing
    scores = evaluate(runs, qrels, ndcg_k=10, depth=100)
    assert scores["queries"] == 3  # query 3 has no relevant document and is left out
    # AP: 1, (1/2)/2, 0.
    assert scores["map"] == pytest.approx((1 + 0.25 + 0) / 3)
    # nDCG@10: 1, (1/log2(3)) / (1 + 1/log2(3)), 0.
    assert scores["ndcg@10"] == pytest.approx((1 + (1 / LOG2_3) / (1 + 1 / LOG2_3)) / 3)
    assert scores["recall@100"] == pytest.approx((1 + 0.5 + 0) / 3)


def test_evaluate_needs_a_judged_query() -> None:
    with pytest.raises(ValueError):
        evaluate({"1": ["a"]}, {"1": set()})


documents = st.lists(st.sampled_from("abcdefghij"), max_size=15)


@given(documents, st.sets(st.sampled_from("abcdefghij")), st.integers(1, 20))
def test_metrics_stay_between_zero_and_one(ranked: list[str], relevant: set[str], k: int) -> None:
    for value in (
        ndcg_at_k(ranked, relevant, k),
        average_precision(ranked, relevant, k),
        recall_at_k(ranked, relevant, k),
    ):
        assert 0.0 <= value <= 1.0 + 1e-12


@given(st.sets(st.sampled_from("abcdefghij"), min_size=1), st.lists(st.sampled_from("uvwxyz")))
def test_relevant_documents_first_is_a_perfect_score(relevant: set[str], rest: list[str]) -> None:
    ranked = sorted(relevant) + rest
    assert ndcg_at_k(ranked, relevant, len(relevant)) == pytest.approx(1.0)
    assert average_precision(ranked, relevant) == pytest.approx(1.0)
    assert recall_at_k(ranked, relevant, len(relevant)) == 1.0
