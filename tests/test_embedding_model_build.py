"""The install-time build of the int8 embedding model: from the upstream weights, reproducible,
really int8, and close to the fp32 model it comes from (real files, real onnxruntime)."""

from __future__ import annotations

import importlib.util
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import onnx
import pytest

from cairn.app.embedding.model import MODEL_FILE, MODEL_SHA256, MiniLMEmbedder

ROOT = Path(__file__).resolve().parents[1]
INSTALLED = ROOT / "app" / "model_files" / MODEL_FILE
SENTENCES = [
    "This is an example sentence",
    "Each sentence is converted",
    "The garden fence was painted green last spring, after the storm took the old one.",
    "Meeting with the landlord about the boiler: he agreed to replace it before November.",
]


@pytest.fixture(scope="module")
def build() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_embedding_model", ROOT / "packaging" / "build_embedding_model.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_build_and_the_program_pin_the_same_file(build: ModuleType) -> None:
    assert build.EXPECTED_SHA256 == MODEL_SHA256
    assert build._sha256(INSTALLED) == MODEL_SHA256


def test_the_installed_model_runs_int8_kernels() -> None:
    kinds = {node.op_type for node in onnx.load(str(INSTALLED)).graph.node}
    assert {"QAttention", "MatMulInteger", "DynamicQuantizeLinear"} <= kinds
    assert "Attention" not in kinds  # every attention layer is quantised


def test_building_again_gives_the_same_bytes(build: ModuleType, tmp_path: Path) -> None:
    assert build.build(tmp_path / "again.onnx") == MODEL_SHA256


def test_int8_vectors_stay_close_to_the_upstream_fp32_model(
    build: ModuleType, tmp_path: Path
) -> None:
    source = build.source_dir()
    config = __import__("json").loads((source / "config.json").read_text())
    fp32_path = tmp_path / "fp32.onnx"
    onnx.save(
        build.fused_graph(build.read_safetensors(source / "model.safetensors"), config), fp32_path
    )
    fp32 = MiniLMEmbedder(model_path=fp32_path, verify=False).embed(SENTENCES)
    # The fused fp32 graph is the upstream model: the model card's vector for its example.
    np.testing.assert_allclose(fp32[0][:3], [0.0677, 0.0635, 0.0487], atol=5e-4)
    int8 = MiniLMEmbedder().embed(SENTENCES)
    cosines = (fp32 * int8).sum(axis=1)
    assert cosines.min() > 0.98, cosines


QEMU = shutil.which("qemu-x86_64")
VECTORS = """
import sys
from cairn.app.embedding.model import MiniLMEmbedder
texts = sys.stdin.read().split("\\n")
sys.stdout.write(MiniLMEmbedder(threads=1).embed(texts).tobytes().hex())
"""


@pytest.mark.skipif(
    QEMU is None or platform.machine() != "x86_64",
    reason="needs qemu-x86_64 (packaging/bootstrap installs qemu-user) on an x86-64 machine",
)
def test_a_cpu_without_vnni_computes_the_same_vectors() -> None:
    """Laptops without VNNI run onnxruntime's AVX2 int8 kernels, whose 16-bit sums saturate
    on 8-bit weights; with 7-bit weights every CPU gives the same vector, so a vault moved to
    another computer compares like with like. The AVX2-only CPU is emulated (Haswell)."""
    texts = "\n".join(SENTENCES)

    def vectors(*prefix: str) -> np.ndarray:
        done = subprocess.run(
            [*prefix, sys.executable, "-c", VECTORS],
            input=texts,
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        )
        return np.frombuffer(bytes.fromhex(done.stdout), dtype=np.float32).reshape(
            len(SENTENCES), -1
        )

    here = vectors()
    assert QEMU is not None
    haswell = vectors(QEMU, "-cpu", "Haswell")
    np.testing.assert_allclose(haswell, here, atol=1e-6)
