"""The entity resolver at scale: name lookups and entity writes with N entities present.

A vault of N people, organisations and places (synthetic names, unique, deterministic) is built
in bulk (``dedup=False``: the build is not what is measured), reopened, and then measured:

- ``lookup``: ``resolver.lookup`` for names as a person types them: existing names, one-letter
  typos of them, a first name alone (shared by thousands: the worst case for the gram lists),
  and names the vault does not hold. The target is <= 2 ms at 100k
  entities, and the point is that it stays flat as N grows (an index, not a scan);
- ``entity_write``: single ``MemoryService.write`` calls of new Person entities through the
  gate and resolver, each its own transaction, without the embedding time.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

from bench.embedders import RandomEmbedder, TimedEmbedder
from bench.measure import summary
from cairn.app import compose
from cairn.app.dedup import resolver

PASSPHRASE = "bench: resolver line"
CHUNK = 10_000
LOOKUPS = 400
WRITES = 100
_FIRST = (
    "Ada", "Alma", "Amir", "Anouk", "Arjun", "Bea", "Bram", "Carla", "Chen", "Dara", "Dev",
    "Elif", "Emil", "Esme", "Farah", "Felix", "Greta", "Hana", "Hugo", "Ines", "Ivo", "Jana",
    "Jonas", "Kai", "Keiko", "Lars", "Lena", "Lior", "Maya", "Milan", "Nadia", "Noor", "Olivia",
    "Omar", "Pia", "Priya", "Quinn", "Rafael", "Rosa", "Sami", "Sara", "Tomasz", "Uma", "Vera",
    "Wim", "Xena", "Yara", "Yusuf", "Zoe", "Zofia",
)  # fmt: skip
_SYLLABLES = (
    "an", "bel", "cor", "dan", "el", "fen", "gar", "hal", "in", "jor", "kas", "lem", "mar",
    "nor", "ol", "per", "quin", "ros", "sel", "tam", "ul", "ven", "wil", "xan", "yor", "zel",
    "berg", "stad", "son", "field", "ton", "wick", "ley", "more", "dale",
)  # fmt: skip
_KINDS = (("Person", 0.7), ("Organization", 0.2), ("Place", 0.1))


def names(count: int, seed: int = 7) -> list[str]:
    """``count`` unique two-part names, the same every run."""
    rng = random.Random(seed)
    found: dict[str, None] = {}
    while len(found) < count:
        last = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
        found[f"{rng.choice(_FIRST)} {last}"] = None
    return list(found)


def _kind(index: int) -> str:
    slot = (index * 7919) % 100 / 100
    for kind, share in _KINDS:
        if slot < share:
            return kind
        slot -= share
    return "Person"


def _typo(name: str, rng: random.Random) -> str:
    at = rng.randrange(1, len(name) - 1)
    return name[:at] + name[at + 1 :]  # one letter dropped


def build(path: Path, count: int) -> list[str]:
    made = names(count)
    service = compose.create_vault(path, PASSPHRASE, embedder=RandomEmbedder())
    try:
        for start in range(0, count, CHUNK):
            with service._vault.write():
                for index in range(start, min(count, start + CHUNK)):
                    service.write(_kind(index), made[index], dedup=False)
            print(f"    entities {min(count, start + CHUNK):,}/{count:,}", file=sys.stderr)
    finally:
        service.close()
    return made


def measure(path: Path, made: list[str]) -> dict[str, Any]:
    rng = random.Random(11)
    queries = (
        [rng.choice(made) for _ in range(LOOKUPS // 4)]
        + [_typo(rng.choice(made), rng) for _ in range(LOOKUPS // 4)]
        + [rng.choice(made).split()[0] for _ in range(LOOKUPS // 4)]  # a first name alone
        + [f"Unknown {rng.choice(_SYLLABLES)}{i}" for i in range(LOOKUPS // 4)]
    )
    timed = TimedEmbedder(RandomEmbedder())
    with compose.open_vault(path, PASSPHRASE, embedder=timed) as service:
        lookups: list[float] = []
        found = 0
        with service._vault.read() as conn:
            for query in queries[:20]:  # warm the page cache as a running app would have it
                resolver.lookup(conn, [query], ["personal"])
            for query in queries:
                start = time.perf_counter()
                matches = resolver.lookup(conn, [query], ["personal"])
                lookups.append(time.perf_counter() - start)
                found += bool(matches)
        writes: list[float] = []
        for i in range(WRITES):
            start = time.perf_counter()
            service.write("Person", f"{rng.choice(_FIRST)} Newcomer{i}")
            writes.append(time.perf_counter() - start - timed.last())
    return {
        "lookup": summary(lookups),
        "lookups_with_a_finding": found,
        "entity_write_without_embedding": summary(writes),
    }


def line(root: Path, count: int) -> dict[str, Any]:
    path = root / f"entities-{count}.cairn"
    start = time.perf_counter()
    made = build(path, count)
    built_s = time.perf_counter() - start
    result = {"entities": count, "build_s": round(built_s, 1), **measure(path, made)}
    for suffix in ("", "-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    return result
