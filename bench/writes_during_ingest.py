"""Writes while a long document is ingested: does a ``cairn add`` wait, or is it refused busy?

``python -m bench.writes_during_ingest [--pages 6000] [--lines 1000000] [--adds 100]``

For each long document (a text PDF of ``--pages`` pages, a WhatsApp export of ``--lines``
messages), a new vault; ``cairn ingest FILE`` runs in its own process, and another process
writes ``--adds`` notes through the service, as ``cairn add`` does, spread over the ingest's
writing (one every ``--every`` seconds once the document's first part is stored). Each add's
time is measured; its wait is that time less the median add on the same vault with nothing
else running. Prints the wait's median, p95 and max, and how many adds were refused.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PASSPHRASE = "bench passphrase for writes during an ingest"
# The words of the generated pages and messages.
WORDS = (
    "harbour", "ledger", "invoice", "repair", "quarter", "tide", "pier", "crane", "berth",
    "cargo", "manifest", "customs", "pilot", "anchor", "mooring", "dredge", "survey", "tender",
    "contract", "storm", "season", "vessel", "keel", "hull", "freight", "schedule", "ferry",
    "warehouse", "dock", "lighthouse", "beacon", "channel", "buoy", "charter",
)  # fmt: skip


def long_pdf(path: Path, pages: int, seed: int = 7) -> None:
    """A PDF with a text layer of ``pages`` pages, each with its own ~40 lines of words."""
    rng = random.Random(seed)
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b"", b"<< /Type /Font "
                            b"/Subtype /Type1 /BaseFont /Helvetica >>"]  # fmt: skip
    kids = []
    for page in range(pages):
        lines = [
            f"Page {page + 1}: " + " ".join(rng.choice(WORDS) for _ in range(10)) for _ in range(40)
        ]
        shown = " ".join(f"({line}) Tj T*" for line in lines)
        stream = f"BT /F1 10 Tf 12 TL 50 760 Td {shown} ET".encode("latin-1")
        contents = len(objects) + 2
        kids.append(len(objects) + 1)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % contents
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects[1] = (
        f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {pages} >>"
    ).encode()
    with path.open("wb") as out:
        written = out.write(b"%PDF-1.4\n")
        offsets = []
        for number, body in enumerate(objects, start=1):
            offsets.append(written)
            written += out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
        out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
        out.write(b"".join(b"%010d 00000 n \n" % o for o in offsets))
        out.write(
            b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objects) + 1, written)
        )


def long_chat(path: Path, lines: int, seed: int = 7) -> None:
    """A WhatsApp (Android) export of ``lines`` messages between three people, a minute apart."""
    rng = random.Random(seed)
    people = ("Mara Lind", "Ivo Berg", "Tess Okafor")
    with path.open("w", encoding="utf-8") as out:
        for n in range(lines):
            minute = n
            day, hour, mins = 1 + (minute // 1440) % 28, (minute // 60) % 24, minute % 60
            month, year = 1 + (minute // (1440 * 28)) % 12, 20 + minute // (1440 * 28 * 12)
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14)))
            out.write(f"{day}/{month}/{year}, {hour}:{mins:02d} - {rng.choice(people)}: {text}\n")


ADDER = """
import json, sys, time
from pathlib import Path
from cairn.app import compose
from cairn.storage.errors import VaultBusy
vault, passphrase, adds, every, started_file = sys.argv[1:6]
adds, every = int(adds), float(every)
service = compose.open_vault(Path(vault), passphrase)
idle = []
if started_file == "-":  # the idle reference: the same writes with nothing else running
    for n in range(adds):
        t = time.monotonic()
        service.write("Note", f"Idle note {n}", f"A quiet note number {n} about the orchard.")
        idle.append(time.monotonic() - t)
    print(json.dumps({"times": idle, "refused": 0}))
    sys.exit(0)
while not Path(started_file).exists():
    time.sleep(0.1)
times, refused, errors, starts = [], 0, [], []
for n in range(adds):
    t = time.monotonic()
    starts.append(time.time())
    try:
        service.write("Note", f"Side note {n}", f"Side note number {n} about the garden gate.")
        times.append(time.monotonic() - t)
    except VaultBusy as exc:
        refused += 1
        errors.append(str(exc))
    time.sleep(max(0.0, every - (time.monotonic() - t)))
service.close()
print(json.dumps({"times": times, "refused": refused, "errors": errors[:3], "starts": starts}))
"""


def _cairn(*argv: str) -> list[str]:
    return [sys.executable, "-m", "cairn.app.cli", *argv]


def _env(vault: Path) -> dict[str, str]:
    return {**os.environ, "CAIRN_VAULT": str(vault), "CAIRN_PASSPHRASE": PASSPHRASE}


def measure(folder: Path, document: Path, adds: int, every: float) -> dict[str, Any]:
    """One long document ingested with ``adds`` writes beside it; the adds' waits."""
    vault = folder / f"{document.stem}.cairn"
    env = _env(vault)
    subprocess.run(_cairn("init"), env=env, check=True, capture_output=True)
    adder = folder / "adder.py"
    adder.write_text(ADDER, encoding="utf-8")
    idle = json.loads(
        subprocess.run(
            [sys.executable, str(adder), str(vault), PASSPHRASE, "20", "0", "-"],
            env=env, check=True, capture_output=True, text=True,
        ).stdout
    )["times"]  # fmt: skip
    baseline = statistics.median(idle)
    started = folder / f"{document.stem}.started"
    began = time.monotonic()
    ingest = subprocess.Popen(
        _cairn("ingest", str(document), "--json"),
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    side = subprocess.Popen(
        [sys.executable, str(adder), str(vault), PASSPHRASE, str(adds), str(every), str(started)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    # The adds start once the document has begun to be written (its extraction first takes
    # minutes that no write waits behind): when the vault holds its Document.
    while ingest.poll() is None and not started.exists():
        if _document_started(vault, env):
            started.touch()
        time.sleep(1.0)
    started.touch()
    out, err = ingest.communicate()
    ingest_s = time.monotonic() - began
    ended = time.time()
    side_out, side_err = side.communicate()
    if side.returncode != 0:
        raise RuntimeError(side_err)
    result = json.loads(side_out)
    waits = sorted(max(0.0, t - baseline) for t in result["times"])
    report = json.loads(out) if ingest.returncode == 0 else {"error": err[-2000:]}
    files = report.get("files", [{}])
    return {
        "document": document.name,
        "ingest_s": round(ingest_s, 1),
        "passages": files[0].get("passages") if files else None,
        "adds": adds,
        "adds_while_writing": sum(1 for t in result["starts"] if t < ended),
        "refused": result["refused"],
        "refusals": result.get("errors", []),
        "idle_add_ms": round(baseline * 1000, 1),
        "wait_median_s": round(statistics.median(waits), 3) if waits else None,
        "wait_p95_s": round(waits[int(0.95 * (len(waits) - 1))], 3) if waits else None,
        "wait_max_s": round(waits[-1], 3) if waits else None,
    }


def _document_started(vault: Path, env: dict[str, str]) -> bool:
    done = subprocess.run(
        _cairn("stats", "--json"), env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return False
    return int(json.loads(done.stdout).get("nodes_by_type", {}).get("Passage", 0)) > 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=6000)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--adds", type=int, default=100)
    parser.add_argument("--every", type=float, default=1.0, help="seconds between adds")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="cairn-writes-") as tmp:
        folder = Path(tmp)
        pdf, chat = folder / "long.pdf", folder / "long-chat.txt"
        if args.pages:
            long_pdf(pdf, args.pages)
            results.append(measure(folder, pdf, args.adds, args.every))
            print(json.dumps(results[-1]), flush=True)
        if args.lines:
            long_chat(chat, args.lines)
            results.append(measure(folder, chat, args.adds, args.every))
            print(json.dumps(results[-1]), flush=True)


if __name__ == "__main__":
    main()
