"""The unlock screen: creating a vault, opening it, a wrong passphrase, strength feedback, the
recent vaults, and the keyring option (disabled here: this machine has no keyring)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.ui.base.preferences import Preferences
from cairn.ui.base.session import Session
from cairn.ui.lock import saved_passphrase
from cairn.ui.lock.passphrase import Strength, estimate
from cairn.ui.lock.unlock import DOES_NOT_OPEN, UnlockScreen
from cairn.ui.shell.main_window import MainWindow
from tests.conftest import PASSPHRASE
from tests.ui.lock import fake_keyring

OPEN_TIMEOUT_MS = 30_000


@pytest.fixture
def screen(qtbot, tmp_path: Path) -> Iterator[UnlockScreen]:
    session = Session()
    widget = UnlockScreen(session, Preferences(tmp_path / "prefs.ini"))
    qtbot.addWidget(widget)
    yield widget
    session.lock()


def _type_new_passphrase(qtbot, screen: UnlockScreen, first: str, second: str) -> None:
    qtbot.keyClicks(screen.new_passphrase.first, first)
    qtbot.keyClicks(screen.new_passphrase.second, second)


def test_first_run_offers_to_create_a_vault_in_the_data_folder(screen: UnlockScreen) -> None:
    assert screen.pages.currentIndex() == 1
    assert Path(screen.location.text()) == compose.Config.from_environment().default_vault


def test_create_a_vault_then_it_is_listed_as_recent(qtbot, screen: UnlockScreen) -> None:
    _type_new_passphrase(qtbot, screen, PASSPHRASE, PASSPHRASE)
    with qtbot.waitSignal(screen.session.unlocked, timeout=OPEN_TIMEOUT_MS):
        qtbot.mouseClick(screen.create_button, Qt.MouseButton.LeftButton)
    assert not screen.busy and screen.busy_bar.isHidden()
    vault = compose.Config.from_environment().default_vault
    assert vault.exists()
    assert screen.session.path == vault
    assert screen.preferences.recent_vaults() == [str(vault)]
    # The passphrase does not stay in the fields once the vault is open.
    assert screen.new_passphrase.first.text() == ""
    assert screen.new_passphrase.second.text() == ""
    assert (vault.parent.stat().st_mode & 0o777) == 0o700


def _said_differ(screen: UnlockScreen) -> list[str]:
    """The texts on screen that say the two passphrases differ."""
    return [
        label.text()
        for label in screen.findChildren(QLabel)
        if label.isVisibleTo(screen) and "differ" in label.text()
    ]


def test_mismatched_passphrases_are_refused_and_said_once(qtbot, screen: UnlockScreen) -> None:
    screen.show()
    qtbot.waitExposed(screen)
    _type_new_passphrase(qtbot, screen, PASSPHRASE, PASSPHRASE + "x")
    assert "differ" in screen.new_passphrase.strength_label.text()
    repeat = screen.new_passphrase.second
    assert "differ" in repeat.accessibleDescription()
    screen.new_passphrase.first.setFocus()
    qtbot.mouseClick(screen.create_button, Qt.MouseButton.LeftButton)
    assert len(_said_differ(screen)) == 1  # under the fields, not again by the button
    qtbot.waitUntil(repeat.hasFocus)  # where it is to be put right
    assert not screen.busy
    assert not Path(screen.location.text()).exists()


def test_a_repeat_left_empty_is_said_by_the_button(qtbot, screen: UnlockScreen) -> None:
    qtbot.keyClicks(screen.new_passphrase.first, PASSPHRASE)
    qtbot.mouseClick(screen.create_button, Qt.MouseButton.LeftButton)
    assert "differ" in screen.create_notice.text()
    assert "differ" not in screen.new_passphrase.strength_label.text()


def test_an_empty_passphrase_is_refused(qtbot, screen: UnlockScreen) -> None:
    qtbot.mouseClick(screen.create_button, Qt.MouseButton.LeftButton)
    assert screen.create_notice.text() == "Type a passphrase."
    assert not screen.busy


def test_a_weak_passphrase_needs_a_second_thought(qtbot, screen: UnlockScreen) -> None:
    _type_new_passphrase(qtbot, screen, "sunshine", "sunshine")
    assert screen.new_passphrase.strength() is Strength.WEAK
    assert screen.new_passphrase.accept_weak.isVisibleTo(screen)
    qtbot.mouseClick(screen.create_button, Qt.MouseButton.LeftButton)
    assert "weak" in screen.create_notice.text()
    assert not screen.busy
    screen.new_passphrase.accept_weak.setChecked(True)
    assert screen.new_passphrase.problem() is None


def test_strength_feedback_follows_the_typing(qtbot, screen: UnlockScreen) -> None:
    fields = screen.new_passphrase
    seen = []
    for chunk in ("ab", "cdefgh", "Ij9!", " river lantern"):
        qtbot.keyClicks(fields.first, chunk)
        seen.append((fields.meter.value(), fields.strength_label.text().split(".")[0]))
    assert seen[0] == (Strength.WEAK.value, "Weak")
    assert seen[-1] == (Strength.STRONG.value, "Strong")
    assert [value for value, _ in seen] == sorted(value for value, _ in seen)


def test_the_estimate_is_simple_and_documented() -> None:
    assert estimate("").strength is Strength.NONE
    assert estimate("password1").strength is Strength.WEAK  # a notorious one
    assert estimate("Ab1!").strength is Strength.WEAK  # under eight characters
    assert estimate("a" * 30).strength is Strength.WEAK  # long, but one letter
    assert estimate("lantern river").strength is Strength.FAIR
    assert estimate(PASSPHRASE).strength is Strength.STRONG


def test_wrong_passphrase_says_so_and_allows_a_retry(
    qtbot, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    vault = tmp_path / "mine.cairn"
    compose.create_vault(vault, PASSPHRASE, embedder=embedder).close()
    preferences = Preferences(tmp_path / "prefs.ini")
    preferences.add_recent_vault(vault)
    session = Session()
    screen = UnlockScreen(session, preferences)
    qtbot.addWidget(screen)
    screen.show()
    assert screen.pages.currentIndex() == 0
    assert screen.selected_vault() == vault

    qtbot.keyClicks(screen.passphrase, "not the passphrase")
    with qtbot.waitSignal(session.wrong_passphrase, timeout=OPEN_TIMEOUT_MS) as refused:
        qtbot.keyClick(screen.passphrase, Qt.Key.Key_Return)
    # First, plainly, what a typo needs; the vault's longer explanation only behind More….
    assert screen.open_notice.text() == DOES_NOT_OPEN
    assert screen.more_button.isVisible() and not screen.explanation.isVisible()
    assert "Wrong passphrase for" in refused.args[0]
    assert screen.pages.isEnabled() and not screen.busy
    assert screen.passphrase.selectedText() == "not the passphrase"  # typed over at once
    qtbot.mouseClick(screen.more_button, Qt.MouseButton.LeftButton)
    assert screen.explanation.isVisible() and screen.explanation.text() == refused.args[0]
    assert not screen.more_button.isVisible()

    qtbot.keyClicks(screen.passphrase, "still not it")  # typing again: the notice goes
    assert not screen.open_notice.isVisible() and not screen.explanation.isVisible()
    with qtbot.waitSignal(session.wrong_passphrase, timeout=OPEN_TIMEOUT_MS):
        qtbot.keyClick(screen.passphrase, Qt.Key.Key_Return)
    # The second time in a row, the explanation shows without asking.
    assert screen.open_notice.text() == DOES_NOT_OPEN
    assert screen.explanation.isVisible() and not screen.more_button.isVisible()
    assert "not a Cairn vault" in screen.explanation.text()

    qtbot.keyClicks(screen.passphrase, PASSPHRASE)
    with qtbot.waitSignal(session.unlocked, timeout=OPEN_TIMEOUT_MS):
        qtbot.mouseClick(screen.unlock_button, Qt.MouseButton.LeftButton)
    assert session.is_open and session.path == vault
    assert screen.passphrase.text() == ""
    assert not screen.open_notice.isVisible() and not screen.explanation.isVisible()
    session.lock()


def test_in_the_window_a_typo_after_a_lock_is_said_plainly(qtbot, window: MainWindow) -> None:
    screen = window.unlock_screen
    with qtbot.waitSignal(window.session.locked):
        window.lock()
    assert screen.isVisible() and screen.selected_vault() == window.session.path
    qtbot.keyClicks(screen.passphrase, PASSPHRASE.upper())  # Caps Lock was on
    with qtbot.waitSignal(window.session.wrong_passphrase, timeout=OPEN_TIMEOUT_MS):
        qtbot.keyClick(screen.passphrase, Qt.Key.Key_Return)
    assert screen.open_notice.isVisible() and screen.open_notice.text() == DOES_NOT_OPEN
    assert screen.more_button.isVisible() and screen.more_button.accessibleName()
    assert window.stack.currentWidget() is screen and not window.session.is_open
    screen.passphrase.setText(PASSPHRASE)
    with qtbot.waitSignal(window.session.unlocked, timeout=OPEN_TIMEOUT_MS):
        qtbot.keyClick(screen.passphrase, Qt.Key.Key_Return)
    assert window.stack.currentWidget() is window.workspace.window


def test_a_vault_damaged_in_its_first_page_says_damage_not_wrong_passphrase(
    qtbot, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    vault = tmp_path / "mine.cairn"
    compose.create_vault(vault, PASSPHRASE, embedder=embedder).close()
    data = bytearray(vault.read_bytes())
    data[100:200] = bytes(b ^ 0xFF for b in data[100:200])  # inside the first 16 KiB
    vault.write_bytes(bytes(data))
    preferences = Preferences(tmp_path / "prefs.ini")
    preferences.add_recent_vault(vault)
    session = Session()
    screen = UnlockScreen(session, preferences)
    qtbot.addWidget(screen)

    qtbot.keyClicks(screen.passphrase, PASSPHRASE)
    with qtbot.waitSignal(session.failed, timeout=OPEN_TIMEOUT_MS):
        qtbot.keyClick(screen.passphrase, Qt.Key.Key_Return)
    shown = screen.open_notice.text()
    assert "is damaged" in shown and "the passphrase is right" in shown
    assert "cairn restore" in shown and "Wrong passphrase" not in shown
    assert not session.is_open and screen.pages.isEnabled() and not screen.busy


def test_recent_vaults_are_listed_most_recent_first(qtbot, tmp_path: Path) -> None:
    preferences = Preferences(tmp_path / "prefs.ini")
    for name in ("old.cairn", "middle.cairn", "new.cairn"):
        preferences.add_recent_vault(tmp_path / name)
    preferences.add_recent_vault(tmp_path / "middle.cairn")  # opened again: moves up
    screen = UnlockScreen(Session(), preferences)
    qtbot.addWidget(screen)
    listed = [screen.vault_choice.itemData(i) for i in range(screen.vault_choice.count())]
    assert listed == [str(tmp_path / n) for n in ("middle.cairn", "new.cairn", "old.cairn")]
    assert screen.selected_vault() == tmp_path / "middle.cairn"
    assert "middle.cairn" in screen.vault_choice.currentText()


def test_without_a_keyring_the_option_is_disabled_and_says_why(screen: UnlockScreen) -> None:
    assert saved_passphrase.unavailable_reason() is not None  # the fail backend on this machine
    for box in (screen.remember_open, screen.remember_create):
        assert not box.isEnabled()
        assert "No system keyring" in box.toolTip()


def test_a_remembered_passphrase_is_filled_in_next_time(qtbot, tmp_path: Path) -> None:
    with fake_keyring.installed() as memory:
        session = Session()
        screen = UnlockScreen(session, Preferences(tmp_path / "prefs.ini"))
        qtbot.addWidget(screen)
        assert screen.remember_create.isEnabled()
        screen.remember_create.setChecked(True)
        _type_new_passphrase(qtbot, screen, PASSPHRASE, PASSPHRASE)
        with qtbot.waitSignal(session.unlocked, timeout=OPEN_TIMEOUT_MS):
            screen.create_vault()
        vault = session.path
        assert vault is not None
        qtbot.waitUntil(lambda: bool(memory.secrets))
        assert memory.secrets == {("cairn", str(vault.resolve())): PASSPHRASE}
        session.lock()
        screen.show_open(vault)
        qtbot.waitUntil(lambda: screen.passphrase.text() == PASSPHRASE)
        assert screen.remember_open.isChecked()
