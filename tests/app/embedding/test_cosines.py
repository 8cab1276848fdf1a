"""A query's cosine with any memory (``EmbeddingSpace.cosines``) is the one its nearest-memory
search gives that memory, so search can score the text leg's hits the way the vector leg scores
its own. Real vault, real model."""

from __future__ import annotations

from cairn.app.service import MemoryService
from cairn.storage import graph_rows
from cairn.storage.vault import Vault

ALL = ["personal"]
NOTES = [
    ("Kiln", "Cone 6 for the stoneware, with a slow cool."),
    ("Bike lock", "The code of the blue lock is 3-1-4."),
    ("Sourdough", "Feed the starter twice a day in summer."),
]


def test_cosines_are_the_ones_the_nearest_search_gives(
    service: MemoryService, vault: Vault
) -> None:
    written = [service.write("Note", title, body).node for title, body in NOTES]
    ids = [node.id for node in written if node is not None]
    with vault.read() as conn:
        seqs = [row["seq"] for row in graph_rows.nodes_by_ids(conn, ids, ALL)]
    space = service._space
    nearest = space.nearest_soon("glaze firing temperature", ALL, ["active"], 10).result()
    assert nearest is not None
    hits = dict(nearest.hits)
    assert set(seqs) <= set(hits)
    cosines = space.cosines(nearest.vector, seqs)
    assert set(cosines) == set(seqs)
    for seq in seqs:
        assert abs(cosines[seq] - hits[seq]) < 1e-5
    unknown = max(hits) + 1000  # a memory with no vector has no cosine
    assert space.cosines(nearest.vector, [unknown]) == {}
