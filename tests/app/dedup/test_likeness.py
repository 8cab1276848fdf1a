"""The gate reads what two alike memories say (``likeness``), through the real write path:
distinct events are kept and never wait for review, a pattern title does not make memories
alike, a changed value is flagged, a restatement is still caught."""

from __future__ import annotations

import random

import pytest

from cairn.app.dedup import likeness
from cairn.app.service import MemoryService
from cairn.app.text.surface import searchable_text

NAMES = ("Esther", "Yusuf", "Nadia", "Tomas", "Greta", "Farah", "Kofi", "Aiko", "Sven", "Ruth")
VERBS = ("emailed", "called", "met", "messaged", "visited")
PROJECTS = ("Juniper", "Alder", "Kestrel", "Yarrow", "Bramble")
PLACES = ("Lyon", "Warsaw", "Porto", "Leeds", "Osaka", "Bergen")


def _event(rng: random.Random) -> tuple[str, str]:
    actor, other = rng.sample(NAMES, 2)
    day = f"202{rng.randint(3, 5)}-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}"
    sentence = (
        f"{actor} {rng.choice(VERBS)} {other} on {day} with notes on project "
        f"{rng.choice(PROJECTS)} from the {rng.choice(PLACES)} workshop."
    )
    return f"Email, {day}", sentence


def test_templated_distinct_events_are_never_pending_absorbed_or_superseded(
    service: MemoryService,
) -> None:
    rng = random.Random(16)
    written = set()
    outcomes = []
    while len(outcomes) < 150:
        title, body = _event(rng)
        if body in written:
            continue
        written.add(body)
        outcomes.append(service.write("Note", title, body).outcome)
    assert "pending" not in outcomes
    assert "absorbed" not in outcomes
    statuses = service.stats(scopes=["personal"]).nodes_by_status
    assert statuses.get("superseded", 0) == 0 and statuses.get("pending", 0) == 0


def test_one_slot_that_differs_makes_a_distinct_event_joined_as_related(
    service: MemoryService,
) -> None:
    first = service.write("Event", "Tomas met Greta at the Porto office on 3 June.")
    second = service.write("Event", "Tomas met Greta at the Porto office on 17 June.")
    assert second.outcome == "inserted" and second.flags == ()
    assert second.node is not None and first.node is not None
    (detail,) = service.get([second.node.id], scopes=["personal"]).nodes
    linked = {(e.type, e.other_id) for e in detail.edges}
    if second.matched is not None:  # very alike: joined as related
        assert ("relates_to", first.node.id) in linked


def test_turns_under_a_speaker_and_date_title_are_not_alike_by_their_title(
    service: MemoryService,
) -> None:
    turns = [
        ("Ines, 3:10 pm on 4 March, 2024", "Ines: Thanks, Pavel! Appreciate your support!"),
        ("Ines, 7:45 pm on 19 March, 2024", "Ines: Thanks, Pavel! Appreciate the kind words."),
        ("Ines, 7:45 pm on 19 March, 2024", "Ines: I love baking bread, it's so calming."),
        ("Ines, 7:45 pm on 19 March, 2024", "Ines: I love painting, it's so calming."),
    ]
    outcomes = [service.write("Note", title, body).outcome for title, body in turns]
    assert outcomes == ["inserted"] * 4


def test_a_changed_value_is_flagged_and_a_restatement_is_still_caught(
    service: MemoryService,
) -> None:
    service.write("Fact", "The rent is 900 euros a month.")
    changed = service.write("Fact", "The rent is 950 euros a month.")
    assert changed.outcome == "merge_linked"
    assert changed.flags == ("possible_contradiction",)
    service.write("Note", "Ines, 3:10 pm on 4 March, 2024", "Ines: I got the job at the library!")
    again = service.write("Note", "Ines, 3:10 pm on 4 March, 2024", "Ines: I got the library job!")
    assert again.outcome in ("absorbed", "merge_linked", "pending")


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        ("Olivia called Xena about it.", "Olivia called Keiko about it.", "distinct_event"),
        ("Lena works at Acme in Leeds.", "Lena works at Globex in Leeds.", "changed_value"),
        ("We met on 3 May.", "We met on 9 May.", "distinct_event"),
        ("The rent is 900 euros.", "The rent is 950 euros.", "changed_value"),
        ("Priya's birthday is on 14 May.", "Priya's birthday is 14 May.", "same"),
        ("Mateo and I hiked on Saturday.", "On Saturday, Mateo and I hiked.", "same"),
    ],
)  # fmt: skip
def test_compare_reads_the_slots_that_differ(a: str, b: str, kind: str) -> None:
    found = likeness.compare(searchable_text(a, "", {}), searchable_text(b, "", {}))
    assert found.kind == kind, found


def test_a_title_that_only_repeats_a_pattern_is_left_out_of_the_comparison() -> None:
    a = searchable_text("Ines, 3:10 pm on 4 March, 2024", "Ines: The pottery class helps.", {})
    b = searchable_text("Pavel, 3:10 pm on 4 March, 2024", "Pavel: The pottery class helps.", {})
    left, right, dropped = likeness.content_pair(a, b)
    assert dropped and left.startswith("Ines:") and right.startswith("Pavel:")
    c = searchable_text("Pharmacy hours", "Opens at eight.", {})
    d = searchable_text("Bakery hours", "Opens at eight.", {})
    assert likeness.content_pair(c, d)[2] is False  # these titles say what each is about
    other_day = searchable_text(
        "Ines, 1:00 pm on 5 March, 2024", "Ines: The pottery class helps.", {}
    )
    assert likeness.compare(a, other_day).kind == "distinct_event"
