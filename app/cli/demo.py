"""``cairn demo``: a short tour of the engine on a fresh temporary vault, filled with the sample
(the same invented world the window's "Try the sample vault" writes: ``upkeep/sample_vault``).
It searches, walks the graph, shows a fact's history, removes the sample again and checks the
vault. The vault lives in a private temporary folder removed at the end."""

from __future__ import annotations

import secrets
import tempfile
from pathlib import Path

from cairn.app import compose
from cairn.app.service import MemoryService

SEARCHES = ("who checks the bridge?", "weight limit", "engineer")


def run_demo() -> int:
    with tempfile.TemporaryDirectory(prefix="cairn-demo-") as folder:
        Path(folder).chmod(0o700)
        path = Path(folder) / "demo.cairn"
        print(f"Creating an encrypted vault at {path} ...")
        with compose.create_vault(path, secrets.token_urlsafe(16)) as service:
            _tour(service)
    print("The demo vault was removed. Create your own with `cairn init`.")
    return 0


def _tour(service: MemoryService) -> None:
    scopes = service.scopes()
    added = service.add_sample()
    for type_name, title in added.written:
        print(f"  wrote {type_name:12} {title}")
    for src, kind, dst in added.linked:
        print(f"  linked {src} -{kind}-> {dst}")
    for item in service.pending(scopes=scopes, kinds=["duplicate"]):
        if item.node is not None:
            print(f"  waiting for review: {item.node.title} ({item.reason})")
    for query in SEARCHES:
        response = service.search(query, scopes=scopes, limit=3)
        print(f'\nsearch "{query}":')
        for hit in response.results:
            print(f"  [{hit.type}] {hit.title}")
    reach = service.traverse(added.project_id, scopes=scopes, depth=2)
    print("\nwithin two links of the footbridge survey:")
    for node in reach.nodes:
        print(f"  {'  ' * (node.depth - 1)}[{node.type}] {node.title}")
    limit = service.search("footbridge load limit", scopes=scopes, limit=1).results
    if limit:
        print("\nthe load limit, oldest version first:")
        for version in service.history(limit[0].id, scopes=scopes).chain:
            print(f"  [{version.status}] {version.body}")
    print(f"\n{service.remove_sample().sentence()}")
    report = service.verify()
    print(
        f"\nverify: {'ok' if report.ok else 'PROBLEMS'}; "
        f"{report.receipts['count']} receipts in the chain"
    )
