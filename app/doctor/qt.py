"""The Qt platform plugins the window needs, looked at without importing Qt (``app`` never
does): ``xcb`` draws on an X11 display (and through XWayland), ``offscreen`` draws nowhere, for
the tests and screenshots. The xcb plugin loads a dozen X libraries that a minimal system may
lack; ``ldd`` lists them, and each is named with the Debian package that provides it.

In a PyInstaller bundle Qt's files are under the bundle's folder (``sys._MEIPASS``), not in a
site-packages.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cairn.app.doctor.findings import FAIL, OK, WARN, Finding

NAME = "qt plugins"
XCB = "libqxcb.so"
OFFSCREEN = "libqoffscreen.so"
LDD_TIMEOUT_S = 10.0
# Shared library -> the Debian/Ubuntu package that provides it (packaging/bootstrap installs
# the ones a minimal system lacks).
DEBIAN_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
}
# Libraries that come with Cairn itself (the PySide6 wheel, or the bundle): a reinstall.
OWN_PREFIXES = ("libQt6", "libpyside6", "libshiboken6", "libicu")


def plugins_dir() -> Path | None:
    """Qt's plugin folder: in the bundle when frozen, else the installed PySide6's."""
    if getattr(sys, "frozen", False):
        bundle = Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent))
        return bundle / "PySide6" / "Qt" / "plugins"
    # find_spec on a top-level name reads the package's location without importing it.
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "Qt" / "plugins"


def missing_libraries(plugin: Path) -> list[str] | None:
    """The shared libraries ``plugin`` needs that the loader cannot find; None if unknown."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return None
    try:
        done = subprocess.run(  # noqa: S603 - a fixed argument list, no shell
            [ldd, str(plugin)], capture_output=True, text=True, timeout=LDD_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    # "	libxcb-cursor.so.0 => not found"
    return [line.split("=>")[0].strip() for line in done.stdout.splitlines() if "not found" in line]


def display() -> str:
    names = ("WAYLAND_DISPLAY", "DISPLAY")
    shown = [f"{name}={os.environ[name]}" for name in names if os.environ.get(name)]
    return ", ".join(shown) if shown else "no display (DISPLAY, WAYLAND_DISPLAY unset)"


def check_qt_plugins() -> Finding:
    folder = plugins_dir()
    reinstall = "Reinstall Cairn (or its dependencies with `make install`)."
    if folder is None:
        return Finding(NAME, FAIL, "PySide6 (Qt for the window) is not installed", reinstall)
    platforms = folder / "platforms"
    absent = [name for name in (XCB, OFFSCREEN) if not (platforms / name).is_file()]
    if XCB in absent:
        return Finding(NAME, FAIL, f"no {XCB} in {platforms}: the window cannot open", reinstall)
    screen = display()
    missing = missing_libraries(platforms / XCB)
    if missing:
        known = sorted({DEBIAN_PACKAGES[lib] for lib in missing if lib in DEBIAN_PACKAGES})
        own = [lib for lib in missing if lib.startswith(OWN_PREFIXES)]
        other = [lib for lib in missing if lib not in DEBIAN_PACKAGES and lib not in own]
        advice = []
        if known:
            advice.append(f"sudo apt-get install {' '.join(known)}")
        if own:
            advice.append(reinstall)
        if other:
            advice.append(f"install the packages that provide {', '.join(other)}")
        return Finding(
            NAME,
            FAIL,
            f"the xcb plugin cannot load, missing: {', '.join(missing)}; {screen}",
            "; ".join(advice),
        )
    checked = "its libraries are all found" if missing is not None else "ldd missing: unchecked"
    detail = f"xcb in {platforms}, {checked}; {screen}"
    if absent:
        return Finding(
            NAME, WARN, f"{detail}; no {OFFSCREEN} (needed only without a display)", reinstall
        )
    if missing is None:
        return Finding(NAME, WARN, detail, "Install ldd (Debian/Ubuntu: libc-bin) to check.")
    return Finding(NAME, OK, detail)
