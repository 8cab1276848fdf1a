"""A vault with something of everything an export must carry, made through the service as a
person would: people and aliases, notes that link, a fact revised twice (a history chain),
an archived memory, a stub, a notes folder ingested (Documents, Passages, a source row), an
inbox capture, an absorbed restatement, a merged duplicate, a watched folder, a changed
setting, the retention pass. And a second scope, ``work``, holding memories whose words must
never appear in an export of ``personal`` alone; one personal note links to one of them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService
from tests.app import ingest_files as files

BOTH = ["personal", "work"]
SECRET_TITLE = "Nightingale acquisition plan"
SECRET_BODY = "Codeword QUARTZFALCON: we buy the Nightingale shipyard in March."
SECRET_PERSON = "Ingrid Vantablack"


@dataclass(frozen=True)
class Built:
    ada: str
    engine_ltd: str
    note: str
    fact_newest: str
    fact_oldest: str
    archived: str
    secret: str
    secret_person: str
    notes_folder: Path


def build(service: MemoryService, root: Path) -> Built:
    service.add_scope("work")
    ada = service.write(
        "Person", "Ada Lovelace", "Wrote the first program.", attrs={"aliases": ["Ada King"]}
    ).id
    ltd = service.write("Organization", "Analytical Engines Ltd", "A maker of engines.").id
    service.link(ada, ltd, "works_at", scopes=["personal"])
    note = service.write(
        "Note", "Tea with Ada", "We talked about Bernoulli numbers over tea.", dedup=False
    ).id
    service.link(note, ada, "involves", scopes=["personal"], rationale="she was there")
    fact = service.write("Fact", "Ada's phone number", "Her number is 0111 222 333.").id
    middle = service.revise(fact, "Ada's phone number", "Her number is 0111 999 000.",
                            scopes=["personal"])  # fmt: skip
    newest = service.revise(middle.chain[-1].id, "Ada's phone number",
                            "Her number is 0777 123 456.", scopes=["personal"])  # fmt: skip
    archived = service.write("Note", "Old parking spot", "Level 3, bay 12.", dedup=False).id
    service.archive(archived, scopes=["personal"])
    # A restatement the gate keeps with the first as an addendum.
    service.write("Note", "Tea with Ada", "We talked about Bernoulli numbers over tea!")
    # A possible duplicate merged (an old id that still finds it), and one left for review.
    service.write("Note", "Spare key", "The spare house key is under the blue flower pot.")
    merged = service.write(
        "Note", "Hidden key", "A spare key to the house sits beneath the blue plant pot."
    )
    assert merged.verdict is not None, merged.outcome
    service.resolve_duplicate(merged.verdict, "merge", scopes=["personal"])
    service.write("Note", "Bike lock code", "The code of the bike lock is the year Ada was born.")
    waiting = service.write("Note", "Lock code", "The bike lock opens with Ada's birth year.")
    assert waiting.verdict is not None, waiting.outcome
    service.inbox_capture("Buy a new kettle before Sunday")
    kept = service.inbox_capture("Ask Ada about the loom cards")
    service.inbox_promote(kept.id, scopes=["personal"])
    folder = files.write(
        root / "notes",
        {
            "Looms.md": "# Looms\n\nJacquard looms read punched cards. See [[Engines]].\n\n"
            "## Cards\n\nEach card is a row of the pattern. [[Punched tape]] came later.\n",
            "Engines.md": "---\naliases: [Difference engine]\n---\nBabbage built them.\n",
        },
    )
    service.ingest(IngestRequest.of([folder]))
    service.watch_folder(folder)
    service.change_setting("entity_mode", "block")
    secret = service.write("Note", SECRET_TITLE, SECRET_BODY, scope="work", dedup=False).id
    person = service.write("Person", SECRET_PERSON, "Runs the deal.", scope="work").id
    service.link(secret, person, "involves", scopes=["work"])
    # A link across the two compartments: a scoped export must not say where it leads.
    service.link(note, secret, "relates_to", scopes=BOTH)
    service.run_retention()
    return Built(
        ada, ltd, note, newest.chain[-1].id, fact, archived, secret, person, folder.resolve()
    )
