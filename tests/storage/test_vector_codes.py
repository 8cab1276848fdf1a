"""Vectors kept as int8 codes: what a row holds, what the codes cost against float32 on real
vectors from the bundled model, and how a vault kept as float32 is converted at open."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.service import MemoryService
from cairn.storage import vector_codes, vectors
from cairn.storage.vault import Vault
from cairn.storage.vector_codes import dequantize, quantize
from tests.conftest import open_service

SENTENCES = [
    "The boiler in the cellar was serviced in March and needs a new valve next winter.",
    "Ann's birthday is on the fourth of June; she likes dark chocolate and crime novels.",
    "Our landlord raised the rent to 950 euros a month from September.",
    "The train to Lisbon leaves at 7:40 from platform 3; seats are in coach 12.",
    "The quarterly plan ships the release in May and hires two engineers.",
    "Sourdough needs flour, water, salt and a starter fed the night before.",
    "The dentist moved the check-up to Thursday afternoon at half past three.",
    "Ionospheric propagation of radio waves depends on the electron density profile.",
    "A transistor amplifier's noise figure falls as the collector current is reduced.",
    "We planted tomatoes and basil on the balcony; water them every second evening.",
    "The insurance renewal for the car is due on the first of October.",
    "Grandfather kept bees behind the orchard and sold the honey at the Saturday market.",
]


def test_a_row_is_the_codes_then_the_scale_and_decodes_to_a_unit_vector() -> None:
    rng = np.random.default_rng(3)
    vector = rng.standard_normal(384).astype(np.float32)
    vector /= np.linalg.norm(vector)
    blob = vector_codes.row_bytes(*quantize(vector))
    assert len(blob) == 384 + 4  # a quarter of float32's 1,536 bytes
    back = vector_codes.decode(blob, 384)
    assert back.dtype == np.float32 and back.shape == (384,)
    assert float(np.linalg.norm(back)) == pytest.approx(1.0, abs=1e-6)
    assert float(back @ vector) > 0.9999
    # A float32 row (an older vault's) decodes too, told apart by its length, and is coded as
    # a new row would be when the index reads it.
    wide = np.ascontiguousarray(vector, dtype="<f4").tobytes()
    assert np.array_equal(vector_codes.decode(wide, 384), vector)
    for got, want in zip(vector_codes.coded_row(wide, 384), quantize(vector), strict=True):
        assert np.array_equal(got, want)


def test_a_zero_vector_stays_zero() -> None:
    codes, scales = quantize(np.zeros((2, 8), dtype=np.float32))
    assert not codes.any() and not scales.any()
    assert not dequantize(codes, scales).any()


def test_codes_keep_the_models_cosines_and_rankings(embedder: MiniLMEmbedder) -> None:
    """On the bundled model's own vectors, a cosine through the codes is within 0.005 of the
    float32 one, and every sentence keeps its nearest neighbours in the same order."""
    floats = np.asarray(embedder.embed(SENTENCES), dtype=np.float32)
    kept = dequantize(*quantize(floats))
    exact = floats @ floats.T
    coded = floats @ kept.T  # a float32 query against the kept rows, as search does
    assert float(np.abs(exact - coded).max()) < 0.005
    for row in range(len(SENTENCES)):
        assert list(np.argsort(-exact[row])[:5]) == list(np.argsort(-coded[row])[:5])


def _as_float32_vault(service: MemoryService, vault: Vault, space: str) -> None:
    """The sentences written, then the vault's rows turned back into what a vault made before
    compact vectors holds."""
    for i, sentence in enumerate(SENTENCES):
        service.write("Note", f"Note {i}", sentence)
    with vault.write() as conn:
        rows = conn.execute("SELECT rowid, vector FROM vectors").fetchall()
        for rowid, blob in rows:
            wide = np.ascontiguousarray(vector_codes.decode(blob, 384), dtype="<f4").tobytes()
            conn.execute("UPDATE vectors SET vector = ? WHERE rowid = ?", (wide, rowid))
        conn.execute("UPDATE embedding_spaces SET encoding = 'float32' WHERE name = ?", (space,))


def test_a_float32_vault_is_converted_once_and_finds_the_same(
    service: MemoryService,
    vault: Vault,
    embedder: MiniLMEmbedder,
    vault_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    space = embedder.identity
    _as_float32_vault(service, vault, space)
    before = [
        hit.id
        for hit in service.search("radio waves in the upper air", scopes=["personal"]).results
    ]
    service.close()

    monkeypatch.setattr(vectors, "COMPACT_BATCH", 5)  # several batches, each committed
    with open_service(vault_path, embedder) as (reopened, reopened_vault):
        with reopened_vault.read() as conn:
            lengths = [row[0] for row in conn.execute("SELECT length(vector) FROM vectors")]
            encoding = vectors.space_encoding(conn, space)
        after = [
            hit.id
            for hit in reopened.search("radio waves in the upper air", scopes=["personal"]).results
        ]
    assert encoding == "int8"
    assert set(lengths) == {384 + 4} and len(lengths) >= len(SENTENCES)
    assert after[:3] == before[:3]


def test_an_interrupted_conversion_resumes(
    service: MemoryService,
    vault: Vault,
    embedder: MiniLMEmbedder,
    vault_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    space = embedder.identity
    _as_float32_vault(service, vault, space)
    monkeypatch.setattr(vectors, "COMPACT_BATCH", 5)
    with vault.write() as conn:  # one batch of five converted, then the program stopped
        last = vectors.last_vector_rowid(conn)
        vectors.compact_rows(conn, space, 384, 0, last)
    monkeypatch.undo()
    with vault.read() as conn:
        lengths = sorted(row[0] for row in conn.execute("SELECT length(vector) FROM vectors"))
        assert vectors.space_encoding(conn, space) == "float32"
    assert lengths.count(388) == 5 and lengths.count(1536) == len(lengths) - 5
    service.close()

    with open_service(vault_path, embedder) as (reopened, reopened_vault):
        assert reopened.vector_search_ready
        with reopened_vault.read() as conn:
            lengths = [row[0] for row in conn.execute("SELECT length(vector) FROM vectors")]
            count = conn.execute("SELECT count(*) FROM nodes WHERE scope = 'personal'").fetchone()
        assert set(lengths) == {388}
        assert len(reopened._space.index or ()) == len(lengths) <= count[0]
        hit = reopened.search("bees and honey", scopes=["personal"]).results[0]
        assert hit.title == "Note 11"
