"""``python -m bench.closeness``: when does a search have nothing close to offer?

``SearchResponse.nothing_close`` is set when no memory is near the query in meaning (its best
cosine is under ``retrieval.search.CLOSE_COSINE``) and no text hit holds all the query's words.
This measures that rule on material nobody here wrote, at several floors:

- on topic: the 93 Vaswani queries on the Vaswani abstracts, each Logseq page's title asked
  of a vault of the Logseq and Foam documentation (a page answers its own title), and the
  questions of the first LoCoMo conversation asked of its turns (written one memory per turn,
  as the corpus README says);
- off topic: the same queries asked of another vault (physics of the 1960s in notes about
  note-taking software, note titles and a chat's questions in the physics);
- nonsense: strings of random letters, on both.

A floor is good when it almost never says "nothing close" on topic and mostly does off topic.
Prints a table; without the corpus, says so and measures nothing.
"""

from __future__ import annotations

import argparse
import random
import string
import tempfile
from pathlib import Path

from bench import locomo
from bench.build import PASSPHRASE
from bench.corpus import VASWANI
from bench.quality import build_vault, load_collection
from cairn.app import compose
from cairn.app.api import IngestRequest
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.retrieval import search as retrieval
from cairn.app.service import MemoryService

NOTES = VASWANI.parents[1] / "06_pkm"
FLOORS = (0.20, 0.25, 0.30, 0.35, 0.40)
NONSENSE = 50


def _nonsense(seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    return [
        " ".join(
            "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 9)))
            for _ in range(rng.randint(1, 3))
        )
        for _ in range(NONSENSE)
    ]


def _page_titles() -> list[str]:
    pages = sorted((NOTES / "logseq_docs" / "pages").glob("*.md"))
    return [p.stem.replace("___", " ").replace("-", " ") for p in pages]


def _share_far(service: MemoryService, queries: list[str], floor: float) -> float:
    retrieval.CLOSE_COSINE = floor  # the bench's own run: the rule at this floor
    far = sum(service.search(q, scopes=service.scopes()).nothing_close for q in queries)
    return far / len(queries)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=0, help="abstracts to load (0: all)")
    args = parser.parse_args(argv)
    collection = load_collection(VASWANI)
    if collection is None or not NOTES.is_dir():
        print("bench-closeness: the corpus is not here; nothing measured.")
        return
    conversations = locomo.load()
    if conversations is None:
        print("bench-closeness: the LoCoMo conversations are not here; nothing measured.")
        return
    chat = conversations[0]
    asked = [question.text for question in chat.questions]
    physics = [query for _, query in collection.queries]
    titles = _page_titles()
    nonsense = _nonsense()
    embedder = MiniLMEmbedder()
    with tempfile.TemporaryDirectory(prefix="cairn-closeness-") as folder:
        made = Path(folder)
        build_vault(made / "physics.cairn", collection.docs[: args.docs or None], embedder)
        with compose.create_vault(made / "notes.cairn", PASSPHRASE, embedder=embedder) as notes:
            notes.ingest(IngestRequest.of([NOTES / "logseq_docs", NOTES / "foam_docs"]))
        with compose.create_vault(made / "chat.cairn", PASSPHRASE, embedder=embedder) as talk:
            for turn in chat.turns:
                talk.write("Note", turn.title, turn.body)
        vaults = {
            name: compose.open_vault(made / f"{name}.cairn", PASSPHRASE, embedder=embedder)
            for name in ("physics", "notes", "chat")
        }
        asks = {
            "on topic: physics": ("physics", physics),
            "titles": ("notes", titles),
            "chat": ("chat", asked),
            "off topic: physics": ("notes", physics),
            "titles ": ("physics", titles),
            "chat ": ("physics", asked),
            "nonsense": ("notes", nonsense),
            "nonsense ": ("physics", nonsense),
        }
        try:
            rows = [
                (floor, [_share_far(vaults[v], queries, floor) for v, queries in asks.values()])
                for floor in FLOORS
            ]
        finally:
            for service in vaults.values():
                service.close()
    print(
        f"Share of queries told 'nothing close', by floor: {len(physics)} physics queries, "
        f"{len(titles)} page titles, {len(asked)} questions of {chat.sample_id}, "
        f"{NONSENSE} nonsense strings (asked of the notes, then of the physics)"
    )
    print("floor | " + " | ".join(asks))
    for floor, shares in rows:
        cells = " | ".join(
            f"{share:>{len(name)}.0%}" for name, share in zip(asks, shares, strict=True)
        )
        print(f"{floor:.2f}  | {cells}")


if __name__ == "__main__":
    main()
