"""Machine preferences of the window: recent vaults, auto-lock, OCR languages, the Whisper
folder, the theme and text size, the last backup folder, the graph server switch, window
geometry. They belong to this computer, not to a vault (a vault's own settings, like the dedup
bands, live inside the vault and come from ``MemoryService.settings``).

Only paths, numbers, names of choices and window layout are stored here, never the text of a
memory: the file is plain. It is an INI file in the platform's config folder
(``~/.config/cairn`` on Linux; folder 0700, file 0600), found through platformdirs on every
construction rather than through QSettings' own search path, which Qt computes once per
process: that way a test that points ``XDG_CONFIG_HOME`` at a temp folder really gets a fresh
file.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from cairn.app import api
from cairn.app.api import DEFAULT_PORT
from cairn.ui.base import appearance

RECENT_VAULT_LIMIT = 8
DEFAULT_AUTOLOCK_MINUTES = 10
DEFAULT_OCR_LANGUAGES = ("eng",)


@dataclass(frozen=True)
class GraphServerChoice:
    """How the person left the graph server switch. ``vault`` is the vault it was turned on
    for: it comes back on by itself only when that vault is unlocked again, never for another
    vault that happens to be opened on this computer."""

    on: bool = False
    port: int = DEFAULT_PORT
    allow_without_token: bool = False
    vault: str | None = None


class Preferences:
    def __init__(self, path: Path | None = None) -> None:
        if path is None:
            path = api.window_preferences_path()
        self.path = path
        _make_private(path)
        self._settings = QSettings(str(path), QSettings.Format.IniFormat)

    def sync(self) -> None:
        self._settings.sync()

    # -- vaults -------------------------------------------------------------------------------

    def recent_vaults(self) -> list[str]:
        """Vaults opened or created on this machine, the most recent first."""
        value = self._settings.value("vaults/recent", [])
        if isinstance(value, str):  # QSettings hands back a one-item list as a plain string
            value = [value]
        if not isinstance(value, list):
            return []
        return [str(item) for item in value if item]

    def add_recent_vault(self, path: Path | str) -> None:
        name = str(path)
        recent = [name] + [item for item in self.recent_vaults() if item != name]
        self._settings.setValue("vaults/recent", recent[:RECENT_VAULT_LIMIT])
        self._settings.sync()

    def forget_recent_vault(self, path: Path | str) -> None:
        recent = [item for item in self.recent_vaults() if item != str(path)]
        self._settings.setValue("vaults/recent", recent)
        self._settings.sync()

    def last_vault(self) -> str | None:
        recent = self.recent_vaults()
        return recent[0] if recent else None

    # -- auto-lock ----------------------------------------------------------------------------

    def autolock_minutes(self) -> int:
        """Idle minutes before the vault locks itself; 0 means never."""
        return _int(self._settings.value("security/autolock_minutes"), DEFAULT_AUTOLOCK_MINUTES)

    def set_autolock_minutes(self, minutes: int) -> None:
        self._settings.setValue("security/autolock_minutes", max(0, int(minutes)))
        self._settings.sync()

    # -- reading files ------------------------------------------------------------------------

    def ocr_languages(self) -> list[str]:
        """Tesseract language codes for scanned pages, e.g. ``["eng", "deu"]``."""
        value = self._settings.value("ingest/ocr_languages", "+".join(DEFAULT_OCR_LANGUAGES))
        codes = [code.strip() for code in str(value).split("+") if code.strip()]
        return codes or list(DEFAULT_OCR_LANGUAGES)

    def set_ocr_languages(self, codes: list[str]) -> None:
        chosen = [code for code in codes if code] or list(DEFAULT_OCR_LANGUAGES)
        self._settings.setValue("ingest/ocr_languages", "+".join(chosen))
        self._settings.sync()

    def whisper_model_dir(self) -> str | None:
        """A Whisper model folder (CTranslate2 format) chosen instead of the bundled one."""
        value = self._settings.value("ingest/whisper_model_dir", "")
        return str(value) if value else None

    def set_whisper_model_dir(self, folder: str | None) -> None:
        self._settings.setValue("ingest/whisper_model_dir", folder or "")
        self._settings.sync()

    # -- appearance ---------------------------------------------------------------------------

    def theme(self) -> str:
        """``system``, ``light`` or ``dark`` (see ``appearance.THEMES``)."""
        value = str(self._settings.value("appearance/theme", appearance.DEFAULT_THEME))
        return value if value in appearance.THEMES else appearance.DEFAULT_THEME

    def set_theme(self, theme: str) -> None:
        self._settings.setValue("appearance/theme", theme)
        self._settings.sync()

    def font_size(self) -> str:
        """A named text size (see ``appearance.FONT_SIZES``)."""
        value = str(self._settings.value("appearance/font_size", appearance.DEFAULT_FONT_SIZE))
        return value if value in appearance.FONT_SIZES else appearance.DEFAULT_FONT_SIZE

    def set_font_size(self, size: str) -> None:
        self._settings.setValue("appearance/font_size", size)
        self._settings.sync()

    # -- backups ------------------------------------------------------------------------------

    def backup_folder(self) -> str | None:
        """The folder the last backup from the window went to (offered for the next one)."""
        value = self._settings.value("backup/folder", "")
        return str(value) if value else None

    def set_backup_folder(self, folder: str) -> None:
        self._settings.setValue("backup/folder", folder)
        self._settings.sync()

    # -- graph server -------------------------------------------------------------------------

    def graph_server(self) -> GraphServerChoice:
        value = self._settings.value
        return GraphServerChoice(
            on=_bool(value("server/on")),
            port=_int(value("server/port"), DEFAULT_PORT),
            allow_without_token=_bool(value("server/allow_without_token")),
            vault=str(value("server/vault", "")) or None,
        )

    def set_graph_server(self, choice: GraphServerChoice) -> None:
        self._settings.setValue("server/on", choice.on)
        self._settings.setValue("server/port", int(choice.port))
        self._settings.setValue("server/allow_without_token", choice.allow_without_token)
        self._settings.setValue("server/vault", choice.vault or "")
        self._settings.sync()

    # -- window layout ------------------------------------------------------------------------

    def layout(self, name: str) -> QByteArray | None:
        """A saved geometry or state blob (``window``, ``docks``, ``splitter``)."""
        value = self._settings.value(f"layout/{name}")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def set_layout(self, name: str, blob: QByteArray) -> None:
        self._settings.setValue(f"layout/{name}", blob)

    def save_layout(self) -> None:
        self._settings.sync()


def _make_private(path: Path) -> None:
    """The folder 0700 when made here, the file 0600 from the start: it names this person's
    vaults and folders. QSettings writes a new file and renames it over the old one, giving it
    the old one's mode, so a file made 0600 here stays so (a umask cannot widen it either).
    Best effort: a config folder that cannot be written to only means preferences are not kept,
    as QSettings itself would quietly do."""
    with contextlib.suppress(OSError):
        api.private_dir(path.parent)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        path.chmod(0o600)  # a file from an earlier version may have been made 0644


def _int(value: object, default: int) -> int:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return default


def _bool(value: object) -> bool:
    """An INI file hands booleans back as the strings "true" and "false"."""
    return str(value).strip().lower() in ("true", "1")
