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


@given(
    st.dictionaries(st.integers(0, 50), st.floats(0.0, 100.0), min_size=1, max_size=20),
)
def test_within_one_group_the_order_of_one_leg_is_kept(leg: dict[int, float]) -> None:
    fused = fusion.combine([leg], groups=dict.fromkeys(leg, "one document"))
    for a in leg:
        for b in leg:
            if leg[a] > leg[b]:
                assert fused[a] >= fused[b]
