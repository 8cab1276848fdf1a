"""The window's preferences file names this person's vaults and folders: its folder is made
0700 and the file 0600, whatever the umask, and they stay so across QSettings' rewrites."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QByteArray

from cairn.app import compose
from cairn.ui.base.preferences import Preferences


@pytest.fixture
def open_umask() -> Iterator[None]:
    old = os.umask(0)  # anything made with the default mode would be 0666 / 0777
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_preferences_are_owner_only_from_the_first_write(open_umask: None) -> None:
    path = compose.window_preferences_path()
    assert not path.parent.exists()
    preferences = Preferences()
    assert preferences.path == path
    preferences.add_recent_vault("/somewhere/vault.cairn")
    preferences.set_layout("window", QByteArray(b"geometry"))
    preferences.save_layout()  # QSettings writes a new file and renames it over the old
    assert "/somewhere/vault.cairn" in path.read_text(encoding="utf-8")
    assert _mode(path.parent) == 0o700
    assert _mode(path) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    assert Preferences().recent_vaults() == ["/somewhere/vault.cairn"]


def test_a_file_left_readable_by_an_earlier_version_is_made_private(open_umask: None) -> None:
    path = compose.window_preferences_path()
    path.parent.mkdir(mode=0o700, parents=True)
    path.write_text("[security]\nautolock_minutes=3\n", encoding="utf-8")
    path.chmod(0o644)
    preferences = Preferences()
    assert _mode(path) == 0o600
    assert preferences.autolock_minutes() == 3
    preferences.set_autolock_minutes(7)
    assert _mode(path) == 0o600
