"""A question naming someone is answered by what they said and what is said of them
(``retrieval.who``): their said lines rank above another's alike ones, an entity's linked
memories join the candidates even when no leg ranked them, and a capitalised word that is
nobody's name ties nothing. Real vault, real model; each case is also asked with the tie
switched off or under ``fast``, to show the tie is what moved the hits, by exactly its weight."""

from __future__ import annotations

from typing import Any

import pytest

from cairn.app.retrieval import search as retrieval
from cairn.app.retrieval import who
from cairn.app.service import MemoryService

ALL = ["personal"]
FILLERS = (
    "sowing tomatoes",
    "ferry times",
    "the bike's gears",
    "a sourdough starter",
    "tax forms",
    "the piano tuning",
    "a trip to Porto",
    "the cat's vaccinations",
    "winter tyres",
    "knitting socks",
    "the library card",
    "a birthday cake",
)


def _write(service: MemoryService, title: str, body: str, type: str = "Note") -> str:
    node = service.write(type, title, body).node
    assert node is not None
    return node.id


def _hits(
    service: MemoryService, question: str, profile: str = "balanced", limit: int = 10
) -> dict[str, tuple[float, str | None]]:
    """Each hit's score and the name that tied it to the question, by id."""
    response = service.search(question, scopes=ALL, limit=limit, diagnostics=True, profile=profile)
    return {
        hit.id: (hit.score, hit.diagnostics["who"] if hit.diagnostics else None)
        for hit in response.results
    }


def test_names_in_a_question() -> None:
    names = who.names_in("What activities does Melanie's family do with Anna Maria Rossi?")
    assert {"melanie", "anna maria rossi", "anna maria", "rossi", "what"} <= names
    assert "activities" not in names and "family" not in names
    assert who.names_in("what does melanie do?") == frozenset()


def test_the_named_speakers_lines_rank_above_anothers_alike_ones(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    hers = _write(
        service, "Ines, 3:10 pm on 2 June, 2023", "Ines: pottery class on Sundays keeps me calm"
    )
    his = _write(
        service, "Marco, 3:12 pm on 2 June, 2023", "Marco: a pottery class every Sunday calms me"
    )
    question = "What does Ines do on Sundays to stay calm?"
    tied = _hits(service, question)
    # Her line is close: it is hers, whatever the cosine of what is asked of her.
    assert not service.search("What does Ines do to relax?", scopes=ALL).nothing_close
    assert tied[hers][1] == "ines" and tied[his][1] is None
    assert tied[hers][0] > tied[his][0]
    weight = who.WHO_WEIGHT
    monkeypatch.setattr(who, "WHO_WEIGHT", 0.0)
    untied = _hits(service, question)
    gap_with = tied[hers][0] - tied[his][0]
    gap_without = untied[hers][0] - untied[his][0]
    assert gap_with - gap_without == pytest.approx(weight, abs=1e-6)
    # ``fast`` is the two legs alone: nobody is tied.
    monkeypatch.setattr(who, "WHO_WEIGHT", weight)
    assert all(name is None for _, name in _hits(service, question, "fast").values())


def test_a_named_entitys_memories_join_the_candidates(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    hendrik = _write(service, "Hendrik", "The heating engineer", type="Person")
    # The visit does not say his name: it is his by a link alone.
    visit = _write(service, "Boiler service", "The pressure was low; topped up and bled.")
    service.link(visit, hendrik, "involves", scopes=ALL)
    for n, topic in enumerate(FILLERS):
        _write(service, f"Note {n}", f"Notes on {topic} and nothing else.")
    # Each leg ranks as few memories as a search shows, so the visit is found by its link
    # or not at all.
    monkeypatch.setattr(retrieval, "LEG_DEPTH", {"fast": 1, "balanced": 1})
    question = "What did Hendrik do last time he came?"
    assert visit not in _hits(service, question, "fast", limit=2)
    found = _hits(service, question, limit=2)
    assert found[visit][1] == "hendrik"


def test_a_capitalised_word_that_is_nobodys_name_ties_nothing(service: MemoryService) -> None:
    _write(service, "Ines, 3:10 pm on 2 June, 2023", "Ines: pottery class on Sundays keeps me calm")
    _write(service, "Garden", "What the tomatoes need in June: water every evening.")
    assert all(
        name is None for _, name in _hits(service, "What do tomatoes need in June?").values()
    )


def test_what_is_asked_of_someone_is_matched_by_meaning_without_their_name(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(service, "Ines, 3:10 pm on 2 June, 2023", "Ines: I run by the river to clear my head")
    _write(service, "Marco, 3:12 pm on 2 June, 2023", "Marco: Ines, the river is high today")
    asked: list[str] = []
    space = service._space
    nearest_soon = space.nearest_soon

    def recorded(query: str, *args: Any) -> Any:
        asked.append(query)
        return nearest_soon(query, *args)

    monkeypatch.setattr(space, "nearest_soon", recorded)
    service.search("What does Ines do to clear her head?", scopes=ALL)
    assert asked == ["What does Ines do to clear her head?", "What does do to clear her head?"]
    asked.clear()
    service.search("What does Ines do to clear her head?", scopes=ALL, profile="fast")
    assert asked == ["What does Ines do to clear her head?"]
    asked.clear()
    service.search("What do tomatoes need in June?", scopes=ALL)
    assert asked == ["What do tomatoes need in June?"]


def test_a_name_and_its_possessive_are_taken_out_of_a_question() -> None:
    assert (
        who.without(
            "What do Melanie's kids and Anna-Maria Rossi like?", {"melanie", "anna maria rossi"}
        )
        == "What do kids and like?"
    )
    assert who.without("Where did Melanie go?", set()) == "Where did Melanie go?"
    assert who.without("Did Mel go to Melbourne?", {"mel"}) == "Did go to Melbourne?"


def test_only_people_are_taken_out_and_never_all_a_question_asks() -> None:
    asked = who.Named(frozenset({"what", "ines", "python"}), people=frozenset({"ines"}))
    # A speaker's or a Person's name goes; a topic's is the meaning, and stays.
    assert who.what_is_asked("What does Ines do to relax?", asked, {}) == "What does do to relax?"
    assert (
        who.what_is_asked("What does Marco do to relax?", asked, {7: "marco"})
        == "What does do to relax?"
    )
    assert (
        who.what_is_asked("What did Ines say about Python?", asked, {})
        == "What did say about Python?"
    )
    # Nobody named is in it, however it is spaced: asked as typed, so not asked twice.
    assert who.what_is_asked("What does  Marco do ", asked, {}) == "What does  Marco do "
    # Nothing of its own is left: asked whole.
    assert who.what_is_asked("Who is Ines?", asked, {}) == "Who is Ines?"
