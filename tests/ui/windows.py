"""A real window on a vault it creates, as a person would: through the unlock screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cairn.ui.base.preferences import Preferences
from cairn.ui.shell.main_window import MainWindow

PASSPHRASE = "a long and private passphrase for the test"


def new_vault_window(qtbot: Any, folder: Path) -> MainWindow:
    """The window, shown, with a new vault ``folder/mine.cairn`` created and unlocked."""
    window = MainWindow(preferences=Preferences())
    qtbot.addWidget(window)
    window.show()
    unlock = window.unlock_screen
    unlock.show_create()
    unlock.location.setText(str(folder / "mine.cairn"))
    unlock.new_passphrase.first.setText(PASSPHRASE)
    unlock.new_passphrase.second.setText(PASSPHRASE)
    with qtbot.waitSignal(window.session.unlocked, timeout=60_000):
        unlock.create_button.click()
    return window
