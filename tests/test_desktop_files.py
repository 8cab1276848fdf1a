"""The files that put Cairn on a Linux desktop (packaging/): the launcher entry and the AppStream
metainfo pass their reference validators, name the same application, icon and programs as the
code, and the icon set has every size. The validators come from packaging/bootstrap."""

from __future__ import annotations

import ast
import configparser
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from defusedxml import ElementTree
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
APP_ID = "org.example.cairn"
DESKTOP = PACKAGING / f"{APP_ID}.desktop"
METAINFO = PACKAGING / f"{APP_ID}.metainfo.xml"
ICONS = PACKAGING / "icons" / "hicolor"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
INSTALL = PACKAGING / "install-desktop"


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (packaging/bootstrap installs it)")
    return path


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=60, env=env, check=False)


def _desktop_entry(path: Path = DESKTOP) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def _metainfo() -> ElementTree.Element:
    return ElementTree.parse(METAINFO).getroot()


def _pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _ui_main_constant(name: str) -> str:
    """A string constant of ui/main.py, read without importing Qt."""
    tree = ast.parse((ROOT / "ui" / "main.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
            name
        ]:
            assert isinstance(node.value, ast.Constant)
            return str(node.value.value)
    raise AssertionError(f"ui/main.py has no {name}")


def _install(data_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    return _run(str(INSTALL), *args, env=env)


def test_the_desktop_entry_passes_desktop_file_validate() -> None:
    result = _run(_tool("desktop-file-validate"), str(DESKTOP))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error:" not in result.stdout and "warning:" not in result.stdout, result.stdout


def test_the_metainfo_passes_appstreamcli_validate() -> None:
    result = _run(_tool("appstreamcli"), "validate", "--no-net", str(METAINFO))
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_installed_tree_passes_appstreamcli_validate_tree(tmp_path: Path) -> None:
    # validate-tree also checks that the metainfo's launchable exists beside it.
    appstreamcli = _tool("appstreamcli")
    installed = _install(tmp_path / "usr" / "share")
    assert installed.returncode == 0, installed.stderr
    result = _run(appstreamcli, "validate-tree", "--no-net", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "usr/share/icons/hicolor/scalable/apps" / f"{APP_ID}.svg").is_file()
    for size in PNG_SIZES:
        assert (tmp_path / f"usr/share/icons/hicolor/{size}x{size}/apps/{APP_ID}.png").is_file()


def test_install_desktop_points_the_entry_at_the_given_program(tmp_path: Path) -> None:
    program = tmp_path / "a folder" / "cairn-desktop"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(0o755)
    assert _install(tmp_path / "share", str(program)).returncode == 0
    installed = tmp_path / "share" / "applications" / f"{APP_ID}.desktop"
    entry = _desktop_entry(installed)
    assert entry["Exec"] == f'"{program}" %f'
    assert entry["TryExec"] == str(program)
    result = _run(_tool("desktop-file-validate"), str(installed))
    assert result.returncode == 0, result.stdout


def test_install_desktop_refuses_what_is_not_a_program(tmp_path: Path) -> None:
    result = _install(tmp_path / "share", str(tmp_path / "missing"))
    assert result.returncode == 1
    assert "give the path of cairn-desktop" in result.stderr
    assert not (tmp_path / "share").exists()


def test_the_files_name_one_application_and_its_icon() -> None:
    entry, metainfo = _desktop_entry(), _metainfo()
    assert metainfo.findtext("id") == APP_ID
    assert metainfo.findtext("launchable[@type='desktop-id']") == DESKTOP.name
    assert metainfo.findtext("icon[@type='stock']") == APP_ID
    assert entry["Icon"] == APP_ID
    assert entry["Name"] == metainfo.findtext("name") == _ui_main_constant("APPLICATION_NAME")
    # The running window finds its entry by these: Qt's desktop file name (Wayland app id) and
    # the X11 WM_CLASS, whose class part Qt takes from the application name.
    assert _ui_main_constant("DESKTOP_FILE_ID") == APP_ID
    assert entry["StartupWMClass"] == _ui_main_constant("APPLICATION_NAME")


def test_the_entry_and_metainfo_name_the_installed_programs() -> None:
    project = _pyproject()["project"]
    assert isinstance(project, dict)
    binaries = {b.text for b in _metainfo().iterfind("provides/binary")}
    assert binaries == set(project["scripts"])
    entry = _desktop_entry()
    assert entry["Exec"].split()[0] == entry["TryExec"] == "cairn-desktop"


def test_the_newest_release_is_the_version_of_pyproject() -> None:
    project = _pyproject()["project"]
    assert isinstance(project, dict)
    releases = _metainfo().findall("releases/release")
    assert releases, "the metainfo lists no release"
    assert releases[0].get("version") == project["version"]


def test_every_icon_size_is_there_at_its_size() -> None:
    folders = {p.name for p in ICONS.iterdir() if p.is_dir()}
    assert folders == {f"{s}x{s}" for s in PNG_SIZES} | {"scalable"}
    for size in PNG_SIZES:
        with Image.open(ICONS / f"{size}x{size}" / "apps" / f"{APP_ID}.png") as image:
            assert image.format == "PNG"
            assert image.size == (size, size)
            assert image.mode == "RGBA"
            assert image.getchannel("A").getpixel((0, 0)) == 0, "the corners are transparent"


def test_the_scalable_icon_is_a_square_svg() -> None:
    root = ElementTree.parse(ICONS / "scalable" / "apps" / f"{APP_ID}.svg").getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    _, _, width, height = root.get("viewBox", "").split()
    assert width == height
    assert root.findall("{http://www.w3.org/2000/svg}ellipse"), "the three stones are missing"
