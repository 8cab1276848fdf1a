"""The PyInstaller bundle of `make dist` (dist/cairn/) runs on its own.

Its two programs are started as a person would start them: from a folder outside the source
tree, with a PATH that has no virtualenv on it, and a data folder of their own. The CLI makes a
vault, keeps a memory and finds it, and ingests a text file, a scanned PDF (read by the system's
Tesseract) and a recording (Whisper): each file is read in a spawned worker, which in the bundle
is the `cairn` program started again. The window opens on Qt's offscreen platform and on X11
(a virtual screen).

Skipped by `make test`, which stays fast and never tests a stale bundle; `make dist` builds
the bundle and then runs this file with CAIRN_TEST_BUNDLE=1.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw, ImageFont

from cairn.app.cli import main
from tests.conftest import CORPUS, PROJECT_ROOT

BUNDLE = PROJECT_ROOT / "dist" / "cairn"
CAIRN = BUNDLE / "cairn"
CAIRN_DESKTOP = BUNDLE / "cairn-desktop"
PASSPHRASE = "correct horse battery staple"
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
RECORDING = CORPUS / "03_audio" / "speechbrain_asr_samples" / "spk2_snt2.wav"  # "what joy..."
TIMEOUT_S = 300

# Only `make dist` sets this, right after building: a bundle left from an older build would
# otherwise be tested against newer sources by `make test`.
needs_bundle = pytest.mark.skipif(
    not CAIRN.is_file() or os.environ.get("CAIRN_TEST_BUNDLE") != "1",
    reason="`make dist` builds the bundle in dist/cairn, then runs these",
)


def test_the_version_the_cli_prints_is_the_package_version() -> None:
    assert importlib.metadata.version("cairn") == main.VERSION


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bundle-home")


def _environment(home: Path) -> dict[str, str]:
    """The caller's environment less anything Python- or virtualenv-shaped, with private
    folders: what the bundle finds must come from the bundle or the system."""
    venv_bin = str(PROJECT_ROOT / ".venv" / "bin")
    path = [
        entry
        for entry in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
        if entry and entry != venv_bin and not entry.startswith(str(PROJECT_ROOT))
    ]
    kept = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("PYTHON", "VIRTUAL_ENV", "CAIRN_", "QT_", "XDG_", "PYTEST", "LD_"))
    }
    return {
        **kept,
        "PATH": os.pathsep.join(path),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "share"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "CAIRN_DATA_DIR": str(home / "data"),
        "CAIRN_PASSPHRASE": PASSPHRASE,
        "LANG": "C.UTF-8",
    }


def _run(
    home: Path, program: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    work = home / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run(
        [str(program), *args],
        cwd=work,
        env={**_environment(home), **(env or {})},
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _search(home: Path, query: str) -> list[dict[str, Any]]:
    response: dict[str, Any] = json.loads(_ok(_run(home, CAIRN, "search", query, "--json")))
    return list(response["results"])


@pytest.fixture(scope="module")
def vault(home: Path) -> Path:
    _ok(_run(home, CAIRN, "init"))
    path = home / "data" / "vault.cairn"
    assert path.is_file()
    return path


@needs_bundle
def test_the_bundled_cli_prints_its_version(home: Path) -> None:
    assert _ok(_run(home, CAIRN, "--version")) == f"cairn {importlib.metadata.version('cairn')}\n"


@needs_bundle
def test_the_bundled_doctor_finds_nothing_missing(home: Path, vault: Path) -> None:
    _ok(_run(home, CAIRN, "doctor"))


@needs_bundle
@pytest.mark.parametrize("callers", [None, "/opt/callers-libs"])
def test_programs_the_bundle_runs_get_the_callers_library_path(
    home: Path, tmp_path: Path, callers: str | None
) -> None:
    """The launcher puts the bundle's library folder on LD_LIBRARY_PATH; a system program such
    as tesseract must not load the bundle's libraries (packaging/pyi_rth_cairn_environment.py)."""
    spy = tmp_path / "bin" / "tesseract"  # stands in for tesseract; doctor runs it
    spy.parent.mkdir()
    seen = tmp_path / "seen"
    spy.write_text(f'#!/bin/sh\necho "${{LD_LIBRARY_PATH-unset}}" > "{seen}"\nexit 1\n')
    spy.chmod(0o755)
    env = {"PATH": f"{spy.parent}{os.pathsep}{_environment(home)['PATH']}"}
    if callers is not None:
        env["LD_LIBRARY_PATH"] = callers

    _run(home, CAIRN, "doctor", env=env)  # fails (no real tesseract): only its call matters

    assert seen.read_text().strip() == (callers or "unset")


@needs_bundle
def test_the_bundled_cli_keeps_a_memory_and_finds_it(home: Path, vault: Path) -> None:
    _ok(_run(home, CAIRN, "add", "--type", "Note", "--title", "Quince jam", "--body",
             "Grandmother's quince jam needs a vanilla pod."))  # fmt: skip
    titles = [hit["title"] for hit in _search(home, "quince vanilla")]
    assert titles[:1] == ["Quince jam"], titles


def _scanned_pdf(path: Path) -> None:
    page = Image.new("L", (1200, 400), 255)
    font = ImageFont.truetype(str(FONT), 48)
    ImageDraw.Draw(page).text((60, 150), "The lighthouse keeper feeds pelicans", font=font, fill=0)
    page.save(path, "PDF", resolution=150)


@needs_bundle
def test_the_bundled_cli_ingests_text_a_scan_and_a_recording(home: Path, vault: Path) -> None:
    folder = home / "inbox"
    folder.mkdir()
    (folder / "orchard.md").write_text("# Orchard\n\nThe medlar tree fruits in November.\n")
    _scanned_pdf(folder / "scan.pdf")
    expected = {"orchard.md": ("medlar", "medlar"), "scan.pdf": ("pelicans", "pelican")}
    if RECORDING.is_file():
        (folder / "memo.wav").write_bytes(RECORDING.read_bytes())
        expected["memo.wav"] = ("joy living", "joy")

    report = json.loads(_ok(_run(home, CAIRN, "ingest", str(folder), "--json")))

    states = {Path(f["path"]).name: (f["state"], f.get("error")) for f in report["files"]}
    assert states == {name: ("ingested", None) for name in expected}, states
    for name, (query, word) in expected.items():
        snippets = [hit["snippet"].lower() for hit in _search(home, query)]
        assert any(word in snippet for snippet in snippets), (name, snippets)


@needs_bundle
@pytest.mark.parametrize("platform", ["offscreen", "xcb"])
def test_the_bundled_window_opens_and_closes(home: Path, platform: str) -> None:
    if platform == "xcb":  # the X11 plugin and the libraries it loads, on a virtual screen
        xvfb_run = shutil.which("xvfb-run")
        if xvfb_run is None:
            pytest.skip("xvfb-run is not installed (packaging/bootstrap installs it)")
        done = _run(home, Path(xvfb_run), "-a", str(CAIRN_DESKTOP), "--smoke-test")
    else:
        done = _run(home, CAIRN_DESKTOP, "--smoke-test", env={"QT_QPA_PLATFORM": platform})
    assert _ok(done).strip().splitlines()[-1:] == ["window ok"], done.stderr


@needs_bundle
def test_the_bundle_carries_the_user_guide_where_help_looks() -> None:
    # Help finds it beside cairn/ui (ui/shell/help.py), which the bundle keeps in _internal.
    bundled = BUNDLE / "_internal" / "cairn" / "docs" / "user-guide.md"
    guide = PROJECT_ROOT / "docs" / "user-guide.md"
    assert bundled.read_text(encoding="utf-8") == guide.read_text(encoding="utf-8")


@needs_bundle
def test_the_bundle_puts_itself_in_the_application_menu(home: Path) -> None:
    _ok(_run(home, BUNDLE / "install-desktop", str(CAIRN_DESKTOP)))
    entry = home / "share" / "applications" / "org.example.cairn.desktop"
    assert f'Exec="{CAIRN_DESKTOP}" %f' in entry.read_text(encoding="utf-8")
    icon = home / "share" / "icons" / "hicolor" / "256x256" / "apps" / "org.example.cairn.png"
    assert icon.is_file()
