"""A stub holds nothing but its name (``retrieval.who.only_named``): a search for the name finds
it, and a longer question that names it is answered by the memories that name it."""

from __future__ import annotations

from cairn.app.service import MemoryService

ALL = ["personal"]


def test_a_stub_answers_its_name_and_its_memories_answer_a_question(
    service: MemoryService,
) -> None:
    note = service.write(
        "Note", "Boiler", "The boiler was serviced by [[Hendrik Vos]]; the pressure was low."
    ).node
    assert note is not None
    [stub] = service.write("Note", "Heating", "Ask [[Hendrik Vos]] about the radiators.").links
    named = service.search("Hendrik Vos", scopes=ALL, diagnostics=True)
    assert stub.id in [hit.id for hit in named.results]
    asked = service.search("What did Hendrik Vos find when he serviced the boiler?", scopes=ALL)
    ids = [hit.id for hit in asked.results]
    assert stub.id not in ids
    assert ids[0] == note.id
