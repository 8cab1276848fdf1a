"""A regular (non-editable) install must contain every module and data file of the source tree
and work on its own: an editable install resolves names from the folders and would hide a
package missing from pyproject."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("app", "ui", "ingest", "storage")
# Shipped beside the packages: the user guide the window's Help › User Guide shows.
GUIDE = "docs/user-guide.md"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Built from a copy, so the build leaves nothing in the source tree.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "docs", *PACKAGES):
        original = ROOT / name
        if original.is_dir():
            shutil.copytree(original, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(original, source / name)
    out = tmp_path_factory.mktemp("wheel")
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
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("cairn-*.whl")
    return built


def test_the_wheel_holds_every_module_and_data_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        f"cairn/{path.relative_to(ROOT).as_posix()}"
        for package in PACKAGES
        for pattern in ("*.py", "*.toml", "*.json", "*.html", "*.js", "*.css")
        for path in (ROOT / package).rglob(pattern)
        if "__pycache__" not in path.parts
    }
    assert expected - names == set()
    assert f"cairn/{GUIDE}" in names
    assert not any(n.startswith("cairn/docs/") and n != f"cairn/{GUIDE}" for n in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "cairn = cairn.app.cli.main:main" in text
    assert "cairn-desktop = cairn.ui.main:main" in text


def test_the_installed_wheel_runs_without_the_source_tree(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--quiet",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    # -S: no site processing, so the editable install's import hook is not loaded; the
    # dependencies come from this environment's site-packages, Cairn only from the wheel.
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(target), sysconfig.get_paths()["purelib"]]),
    }
    code = (
        "import cairn.app, sys; from cairn.app.cli.main import main; "
        "print(cairn.app.__file__, file=sys.stderr); sys.exit(main(['demo']))"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().startswith(str(target))
    assert "verify: ok" in done.stdout

    # The window's Help › User Guide finds the guide in the installed package.
    code = (
        "from cairn.ui.shell.help import guide_path, read_guide; "
        "print(guide_path()); print(read_guide().splitlines()[0])"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    where, first_line = done.stdout.splitlines()
    assert where == str(target / "cairn" / GUIDE)
    assert first_line == (ROOT / GUIDE).read_text(encoding="utf-8").splitlines()[0]
