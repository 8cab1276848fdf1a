"""A regular (non-editable) install must contain every module of the source tree: an editable
install resolves names from the folders and would hide a package missing from pyproject."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_wheel_holds_every_module_and_data_file(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--quiet",
            "--wheel-dir",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("cairn-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        f"cairn/{path.relative_to(ROOT).as_posix()}"
        for package in ("app", "ui", "ingest", "storage")
        for pattern in ("*.py", "*.toml")
        for path in (ROOT / package).rglob(pattern)
        if "__pycache__" not in path.parts
    }
    assert expected - names == set()
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "cairn = cairn.app.cli:main" in text
    assert "cairn-desktop = cairn.ui.main:main" in text
