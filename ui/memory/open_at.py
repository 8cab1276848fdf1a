"""Opening the file a memory came from at the place it came from: a PDF at its page, a
recording at its second.

Desktops have no common way to say "open at page 12", so Cairn asks the viewers it knows,
in order, for the first one installed (``plan_open``, a pure function of the source, the
locator and a PATH lookup, so a test can check the command without launching anything). When
none is installed the file goes to the application the desktop opens that kind of file with
(``desktop_apps``), and the caller shows the passage's text so the person can find the place
themselves. When no program here opens that kind of file, Cairn says so and offers to show
the file in its folder instead; it never says it opened what it did not.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from PySide6.QtCore import QProcess, QUrl
from PySide6.QtGui import QDesktopServices

from cairn.app.api import source_path
from cairn.ui.memory import desktop_apps
from cairn.ui.memory.desktop_apps import DesktopApp

Which = Callable[[str], str | None]  # shutil.which: a program's path, or None
Apps = Callable[[Path], DesktopApp | None]  # the desktop's application for a file or folder

# Each viewer's way of opening a file at a 1-based page. evince's --page-label would take the
# printed label ("iv"), which differs from the position in front matter: --page-index is the
# position, 1-based, like the pages ingest records.
PDF_VIEWERS: tuple[tuple[str, Callable[[str, int], list[str]]], ...] = (
    ("evince", lambda path, page: [f"--page-index={page}", path]),
    ("okular", lambda path, page: ["--page", str(page), path]),
    ("zathura", lambda path, page: [f"--page={page}", path]),
    ("qpdfview", lambda path, page: [f"{path}#{page}"]),
    ("mupdf", lambda path, page: [path, str(page)]),
)
# Players that start at a second (fractions are fine for both).
MEDIA_PLAYERS: tuple[tuple[str, Callable[[str, float], list[str]]], ...] = (
    ("mpv", lambda path, start: [f"--start={_seconds(start)}", path]),
    ("vlc", lambda path, start: [f"--start-time={_seconds(start)}", path]),
)
AUDIO_SUFFIXES = (".mp3", ".wav", ".m4a", ".ogg", ".oga", ".opus", ".flac", ".aac", ".wma")
VIDEO_SUFFIXES = (".mp4", ".m4v", ".mkv", ".webm", ".mov", ".avi", ".mpeg", ".mpg")
MEDIA_SUFFIXES = frozenset(AUDIO_SUFFIXES + VIDEO_SUFFIXES)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".gif", ".webp")
# What a kind of file is called when no program opens it ("No program here opens PDFs").
KIND_NAMES = {
    ".pdf": "PDFs",
    **dict.fromkeys(AUDIO_SUFFIXES, "recordings"),
    **dict.fromkeys(VIDEO_SUFFIXES, "videos"),
    **dict.fromkeys(IMAGE_SUFFIXES, "pictures"),
    **dict.fromkeys((".md", ".markdown", ".txt", ".text"), "text files"),
    **dict.fromkeys((".html", ".htm"), "web pages"),
}


@dataclass(frozen=True)
class OpenPlan:
    path: Path
    where: str  # "page 3", "1:23" or "" (the whole file)
    program: str | None  # None: the desktop's default application
    arguments: tuple[str, ...] = ()

    @property
    def at_place(self) -> bool:
        """Whether the program itself goes to the place (else the person has to look)."""
        return self.program is not None


def clock_text(seconds: float) -> str:
    """1:23, or 1:02:03 past the hour: how a player shows a time."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def is_file_source(source: str | None) -> bool:
    """Whether a memory's source names a file (ingest records absolute paths; other sources,
    like "inbox", say where a memory was captured)."""
    return bool(source) and Path(str(source)).is_absolute()


def place_text(locator: dict[str, Any] | None) -> str:
    """Where in its file a passage sits, in the words of the open button."""
    locator = locator or {}
    if isinstance(locator.get("page"), int | float):
        return f"page {int(locator['page'])}"
    if isinstance(locator.get("start_s"), int | float):
        return clock_text(float(locator["start_s"]))
    return ""


def plan_open(source: str, locator: dict[str, Any] | None, which: Which = shutil.which) -> OpenPlan:
    """How to open ``source`` at ``locator``: the first known viewer on PATH that can go to
    the page or time, else the default application."""
    path = source_path(source)
    if str(path) != source:
        # A name that is not UTF-8: a viewer's command line would get other bytes than the
        # name's, so the desktop opens the file by its URL, which carries the bytes exactly.
        return OpenPlan(path, "", None)
    locator = locator or {}
    page, start = locator.get("page"), locator.get("start_s")
    if path.suffix.lower() == ".pdf" and isinstance(page, int | float):
        found = _first_installed(PDF_VIEWERS, which)
        if found is not None:
            program, arguments = found
            return OpenPlan(
                path, f"page {int(page)}", program, tuple(arguments(str(path), int(page)))
            )
    if path.suffix.lower() in MEDIA_SUFFIXES and isinstance(start, int | float):
        found_player = _first_installed(MEDIA_PLAYERS, which)
        if found_player is not None:
            program, arguments_at = found_player
            return OpenPlan(
                path,
                clock_text(float(start)),
                program,
                tuple(arguments_at(str(path), float(start))),
            )
    return OpenPlan(path, place_text(locator), None)


def file_url(path: Path) -> QUrl:
    """A file: URL of ``path`` built from its bytes (``QUrl.fromLocalFile`` would write a name
    that is not UTF-8 as the UTF-8 of its stand-in characters, another file)."""
    return QUrl.fromEncoded(b"file://" + quote(os.fsencode(path)).encode("ascii"))


def missing_file_text(path: Path) -> str:
    return (
        f"The file {path} is no longer there: it was moved, renamed or deleted. The text Cairn "
        "kept from it is shown here; add the file again to open it from Cairn."
    )


@dataclass(frozen=True)
class Opened:
    """What came of asking to open a file: whether a program took it, the sentence to show,
    and whether to offer its folder instead (``show_in_folder``): nothing here opened it."""

    ok: bool
    message: str
    offer_folder: bool = False


def open_source(
    source: str,
    locator: dict[str, Any] | None,
    which: Which = shutil.which,
    apps: Apps = desktop_apps.application_for,
) -> Opened:
    """Open the file at its place if a viewer can, else with the desktop's application for
    its kind; when there is none, say so and offer its folder."""
    plan = plan_open(source, locator, which)
    shown = Path(source)  # the readable form: a name's odd bytes as \xNN, never surrogates
    if not plan.path.exists():
        return Opened(False, missing_file_text(shown))
    if plan.program is not None:
        started, _pid = QProcess.startDetached(plan.program, list(plan.arguments))
        if started:
            program = Path(plan.program).name
            return Opened(True, f"Opened {shown.name} at {plan.where} in {program}.")
    app = apps(plan.path)
    if app is None:
        return Opened(
            False,
            f"No program here opens {kind_name(plan.path)}; install one, or Show in folder.",
            offer_folder=True,
        )
    if not QDesktopServices.openUrl(file_url(plan.path)):
        return Opened(
            False,
            f"The desktop did not start {app.name} for {shown.name}. Show in folder, or open "
            f"it yourself: it is in {shown.parent}.",
            offer_folder=True,
        )
    if plan.where:
        return Opened(
            True,
            f"Asked {app.name} to open {shown.name}; it cannot be told where to start, so go "
            f"to {plan.where} there. The passage is shown above.",
        )
    return Opened(True, f"Asked {app.name} to open {shown.name}.")


def show_in_folder(source: str, apps: Apps = desktop_apps.application_for) -> Opened:
    """Open the folder of the file ``source`` in the desktop's file manager; when there is
    none, say where it is."""
    folder, shown = source_path(source).parent, Path(source).parent
    if not folder.is_dir():
        return Opened(False, f"The folder {shown} is no longer there.")
    manager = apps(folder)
    if manager is None:
        return Opened(False, f"No file manager here opens folders either. The file is in {shown}.")
    if not QDesktopServices.openUrl(file_url(folder)):
        return Opened(False, f"The desktop did not start {manager.name}. The file is in {shown}.")
    return Opened(True, f"Asked {manager.name} to show {shown}.")


def kind_name(path: Path) -> str:
    """What files like ``path`` are called in a sentence: "PDFs", "recordings"."""
    suffix = path.suffix.lower()
    return KIND_NAMES.get(suffix) or (f"{suffix[1:].upper()} files" if suffix else "such files")


def _first_installed(candidates: Sequence[tuple[str, Any]], which: Which) -> tuple[str, Any] | None:
    for name, arguments in candidates:
        program = which(name)
        if program:
            return program, arguments
    return None


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"
