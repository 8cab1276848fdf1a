"""The layering of DESIGN §1, pinned: ui -> app -> {storage, ingest}; only ui imports Qt; only
storage imports the SQLite driver."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("app", "ui", "ingest", "storage")
# What each package may import from the project.
ALLOWED = {
    "storage": {"storage"},
    "ingest": {"ingest", "storage"},  # storage.errors holds the root of the error tree
    "app": {"app", "storage", "ingest"},
    "ui": {"ui", "app"},
}
DRIVERS = {"sqlcipher3", "sqlite3", "pysqlcipher3", "apsw"}
QT = {"PySide6", "PyQt5", "PyQt6", "shiboken6"}


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", PACKAGES)
def test_layering(package: str) -> None:
    for path in _modules(package):
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] == "cairn" and len(parts) > 1:
                assert parts[1] in ALLOWED[package], f"{path} imports {name}"
            if parts[0] in DRIVERS:
                assert package == "storage", f"{path} imports the SQLite driver {name}"
            if parts[0] in QT:
                assert package == "ui", f"{path} imports Qt ({name})"


def test_ingest_never_touches_the_vault() -> None:
    for path in _modules("ingest"):
        for name in _imports(path):
            assert not name.startswith("cairn.storage") or name == "cairn.storage.errors", path


# The rooms of app/ (docs/architecture.md): the core is the modules at its top and the rooms it
# owns; doctor and server serve the faces; the door (api.py) is what the window and the CLI use; cli
# is the top. An import may go to the same rank or lower, never higher, and never sideways into
# another room of a rank above the core.
APP = ROOT / "app"
RANKS = {
    "core": 0,
    "text": 0,
    "embedding": 0,
    "linking": 0,
    "writing": 0,
    "dedup": 0,
    "retrieval": 0,
    "answering": 0,
    "retention": 0,
    "upkeep": 0,
    "process": 0,
    "ingestion": 0,
    "graphview": 0,
    "portability": 0,
    "doctor": 1,
    "server": 1,
    "door": 2,  # app/api.py: what the window and the CLI may use
    "cli": 3,
}


def app_module(path: Path) -> str:
    parts = path.relative_to(APP).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("cairn", "app", *parts))


def app_imports() -> dict[str, set[str]]:
    """Each module of cairn.app -> the modules of cairn.app it imports, wherever in the file
    (a function's or a type checker's import is an import too)."""
    paths = {app_module(path): path for path in APP.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name in paths)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    targets.add(full if full in paths else node.module)
        graph[name] = {t for t in targets if t in paths and t != name}
    return graph


def room(module: str) -> str:
    if module == "cairn.app.api":
        return "door"
    parts = module.split(".")
    return parts[2] if len(parts) > 3 else "core"


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_loop() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_loop_in_app() -> None:
    assert cycles(app_imports()) == []


def test_every_room_of_app_has_a_rank() -> None:
    rooms = {room(module) for module in app_imports()}
    assert rooms <= set(RANKS), f"add {rooms - set(RANKS)} to RANKS and to docs/architecture.md"


def test_imports_never_go_up_or_sideways_between_faces() -> None:
    upward = []
    for module, targets in app_imports().items():
        here = room(module)
        for target in targets:
            there = room(target)
            climbs = RANKS[there] > RANKS[here]
            sideways = there != here and RANKS[there] == RANKS[here] > 0
            if climbs or sideways:
                upward.append(f"{module} imports {target}")
    assert upward == []


def test_faces_reach_the_service_only_through_its_methods() -> None:
    faces = [*(ROOT / "ui").rglob("*.py"), *(APP / "cli").rglob("*.py")]
    faces += [*(APP / "server").rglob("*.py")]
    reached = []
    for path in faces:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Attribute) or not node.attr.startswith("_"):
                continue
            if node.attr.startswith("__"):
                continue
            owner = node.value
            name = getattr(owner, "id", None) or getattr(owner, "attr", "")
            if "service" in name.lower():
                reached.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}.{node.attr}")
    assert reached == []


def reach(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_the_read_path_never_loads_the_write_path() -> None:
    """Search and reading share helpers with the write gate only through neutral rooms (text,
    embedding, linking.stubs), so a read can never take part in a write by accident."""
    graph = app_imports()
    reads = [module for module in graph if room(module) == "retrieval"]
    assert reads, "app/retrieval/ is empty: the room moved, move this test with it"
    crossing = [
        f"{module} reaches {target}"
        for module in reads
        for target in sorted(reach(graph, module))
        if room(target) in {"writing", "dedup", "ingestion"}
    ]
    assert crossing == []


def test_the_reach_finder_follows_chains() -> None:
    assert reach({"a": {"b"}, "b": {"c"}, "c": set()}, "a") == {"b", "c"}


def test_the_window_comes_in_through_one_door() -> None:
    """ui/ imports the engine only from ``cairn.app.api``: what a face relies on is one list."""
    strays = []
    for path in (ROOT / "ui").rglob("*.py"):
        for name in _imports(path):
            if name.startswith("cairn.app") and name not in {"cairn.app", "cairn.app.api"}:
                strays.append(f"{path.relative_to(ROOT)} imports {name}")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "cairn.app":
                names = {alias.name for alias in node.names}
                if names != {"api"}:
                    strays.append(f"{path.relative_to(ROOT)} imports {names} from cairn.app")
    assert strays == []
