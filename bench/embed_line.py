"""The embedding line: passages/s before and after the int8 model, in one run.

1. Passages of about 140 tokens (what the chunker makes of real notes: 110-170 tokens, cut from
   ``06_pkm``), embedded by the previous embedder (``PreviousEmbedder``: the weight-only int8
   file, batches of 32 padded) and by Cairn's (the dynamic int8 model, each text alone),
   interleaved, ``RUNS`` times; medians.
2. A whole ingest of ``06_pkm/logseq_docs`` and ``foam_docs`` into a fresh vault, in a process
   of its own (so its peak memory, summed over it and its extraction worker, is its own):
   before = the previous embedder with reading and embedding taking turns; after = today's
   pipeline. Wall seconds, passages/s, peak memory.

``python -m bench.embed_line`` runs it alone; ``bench.run`` runs it as part of ``make bench``.
Without the corpus the line is skipped with a message.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.corpus import PROJECT_ROOT
from cairn.app.ingestion.request import IngestRequest

CORPUS = PROJECT_ROOT.parent / "shared" / "corpus"
NOTES = (CORPUS / "06_pkm" / "logseq_docs", CORPUS / "06_pkm" / "foam_docs")
PASSAGES = 200
TOKENS = (110, 170)
RUNS = 3
PASSPHRASE = "bench: embedding line"
SAMPLE_SECONDS = 0.2


def passages_of_ingest_length() -> list[str]:
    """Up to ``PASSAGES`` passages the chunker cuts from the notes, 110-170 tokens each."""
    from tokenizers import Tokenizer

    from cairn.app.embedding.model import _bundled
    from cairn.ingest import textfile
    from cairn.ingest.chunking import chunk

    tokenizer_path = _bundled("minilm-tokenizer.json")
    assert tokenizer_path is not None
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    found: list[str] = []
    for path in sorted(p for folder in NOTES for p in folder.rglob("*.md")):
        document = textfile.extract(path.read_bytes(), path.name)
        for passage in chunk(document.segments):
            if TOKENS[0] <= len(tokenizer.encode(passage.text).ids) <= TOKENS[1]:
                found.append(passage.text)
    return found[:PASSAGES]


def throughput(passages: list[str]) -> dict[str, Any]:
    from bench.embedders import PreviousEmbedder
    from cairn.app.embedding.model import MiniLMEmbedder

    embedders = {"before": PreviousEmbedder(), "after": MiniLMEmbedder()}
    rates: dict[str, list[float]] = {name: [] for name in embedders}
    for embedder in embedders.values():
        embedder.embed(passages[:16])  # warm-up: a session's first runs allocate
    for _ in range(RUNS):
        for name, embedder in embedders.items():
            start = time.perf_counter()
            embedder.embed(passages)
            rates[name].append(len(passages) / (time.perf_counter() - start))
    medians = {name: statistics.median(values) for name, values in rates.items()}
    return {
        "passages": len(passages),
        "runs": RUNS,
        "per_s": {name: round(value, 1) for name, value in medians.items()},
        "runs_per_s": {name: [round(v, 1) for v in values] for name, values in rates.items()},
        "speedup": round(medians["after"] / medians["before"], 2),
    }


def agreement(passages: list[str], root: Path) -> dict[str, Any]:
    """Cosine of each model's vector of a passage to the fp32 model's (the upstream weights as
    a fused graph, built here by the install script's code): mean and minimum."""
    import numpy as np

    from bench.embedders import embedder_named

    reference = embedder_named("fp32", str(root)).embed(passages)
    found: dict[str, Any] = {}
    for name in ("previous", "int8"):
        cosines = (embedder_named(name, str(root)).embed(passages) * reference).sum(axis=1)
        found[name] = {
            "mean": round(float(np.mean(cosines)), 4),
            "min": round(float(np.min(cosines)), 4),
        }
    return found


def ingest(which: str, root: Path) -> dict[str, Any]:
    """One whole ingest of the notes in a child process; its tree's peak resident memory."""
    vault = root / f"ingest-{which}.cairn"
    command = [sys.executable, "-m", "bench.embed_line", "--child", which, str(vault)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, cwd=PROJECT_ROOT)
    peak = 0
    while child.poll() is None:
        peak = max(peak, _tree_rss(child.pid))
        time.sleep(SAMPLE_SECONDS)
    out, _ = child.communicate()
    if child.returncode != 0:
        raise RuntimeError(f"the {which} ingest failed (exit code {child.returncode})")
    result: dict[str, Any] = json.loads(out)
    result["peak_mib"] = round(peak / 2**20)
    return result


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and every process below it."""
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            with open(f"/proc/{current}/statm", "rb") as statm:
                total += int(statm.read().split()[1]) * 4096
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except (OSError, ValueError, IndexError):
            continue
        pending += [int(c) for c in children]
    return total


def _child(which: str, vault: Path) -> None:
    from bench.embedders import PreviousEmbedder
    from cairn.app import compose
    from cairn.app.embedding.model import MiniLMEmbedder
    from cairn.app.ingestion import pipeline

    before = which == "before"
    pipeline.READ_AHEAD = not before
    embedder = PreviousEmbedder() if before else MiniLMEmbedder()
    with compose.create_vault(vault, PASSPHRASE, embedder=embedder) as service:
        start = time.perf_counter()
        report = service.ingest(IngestRequest.of([str(p) for p in NOTES]))
        seconds = time.perf_counter() - start
    passages = sum(f.passages for f in report.files)
    files = sum(1 for f in report.files if f.state == "ingested")
    print(
        json.dumps(
            {
                "seconds": round(seconds, 1),
                "files": files,
                "passages": passages,
                "passages_per_s": round(passages / seconds, 1),
            }
        )
    )


def line(root: Path) -> dict[str, Any]:
    if not all(folder.is_dir() for folder in NOTES):
        message = f"skipped: the notes corpus is not at {NOTES[0].parent}"
        print(f"bench: embedding line {message}", file=sys.stderr)
        return {"skipped": message}
    print("bench: embedding line: passages of ingest length", file=sys.stderr)
    passages = passages_of_ingest_length()
    result: dict[str, Any] = {"throughput": throughput(passages)}
    result["cosine_to_fp32"] = agreement(passages, root)
    for which in ("before", "after"):
        print(f"bench: embedding line: whole ingest of the notes, {which}", file=sys.stderr)
        result[f"ingest_{which}"] = ingest(which, root)
    before, after = result["ingest_before"], result["ingest_after"]
    result["ingest_speedup"] = round(before["seconds"] / after["seconds"], 2)
    return result


def print_line(result: dict[str, Any] | None) -> None:
    if not result:
        return
    print("\nembedding line (06_pkm notes; before = previous model and pipeline, same run)")
    if "skipped" in result:
        print(f"  {result['skipped']}")
        return
    rate = result["throughput"]
    print(
        f"  ~140-token passages    before {rate['per_s']['before']:6.1f}/s   after "
        f"{rate['per_s']['after']:6.1f}/s   x{rate['speedup']:.2f}  (median of {rate['runs']}, "
        f"{rate['passages']} passages; target x3)"
    )
    cosine = result["cosine_to_fp32"]
    print(
        "  cosine to fp32 vectors  "
        + "   ".join(
            f"{name} mean {c['mean']:.4f} min {c['min']:.4f}" for name, c in cosine.items()
        )
    )
    for which in ("before", "after"):
        run = result[f"ingest_{which}"]
        print(
            f"  whole ingest, {which:6}  {run['seconds']:6.1f} s  {run['files']} files, "
            f"{run['passages']} passages, {run['passages_per_s']:.1f}/s, peak "
            f"{run['peak_mib']} MiB"
        )
    after = result["ingest_after"]
    verdict = "ok" if after["seconds"] < 60 and after["peak_mib"] < 800 else "MISSED"
    print(
        f"  end to end x{result['ingest_speedup']:.2f}; targets: under 60 s and 800 MiB: {verdict}"
    )


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--child"]:
        _child(args[1], Path(args[2]))
        return
    with tempfile.TemporaryDirectory(prefix="cairn-bench-embed-") as folder:
        result = line(Path(folder))
    print(json.dumps(result, indent=2), file=sys.stderr)
    print_line(result)


if __name__ == "__main__":
    main()
