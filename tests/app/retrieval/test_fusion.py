"""Score fusion with context (``fusion``): a leg's clear winner shows, a memory without context
keeps its place, and one whose neighbour matched is lifted. What it adds on real conversations
is measured by ``make bench-quality``."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cairn.app.retrieval import fusion


def test_a_legs_clear_winner_is_not_flattened_to_its_rank() -> None:
    # Ranks alone would put b and a level (each first in one leg).
    text = {1: 30.0, 2: 2.0, 3: 1.0}  # 1 matches the words far better than the rest
    vector = {2: 0.52, 1: 0.50, 3: 0.49}  # the vector leg barely tells them apart
    fused = fusion.combine([text, vector])
    assert max(fused, key=fused.__getitem__) == 1


def test_context_lifts_a_memory_whose_neighbour_matched() -> None:
    leg = {10: 5.0, 11: 1.0, 20: 1.2}
    plain = fusion.combine([leg])
    assert plain[20] > plain[11]
    with_context = fusion.combine([leg], {11: [10]})
    assert with_context[11] > with_context[20]


def test_the_turn_that_asked_lifts_its_answer_whatever_follows_it() -> None:
    # 11 answers the question 10 matched; 12 follows 11 and matched nothing. 21 sits between
    # two middling turns. The turn that asked decides, not the mean of both sides.
    leg = {10: 5.0, 11: 1.0, 12: 0.0, 20: 2.5, 21: 1.0, 22: 2.5, 30: 0.0}
    fused = fusion.combine([leg], {11: [10, 12], 21: [20, 22]})
    assert fused[11] > fused[21]


@given(
    st.dictionaries(st.integers(0, 50), st.floats(0.0, 100.0), min_size=1, max_size=20),
)
def test_without_neighbours_the_order_of_one_leg_is_kept(leg: dict[int, float]) -> None:
    fused = fusion.combine([leg])
    for a in leg:
        for b in leg:
            if leg[a] > leg[b]:
                assert fused[a] >= fused[b]
    assert all(0.0 <= value <= 1.0 for value in fused.values())


def test_a_memory_of_the_group_that_matched_outranks_an_equal_one_elsewhere() -> None:
    # 11 and 20 match the same; 11 shares its session with 10, the clear match.
    leg = {10: 5.0, 11: 1.0, 20: 1.0}
    plain = fusion.combine([leg])
    assert plain[11] == plain[20]
    grouped = fusion.combine([leg], groups={10: "session 1", 11: "session 1", 20: "session 2"})
    assert grouped[11] > grouped[20]
    assert grouped[10] == max(grouped.values())


def test_a_sessions_lines_lift_each_other_more_than_a_documents_passages() -> None:
    # 11 and 21 are equal and each shares a group with a clear winner: a session's line is
    # lifted more by its session than a passage by its document.
    leg = {10: 5.0, 11: 1.0, 20: 5.0, 21: 1.0, 30: 0.0}
    session = (fusion.OCCASION, "personal", "2 June 2023")
    document = ("personal", "notes/boiler.md")
    groups = {10: session, 11: session, 20: document, 21: document}
    fused = fusion.combine([leg], groups=groups)
    assert fused[11] > fused[21]
    assert fusion.lift(session) > fusion.lift(document) == fusion.lift(None)
    # One weight for every group (the bench's ablations) makes them level again.
    level = fusion.combine([leg], groups=groups, group_weight=0.5)
    assert level[11] == level[21]


@given(
    st.dictionaries(st.integers(0, 50), st.floats(0.0, 100.0), min_size=1, max_size=20),
)
def test_within_one_group_the_order_of_one_leg_is_kept(leg: dict[int, float]) -> None:
    fused = fusion.combine([leg], groups=dict.fromkeys(leg, "one document"))
    for a in leg:
        for b in leg:
            if leg[a] > leg[b]:
                assert fused[a] >= fused[b]


def test_a_memory_one_leg_missed_is_scored_by_what_that_leg_says_of_it() -> None:
    text = {1: 10.0, 2: 9.0}  # 1 and 2 match the words; 3 and 4 none of them
    vector = {3: 0.60, 4: 0.58}  # the vector leg's top: 1 just missed it, 2 is far in meaning
    missed = fusion.combine([text, vector])
    assert missed[1] == missed[3]  # counted as 0 in the other leg, a clear match only ties
    fused = fusion.combine([text, vector], unranked=[{}, {1: 0.59, 2: 0.20}])
    assert fused[1] > fused[3]  # matches the words and is nearly as near in meaning
    assert fused[4] > fused[2]  # far in meaning, 2 stays below a near memory
    assert set(fused) == {1, 2, 3, 4}


@given(
    st.lists(
        st.dictionaries(st.integers(0, 30), st.floats(0.0, 50.0), max_size=10),
        min_size=1,
        max_size=3,
    ),
    st.dictionaries(st.integers(0, 60), st.floats(0.0, 50.0), max_size=20),
)
def test_the_other_legs_scores_add_no_candidate_and_never_replace_a_legs_own(
    legs: list[dict[int, float]], others: dict[int, float]
) -> None:
    fused = fusion.combine(legs, unranked=[others] * len(legs))
    assert set(fused) == {seq for leg in legs for seq in leg}
    assert all(0.0 <= value <= 1.0 for value in fused.values())
    # What a leg ranked itself is its score: another value for it changes nothing.
    clashing = [others | {seq: score + 7.0 for seq, score in leg.items()} for leg in legs]
    own = [{seq: score for seq, score in others.items() if seq not in leg} for leg in legs]
    assert fusion.combine(legs, unranked=clashing) == fusion.combine(legs, unranked=own)


def test_a_memory_holding_every_word_asked_is_not_displaced_by_one_word_repeated() -> None:
    text = {1: 8.0, 2: 7.5, 3: 1.0}  # 1 repeats the rarest word; 2 holds all three once
    vector = {1: 0.50, 2: 0.49, 3: 0.30}
    plain = fusion.combine([text, vector])
    assert plain[1] > plain[2]
    shares = {1: 1 / 3, 2: 1.0, 3: 1 / 3}
    covered = fusion.covered(plain, shares)
    assert covered[2] > covered[1] > covered[3]
    assert fusion.covered(plain, shares, weight=0.0) == plain
    assert fusion.covered(plain, {}) == plain  # a memory holding none of the words gains none
