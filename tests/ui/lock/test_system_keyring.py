"""The passphrase remembered in a real Secret Service (GNOME Keyring on a private D-Bus bus),
not the in-process stand-in: what the window stores is really in the keyring, is read back,
and is really gone once forgotten."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from cairn.ui.base.preferences import Preferences
from cairn.ui.base.session import Session
from cairn.ui.lock import saved_passphrase
from cairn.ui.lock.unlock import UnlockScreen
from tests.conftest import PASSPHRASE
from tests.ui.lock import system_keyring

OPEN_TIMEOUT_MS = 30_000
KEYRING_TIMEOUT_MS = 10_000


@pytest.fixture
def secret_service(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[system_keyring.SystemKeyring]:
    missing = system_keyring.missing_programs()
    if missing:
        pytest.skip(
            f"{' and '.join(missing)} not installed (packaging/bootstrap installs them), "
            "so no real Secret Service can run for this test"
        )
    # A short folder of its own: a D-Bus socket path must stay under about 100 characters.
    with system_keyring.installed(tmp_path_factory.mktemp("keyring")) as running:
        yield running


def _entries(
    keyring: system_keyring.SystemKeyring, vault: Path
) -> list[system_keyring.StoredSecret]:
    return keyring.stored(service="cairn", username=str(vault.resolve()))


def test_remember_recall_and_forget_go_through_the_secret_service(
    secret_service: system_keyring.SystemKeyring, tmp_path: Path
) -> None:
    mine, other = tmp_path / "mine.cairn", tmp_path / "other.cairn"
    assert saved_passphrase.unavailable_reason() is None
    assert saved_passphrase.recall(mine) is None

    saved_passphrase.remember(mine, PASSPHRASE)
    saved_passphrase.remember(other, "another passphrase entirely")
    [entry] = _entries(secret_service, mine)
    assert entry.secret == PASSPHRASE
    # What a keyring manager shows (label, attributes) names the vault, never the passphrase.
    assert str(mine.resolve()) in entry.label
    for shown in (entry.label, *entry.attributes.values()):
        assert PASSPHRASE not in shown
    assert saved_passphrase.recall(mine) == PASSPHRASE
    assert saved_passphrase.recall(other) == "another passphrase entirely"

    saved_passphrase.remember(mine, PASSPHRASE + " changed")  # replaces, never duplicates
    assert [e.secret for e in _entries(secret_service, mine)] == [PASSPHRASE + " changed"]

    saved_passphrase.forget(mine)
    assert _entries(secret_service, mine) == []
    assert secret_service.stored(service="cairn") == _entries(secret_service, other)
    assert saved_passphrase.recall(mine) is None
    saved_passphrase.forget(mine)  # nothing left to forget: not an error


def test_the_unlock_screen_remembers_fills_in_and_forgets(
    qtbot, secret_service: system_keyring.SystemKeyring, tmp_path: Path
) -> None:
    session = Session()
    screen = UnlockScreen(session, Preferences(tmp_path / "prefs.ini"))
    qtbot.addWidget(screen)
    problems: list[str] = []
    screen.message.connect(problems.append)
    try:
        assert screen.remember_create.isEnabled()
        screen.remember_create.setChecked(True)
        qtbot.keyClicks(screen.new_passphrase.first, PASSPHRASE)
        qtbot.keyClicks(screen.new_passphrase.second, PASSPHRASE)
        with qtbot.waitSignal(session.unlocked, timeout=OPEN_TIMEOUT_MS):
            qtbot.mouseClick(screen.create_button, Qt.MouseButton.LeftButton)
        vault = session.path
        assert vault is not None
        qtbot.waitUntil(lambda: bool(_entries(secret_service, vault)), timeout=KEYRING_TIMEOUT_MS)
        assert [e.secret for e in _entries(secret_service, vault)] == [PASSPHRASE]

        # Next time: filled in from the keyring, nothing typed.
        session.lock()
        screen.show_open(vault)
        qtbot.waitUntil(lambda: screen.passphrase.text() == PASSPHRASE, timeout=KEYRING_TIMEOUT_MS)
        assert screen.remember_open.isChecked()

        # Unlocking with the box unticked forgets it, in the Secret Service itself.
        screen.remember_open.setChecked(False)
        with qtbot.waitSignal(session.unlocked, timeout=OPEN_TIMEOUT_MS):
            qtbot.mouseClick(screen.unlock_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not _entries(secret_service, vault), timeout=KEYRING_TIMEOUT_MS)
        assert secret_service.stored(service="cairn") == []
        assert saved_passphrase.recall(vault) is None
        assert problems == []
    finally:
        session.lock()
