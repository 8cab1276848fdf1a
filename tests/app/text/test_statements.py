"""The statement-comparison helpers of the dedup gate: word sets, Jaccard, contradictions."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.app.dedup.anchors import anchors, share_anchors
from cairn.app.text.statements import contradiction, jaccard, word_set

PAIRS = Path(__file__).resolve().parents[2] / "data" / "dedup_pairs.json"
MINIMUM_PER_KIND = {
    "restatement": 40,
    "paraphrase": 40,
    "contradiction_number": 25,
    "contradiction_date": 25,
    "contradiction_negation": 25,
    "new_information": 30,
    "unrelated": 30,
    "distinct_event": 20,
    "conversational_restatement": 10,
    "distinct_turn": 10,
    "templated_title": 10,
}
TYPES = {"Note", "Fact", "Event", "Preference", "Commitment"}

# -- word_set ---------------------------------------------------------------------------------


def test_word_set_casefolds_and_drops_punctuation() -> None:
    assert word_set("The Meeting, at NOON!") == {"the", "meeting", "at", "noon"}


def test_word_set_strips_accents() -> None:
    assert word_set("Zoë met Joaquín in Tromsø") == word_set("Zoe met Joaquin in Tromso")
    assert word_set("Maëlle") == {"maelle"}
    assert word_set("Łódź, Ærø, İzmir") == {"lodz", "aero", "izmir"}


def test_word_set_keeps_numbers_and_decimals_as_tokens() -> None:
    assert word_set("3.5 km in 25 minutes") == {"3.5", "km", "in", "25", "minutes"}


def test_word_set_drops_thousands_separators() -> None:
    assert word_set("10,000 steps") == word_set("10000 steps") == {"10000", "steps"}


def test_word_set_spells_out_contractions() -> None:
    assert word_set("I don't know") == {"i", "do", "not", "know"} == word_set("I do not know")
    assert word_set("I won't, I can't") == word_set("I will not, I cannot")
    assert word_set("I'd say we're done, they'll see, I've, I'm") == word_set(
        "I would say we are done, they will see, I have, I am"
    )


def test_word_set_drops_an_apostrophe_s_and_joins_other_apostrophes() -> None:
    # "'s" may be "is", "has" or a possessive: only the name is kept.
    assert word_set("Dev's allergic") == {"dev", "allergic"}
    assert word_set("O'Neil") == {"oneil"}


def test_word_set_reads_curly_apostrophes_alike() -> None:
    assert word_set("I don’t know") == word_set("I don't know")


def test_word_set_keeps_negations_there_is_no_stop_list() -> None:
    assert {"not", "no", "never", "a", "the"} <= word_set("not a no, never the")


def test_word_set_of_empty_or_punctuation_is_empty() -> None:
    assert word_set("") == frozenset()
    assert word_set(" -- !? ") == frozenset()


# -- jaccard ----------------------------------------------------------------------------------


def test_jaccard_values() -> None:
    assert jaccard(frozenset(), frozenset()) == 1.0
    assert jaccard(frozenset({"a"}), frozenset()) == 0.0
    assert jaccard(frozenset({"a", "b"}), frozenset({"c"})) == 0.0
    assert jaccard(frozenset({"a", "b", "c"}), frozenset({"b", "c", "d"})) == 0.5


def test_jaccard_of_a_one_article_edit_reaches_the_absorb_threshold() -> None:
    # The gate absorbs at J >= 0.8: dropping one article from a five-word statement is 0.8.
    a = word_set("I bought a new bike")
    b = word_set("I bought new bike")
    assert jaccard(a, b) == pytest.approx(0.8)


words = st.frozensets(st.sampled_from("abcdefghij"), max_size=10)


@given(words, words)
def test_jaccard_is_symmetric_and_bounded(a: frozenset[str], b: frozenset[str]) -> None:
    assert jaccard(a, b) == jaccard(b, a)
    assert 0.0 <= jaccard(a, b) <= 1.0
    assert jaccard(a, a) == 1.0
    assert (jaccard(a, b) == 1.0) == (a == b)


# -- contradiction: the same commitments ------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Walked 10,000 steps today", "Walked 10000 steps today"),
        ("Walked 10k steps today", "Walked 10,000 steps today"),
        ("Meeting at 3 pm", "Meeting at 3pm"),
        ("Meeting at 3 p.m.", "Meeting at 3pm"),
        ("Meeting at 15:00", "Meeting at 3pm"),
        ("Meeting at 3:30 PM", "Meeting at 15:30"),
        ("Lunch at noon", "Lunch at 12pm"),
        ("Midnight train", "train at 12am"),
        ("I won't go", "I will not go"),
        ("I can't swim", "I cannot swim"),
        ("I can’t swim", "I can't swim"),
        ("I dont eat meat", "I don't eat meat"),
        ("I don't drink coffee", "I never drink coffee"),
        ("Nobody came", "No one came"),
        ("Zoë paid €40", "Zoe paid 40 euros"),
        ("Rent is $1.5k", "Rent is 1,500 dollars"),
        ("Rent is USD 900", "Rent is $900"),
        ("Prices rose 40%", "Prices rose 40 percent"),
        ("Prices rose 40%", "Prices rose 40 per cent"),
        ("Costs 3.50", "Costs 3.5"),
        ("Keiko has two kids", "Keiko has 2 kids"),
        ("twenty-five guests", "25 guests"),
        ("two hundred and fifty people", "250 people"),
        ("three thousand euros", "€3000"),
        ("a dozen eggs", "12 eggs"),
        ("half a dozen eggs", "6 eggs"),
        ("the third floor", "the 3rd floor"),
        ("their tenth anniversary", "ten years married"),
        ("the twenty-first birthday", "the 21st birthday"),
        ("Born on March 3, 1990", "Born on 3rd of March 1990"),
        ("Born on March 3, 1990", "Born on 1990-03-03"),
        ("Due on Sept. 9", "Due on 9 September"),
        ("Due 3/4/2024", "Due 03/04/2024"),
        ("Moving in June", "Moving in June"),
        ("June called me", "I spoke to June"),  # a person, not a month
        ("the blue one", "the red one"),  # a pronoun, not a number
        ("one of my friends", "a friend of mine"),
        ("Mateo ran his first marathon", "Mateo ran a marathon, the first one he finished"),
        ("Bus No. 5 is late", "Bus number 5 is late"),  # "No." is not a negation
        ("Not only tea but coffee", "Tea and coffee"),
        ("Version 1.2.3 shipped", "Shipped version 1.2.3"),
        ("", ""),
    ],
)
def test_same_commitments_are_no_contradiction(a: str, b: str) -> None:
    assert contradiction(a, b) is None
    assert contradiction(b, a) is None


# -- contradiction: differences ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ("meeting at 3pm", "meeting at 4pm", "times differ: 3pm vs 4pm"),
        ("standup at 9:30", "standup at 10:30", "times differ: 9:30 vs 10:30"),
        ("shift starts at 7am.", "shift starts at 7pm.", "times differ: 7am vs 7pm"),
        ("meetings in the afternoon", "meetings in the morning", "times differ"),
        ("I like tea", "I don't like tea", "negation differs: none vs don't"),
        ("The key is under the pot", "The key is no longer under the pot", "no longer"),
        ("Ines passed", "Ines didnt pass", "negation differs"),
        ("She can come", "She is unable to come", "negation differs"),
        ("Keiko has two kids.", "Keiko has three kids.", "numbers differ: two vs three"),
        ("Plot 47", "Plot 74", "numbers differ: 47 vs 74"),
        ("Rate fixed at 3.9%", "Rate fixed at 4.9%", "numbers differ: 3.9% vs 4.9%"),
        ("Paid $40", "Paid €40", "numbers differ: $40 vs €40"),
        ("Paid $40", "Paid 40", "numbers differ"),
        ("40% off", "40 off", "numbers differ"),
        ("Walked 10,000 steps", "Walked 100,000 steps", "numbers differ"),
        ("eight years", "eighteen years", "numbers differ: eight vs eighteen"),
        ("one sister", "two sisters", "numbers differ: one vs two"),
        ("Born 14 May.", "Born 14 March.", "dates differ: 14 May vs 14 March"),
        ("Engaged in 2019", "Engaged in 2021", "dates differ: 2019 vs 2021"),
        ("Due 2024-11-05", "Due 2024-11-12", "dates differ"),
        ("Due 3/4/2024", "Due 4/3/2024", "dates differ"),
        ("Party on Friday", "Party on Saturday", "dates differ: Friday vs Saturday"),
        ("Dinner tomorrow", "Dinner today", "dates differ: tomorrow vs today"),
        ("Broke it last week", "Broke it last month", "dates differ"),
        ("Moving in June", "Moving in July", "dates differ"),
        ("Opened in the 1990s", "Opened in the 2000s", "dates differ"),
        ("Serviced in the spring", "Serviced in the winter", "dates differ: spring vs winter"),
        ("Born on March 3", "Born on March 3, 1990", "dates differ"),  # a year added
    ],
)
def test_differences_are_named(a: str, b: str, reason: str) -> None:
    found = contradiction(a, b)
    assert found is not None
    assert reason in found
    assert contradiction(b, a) is not None


def test_a_number_only_one_side_mentions_is_a_difference() -> None:
    # New information or a contradiction: either way it must not be absorbed.
    assert contradiction("We adopted a cat", "We adopted a cat; he is 4") == (
        "numbers differ: none vs 4"
    )


def test_a_time_is_not_also_read_as_a_number() -> None:
    assert contradiction("Call at 3pm", "Call at 4pm") == "times differ: 3pm vs 4pm"


def test_several_kinds_are_all_named_in_reading_order() -> None:
    found = contradiction("Pay 30 on Monday at 9am", "Don't pay 40 on Tuesday at 10am")
    assert found == (
        "numbers differ: 30 vs 40; dates differ: Monday vs Tuesday; "
        "times differ: 9am vs 10am; negation differs: none vs Don't"
    )


def test_repeated_numbers_are_counted() -> None:
    assert contradiction("2 cats and 2 dogs", "2 cats and dogs") == "numbers differ: 2 vs none"


def test_negations_are_compared_by_count() -> None:
    assert contradiction("I don't like tea", "I never like tea") is None
    assert contradiction("not bad, not good", "not bad, good") is not None


statement = st.text(
    alphabet=st.sampled_from(list("abcno't 0123456789:.,$%-/ pmAMJunedayMarch")), max_size=40
)


@given(statement)
def test_a_statement_never_contradicts_itself(text: str) -> None:
    assert contradiction(text, text) is None


@given(statement, statement)
def test_contradiction_is_symmetric_in_whether_it_fires(a: str, b: str) -> None:
    assert (contradiction(a, b) is None) == (contradiction(b, a) is None)


# -- the labelled pairs -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def pairs() -> list[dict[str, str]]:
    loaded: list[dict[str, str]] = json.loads(PAIRS.read_text(encoding="utf-8"))
    return loaded


def test_labelled_pairs_are_well_formed(pairs: list[dict[str, str]]) -> None:
    assert len(pairs) >= 220
    assert len({p["id"] for p in pairs}) == len(pairs)
    assert len({(p["a"], p["b"]) for p in pairs}) == len(pairs)
    for pair in pairs:
        # A pair may put each side under a title ("Ines, 3:10 pm on 4 March, 2024"): then
        # ``a`` and ``b`` are bodies.
        assert set(pair) - {"title_a", "title_b"} == {"id", "kind", "type", "a", "b"}, pair["id"]
        assert pair["type"] in TYPES, pair["id"]
        assert pair["a"].strip() and pair["b"].strip() and pair["a"] != pair["b"], pair["id"]
    counts = Counter(p["kind"] for p in pairs)
    assert set(counts) == set(MINIMUM_PER_KIND)
    for kind, minimum in MINIMUM_PER_KIND.items():
        assert counts[kind] >= minimum, kind


def test_every_labelled_contradiction_is_caught(pairs: list[dict[str, str]]) -> None:
    missed = [
        p["id"]
        for p in pairs
        if p["kind"].startswith("contradiction_") and contradiction(p["a"], p["b"]) is None
    ]
    assert missed == []


def test_each_contradiction_is_caught_for_its_own_reason(pairs: list[dict[str, str]]) -> None:
    expected = {
        "contradiction_number": ("numbers",),
        "contradiction_date": ("dates", "times"),
        "contradiction_negation": ("negation",),
    }
    for pair in pairs:
        if pair["kind"] in expected:
            found = contradiction(pair["a"], pair["b"]) or ""
            assert found.startswith(expected[pair["kind"]]), (pair["id"], found)


def test_restatements_raise_no_flag(pairs: list[dict[str, str]]) -> None:
    flagged = [
        p["id"]
        for p in pairs
        if p["kind"] in ("restatement", "conversational_restatement")
        and contradiction(p["a"], p["b"])
    ]
    assert flagged == []


def test_few_paraphrases_raise_a_flag(pairs: list[dict[str, str]]) -> None:
    # Antonyms and idioms ("hates getting up early" / "early mornings are not his thing",
    # "remember to" / "don't forget to") are beyond a lexical check; they cost a link, not data.
    paraphrases = [p for p in pairs if p["kind"] == "paraphrase"]
    flagged = [p["id"] for p in paraphrases if contradiction(p["a"], p["b"])]
    assert len(flagged) <= len(paraphrases) // 10, flagged


def test_anchors_are_names_and_figures_not_openers() -> None:
    assert anchors("Hana has been vegetarian since 2015.") == {"hana", "2015"}
    assert share_anchors(
        "Hana has been vegetarian since 2015.", "Hana stopped eating meat in 2015."
    )
    # An opening capital says nothing: two titles starting with the same word share no name.
    assert not share_anchors("Shed paint\nBought paint", "Shed door\nBought a door")
    assert share_anchors("Bram hates getting up early.", "Early mornings are not Bram's thing.")
