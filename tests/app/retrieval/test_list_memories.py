"""The library's shelves: the newest memories of a type, or the archived ones, before a word is
typed."""

from __future__ import annotations

import pytest

from cairn.app.errors import InvalidRequest
from cairn.app.service import MemoryService


def test_newest_first_by_type_and_status(service: MemoryService) -> None:
    scopes = service.scopes()
    first = service.write("Note", "Seeds", "Order tomato seeds.").node
    person = service.write("Person", "Ines Duarte").node
    second = service.write("Note", "Rain barrel", "The barrel holds 200 litres.").node
    assert first and person and second
    notes = service.list_memories(scopes=scopes, types=["Note"])
    assert [n.id for n in notes] == [second.id, first.id]
    everything = service.list_memories(scopes=scopes, limit=2)
    assert [n.id for n in everything] == [second.id, person.id]
    service.archive(first.id, scopes=scopes)
    assert [n.id for n in service.list_memories(scopes=scopes, types=["Note"])] == [second.id]
    archived = service.list_memories(scopes=scopes, statuses=["archived"])
    assert [n.id for n in archived] == [first.id]


def test_bad_arguments_are_refused(service: MemoryService) -> None:
    with pytest.raises(InvalidRequest):
        service.list_memories(scopes=service.scopes(), limit=0)
    with pytest.raises(InvalidRequest):
        service.list_memories(scopes=service.scopes(), statuses=["gone"])
