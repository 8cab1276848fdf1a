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
