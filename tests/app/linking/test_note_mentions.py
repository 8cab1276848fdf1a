"""A note written by hand links to the people, places and projects it names, and the balanced
search profile follows those links where the fast one does not."""

from __future__ import annotations

from cairn.app.service import MemoryService

ALL = ["personal"]


def _mentioned(service: MemoryService, node_id: str) -> set[str]:
    (detail,) = service.get([node_id], scopes=ALL).nodes
    return {e.other_id for e in detail.edges if e.type == "mentions" and e.direction == "out"}


def test_a_written_note_mentions_the_entities_it_names(service: MemoryService) -> None:
    lena = service.write("Person", "Lena Vos").node
    harbour = service.write("Place", "Kestrel Harbour").node
    assert lena is not None and harbour is not None
    note = service.write(
        "Note", "Saturday", "Met Lena Vos for coffee by Kestrel Harbour; she starts in May."
    ).node
    assert note is not None
    assert _mentioned(service, note.id) == {lena.id, harbour.id}
    # A name written after the matcher was built is found too, and an unnamed one is not.
    ravi = service.write("Person", "Ravi Menon").node
    assert ravi is not None
    other = service.write("Note", "Call", "Ravi Menon called about the boat.").node
    assert other is not None and _mentioned(service, other.id) == {ravi.id}
    plain = service.write("Note", "Groceries", "Buy oat milk and rye bread.").node
    assert plain is not None and _mentioned(service, plain.id) == set()


def test_the_profiles_differ_where_the_graph_has_links(service: MemoryService) -> None:
    lena = service.write("Person", "Lena Vos", attrs={"occupation": "pharmacist"}).node
    assert lena is not None
    service.write("Note", "Pharmacy hours", "Lena Vos opens the pharmacy at eight on weekdays.")
    query = "when does the pharmacy open on weekdays"
    fast = service.search(query, scopes=ALL, profile="fast").results
    balanced = service.search(query, scopes=ALL, profile="balanced").results
    via_graph = [hit for hit in balanced if hit.ranks["graph"] is not None]
    assert [hit.id for hit in via_graph] == [lena.id]
    assert all(hit.ranks["graph"] is None for hit in fast)
    fast_score = {hit.id: hit.score for hit in fast}.get(lena.id, 0.0)
    assert via_graph[0].score > fast_score
