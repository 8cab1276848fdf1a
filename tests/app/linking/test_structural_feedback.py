"""Structural feedback on a write: degree, orphan warnings, [[links]] and stubs, enrich hints,
tag anchoring and status vocabulary (real vault, real model)."""

from __future__ import annotations

from pathlib import Path

from cairn.app.ingestion.request import IngestRequest
from cairn.app.linking import feedback
from cairn.app.models import EdgeCounts, Relation
from cairn.app.service import MemoryService

ALL = ["personal"]
XENA_NOTES = (
    ("Lunch", "Had lunch with [[Xena]] at the harbour."),
    ("Concert", "Went to a jazz concert with [[xena|my friend X]] on Friday."),
    ("Climbing", "Bouldering session; [[XENA#Climbing]] sent the orange route."),
)


def _edges(service: MemoryService, node_id: str) -> list[tuple[str, str, str]]:
    detail = service.get([node_id], scopes=ALL).nodes[0]
    return sorted((e.type, e.direction, e.other_id) for e in detail.edges)


# -- pure helpers -----------------------------------------------------------------------------


def test_inline_links_read_targets_once_each() -> None:
    body = "See [[Xena]], [[xena|her]], [[Yarrow#Budget]] and [[ Keiko   Tanaka ]]; not [[]]."
    assert feedback.inline_links(body) == ["Xena", "Yarrow", "Keiko Tanaka"]


def test_tags_come_from_the_attribute_and_hashtags() -> None:
    tags = feedback.tags_of({"tags": ["Yarrow", "garden/shed"]}, "Done #yarrow #1 #Budget a#b")
    assert tags == ["Yarrow", "garden shed", "Budget"]


# -- degree and orphans -----------------------------------------------------------------------


def test_an_unlinked_memory_is_an_orphan_with_suggestions(service: MemoryService) -> None:
    # Related (cosine about 0.68) but not a possible duplicate: no shared names or figures.
    first = service.write("Note", "Paint", "Bought green paint for the garden shed.")
    assert first.degree == 0
    assert first.orphan_warning is True
    assert first.suggested_relations == []  # nothing in the vault to suggest yet

    second = service.write("Note", "Door", "Painted the door of the garden shed.")
    assert second.outcome == "inserted"
    assert second.degree == 0
    assert second.orphan_warning is True
    suggested = {s.id: s for s in second.suggested_relations}
    assert first.node.id in suggested
    assert suggested[first.node.id].edge_type == "relates_to"
    assert suggested[first.node.id].reason.startswith("similar meaning")
    assert second.node.id not in suggested  # never itself
    assert [r.id for r in second.resonance] == [first.node.id]


def test_a_linked_memory_reports_its_degree(service: MemoryService) -> None:
    result = service.write("Note", "Trip", "Drove [[Keiko]] and [[Olivia]] to [[Tromsø]].")
    assert result.degree == 3
    assert result.orphan_warning is False
    assert result.suggested_relations == []
    assert sorted(link.title for link in result.links) == ["Keiko", "Olivia", "Tromsø"]
    assert {link.type for link in result.links} == {"references"}


# -- [[links]] and stubs ----------------------------------------------------------------------


def test_a_link_to_an_unknown_name_creates_a_stub(service: MemoryService) -> None:
    title, body = XENA_NOTES[0]
    result = service.write("Note", title, body)
    assert result.degree == 1
    assert result.orphan_warning is False
    assert len(result.stubs_created) == 1
    stub = result.stubs_created[0]
    assert stub.title == "Xena"
    assert stub.type == feedback.STUB_TYPE
    assert [(link.id, link.type) for link in result.links] == [(stub.id, "references")]
    assert result.links[0].target_type == feedback.STUB_TYPE

    detail = service.get([stub.id], scopes=ALL).nodes[0]
    assert detail.node.status == "stub"
    assert detail.node.title == "Xena"
    assert detail.node.body == ""
    assert _edges(service, result.node.id) == [("references", "out", stub.id)]
    assert _edges(service, stub.id) == [("references", "in", result.node.id)]
    # A stub is visible: found by its name.
    assert stub.id in [hit.id for hit in service.search("Xena", scopes=ALL).results]


def test_a_second_link_to_the_same_name_reuses_the_stub(service: MemoryService) -> None:
    first = service.write("Note", *XENA_NOTES[0])
    second = service.write("Note", *XENA_NOTES[1])
    stub_id = first.stubs_created[0].id
    assert second.stubs_created == []
    assert [link.id for link in second.links] == [stub_id]
    assert second.degree == 1
    assert service.get([stub_id], scopes=ALL).nodes[0].edge_counts == EdgeCounts(
        incoming=2, outgoing=0
    )
    assert service.stats(scopes=ALL).nodes_by_status == {"active": 2, "stub": 1}


def test_a_link_to_a_known_entity_uses_it(service: MemoryService) -> None:
    keiko = service.write("Person", "Keiko Tanaka", "A colleague from Osaka.").node
    result = service.write("Note", "Call", "Called [[keiko tanaka]] about the report.")
    assert result.stubs_created == []
    assert [(link.id, link.type) for link in result.links] == [(keiko.id, "references")]
    assert result.links[0].target_type == "Person"


def test_a_stub_linked_three_times_asks_to_be_described(service: MemoryService) -> None:
    results = [service.write("Note", title, body) for title, body in XENA_NOTES]
    stub_id = results[0].stubs_created[0].id
    assert results[0].enrich_hints == []
    assert results[1].enrich_hints == []
    hints = results[2].enrich_hints
    assert [(h.id, h.title) for h in hints] == [(stub_id, "Xena")]
    assert "3 memories" in hints[0].hint
    detail = service.get([stub_id], scopes=ALL).nodes[0]
    assert detail.enrich_hint is not None
    assert "3 memories" in detail.enrich_hint
    # An active entity linked as often gets no hint: it is described already.
    keiko = service.write("Person", "Keiko", "A colleague.").node
    for i in range(3):
        result = service.write("Note", f"Meeting {i}", f"Meeting number {i} with [[Keiko]].")
        assert result.enrich_hints == []
    assert service.get([keiko.id], scopes=ALL).nodes[0].enrich_hint is None


def test_writing_the_entity_enriches_its_stub(service: MemoryService) -> None:
    notes = [service.write("Note", title, body).node.id for title, body in XENA_NOTES]
    stub_id = service.search("Xena", scopes=ALL).results[0].id
    assert service.get([stub_id], scopes=ALL).nodes[0].node.status == "stub"

    result = service.write("Person", "Xena", "A climbing friend who works as a marine biologist.")
    assert result.outcome == "enriched"
    assert result.node.id == stub_id
    assert result.node.status == "active"
    assert result.node.type == "Person"
    assert result.node.body.startswith("A climbing friend")
    assert result.matched is not None and result.matched.id == stub_id
    assert result.degree == 3
    assert result.enrich_hints == []
    assert _edges(service, stub_id) == sorted(("references", "in", n) for n in notes)
    detail = service.get([stub_id], scopes=ALL).nodes[0]
    assert detail.enrich_hint is None
    assert service.stats(scopes=ALL).nodes_by_status == {"active": 4}
    assert stub_id in [hit.id for hit in service.search("marine biologist", scopes=ALL).results]
    # Written again, it is the same entity now.
    assert service.write("Person", "Xena").outcome == "absorbed"


def test_a_stub_written_without_a_description_stays_a_stub(service: MemoryService) -> None:
    stub_id = service.write("Note", *XENA_NOTES[0]).stubs_created[0].id
    result = service.write("Person", "Xena")
    assert result.outcome == "enriched"
    assert result.node.id == stub_id
    assert result.node.type == "Person"
    assert result.node.status == "stub"


# -- tag anchoring ----------------------------------------------------------------------------


def test_a_tag_naming_a_project_is_suggested_by_default(service: MemoryService) -> None:
    assert service.settings()["tag_anchoring"] == "suggest"
    yarrow = service.write("Project", "Yarrow", "Renovating the garden shed.").node
    by_attr = service.write("Note", "Paint", "Bought paint.", attrs={"tags": ["yarrow"]})
    by_hashtag = service.write("Note", "Hinges", "New hinges for the door #Yarrow")
    for result, tag in ((by_attr, "yarrow"), (by_hashtag, "Yarrow")):
        assert result.relations_from_tags == []
        assert result.degree == 0
        anchors = [s for s in result.suggested_relations if s.id == yarrow.id]
        assert anchors == [Relation("involves", yarrow.id, "Project", "Yarrow", f"tag #{tag}")]
        assert _edges(service, result.node.id) == []


def test_a_tag_naming_a_project_is_linked_in_auto_mode(service: MemoryService) -> None:
    yarrow = service.write("Project", "Yarrow", "Renovating the garden shed.").node
    service.change_setting("tag_anchoring", "auto")
    result = service.write("Note", "Door", "Hung the new door on the shed. #yarrow")
    assert [(r.id, r.edge_type) for r in result.relations_from_tags] == [(yarrow.id, "involves")]
    assert result.degree == 1
    assert result.orphan_warning is False
    assert result.suggested_relations == []
    detail = service.get([result.node.id], scopes=ALL).nodes[0]
    assert [(e.type, e.other_id, e.rationale) for e in detail.edges] == [
        ("involves", yarrow.id, "tag #yarrow")
    ]


def test_tags_are_ignored_when_anchoring_is_off(service: MemoryService) -> None:
    yarrow = service.write("Project", "Yarrow", "Renovating the garden shed.").node
    service.change_setting("tag_anchoring", "off")
    result = service.write("Note", "Floor", "Sanded the floor #Yarrow", attrs={"tags": ["Yarrow"]})
    assert result.relations_from_tags == []
    assert result.degree == 0
    assert not any(s.reason.startswith("tag") for s in result.suggested_relations)
    assert _edges(service, yarrow.id) == []


def test_a_tag_naming_nothing_or_an_archived_project_is_ignored(service: MemoryService) -> None:
    old = service.write("Project", "Hedge", "Trimming the hedge.").node
    service.archive(old.id, scopes=ALL)
    service.change_setting("tag_anchoring", "auto")
    result = service.write("Note", "Weekend", "Quiet weekend. #hedge #unknownthing")
    assert result.relations_from_tags == []
    assert result.degree == 0
    assert service.stats(scopes=ALL).nodes_by_status == {"active": 1, "archived": 1}


# -- status vocabulary ------------------------------------------------------------------------


def test_project_status_is_brought_into_the_vocabulary(service: MemoryService) -> None:
    cases = {
        "Kitchen remodel": ("in progress", {"status": "active"}),
        "Thesis": ("Finished", {"status": "done"}),
        "Boat repair": ("ON-HOLD", {"status": "paused"}),
        "Greenhouse": ("planned", {"status": "planned"}),
        "Pottery course": ("someday maybe", {"status_note": "someday maybe"}),
    }
    for title, (given_status, expected) in cases.items():
        node = service.write("Project", title, attrs={"status": given_status}).node
        assert node.attrs == expected, title
        assert service.get([node.id], scopes=ALL).nodes[0].node.attrs == expected


def test_an_unknown_status_word_is_kept_and_searchable(service: MemoryService) -> None:
    node = service.write("Project", "Pottery course", attrs={"status": "  someday maybe "}).node
    assert "status" not in node.attrs
    assert node.attrs["status_note"] == "someday maybe"
    hits = service.search("someday", scopes=ALL).results
    assert node.id in [hit.id for hit in hits if hit.ranks["text"] is not None]


def test_commitment_status_has_its_own_vocabulary(service: MemoryService) -> None:
    node = service.write(
        "Commitment", "Return the drill", "Give the drill back to Ben.", attrs={"status": "todo"}
    ).node
    assert node.attrs == {"status": "open"}


def test_a_link_to_a_note_by_its_title_or_alias_reaches_that_note(
    service: MemoryService, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "Ferry times.md").write_text(
        "---\naliases: [Timetable]\n---\nThe ferry leaves at 7:40.\n", encoding="utf-8"
    )
    service.ingest(IngestRequest.of([folder]))
    by_title = service.write("Note", "Trip", "Check [[ferry times]] before we go.")
    by_alias = service.write("Note", "Trip back", "The [[Timetable]] has a late boat.")
    for written in (by_title, by_alias):
        assert [(link.type, link.title) for link in written.links] == [
            ("references", "Ferry times")
        ]
        assert written.stubs_created == []
