"""Auto-lock: the vault locks itself after the idle time and says so, input keeps it open,
running work holds it back, and zero turns it off."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from cairn.storage.vault import Vault
from cairn.ui.base.preferences import DEFAULT_AUTOLOCK_MINUTES, Preferences
from cairn.ui.base.session import Session
from cairn.ui.lock.autolock import MS_PER_MINUTE, AutoLock, idle_reason

IDLE_MS = 300


def test_the_default_is_ten_minutes(tmp_path) -> None:
    assert Preferences(tmp_path / "prefs.ini").autolock_minutes() == DEFAULT_AUTOLOCK_MINUTES == 10


def test_it_locks_after_the_idle_time(qtbot, open_session: Session, session_vault: Vault) -> None:
    autolock = AutoLock(open_session, minutes=10)
    assert autolock.interval_ms == 10 * MS_PER_MINUTE and autolock.timer.isActive()
    autolock.set_interval_ms(IDLE_MS)
    with qtbot.waitSignal(open_session.locked, timeout=5_000):
        pass
    assert open_session.service is None
    assert open_session.lock_reason == "Locked after 1 second without use"
    assert session_vault.closed  # the connections are closed and the key dropped
    assert not autolock.timer.isActive()
    autolock.stop_watching()


def test_the_reason_names_the_idle_time() -> None:
    assert idle_reason(10 * MS_PER_MINUTE) == "Locked after 10 minutes without use"
    assert idle_reason(MS_PER_MINUTE) == "Locked after 1 minute without use"
    assert idle_reason(90_000) == "Locked after 90 seconds without use"
    assert idle_reason(IDLE_MS) == "Locked after 1 second without use"


def test_typing_keeps_the_vault_open(qtbot, open_session: Session) -> None:
    field = QLineEdit()
    qtbot.addWidget(field)
    autolock = AutoLock(open_session, minutes=0)
    autolock.set_interval_ms(IDLE_MS)
    for _ in range(6):  # twice the idle time in all, never idle for long
        qtbot.wait(IDLE_MS // 2)
        qtbot.keyClick(field, Qt.Key.Key_A)
    assert open_session.is_open
    with qtbot.waitSignal(open_session.locked, timeout=5_000):
        pass  # and once the typing stops, it locks
    autolock.stop_watching()


def test_running_work_holds_the_lock_back(qtbot, open_session: Session) -> None:
    busy = [True]
    autolock = AutoLock(open_session, minutes=0, is_busy=lambda: busy[0])
    autolock.set_interval_ms(IDLE_MS)
    qtbot.wait(IDLE_MS * 3)
    assert open_session.is_open
    busy[0] = False
    with qtbot.waitSignal(open_session.locked, timeout=5_000):
        pass
    autolock.stop_watching()


def test_zero_minutes_means_never(qtbot, open_session: Session) -> None:
    autolock = AutoLock(open_session, minutes=0)
    assert not autolock.timer.isActive()
    autolock.set_interval_ms(IDLE_MS)
    autolock.set_minutes(0)
    qtbot.wait(IDLE_MS * 2)
    assert open_session.is_open
    autolock.stop_watching()
