"""How a vector is kept: int8 codes with one scale each, and its sign bits.

A unit vector of the bundled model is 384 float32 (1,536 bytes). Kept as 384 int8 codes, each
component over the vector's largest magnitude times 127, and one float32 scale (388 bytes), it
takes a quarter of the room in the file and in memory: 1M memories hold about 400 MB, not
1.5 GB. The scale is one over the codes' length, so ``codes * scale`` is a unit vector again and
a dot product with a unit query is a cosine. Rounding moves a cosine by about 1e-3; on the
Vaswani abstracts and the dev conversations the top 30 by these codes hold over 99% of the top 30
by the float32 vectors (``make bench-quality`` reports it).

The sign bits (one per dimension, SimHash) are derived, never stored: they pick the shortlist a
large index scores (see ``vector_index.VectorIndex.search``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

FloatMatrix = npt.NDArray[np.float32]
CodeMatrix = npt.NDArray[np.int8]
Coded = tuple[CodeMatrix, FloatMatrix]  # codes (n, dim) and scales (n,), as ``quantize`` gives
# How a space's rows are encoded (``embedding_spaces.encoding``): vaults before compact vectors
# kept float32; their rows are converted once, at open (``vectors.compact_rows``).
INT8 = "int8"
FLOAT32 = "float32"
_LEVELS = 127


def quantize(vectors: FloatMatrix) -> Coded:
    """Rows of float vectors as int8 codes and one float32 scale per row. (A write quantizes
    one vector: a dozen small NumPy calls, so each one counts; |x| * 127 / max|x| needs no
    clipping.)"""
    rows = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    largest = np.abs(rows).max(axis=1, keepdims=True)
    largest[largest == 0] = 1.0  # a zero vector: zero codes
    codes = np.rint(rows * (_LEVELS / largest)).astype(np.int8)
    length = np.sqrt(np.einsum("ij,ij->i", codes, codes, dtype=np.float32))
    length[length == 0] = np.inf  # ... and a zero scale
    scales: FloatMatrix = (1.0 / length).astype(np.float32)
    return codes, scales


def row_bytes(codes: CodeMatrix, scales: FloatMatrix) -> bytes:
    """The stored row of one vector: its codes (shape (dim,) or (1, dim)), then its scale as
    little-endian float32."""
    return bytes(codes.tobytes() + np.asarray(scales, dtype="<f4").reshape(-1)[:1].tobytes())


def decode(blob: bytes, dim: int) -> FloatMatrix:
    """A stored row back as a float32 vector, whichever encoding wrote it (told by length)."""
    if len(blob) == dim * 4:
        wide: FloatMatrix = np.frombuffer(blob, dtype="<f4").astype(np.float32)
        return wide
    codes, scales = split_rows(blob, dim)
    one: FloatMatrix = dequantize(codes, scales)[0]
    return one


def coded_row(blob: bytes, dim: int) -> Coded:
    """A stored row as codes and scale, whichever encoding wrote it (a float32 row is coded)."""
    if len(blob) == dim * 4:
        return quantize(np.frombuffer(blob, dtype="<f4"))
    return split_rows(blob, dim)


def split_rows(blob: bytes, dim: int) -> tuple[CodeMatrix, FloatMatrix]:
    """Concatenated int8 rows as views: the codes (n, dim) and the scales (n,)."""
    raw = np.frombuffer(blob, dtype=np.uint8).reshape(-1, dim + 4)
    codes = raw[:, :dim].view(np.int8)
    scales = np.ascontiguousarray(raw[:, dim:]).view("<f4").reshape(-1).astype(np.float32)
    return codes, scales


def dequantize(codes: CodeMatrix, scales: FloatMatrix) -> FloatMatrix:
    out: FloatMatrix = codes.astype(np.float32) * scales.reshape(-1, 1)
    return out


def sign_words(vectors: Any) -> npt.NDArray[np.uint64]:
    """Each vector's signs, one bit per dimension, packed into 64-bit words. Two vectors'
    Hamming distance over these bits estimates the angle between them (SimHash)."""
    bits = np.packbits(np.asarray(vectors) > 0, axis=1)
    pad = (-bits.shape[1]) % 8
    if pad:
        bits = np.pad(bits, ((0, 0), (0, pad)))
    return np.ascontiguousarray(bits).view(np.uint64)


def hamming(signs: npt.NDArray[np.uint64], mine: npt.NDArray[np.uint64]) -> Any:
    """Every row's Hamming distance from ``mine``, one contiguous column of words at a time:
    two small arrays reused, where XOR-ing the whole matrix at once allocates two copies of
    it (at 100k, 2 ms of the vector leg's 5)."""
    rows, words = signs.shape
    distance = np.zeros(rows, dtype=np.uint16)  # up to 65,535 bits: any model's dimensions
    scratch = np.empty(rows, dtype=np.uint64)
    counts = np.empty(rows, dtype=np.uint8)
    for word in range(words):
        np.bitwise_xor(signs[:, word], mine[word], out=scratch)
        distance += np.bitwise_count(scratch, out=counts)
    return distance
