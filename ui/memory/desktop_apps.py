"""Which program on this desktop opens a kind of file, asked before Cairn says it opened one.

Qt hands a file to the desktop's opener (``xdg-open``) and reports success once the opener
has started, whether or not any program takes the file; with no viewer for PDFs installed,
"opened" would be a claim about nothing. So the window first asks what the opener itself
asks: the applications the freedesktop.org MIME Applications specification associates with
the file's type (or a type it is a kind of: Markdown is plain text): the defaults and added
associations of the ``mimeapps.list`` files, then the applications whose desktop entries list
the type (their ``mimeinfo.cache``, or the entries themselves where a folder has none). An
application counts when its entry is shown to be usable: not hidden, and its program
installed. Reading these few small files takes milliseconds.
"""

from __future__ import annotations

import configparser
import os
import shlex
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QMimeDatabase, QMimeType

DESKTOP_ENTRY = "Desktop Entry"
FOLDER_TYPE = "inode/directory"


@dataclass(frozen=True)
class DesktopApp:
    desktop_id: str  # "org.gnome.Evince.desktop"
    name: str  # what the person knows it by: "Document Viewer"


def mime_type_of(path: Path) -> QMimeType:
    """The file's type, as the desktop's shared MIME database names it."""
    return QMimeDatabase().mimeTypeForFile(str(path))


def application_for(path: Path) -> DesktopApp | None:
    """The program the desktop opens ``path`` with (a folder: its file manager), or None."""
    if path.is_dir():
        return application_for_type(FOLDER_TYPE)
    mime = mime_type_of(path)
    for name in (mime.name(), *mime.allAncestors()):
        found = application_for_type(name)
        if found is not None:
            return found
    return None


def application_for_type(mime_type: str) -> DesktopApp | None:
    """The first usable application associated with ``mime_type``, in the order the
    specification gives: defaults, added associations, then the entries that list it."""
    removed: set[str] = set()
    for lists in _mimeapps_lists():
        removed |= set(_listed(lists, "Removed Associations", mime_type))
        for section in ("Default Applications", "Added Associations"):
            for desktop_id in _listed(lists, section, mime_type):
                app = _usable(desktop_id)
                if app is not None and desktop_id not in removed:
                    return app
    for folder in _application_dirs():
        for desktop_id in _listing(folder, mime_type):
            app = _usable(desktop_id)
            if app is not None and desktop_id not in removed:
                return app
    return None


def _config_dirs() -> list[Path]:
    home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    others = os.environ.get("XDG_CONFIG_DIRS") or "/etc/xdg"
    return [Path(home), *(Path(p) for p in others.split(":") if p)]


def _application_dirs() -> list[Path]:
    home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    others = os.environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share"
    return [Path(p) / "applications" for p in (home, *others.split(":")) if p]


def _mimeapps_lists() -> Iterator[configparser.ConfigParser]:
    """The ``mimeapps.list`` files, the person's own first."""
    for folder in (*_config_dirs(), *_application_dirs()):
        parsed = _parsed(folder / "mimeapps.list")
        if parsed is not None:
            yield parsed


def _listed(parsed: configparser.ConfigParser, section: str, mime_type: str) -> list[str]:
    if not parsed.has_option(section, mime_type):
        return []
    return [d for d in parsed.get(section, mime_type).split(";") if d]


def _listing(folder: Path, mime_type: str) -> list[str]:
    """The desktop ids a folder of applications associates with ``mime_type``."""
    cache = _parsed(folder / "mimeinfo.cache")
    if cache is not None:
        return _listed(cache, "MIME Cache", mime_type)
    found = []
    for entry in sorted(folder.glob("*.desktop")) if folder.is_dir() else []:
        parsed = _parsed(entry)
        if parsed is not None and mime_type in _entry(parsed, "MimeType").split(";"):
            found.append(entry.name)
    return found


def _usable(desktop_id: str) -> DesktopApp | None:
    """The application of ``desktop_id`` if its entry is there, shown, and its program is."""
    for folder in _application_dirs():
        parsed = _parsed(folder / desktop_id)
        if parsed is None:
            continue
        if _entry(parsed, "Hidden").lower() == "true":
            return None
        program = _entry(parsed, "TryExec") or _program(_entry(parsed, "Exec"))
        if not program or shutil.which(program) is None:
            return None
        return DesktopApp(desktop_id, _entry(parsed, "Name") or desktop_id)
    return None


def _program(exec_line: str) -> str:
    try:
        words = shlex.split(exec_line)
    except ValueError:
        return ""
    return words[0] if words else ""


def _entry(parsed: configparser.ConfigParser, key: str) -> str:
    return parsed.get(DESKTOP_ENTRY, key, fallback="").strip()


def _parsed(path: Path) -> configparser.ConfigParser | None:
    """A desktop file or list, read leniently (desktop files are not quite INI files)."""
    parser = configparser.ConfigParser(interpolation=None, strict=False, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    try:
        with path.open(encoding="utf-8", errors="replace") as lines:
            parser.read_file(lines)
    except (OSError, configparser.Error):
        return None
    return parser
