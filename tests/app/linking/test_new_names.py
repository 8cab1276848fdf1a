"""A memory written by hand that names someone or something the vault does not know yet: the
name becomes a stub through the entity resolver and the memory mentions it; the next memory
naming it joins the same stub; a stub never joins more than ``STUB_REACH`` memories; a name the
person archived stays archived."""

from __future__ import annotations

from cairn.app.linking.stubs import STUB_REACH
from cairn.app.models import Node
from cairn.app.service import MemoryService

ALL = ["personal"]


def _mentioned(service: MemoryService, node_id: str) -> dict[str, str]:
    """The titles of what ``node_id`` mentions, by id."""
    (detail,) = service.get([node_id], scopes=ALL).nodes
    return {
        e.other_id: e.other_title
        for e in detail.edges
        if e.type == "mentions" and e.direction == "out"
    }


def _note(service: MemoryService, title: str, body: str) -> Node:
    node = service.write("Note", title, body).node
    assert node is not None
    return node


def _entities(service: MemoryService, name: str) -> list[Node]:
    hits = service.search(name, scopes=ALL).results
    ids = [h.id for h in hits if h.title == name and h.type not in ("Note", "Document")]
    return [detail.node for detail in service.get(ids, scopes=ALL).nodes] if ids else []


def test_a_note_naming_new_people_mentions_them_as_stubs(service: MemoryService) -> None:
    first = _note(
        service,
        "Boiler",
        "The boiler was serviced by Hendrik from Warmtech; Dr. Maria Jansen rang at noon.",
    )
    assert set(_mentioned(service, first.id).values()) == {"Hendrik", "Warmtech", "Maria Jansen"}
    (maria,) = _entities(service, "Maria Jansen")
    assert (maria.type, maria.status) == ("Person", "stub")
    # The next note naming her joins the same stub: no second Maria Jansen.
    second = _note(service, "Results", "Maria Jansen sent the results; all is well.")
    assert _mentioned(service, second.id) == {maria.id: "Maria Jansen"}
    assert len(_entities(service, "Maria Jansen")) == 1


def test_chat_words_and_a_speaker_spoken_to_make_no_stub(service: MemoryService) -> None:
    for title, body in (
        ("Caroline, 8 May", "Caroline: Hey Mel! Glad you came. Wanna see my painting?"),
        ("Melanie, 8 May", "Melanie: Congrats, Caroline! Awesome work, truly."),
    ):
        assert _mentioned(service, _note(service, title, body).id) == {}
    assert service.stats(scopes=ALL).nodes_by_type.get("Topic", 0) == 0
    assert service.stats(scopes=ALL).nodes_by_type.get("Person", 0) == 0


def test_a_stub_joins_at_most_its_reach_until_it_is_described(service: MemoryService) -> None:
    notes = [
        _note(service, f"Visit {n}", f"Went to see Oskar Brandt again, time number {n}.")
        for n in range(STUB_REACH + 2)
    ]
    (oskar,) = _entities(service, "Oskar Brandt")
    linked = [n for n in notes if oskar.id in _mentioned(service, n.id)]
    assert len(linked) == STUB_REACH  # the first ones; the rest are left unlinked
    # Described (written as a Person), it is no stub any more and links again.
    described = service.write("Person", "Oskar Brandt", "A neighbour who fixes bicycles.").node
    assert described is not None and described.id == oskar.id and described.status == "active"
    later = _note(service, "Bicycle", "Oskar Brandt fixed the bicycle chain.")
    assert oskar.id in _mentioned(service, later.id)


def test_an_archived_name_is_not_brought_back(service: MemoryService) -> None:
    note = _note(service, "Setup", "We keep the keys with Sunbeam Storage near the station.")
    (stub,) = _entities(service, "Sunbeam Storage")
    assert stub.id in _mentioned(service, note.id)
    service.archive(stub.id, scopes=ALL)  # "not a name I care about"
    again = _note(service, "Keys", "The spare keys are still with Sunbeam Storage.")
    assert _mentioned(service, again.id) == {}
    found = [h for h in service.search("Sunbeam Storage", scopes=ALL).results if h.id != again.id]
    assert all(h.type in ("Note",) for h in found)


def test_forgetting_a_note_takes_the_names_only_it_stated(service: MemoryService) -> None:
    """A name found in a text is part of that text: forgotten with it, unless another memory
    names it too."""
    alone = _note(service, "Clinic", "The scan is booked at Quartzfield Clinic on Friday.")
    shared = _note(service, "Lunch", "Lunch with Odile Marchetti near the market.")
    _note(service, "Dinner", "Dinner with Odile Marchetti at home.")
    assert _entities(service, "Quartzfield Clinic") and _entities(service, "Odile Marchetti")
    service.forget(alone.id, scopes=ALL)
    service.forget(shared.id, scopes=ALL)
    assert _entities(service, "Quartzfield Clinic") == []
    assert [n.status for n in _entities(service, "Odile Marchetti")] == ["stub"]
