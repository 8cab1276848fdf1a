"""The entity resolver: pure name helpers, lookups on a real vault, and the write policy for
entities (absorb, warn, label conflict, revive candidate, block mode)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.app.dedup import resolver
from cairn.app.dedup.resolver import (
    index_entries,
    initials,
    lookup,
    similarity,
    trigrams,
)
from cairn.app.service import MemoryService
from cairn.app.text.names import normalize
from cairn.storage import graph_rows
from cairn.storage.vault import Vault

ALL = ["personal"]


def _sim(a: str, b: str) -> float:
    return similarity(trigrams(normalize(a)), trigrams(normalize(b)))


def _lookup(vault: Vault, *names: str, scopes: list[str] = ALL, fuzzy: bool = True):
    with vault.read() as conn:
        return lookup(conn, list(names), scopes, fuzzy=fuzzy)


def _node_count(vault: Vault) -> int:
    with vault.read() as conn:
        return graph_rows.node_count(conn)


# -- normalize --------------------------------------------------------------------------------


def test_normalize_casefolds_and_strips_accents() -> None:
    assert normalize("ZOË Ångström") == "zoe angstrom"
    assert normalize("Joaquín") == normalize("JOAQUIN") == "joaquin"
    assert normalize("Straße") == "strasse"


def test_normalize_spells_out_letters_without_a_combining_accent() -> None:
    # ø, æ, ł... have no decomposition: NFKD alone would leave "Søren" unlike "Soren".
    assert normalize("Søren Kierkegaard") == "soren kierkegaard"
    assert normalize("SØREN") == "soren"
    assert normalize("Ærø") == "aero"
    assert normalize("Łódź") == "lodz"
    assert normalize("Þór") == "thor"


def test_normalize_unifies_hyphens_underscores_and_spaces() -> None:
    expected = "jean luc picard"
    for spelling in (
        "Jean-Luc Picard",
        "jean_luc picard",
        "Jean  Luc\tPicard",
        "Jean–Luc Picard",  # an en dash
        "  Jean - Luc   Picard  ",
        "JEAN__LUC--PICARD",
    ):
        assert normalize(spelling) == expected, spelling


def test_normalize_drops_punctuation() -> None:
    assert normalize("O'Brien") == "obrien"
    assert normalize("J.R.R. Tolkien") == "jrr tolkien"
    assert normalize("Acme, Inc.!") == "acme inc"
    assert normalize("(Dr.) Who?") == "dr who"
    assert normalize("!!! ...") == ""
    assert normalize("") == ""


def test_normalize_keeps_digits_and_other_scripts() -> None:
    assert normalize("Apollo 11") == "apollo 11"
    assert normalize("Москва") == "москва"
    assert normalize("東京") == "東京"


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=24))
def test_normalize_is_idempotent(name: str) -> None:
    once = normalize(name)
    assert normalize(once) == once


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from("aBøÉ -_.'ßİ1"), max_size=16))
def test_normalize_yields_single_spaced_words(name: str) -> None:
    norm = normalize(name)
    assert norm == norm.strip()
    assert "  " not in norm
    assert re.fullmatch(r"[\w ]*", norm)
    assert "_" not in norm


# -- trigrams, similarity, initials -----------------------------------------------------------


def test_trigrams_pad_each_word() -> None:
    assert trigrams("ab") == {"  a", " ab", "ab "}
    assert trigrams("ab cd") == {"  a", " ab", "ab ", "  c", " cd", "cd "}
    assert trigrams("") == frozenset()
    # One word's grams never span into the next.
    assert not any(" c" in gram and "b" in gram for gram in trigrams("ab cd"))


def _one_slip(a: str, b: str) -> bool:
    return bool(resolver.variants(normalize(a)) & resolver.variants(normalize(b)))


def test_one_typing_slip_shares_a_variant_key() -> None:
    assert _one_slip("Jon Smith", "John Smith")  # a letter left out
    assert _one_slip("Katherine Jones", "Catherine Jones")  # a letter changed
    assert _one_slip("Mirjam Okafor", "Mirjam Okfaor")  # two letters swapped
    assert _one_slip("Lena Vos", "Lena Voss")  # a letter added
    assert _sim("Jon Smith", "John Smith") == pytest.approx(8 / 13)


def test_names_further_apart_or_too_short_share_no_variant() -> None:
    assert not _one_slip("Jon Smith", "Maria Garcia")
    assert not _one_slip("Jon Smyth", "John Smith")  # two slips
    assert not _one_slip("Bob", "Rob")  # too short to tell a slip from another name
    assert resolver.variants("x" * (resolver.MAX_VARIANT_LENGTH + 1)) == set()
    assert _sim("Xena", "Keiko") < 0.3


def test_similarity_bounds_and_symmetry() -> None:
    a, b = trigrams("john smith"), trigrams("jon smith")
    assert similarity(a, a) == 1.0
    assert similarity(a, b) == similarity(b, a)
    assert similarity(a, frozenset()) == 0.0
    assert similarity(frozenset(), frozenset()) == 0.0


def test_initials_of_a_multiword_name_skip_small_words() -> None:
    assert initials("world health organization") == "who"
    assert initials("museum of modern art") == "mma"
    assert initials("the national gallery of scotland") == "ngs"


def test_initials_need_enough_words() -> None:
    assert initials("john smith") is None
    assert initials("bank of england") is None  # two words once "of" is skipped
    assert initials("") is None


def test_index_entries_hold_title_aliases_and_initials() -> None:
    entries, keys = index_entries("World Health Organization", ["W.H.O.", "  ", "Santé"])
    assert ("world health organization", "title") in entries
    assert ("who", "initials") in entries
    assert ("who", "alias") in entries
    assert ("sante", "alias") in entries
    assert ("health organization world", "words") in entries
    assert all(norm for norm, _ in entries)  # a blank alias is not indexed
    assert resolver.variants("world health organization") <= keys
    assert resolver.variants("sante") <= keys
    assert not resolver.variants("who")  # too short for spelling variants


# -- lookup on a vault ------------------------------------------------------------------------


def test_lookup_finds_the_same_name_under_any_spelling(
    service: MemoryService, vault: Vault
) -> None:
    soren = service.write("Person", "Søren Kierkegaard").node
    for spelling in ("soren kierkegaard", "SØREN KIERKEGAARD", "Soren-Kierkegaard"):
        found = _lookup(vault, spelling)
        assert [m.id for m in found] == [soren.id], spelling
        assert found[0].reason == "same name"
        assert found[0].score == 1.0
        assert found[0].exact
        assert found[0].status == "active"


def test_lookup_finds_an_alias(service: MemoryService, vault: Vault) -> None:
    peggy = service.write("Person", "Margaret Hughes", attrs={"aliases": ["Peggy", "Meg H."]})
    found = _lookup(vault, "peggy")
    assert [(m.id, m.reason, m.exact) for m in found] == [(peggy.node.id, "alias", True)]
    assert _lookup(vault, "Meg-H")[0].reason == "alias"


def test_lookup_finds_an_acronym_both_ways(service: MemoryService, vault: Vault) -> None:
    who = service.write("Organization", "World Health Organization").node
    found = _lookup(vault, "WHO")
    assert [(m.id, m.reason) for m in found] == [(who.id, "acronym")]
    assert not found[0].exact
    assert found[0].score == 0.9

    acronym = service.write("Organization", "UNHCR").node
    found = _lookup(vault, "United Nations High Commissioner for Refugees")
    assert [(m.id, m.reason) for m in found] == [(acronym.id, "acronym")]


def test_lookup_does_not_take_shared_initials_for_an_acronym(
    service: MemoryService, vault: Vault
) -> None:
    # Regression: "Wildlife Habitat Office" and "World Health Organization" are both "who";
    # neither is the other's acronym.
    service.write("Organization", "World Health Organization")
    assert _lookup(vault, "Wildlife Habitat Office") == []
    short = service.write("Organization", "WHO").node
    assert [(m.id, m.reason) for m in _lookup(vault, "Wildlife Habitat Office")] == [
        (short.id, "acronym")
    ]


def test_lookup_finds_a_similar_spelling(service: MemoryService, vault: Vault) -> None:
    john = service.write("Person", "John Smith").node
    found = _lookup(vault, "Jon Smith")
    assert [(m.id, m.reason) for m in found] == [(john.id, "similar spelling")]
    assert found[0].score == pytest.approx(8 / 13, abs=1e-4)
    assert not found[0].exact
    assert _lookup(vault, "Jon Smith", fuzzy=False) == []
    assert _lookup(vault, "Maria Garcia") == []


def test_lookup_lists_exact_matches_before_spellings(service: MemoryService, vault: Vault) -> None:
    jon = service.write("Person", "Jon Smith").node
    john = service.write("Person", "John Smith").node
    found = _lookup(vault, "John Smith")
    assert [(m.id, m.reason) for m in found] == [
        (john.id, "same name"),
        (jon.id, "similar spelling"),
    ]


def test_lookup_sees_entities_only(service: MemoryService, vault: Vault) -> None:
    service.write("Note", "John Smith", "A note titled like a person.")
    assert _lookup(vault, "John Smith") == []
    service.write("Person", "John Smith")
    assert _lookup(vault) == []
    assert _lookup(vault, "...", "  ") == []


def test_lookup_never_finds_an_entity_in_another_scope(
    service: MemoryService, vault: Vault
) -> None:
    service.add_scope("work")
    service.write("Person", "John Smith", attrs={"aliases": ["Johnny"]}, scope="work")
    service.write("Organization", "World Health Organization", scope="work")
    for name in ("John Smith", "Johnny", "Jon Smith", "WHO"):
        assert _lookup(vault, name) == [], name
        assert _lookup(vault, name, scopes=["work"]) != [], name


def test_lookup_is_not_crowded_out_by_another_scope(service: MemoryService, vault: Vault) -> None:
    # Regression: candidates were ranked and capped before the scope filter, so many close
    # names in a scope the reader cannot see hid a near spelling in its own scope.
    service.add_scope("work")
    jon = service.write("Person", "Jon Smith").node
    for i in range(45):
        service.write("Person", f"John Smith {i:02d}", scope="work", dedup=False)
    found = _lookup(vault, "John Smith")
    assert [(m.id, m.reason) for m in found] == [(jon.id, "similar spelling")]


# -- the write policy for entities ------------------------------------------------------------


def test_same_name_and_type_is_absorbed_and_nothing_is_lost(
    service: MemoryService, vault: Vault
) -> None:
    first = service.write(
        "Person",
        "John Smith",
        attrs={"email": "js@example.org", "occupation": "nurse", "aliases": ["Johnny"]},
    )
    again = service.write(
        "Person",
        "  JOHN-smith ",
        "Met him at the marathon.",
        attrs={"occupation": "teacher", "phone": "555-0100", "aliases": ["J.S."]},
    )
    assert again.outcome == "absorbed"
    assert again.node.id == first.node.id
    assert again.matched is not None
    assert again.matched.id == first.node.id
    assert again.matched.reason == "same name"
    # What it lacked is added; what differs is not overwritten.
    assert again.node.attrs["phone"] == "555-0100"
    assert again.node.attrs["email"] == "js@example.org"
    assert again.node.attrs["occupation"] == "nurse"
    assert again.node.attrs["aliases"] == ["Johnny", "J.S."]
    assert _node_count(vault) == 1
    # ... the differing value and the body are kept as an addendum, and found by search.
    detail = service.get([first.node.id], scopes=ALL).nodes[0]
    assert len(detail.addenda) == 1
    assert "occupation: teacher" in detail.addenda[0].text
    assert "marathon" in detail.addenda[0].text
    assert first.node.id in [hit.id for hit in service.search("teacher", scopes=ALL).results]
    # The new alias is indexed: it resolves to the same person.
    assert [m.id for m in _lookup(vault, "JS")] == [first.node.id]


def test_an_alias_write_is_absorbed_into_its_entity(service: MemoryService, vault: Vault) -> None:
    greta = service.write("Person", "Greta Lind", attrs={"aliases": ["Gee"]}).node
    again = service.write("Person", "Gee")
    assert again.outcome == "absorbed"
    assert again.node.id == greta.id
    assert again.matched.reason == "alias"
    assert _node_count(vault) == 1


def test_absorbing_the_same_entity_twice_adds_nothing(service: MemoryService, vault: Vault) -> None:
    first = service.write("Person", "Ana Ruiz", "A chemist.", attrs={"occupation": "chemist"})
    again = service.write("Person", "Ana Ruiz", "A chemist.", attrs={"occupation": "chemist"})
    assert again.outcome == "absorbed"
    assert again.node.id == first.node.id
    assert service.get([first.node.id], scopes=ALL).nodes[0].addenda == []
    assert again.orphan_warning is False
    assert _node_count(vault) == 1


def test_similar_spelling_is_inserted_with_a_warning(service: MemoryService, vault: Vault) -> None:
    john = service.write("Person", "John Smith").node
    jon = service.write("Person", "Jon Smith")
    assert jon.outcome == "inserted"
    assert jon.node.id != john.id
    assert [(d.id, d.reason) for d in jon.possible_duplicate_of][:1] == [
        (john.id, "similar spelling")
    ]
    assert jon.label_conflict == []
    assert _node_count(vault) == 2
    # Not linked: a warning only, and it is offered as a relation to make.
    assert jon.degree == 0
    assert jon.orphan_warning is True
    assert john.id in [s.id for s in jon.suggested_relations]


def test_same_name_under_another_type_is_a_label_conflict(service: MemoryService) -> None:
    person = service.write("Person", "Jordan").node
    place = service.write("Place", "Jordan")
    assert place.outcome == "inserted"
    assert place.node.id != person.id
    assert [(c.id, c.type, c.reason) for c in place.label_conflict] == [
        (person.id, "Person", "same name")
    ]
    items = service.pending(scopes=ALL)
    assert [(i.kind, i.node.id, i.other.id) for i in items] == [
        ("label_conflict", place.node.id, person.id)
    ]
    assert items[0].state == "open"
    assert service.pending(scopes=ALL, kinds=["duplicate"]) == []


def test_same_name_as_an_archived_entity_is_a_revive_candidate(service: MemoryService) -> None:
    mill = service.write("Place", "Old Mill", "The mill by the river.").node
    service.archive(mill.id, scopes=ALL)
    again = service.write("Place", "Old Mill")
    assert again.outcome == "inserted"
    assert again.node.id != mill.id
    assert [(r.id, r.status) for r in again.revive_candidate] == [(mill.id, "archived")]
    assert again.label_conflict == []
    # Not linked, and the archived one stays archived until the person decides.
    assert again.degree == 0
    assert service.get([mill.id], scopes=ALL).nodes[0].node.status == "archived"
    items = service.pending(scopes=ALL, kinds=["revive_candidate"])
    assert [(i.node.id, i.other.id) for i in items] == [(again.node.id, mill.id)]


def test_block_mode_stores_nothing_and_says_what_it_meant(
    service: MemoryService, vault: Vault
) -> None:
    john = service.write("Person", "John Smith").node
    service.change_setting("entity_mode", "block")
    before = _node_count(vault)
    blocked = service.write("Person", "Jon Smith", "Likes chess.")
    assert blocked.outcome == "blocked"
    assert blocked.node is None
    assert blocked.id is None
    assert blocked.embedded is False
    assert john.id in [d.id for d in blocked.did_you_mean]
    assert blocked.did_you_mean[0].reason == "similar spelling"
    assert _node_count(vault) == before
    # Nothing holds the word: the full-text leg finds nothing (the vector leg always ranks).
    assert all(hit.ranks["text"] is None for hit in service.search("chess", scopes=ALL).results)

    forced = service.write("Person", "Jon Smith", "Likes chess.", force_new=True)
    assert forced.outcome == "inserted"
    assert forced.node is not None
    assert john.id in [d.id for d in forced.possible_duplicate_of]
    assert _node_count(vault) == before + 1


def test_block_mode_holds_back_a_label_conflict_but_not_a_new_name(
    service: MemoryService,
) -> None:
    person = service.write("Person", "Jordan").node
    service.change_setting("entity_mode", "block")
    blocked = service.write("Place", "Jordan")
    assert blocked.outcome == "blocked"
    assert [c.id for c in blocked.label_conflict] == [person.id]
    assert person.id in [d.id for d in blocked.did_you_mean]
    assert service.pending(scopes=ALL) == []
    # A name nobody resembles goes in; the same entity again is still absorbed.
    assert service.write("Place", "Reykjavik").outcome == "inserted"
    assert service.write("Person", "jordan").outcome == "absorbed"


def test_entity_resolution_is_per_scope(service: MemoryService) -> None:
    service.add_scope("work")
    home = service.write("Person", "John Smith").node
    work = service.write("Person", "John Smith", scope="work")
    assert work.outcome == "inserted"
    assert work.node.id != home.id
    assert work.possible_duplicate_of == []
    assert work.label_conflict == []


def test_resolver_constants_are_sane() -> None:
    assert 3 <= resolver.MIN_FUZZY_LENGTH < resolver.MAX_VARIANT_LENGTH
    assert resolver.MIN_ACRONYM >= 3
    assert resolver.MAX_FINDINGS >= 1


def test_the_same_words_in_another_order_warn(service: MemoryService) -> None:
    first = service.write("Person", "Okafor Mirjam").node
    second = service.write("Person", "Mirjam Okafor")
    assert second.outcome == "inserted"
    assert [(d.id, d.reason) for d in second.possible_duplicate_of] == [(first.id, "same words")]
