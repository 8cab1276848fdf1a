"""The read path as a whole (DESIGN §5): read-time collapse, profiles and the graph leg, hub
damping, diagnostics, capped ``get``, the briefing, and invariants I2 (attributes are
searchable) and I4 (what traverse reaches, search finds). Real vault, real model."""

from __future__ import annotations

import math
from collections.abc import Iterable

import pytest

from cairn.app.errors import InvalidRequest
from cairn.app.models import EdgeCounts, Node, SearchResponse, StubToEnrich
from cairn.app.retrieval import fusion
from cairn.app.retrieval import search as retrieval
from cairn.app.retrieval.graph_reads import EDGES_PER_DIRECTION
from cairn.app.service import MemoryService

ALL = ["personal"]


def write(service: MemoryService, type_: str, title: str, body: str = "", **kw: object) -> Node:
    result = service.write(type_, title, body, **kw)  # type: ignore[arg-type]
    assert result.node is not None, result
    return result.node


def ids(response: SearchResponse) -> list[str]:
    return [hit.id for hit in response.results]


def link_all(service: MemoryService, pairs: Iterable[tuple[str, str, str]]) -> None:
    for src, dst, kind in pairs:
        service.link(src, dst, kind, scopes=ALL)


FILLER = [
    "Sourdough starter needs rye flour twice a day.",
    "The bike chain needs oil and the rear brake pads are worn.",
    "Holiday plan: the train to Lyon, then hiking in the Vercors.",
    "The plumber comes on Friday for the leaking kitchen pipe.",
    "Tax return: collect the receipts for the home office.",
    "Dentist check-up with Dr. Lind on Tuesday at nine.",
    "Tulip bulbs go into the ground in October.",
    "The car insurance renews in March; compare the quotes first.",
    "Choir rehearsal moved to the church hall on Thursdays.",
    "The fridge makes a rattling noise when the compressor starts.",
    "Library card expires next spring; renew it online.",
    "Passwords for the family laptop are in the blue notebook.",
]


# -- read-time collapse -----------------------------------------------------------------------

TWIN = "The spare house key is hidden under the blue flower pot by the back door."


def twins(service: MemoryService) -> tuple[Node, Node]:
    # dedup=False: the gate would absorb the second copy; an importer that skips the gate (a
    # file's hash already told it they differ) can store the same words twice.
    first = write(service, "Note", "Spare key", TWIN, dedup=False)
    second = write(service, "Note", "Spare key", TWIN, dedup=False)
    return first, second


def test_identical_memories_collapse_into_one_hit(service: MemoryService) -> None:
    first, second = twins(service)
    write(service, "Note", "Front door", "The front door lock sticks in winter.")
    hits = service.search("where is the spare house key", scopes=ALL).results
    shown = [hit for hit in hits if hit.id in (first.id, second.id)]
    assert len(shown) == 1
    (other,) = {first.id, second.id} - {shown[0].id}
    assert shown[0].collapsed == [other]
    assert other not in [hit.id for hit in hits]


def test_a_pair_declared_different_is_never_collapsed(service: MemoryService) -> None:
    kept_apart = {}
    for edge, text in [
        ("relates_to", TWIN),
        ("same_topic", "The bicycle lock code is written inside the kitchen cupboard door."),
    ]:
        first = write(service, "Note", edge, text, dedup=False)
        second = write(service, "Note", edge, text, dedup=False)
        service.link(first.id, second.id, edge, scopes=ALL)
        kept_apart[edge] = {first.id, second.id}
    for edge, query in [("relates_to", "spare house key"), ("same_topic", "bicycle lock code")]:
        hits = service.search(query, scopes=ALL).results
        assert kept_apart[edge] <= {hit.id for hit in hits}, edge
        assert all(hit.collapsed == [] for hit in hits), edge


def test_collapse_never_shortens_the_list_below_the_limit(service: MemoryService) -> None:
    twins(service)
    for body in FILLER[:6]:
        write(service, "Note", body[:30], body)
    hits = service.search("spare house key", scopes=ALL, limit=5).results
    # Eight memories, one pair collapsed: the limit is still filled by the next ones.
    assert len(hits) == 5
    assert sum(len(hit.collapsed) for hit in hits) == 1


# -- profiles and the graph leg ---------------------------------------------------------------


@pytest.fixture
def greenhouse(service: MemoryService) -> tuple[MemoryService, Node, Node]:
    for body in FILLER:
        write(service, "Note", body[:30], body)
    person = write(service, "Person", "Wilhelmina Okafor")
    note = write(
        service,
        "Note",
        "Greenhouse irrigation",
        "Installed drip irrigation for the greenhouse tomatoes.",
    )
    service.link(note.id, person.id, "involves", scopes=ALL)
    return service, note, person


def test_fast_is_two_legs_and_balanced_brings_in_the_entity_a_hit_involves(
    greenhouse: tuple[MemoryService, Node, Node],
) -> None:
    service, note, person = greenhouse
    query = "drip irrigation in the greenhouse"  # names nothing about the person

    fast = service.search(query, scopes=ALL, profile="fast", limit=3)
    assert fast.profile == "fast"
    assert ids(fast)[0] == note.id
    assert person.id not in ids(fast)
    assert all(hit.ranks["graph"] is None for hit in fast.results)

    balanced = service.search(query, scopes=ALL, profile="balanced", limit=3, diagnostics=True)
    assert balanced.profile == "balanced"
    assert ids(balanced)[:2] == [note.id, person.id]
    hit = balanced.results[1]
    assert hit.ranks["graph"] is not None
    assert hit.diagnostics is not None and hit.diagnostics["graph_via"] == note.id
    # The neighbour inherits half the hit's fused score, damped by sqrt(one neighbour).
    seed = balanced.results[0].diagnostics
    assert seed is not None
    assert hit.diagnostics["graph"] == pytest.approx(
        seed["fused"] * retrieval.GRAPH_DECAY, rel=1e-5
    )


def test_the_graph_leg_follows_entity_edges_only(service: MemoryService) -> None:
    for body in FILLER:
        write(service, "Note", body[:30], body)
    note = write(service, "Note", "Greenhouse irrigation", "Drip irrigation for the tomatoes.")
    other = write(service, "Note", "Cucumber frames", "Wooden frames for the cucumbers.")
    service.link(note.id, other.id, "relates_to", scopes=ALL)  # a semantic edge
    hits = service.search("drip irrigation tomatoes", scopes=ALL, limit=25).results
    # The filler names people and places, whose stubs the graph leg may walk; the two notes
    # name none, and the semantic edge between them is not walked.
    assert all(hit.ranks["graph"] is None for hit in hits if hit.id in (note.id, other.id))


def test_graph_neighbours_respect_scopes_and_status(service: MemoryService) -> None:
    service.add_scope("work")
    for body in FILLER:
        write(service, "Note", body[:30], body)
    note = write(service, "Note", "Greenhouse irrigation", "Drip irrigation for the tomatoes.")
    hidden = write(service, "Person", "Wilhelmina Okafor", scope="work")
    archived = write(service, "Person", "Ottoline Brandt")
    service.link(note.id, hidden.id, "involves", scopes=["personal", "work"])
    service.link(note.id, archived.id, "involves", scopes=ALL)
    service.archive(archived.id, scopes=ALL)
    found = ids(service.search("drip irrigation tomatoes", scopes=ALL, limit=25))
    assert hidden.id not in found and archived.id not in found
    both = service.search(
        "drip irrigation tomatoes", scopes=["personal", "work"], include_archived=True, limit=25
    )
    graph_ranked = {hit.id for hit in both.results if hit.ranks["graph"] is not None}
    assert {hidden.id, archived.id} <= graph_ranked


def test_a_hub_passes_little_to_few_of_its_neighbours(service: MemoryService) -> None:
    hub = write(service, "Person", "Bartholomew Quince")
    games = [
        "Played a Sicilian defence at the chess club",
        "Lost a rook endgame after a long fight",
        "Blitz tournament night, finished third",
        "Studied the Caro-Kann opening with a book",
        "Analysed a queen sacrifice from a famous game",
        "Simultaneous exhibition against a grandmaster",
    ]
    notes = []
    for i in range(30):
        body = f"{games[i % len(games)]}; round {i + 1} of the winter league."
        note = write(service, "Note", f"Chess evening {i + 1}", body, dedup=False)
        service.link(note.id, hub.id, "involves", scopes=ALL)
        notes.append(note.id)

    response = service.search("Bartholomew Quince", scopes=ALL, limit=25, diagnostics=True)
    assert ids(response)[0] == hub.id
    via_hub = [
        h for h in response.results if h.diagnostics and h.diagnostics["graph_via"] == hub.id
    ]
    # 30 memories involve him; the graph leg takes a capped number of them, not all 30.
    assert len(via_hub) == retrieval.NEIGHBOURS_PER_SEED
    assert {h.id for h in via_hub} <= set(notes)
    graph_ranked = [h for h in response.results if h.ranks["graph"] is not None]
    assert len(graph_ranked) <= retrieval.GRAPH_SEEDS * retrieval.NEIGHBOURS_PER_SEED
    # Each neighbour gets the hub's share damped by the square root of the neighbours taken.
    hub_fused = response.results[0].diagnostics["fused"]  # type: ignore[index]
    share = hub_fused * retrieval.GRAPH_DECAY / math.sqrt(retrieval.NEIGHBOURS_PER_SEED)
    for hit in via_hub:
        assert hit.diagnostics["graph"] == pytest.approx(share, rel=1e-5)  # type: ignore[index]
        assert hit.diagnostics["graph"] < hub_fused / 5  # type: ignore[index]


# -- diagnostics ------------------------------------------------------------------------------


def test_diagnostics_explain_every_hit_only_when_asked(
    greenhouse: tuple[MemoryService, Node, Node],
) -> None:
    service, note, _ = greenhouse
    query = "greenhouse tomatoes irrigation"
    plain = service.search(query, scopes=ALL)
    assert all(hit.diagnostics is None for hit in plain.results)

    explained = service.search(query, scopes=ALL, diagnostics=True)
    assert ids(explained) == ids(plain)  # explaining changes nothing about the answer
    for hit in explained.results:
        d = hit.diagnostics
        assert d is not None
        assert set(d) == {
            "fused",
            "words",
            "graph",
            "who",
            "graph_via",
            "time_match",
            "cosine",
            "collapsed",
        }
        if hit.ranks["vector"] is None:
            assert d["cosine"] is None
        else:
            assert -1.0 <= d["cosine"] <= 1.0
        # The fused score is the mean of the legs' scaled scores, in [0, 1]; the share of the
        # query's words the hit holds adds up to COVERAGE_WEIGHT.
        assert 0.0 <= d["fused"] <= 1.0
        assert 0.0 <= d["words"] <= fusion.COVERAGE_WEIGHT + 1e-7
        assert hit.score == pytest.approx(d["fused"] + d["words"] + d["graph"], abs=1e-7)
        assert (d["graph_via"] is None) == (hit.ranks["graph"] is None)
        assert d["collapsed"] == hit.collapsed
    top = explained.results[0]
    assert top.id == note.id and top.ranks["vector"] == 1 and top.ranks["text"] == 1
    assert top.diagnostics is not None and top.diagnostics["cosine"] > 0.5


# -- as_of ------------------------------------------------------------------------------------


def test_as_of_compares_times_in_utc(service: MemoryService) -> None:
    old = write(service, "Fact", "Tariff", "Power costs 31 cents.", valid_from="2020-01-01")
    new = write(
        service, "Fact", "Tariff", "Power costs 34 cents.", valid_from="2023-06-01", dedup=False
    )
    service.supersede(old.id, new.id, scopes=ALL)
    cases = [
        ("2023-05-31T23:59:00+00:00", old),
        # 01:00 in Paris on 1 June is still 31 May in UTC: the old tariff held.
        ("2023-06-01T01:00:00+02:00", old),
        ("2023-06-01T00:30:00-01:00", new),  # 01:30 UTC
        ("2023-06-01T12:00:00", new),  # no offset: read as UTC
        ("20230531", old),  # a compact date is that whole day too
    ]
    for as_of, holds in cases:
        found = ids(service.search("power tariff cents", scopes=ALL, as_of=as_of))
        assert found == [holds.id], as_of


def test_as_of_rejects_what_is_not_a_time(service: MemoryService) -> None:
    with pytest.raises(InvalidRequest, match="as_of"):
        service.search("anything", scopes=ALL, as_of="last tuesday")


# -- get --------------------------------------------------------------------------------------

PEOPLE = [
    "Ada Brennan", "Boris Chekov", "Clara Dunmore", "Dmitri Elsworth", "Edda Fairweather",
    "Farid Gallagher", "Greta Holloway", "Hugo Ingersoll", "Imke Jaramillo", "Jonas Kettering",
    "Kirsi Lindgren", "Lorcan Mabry",
]  # fmt: skip
TOPICS = [
    "apiary", "bread", "canoe", "dahlias", "embroidery", "falconry", "geocaching", "harmonica",
    "ikebana", "juggling", "kayaking", "lacemaking", "marquetry", "netball", "origami",
]  # fmt: skip


def test_get_caps_edges_each_way_and_counts_them_all(service: MemoryService) -> None:
    centre = write(service, "Note", "Club directory", "Who runs which club in the village.")
    citing = [
        write(service, "Note", f"{topic.title()} club", f"Notes from the {topic} club meeting.")
        for topic in TOPICS
    ]
    link_all(service, [(n.id, centre.id, "references") for n in citing[:10]])
    at_cap = service.get([centre.id], scopes=ALL).nodes[0]
    assert at_cap.edge_counts == EdgeCounts(incoming=10, outgoing=0)
    assert at_cap.edges_truncated is False and len(at_cap.edges) == 10

    link_all(service, [(n.id, centre.id, "references") for n in citing[10:]])
    people = [write(service, "Person", name) for name in PEOPLE]
    link_all(service, [(centre.id, p.id, "involves") for p in people])
    detail = service.get([centre.id], scopes=ALL).nodes[0]
    assert detail.edge_counts == EdgeCounts(incoming=15, outgoing=12)
    assert detail.edges_truncated is True
    outgoing = [e for e in detail.edges if e.direction == "out"]
    incoming = [e for e in detail.edges if e.direction == "in"]
    assert len(outgoing) == EDGES_PER_DIRECTION and len(incoming) == EDGES_PER_DIRECTION
    assert {e.other_id for e in outgoing} <= {p.id for p in people}
    assert {e.other_id for e in incoming} <= {n.id for n in citing}
    as_dict = service.get([centre.id], scopes=ALL).as_dict()["nodes"][0]
    assert as_dict["edge_counts"] == {"in": 15, "out": 12} and as_dict["edges_truncated"]
    # A person at the far end of one edge is not truncated.
    person = service.get([people[0].id], scopes=ALL).nodes[0]
    assert person.edge_counts == EdgeCounts(incoming=1, outgoing=0) and not person.edges_truncated


# -- briefing ---------------------------------------------------------------------------------

TODAY = "2030-01-10"


def test_briefing_lists_what_is_due_recent_waiting_and_worth_describing(
    service: MemoryService,
) -> None:
    def commitment(title: str, **attrs: object) -> Node:
        result = service.write("Commitment", title, title + ".", attrs=attrs)
        assert result.outcome == "inserted", result.matched
        assert result.node is not None
        return result.node

    overdue = commitment("Return the library books", due="2030-01-05")
    tomorrow = commitment("Renew the passport at the town hall", due="2030-01-11")
    commitment("Pay the gas bill", due="2030-01-11", done=True)
    commitment("Book the dentist for a cleaning", due="2030-01-12", status="completed")
    commitment("Plan the summer trip to Crete", due="2030-02-10")
    lunch = service.write("Note", "Lunch", "Had lunch with Marta at the harbour cafe.").node
    pending = service.write(
        "Note", "Lunch with Marta", "Lunch with Marta at the cafe by the harbour, she ordered fish."
    )
    assert pending.outcome == "pending" and lunch is not None
    stubbed = [
        service.write("Note", "Market", "Met [[Zebulon Farrow]] at the Saturday market."),
        service.write("Note", "Ladder", "[[Zebulon Farrow]] lent me a ladder for the roof."),
        service.write("Note", "Card", "Birthday card for [[Zebulon Farrow]] is in the drawer."),
    ]
    stub_id = stubbed[0].stubs_created[0].id
    assert all(r.outcome == "inserted" for r in stubbed)

    brief = service.briefing(scopes=ALL, today=TODAY)

    assert brief.today == TODAY
    assert [(d.id, d.due, d.overdue) for d in brief.due] == [
        (overdue.id, "2030-01-05", True),
        (tomorrow.id, "2030-01-11", False),
    ]
    assert brief.review_count == 1
    assert [(r.id, r.kind) for r in brief.reviews] == [(pending.verdict, "duplicate")]
    assert brief.stubs_to_enrich == [StubToEnrich(stub_id, "Topic", "Zebulon Farrow", 3)]
    hint = service.get([stub_id], scopes=ALL).nodes[0].enrich_hint
    assert hint is not None and "linked from 3 memories" in hint
    # The newest active memories, newest first, the one awaiting review among them (marked);
    # not the stub.
    recent = [r.id for r in brief.recent]
    assert recent[:5] == [r.id for r in reversed(stubbed)] + [pending.id, lunch.id]
    assert [r.awaiting_review for r in brief.recent[:5]] == [False] * 3 + [True, False]
    assert stub_id not in recent
    assert {r.type for r in brief.recent} <= {"Note", "Commitment"}
    assert brief.as_dict()["review_count"] == 1


def test_briefing_today_is_a_date(service: MemoryService) -> None:
    with pytest.raises(InvalidRequest, match="today"):
        service.briefing(scopes=ALL, today="tomorrow")


# -- invariant I4: what traverse reaches, search finds ----------------------------------------


def test_everything_traverse_reaches_is_found_by_its_title(service: MemoryService) -> None:
    service.add_scope("work")
    both = ["personal", "work"]
    ana = write(service, "Person", "Ana Ruiz", attrs={"occupation": "architect"})
    ben = write(service, "Person", "Ben Ito")
    acme = write(service, "Organization", "Acme Tools")
    lisbon = write(service, "Place", "Lisbon")
    roof = write(service, "Project", "Roof repair", attrs={"status": "in progress"})
    bees = write(service, "Topic", "Beekeeping")
    hive = write(service, "Note", "Hive inspection", "Checked the brood frames with Ana.")
    visit = write(service, "Event", "Roofers visit", attrs={"date": "2030-03-02"})
    phone = write(service, "Fact", "Ana's phone number", attrs={"value": "+351 912 000 111"})
    plans = write(service, "Commitment", "Send Ana the roof plans", attrs={"due": "2030-03-01"})
    swarm = write(service, "Note", "Old swarm story", "A swarm settled in the chimney.")
    quote_v1 = write(service, "Fact", "Roof quote", "The roof quote is 4200 euros.", dedup=False)
    quote_v2 = write(service, "Fact", "Roof quote", "The roof quote is 3900 euros.", dedup=False)
    payroll = write(service, "Note", "Payroll for roofers", "Pay the roofers weekly.", scope="work")
    linked = service.write("Note", "Supplier", "Tiles from [[Telhas Norte]] in Porto.")
    assert linked.node is not None
    stub = linked.stubs_created[0].id
    lunch = write(service, "Note", "Lunch", "Had lunch with Marta at the harbour cafe.")
    maybe = service.write(
        "Note", "Lunch with Marta", "Lunch with Marta at the cafe by the harbour, she ordered fish."
    )
    assert maybe.outcome == "pending" and maybe.node is not None
    link_all(
        service,
        [
            (ana.id, acme.id, "works_at"),
            (ana.id, ben.id, "knows"),
            (acme.id, lisbon.id, "located_in"),
            (roof.id, ana.id, "involves"),
            (hive.id, bees.id, "mentions"),
            (hive.id, ana.id, "involves"),
            (visit.id, roof.id, "part_of"),
            (phone.id, ana.id, "involves"),
            (plans.id, ana.id, "involves"),
            (plans.id, roof.id, "part_of"),
            (swarm.id, bees.id, "mentions"),
            (quote_v1.id, roof.id, "involves"),
            (quote_v2.id, roof.id, "involves"),
            (maybe.node.id, ana.id, "involves"),
            (lunch.id, ana.id, "involves"),
            (linked.node.id, roof.id, "involves"),
        ],
    )
    service.link(payroll.id, roof.id, "involves", scopes=both)
    service.archive(swarm.id, scopes=ALL)
    service.supersede(quote_v1.id, quote_v2.id, scopes=ALL)

    checked: dict[tuple[str, tuple[str, ...], bool], str] = {}
    for scopes in (ALL, both):
        for include_archived in (False, True):
            for start in (ana.id, roof.id, bees.id, stub):
                for depth in (1, 2):
                    reached = service.traverse(
                        start, scopes=scopes, depth=depth, include_archived=include_archived
                    ).nodes
                    for n in reached:
                        assert n.status != "superseded"
                        assert include_archived or n.status != "archived"
                        checked[(n.id, tuple(scopes), include_archived)] = n.title

    for (node_id, scopes, include_archived), title in checked.items():
        response = service.search(
            title, scopes=list(scopes), include_archived=include_archived, limit=25
        )
        assert node_id in ids(response), (title, scopes, include_archived)

    # The walk covered what it should, so the loop above was not vacuous.
    reached_ids = {node_id for node_id, _, _ in checked}
    assert {ana.id, ben.id, acme.id, lisbon.id, roof.id, bees.id, hive.id, stub} <= reached_ids
    assert {swarm.id, payroll.id, quote_v2.id, visit.id} <= reached_ids
    assert (swarm.id, tuple(ALL), False) not in checked
    assert (payroll.id, tuple(ALL), True) not in checked
    assert quote_v1.id not in reached_ids
    # A memory awaiting review is an ordinary active one: reached, and found (invariant I4).
    assert maybe.node.id in reached_ids


# -- invariant I2: content-bearing attributes are searchable ----------------------------------


def test_string_and_date_attributes_are_found(service: MemoryService) -> None:
    for body in FILLER[:6]:
        write(service, "Note", body[:30], body)
    nurse = write(service, "Person", "Jo Marsh", attrs={"occupation": "nurse"})
    wifi = write(
        service, "Fact", "Wifi password", attrs={"subject": "router", "value": "marmalade"}
    )
    born = write(service, "Person", "Dagny Lindqvist", attrs={"birthday": "1987-04-23"})
    gig = write(service, "Event", "Concert", attrs={"date": "2031-07-14", "location": "Ghent"})
    for query, expected in [
        ("nurse", nurse),
        ("marmalade", wifi),
        ("1987-04-23", born),
        ("2031-07-14", gig),
        ("Ghent", gig),
    ]:
        hits = service.search(query, scopes=ALL).results
        assert hits[0].id == expected.id, query
        assert hits[0].ranks["text"] == 1, query


def test_words_kept_only_in_an_addendum_are_found(service: MemoryService) -> None:
    for body in FILLER[:6]:
        write(service, "Note", body[:30], body)
    jo = write(service, "Person", "Jo Marsh", attrs={"occupation": "nurse"})
    again = service.write("Person", "Jo Marsh", "Keeps bees on the allotment; a keen apiarist.")
    assert again.outcome == "absorbed" and again.id == jo.id
    hits = service.search("apiarist", scopes=ALL).results
    assert hits[0].id == jo.id and hits[0].ranks["text"] == 1

    lunch = write(service, "Note", "Lunch", "Had lunch with Marta at the harbour cafe.")
    maybe = service.write(
        "Note", "Lunch with Marta", "Lunch with Marta at the cafe by the harbour, she ordered fish."
    )
    assert maybe.outcome == "pending" and maybe.verdict is not None
    waiting = service.search("fish", scopes=ALL).results
    assert waiting[0].id == maybe.id and waiting[0].awaiting_review  # kept and found at once
    merged = service.resolve_duplicate(maybe.verdict, "merge", scopes=ALL)
    assert merged.id == lunch.id
    hits = service.search("fish", scopes=ALL).results
    assert hits[0].id == lunch.id and hits[0].ranks["text"] == 1
    # The folded memory's id still finds the memory it became, with its words as an addendum.
    detail = service.get([maybe.id], scopes=ALL).nodes[0]
    assert detail.node.id == lunch.id and detail.requested_as == maybe.id
    assert detail.merged_ids == [maybe.id]
    assert any("fish" in a.text for a in detail.addenda)
