"""``cairn demo``: a short tour of the engine on a fresh temporary vault (what ``make run`` shows
until the window exists). The vault lives in a private temporary folder removed at the end."""

from __future__ import annotations

import secrets
import tempfile
from pathlib import Path
from typing import Any

from cairn.app import compose

_MEMORIES: list[tuple[str, str, str, dict[str, Any]]] = [
    (
        "Person",
        "Mara Okafor",
        "Structural engineer; leads the bridge survey.",
        {"occupation": "structural engineer", "aliases": ["Mara"]},
    ),
    ("Organization", "Riverside Council", "The town council that owns the footbridge.", {}),
    (
        "Project",
        "Footbridge survey",
        "Inspect the old footbridge before the spring floods.",
        {"status": "active", "due": "2027-03-15"},
    ),
    (
        "Note",
        "Site visit",
        "Cracks in the north abutment; Mara wants a load test before March.",
        {"tags": ["bridge", "inspection"]},
    ),
    (
        "Fact",
        "Bridge load limit",
        "The footbridge is rated for 5 tonnes.",
        {"subject": "footbridge", "value": "5 tonnes"},
    ),
]


def run_demo() -> int:
    with tempfile.TemporaryDirectory(prefix="cairn-demo-") as folder:
        Path(folder).chmod(0o700)
        path = Path(folder) / "demo.cairn"
        print(f"Creating an encrypted vault at {path} ...")
        with compose.create_vault(path, secrets.token_urlsafe(16)) as service:
            ids = {}
            for type_name, title, body, attrs in _MEMORIES:
                result = service.write(type_name, title, body, attrs=attrs, source="demo")
                assert result.node is not None  # the demo vault is new: nothing to block
                ids[title] = result.node.id
                print(f"  wrote {type_name:12} {title}")
            for src, dst, kind in [
                ("Mara Okafor", "Riverside Council", "works_at"),
                ("Site visit", "Mara Okafor", "mentions"),
                ("Site visit", "Footbridge survey", "mentions"),
            ]:
                service.link(ids[src], ids[dst], kind, scopes=["personal"])
                print(f"  linked {src} -{kind}-> {dst}")
            for query in ("who checks the bridge?", "weight limit", "engineer"):
                response = service.search(query, scopes=["personal"], limit=3)
                print(f'\nsearch "{query}":')
                for hit in response.results:
                    print(f"  [{hit.type}] {hit.title}")
            reach = service.traverse(ids["Mara Okafor"], scopes=["personal"], depth=2)
            print("\nwithin two links of Mara Okafor:")
            for node in reach.nodes:
                print(f"  {'  ' * (node.depth - 1)}[{node.type}] {node.title}")
            report = service.verify()
            print(
                f"\nverify: {'ok' if report.ok else 'PROBLEMS'}; "
                f"{report.receipts['count']} receipts in the chain"
            )
    print("The demo vault was removed. Create your own with `cairn init`.")
    return 0
