"""Pure parts: the searchable surface, reciprocal rank fusion, the total order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cairn.app.retrieval.search import RRF_K, rrf, total_order
from cairn.app.text.surface import reading_text, searchable_text


def test_string_date_and_list_attributes_are_searchable_numbers_are_not() -> None:
    text = searchable_text(
        "Jo",
        "",
        {"occupation": "nurse", "birthday": "1990-04-02", "aliases": ["Joanna"], "pages": 12},
    )
    assert "nurse" in text
    assert "1990-04-02" in text
    assert "Joanna" in text
    assert "12" not in text


def test_wikilink_markup_and_page_furniture_are_not_what_a_text_says() -> None:
    body = (
        "See [[Settings|the settings]], [[Sync]] and [[Editor#Fonts]].\n"
        "| [[Canvas\\|the canvas]] | ![[diagram.png]] |\n"
        "Page 3 of 5\n"
        "- 4 -\n"
        "Harbour report page 2 of 9\n"
        "3 of the 5 boats and 12 / 40 ropes stay."
    )
    assert reading_text(body) == (
        "See the settings, Sync and Editor Fonts.\n"
        "| the canvas | diagram.png |\n"
        "Harbour report  \n"
        "3 of the 5 boats and 12 / 40 ropes stay."
    )
    # The searchable surface (embedded and indexed) is cleaned; a title is left as it is.
    text = searchable_text("[[Title]] kept", body, {})
    assert text.startswith("[[Title]] kept\nSee the settings,") and "Page 3" not in text
    assert reading_text("No markup, 2024.") == "No markup, 2024."


attrs_strategy = st.dictionaries(
    st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True),
    st.one_of(st.text(max_size=20), st.integers(), st.lists(st.text(max_size=8), max_size=3)),
    max_size=5,
)


@given(st.text(min_size=1, max_size=40), st.text(max_size=80), attrs_strategy)
def test_searchable_text_ignores_attribute_order(title: str, body: str, attrs: dict) -> None:
    reordered = dict(reversed(list(attrs.items())))
    assert searchable_text(title, body, attrs) == searchable_text(title, body, reordered)


legs_strategy = st.lists(
    st.lists(st.integers(min_value=0, max_value=60), unique=True, max_size=30),
    min_size=1,
    max_size=3,
)


@given(legs_strategy)
def test_rrf_scores_are_sums_of_reciprocal_ranks(legs: list[list[int]]) -> None:
    scores = rrf(legs)
    for item, score in scores.items():
        expected = sum(1 / (RRF_K + leg.index(item) + 1) for leg in legs if item in leg)
        assert abs(score - expected) < 1e-12
    assert set(scores) == {item for leg in legs for item in leg}


@given(legs_strategy)
def test_agreement_between_legs_outranks_one_leg(legs: list[list[int]]) -> None:
    # An item first in two legs beats any item that appears in only one of them.
    scores = rrf([[999, *legs[0]], [999]])
    assert max(scores, key=lambda k: scores[k]) == 999


@given(
    st.dictionaries(
        st.integers(0, 50),
        st.tuples(
            st.sampled_from([0.01, 0.02, 0.03]), st.sampled_from(["2026-01-01", "2026-02-01"])
        ),
        min_size=1,
        max_size=20,
    )
)
def test_total_order_is_score_then_newer_then_id(items: dict) -> None:
    scores = {seq: value[0] for seq, value in items.items()}
    rows = {seq: {"id": f"id{seq:03d}", "recorded_at": value[1]} for seq, value in items.items()}
    ranked = total_order(scores, rows)
    keys = [(-scores[s], _neg(rows[s]["recorded_at"]), rows[s]["id"]) for s in ranked]
    assert keys == sorted(keys)
    # Any input order gives the same result.
    shuffled = dict(reversed(list(scores.items())))
    assert total_order(shuffled, rows) == ranked


def _neg(date: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in date)
