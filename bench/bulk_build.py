"""Building a million-memory vault for the bench's 1M line (``bench.run --million``).

Through the real write path (``bench.build``) a million memories take a quarter of an hour on
two cores, and the node store alone still ten minutes. This writes the rows a Note's write
stores, in batches of ``CHUNK`` with one statement per table: the node, its full-text entry
(the same ``searchable_text``) and its vector (the same encoding, ``vectors.store``'s), in the
same three scopes with one memory in twenty archived as ``bench.build`` makes them. It leaves
out what a single write adds beside them (a receipt each, the retention log, link parsing):
the 1M line measures opening and searching, which read none of those.

Vectors are random unit vectors, as in the smaller scales; the vector leg does the same work on
them as on real ones.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from bench import corpus
from bench.build import ARCHIVE_EVERY, SCOPES, Built, new_vault, scope_of
from bench.embedders import RandomEmbedder
from cairn.app.clock import new_id, now_iso
from cairn.app.text.surface import searchable_text
from cairn.storage.vector_codes import quantize, row_bytes

CHUNK = 50_000


def build(path: Path, count: int, passages: list[str], seed: int = 11) -> Built:
    start = time.perf_counter()
    embedder = RandomEmbedder()
    rng = np.random.default_rng(seed)
    by_scope = dict.fromkeys(SCOPES, 0)
    archived = 0
    service = new_vault(path, embedder)
    try:
        with service._vault.read() as conn:
            first_seq = int(
                conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM nodes").fetchone()[0]
            )
        for chunk_start in range(0, count, CHUNK):
            indices = range(chunk_start, min(count, chunk_start + CHUNK))
            nodes, texts = [], []
            now = now_iso()
            for index in indices:
                title, body, tags = corpus.memory(passages, index)
                attrs = {"tags": tags} if tags else {}
                scope = scope_of(index)
                archive = index % ARCHIVE_EVERY == ARCHIVE_EVERY - 1
                seq = first_seq + index
                nodes.append(
                    (
                        seq,
                        new_id(),
                        "Note",
                        title,
                        body,
                        json.dumps(attrs),
                        "archived" if archive else "active",
                        scope,
                        now,
                        now,
                        "normal",
                    )
                )
                texts.append((seq, searchable_text(title, body, attrs)))
                by_scope[scope] += 1
                archived += archive
            floats = rng.standard_normal((len(nodes), embedder.dim), dtype=np.float32)
            codes, scales = quantize(floats / np.linalg.norm(floats, axis=1, keepdims=True))
            blobs = [
                (seq, embedder.identity, row_bytes(code, scale))
                for (seq, *_), code, scale in zip(nodes, codes, scales, strict=True)
            ]
            with service._vault.write() as conn:
                conn.executemany(
                    "INSERT INTO nodes(seq, id, type, title, body, attrs, status, scope, "
                    "recorded_at, updated_at, retention_label) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    nodes,
                )
                conn.executemany("INSERT INTO search_index(rowid, text) VALUES (?, ?)", texts)
                conn.executemany(
                    "INSERT INTO vectors(node_seq, space, vector) VALUES (?, ?, ?)", blobs
                )
            done = chunk_start + len(nodes)
            rate = done / (time.perf_counter() - start)
            print(f"    built {done:>9,}/{count:,} ({rate:,.0f}/s)", file=sys.stderr, flush=True)
    finally:
        service.close()
    return Built(path, count, archived, time.perf_counter() - start, by_scope)


if __name__ == "__main__":
    built = build(Path(sys.argv[2]), int(sys.argv[1]), corpus.load().passages)
    print(f"{built.count:,} in {built.seconds:.0f} s")
