"""Entity mentions: which known entities a passage names (``MentionMatcher``), which new people,
organisations and places it seems to introduce (``candidates``), and what the ingest pipeline
makes of both: ``mentions`` edges from passages, and stubs for the new names."""

from __future__ import annotations

from pathlib import Path

from cairn.app.ingestion.request import IngestRequest
from cairn.app.linking.mentions import MAX_CANDIDATES, Candidate, MentionMatcher, candidates
from cairn.app.service import MemoryService
from cairn.app.text.names import normalize
from tests.app import ingest_files as files

ALL = ["personal"]


def matcher(*names: tuple[str, str]) -> MentionMatcher:
    """A matcher over (name, id) pairs, normalised as the name index stores them."""
    return MentionMatcher([(normalize(name), node_id, "Person") for name, node_id in names])


NOBODY = MentionMatcher([])


# -- MentionMatcher ---------------------------------------------------------------------------


def test_a_multi_word_name_is_found_whatever_its_case_and_accents() -> None:
    known = matcher(("Ada Lovelace", "ada"), ("Zoë Brûlé", "zoe"))
    assert known.find("Notes on Ada Lovelace and the engine.") == ["ada"]
    assert known.find("notes on ada lovelace") == ["ada"]  # two words are name enough
    assert known.find("Ada Lovelace's notes") == ["ada"]  # a possessive still names her
    assert known.find("a letter from Zoe Brule") == ["zoe"]
    assert known.find("Ada wrote; Lovelace replied") == []  # the words apart are not the name
    assert known.find("") == []


def test_a_one_word_name_counts_only_where_it_is_capitalised() -> None:
    known = matcher(("Rust", "rust"), ("Heron", "heron"), ("AI", "ai"))
    assert known.find("We rewrote the parser in Rust last year.") == ["rust"]
    assert known.find("There is rust on my bike.") == []
    assert known.find("A grey heron stood in the reeds; the Heron launch slipped.") == ["heron"]
    # Shorter than three letters: too common a word to link on its own.
    assert known.find("AI is everywhere") == []


def test_a_name_several_entities_share_is_left_alone() -> None:
    known = matcher(("Jordan", "j1"), ("Jordan", "j2"), ("Jordan Peele", "peele"))
    assert known.find("Jordan called about the film.") == []
    assert known.find("Jordan Peele called about the film.") == ["peele"]
    assert len(known) == 1  # only the unambiguous name is kept


def test_the_longest_name_wins_and_each_entity_is_listed_once_in_order() -> None:
    known = matcher(("New York", "city"), ("New York Times", "paper"), ("Bob Marsh", "bob"))
    assert known.find("She read the New York Times.") == ["paper"]
    assert known.find("She flew to New York.") == ["city"]
    text = "Bob Marsh met me in New York; Bob Marsh bought the New York Times there."
    assert known.find(text) == ["bob", "city", "paper"]


def test_names_with_an_apostrophe_are_found() -> None:
    """The name index drops the apostrophe ("Conan O'Brien" is "conan obrien"), so the text's
    words must be read the same way or such names never match."""
    known = matcher(("Conan O'Brien", "conan"), ("Sinéad O’Connor", "sinead"))
    assert known.find("Conan O'Brien hosted the show.") == ["conan"]
    assert known.find("A song by Sinéad O’Connor.") == ["sinead"]


def test_ten_thousand_names_still_match() -> None:
    names = [(f"Person{n} Surname{n}", f"id{n}") for n in range(10_000)]
    known = matcher(*names)
    assert len(known) == 10_000
    text = "Person17 Surname17 wrote to Person9999 Surname9999 and to person5 surname5. " * 3
    assert known.find(text) == ["id17", "id9999", "id5"]
    assert known.find("Person17 Surname18") == []


def test_add_makes_a_new_name_findable() -> None:
    known = matcher(("Ada Lovelace", "ada"))
    known.add("Grace Hopper", "grace")
    assert known.find("Grace Hopper met Ada Lovelace") == ["grace", "ada"]


# -- candidates -------------------------------------------------------------------------------


def _found(text: str, known: MentionMatcher = NOBODY) -> set[tuple[str, str]]:
    return {(c.name, c.type) for c in candidates(text, known)}


def test_a_title_before_a_name_makes_a_person() -> None:
    assert _found("I met Dr. Grace Hopper at the conference.") == {("Grace Hopper", "Person")}
    assert _found("Mr Alan Turing and Prof. Mary Somerville spoke.") == {
        ("Alan Turing", "Person"),
        ("Mary Somerville", "Person"),
    }
    assert _found("Dr. Smith was away.") == set()  # a surname alone is not enough


def test_organisation_words_make_an_organisation() -> None:
    assert _found("She works for Acme Ltd in town.") == {("Acme Ltd", "Organization")}
    assert _found("He studied at the University of Leeds.") == {
        ("University of Leeds", "Organization")
    }
    assert _found("He teaches at Northern Hills University.") == {
        ("Northern Hills University", "Organization")
    }


def test_the_is_stripped_and_repeats_are_counted() -> None:
    found = candidates("The Open University wrote. I asked the Open University again.", NOBODY)
    assert found == [Candidate("Open University", "Organization", 2)]


def test_place_words_make_a_place() -> None:
    # "Park" is no place word: it is as often a family name ("Woosuk Park").
    assert _found("The flat is on Baker Street near Regent Park.") == {("Baker Street", "Place")}
    assert _found("A trip to the City of San Francisco.") == {("San Francisco", "Place")}


def test_city_of_a_one_word_name_makes_a_place() -> None:
    """The module promises that a name "following 'City of'" is a place; most such names are
    one word (London, Edinburgh), and those must not be dropped."""
    found = _found("The City of London issued new rules.")
    assert any(kind == "Place" and "London" in name for name, kind in found), found


def test_a_name_does_not_run_on_across_a_line_break() -> None:
    """A heading or list item on the next line is not the rest of a name."""
    assert _found("Thanks to Dr. Grace Hopper\nNext Steps were agreed.") == {
        ("Grace Hopper", "Person")
    }
    assert _found("Meeting Notes\nOpen University") == {("Open University", "Organization")}


def test_known_names_are_not_candidates_and_the_list_is_capped() -> None:
    known = matcher(("Grace Hopper", "grace"))
    assert _found("I met Dr. Grace Hopper again.", known) == set()
    many = " ".join(f"Dr. Alpha{chr(65 + n)} Beta{chr(65 + n)}." for n in range(15))
    ranked = candidates("Dr. Zeta Zed. " * 3 + many, NOBODY)
    assert len(ranked) == MAX_CANDIDATES
    assert ranked[0] == Candidate("Zeta Zed", "Person", 3)  # the most frequent first


# -- in the pipeline --------------------------------------------------------------------------


def _mentioned(service: MemoryService, passage_id: str) -> set[str]:
    detail = service.get([passage_id], scopes=ALL).nodes[0]
    return {e.other_id for e in detail.edges if e.type == "mentions" and e.direction == "out"}


def test_ingested_passages_mention_known_and_new_entities(
    service: MemoryService, tmp_path: Path
) -> None:
    ada = service.write("Person", "Ada Lovelace", "Mathematician.").node
    heron = service.write("Project", "Heron", "The boat project.").node
    folder = files.write(
        tmp_path / "in",
        {
            "a_history.txt": (
                "Ada Lovelace wrote the first program for the Analytical Engine. "
                "A century later Dr. Grace Hopper built the first compiler at Acme Ltd.\n"
            ),
            "b_later.txt": "Grace Hopper also taught at the harbour school in winter.\n",
            "c_birds.txt": "A grey heron waited in the reeds beside the boathouse.\n",
            "d_launch.txt": "The Heron launch slipped to May because the sails were late.\n",
        },
    ).resolve()
    report = service.ingest(IngestRequest.of([folder]))
    assert report.counts() == {"ingested": 4}
    documents = {Path(o.path).name: o.document_id for o in report.files}

    def passage_of(name: str) -> str:
        reach = service.traverse(
            documents[name], scopes=ALL, direction="in", edge_types=["part_of"]
        )
        [node] = reach.nodes
        return node.id

    history = _mentioned(service, passage_of("a_history.txt"))
    assert ada.id in history
    people = {
        hit.title: hit
        for hit in service.search("Grace Hopper", scopes=ALL).results
        if hit.type == "Person"
    }
    grace = people["Grace Hopper"]
    assert grace.status == "stub"
    assert grace.id in history
    organisations = [
        h for h in service.search("Acme Ltd", scopes=ALL).results if h.type == "Organization"
    ]
    assert [(o.title, o.status) for o in organisations] == [("Acme Ltd", "stub")]
    assert organisations[0].id in history
    # The stub made for the first file is the one the second file's passage mentions.
    assert _mentioned(service, passage_of("b_later.txt")) == {grace.id}
    assert service.stats(scopes=ALL).nodes_by_type["Person"] == 2
    # A one-word name: the project, not the bird.
    assert _mentioned(service, passage_of("c_birds.txt")) == set()
    assert _mentioned(service, passage_of("d_launch.txt")) == {heron.id}
    # "the Analytical Engine" is a name without a cue: recognised by its capitals, a Topic.
    engines = [
        h for h in service.search("Analytical Engine", scopes=ALL).results if h.type == "Topic"
    ]
    assert [(e.title, e.status) for e in engines] == [("Analytical Engine", "stub")]
    assert engines[0].id in history
    assert report.mentions == 6 and report.stubs == 3
    detail = service.get([ada.id], scopes=ALL).nodes[0]
    assert [(e.type, e.direction, e.other_type) for e in detail.edges] == [
        ("mentions", "in", "Passage")
    ]
