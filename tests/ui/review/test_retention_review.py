"""Retention in the window: the scheduled pass finds a faded note, the review panel lists it
with its reason, and Archive or Keep settles it (read back through the real service)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from cairn.ui.base.session import Session
from cairn.ui.review.panel import ReviewPanel
from cairn.ui.shell.retention_schedule import RetentionSchedule

ALL = ["personal"]
WAIT_MS = 15_000


def _faded_note(service: MemoryService, vault: Vault, title: str) -> str:
    node = service.write("Note", title).node
    assert node is not None and node.retention_label == "ephemeral"
    then = (datetime.now(UTC) - timedelta(days=30)).isoformat(timespec="microseconds")
    with vault.write() as conn:  # as if written a month ago and never opened
        conn.execute("UPDATE nodes SET recorded_at = ? WHERE id = ?", (then, node.id))
    return node.id


def _panel(qtbot, session: Session) -> ReviewPanel:
    panel = ReviewPanel(session)
    qtbot.addWidget(panel)
    return panel


def test_the_scheduled_pass_proposes_and_the_panel_archives(
    qtbot, open_session: Session, session_vault: Vault
) -> None:
    service = open_session.service
    assert service is not None
    parked = _faded_note(service, session_vault, "Parked on level 3 today")
    schedule = RetentionSchedule(open_session, first_pass_ms=10)
    with qtbot.waitSignal(schedule.passed, timeout=WAIT_MS) as passed:
        pass
    assert [p.id for p in passed.args[0].proposals] == [parked]
    assert schedule.next_pass_in_ms > 3_600_000  # the next pass waits hours
    assert service.retention_log(scopes=ALL, node_id=parked)[0]["action"] == "proposed"

    panel = _panel(qtbot, open_session)
    qtbot.waitUntil(lambda: panel.section_counts().get("retention") == 1, timeout=WAIT_MS)
    assert panel.select(f"fade:{parked}")
    assert "not been opened for 30 days" in panel.shown_text
    panel.archive_button.click()
    qtbot.waitUntil(lambda: panel.section_counts().get("retention") == 0, timeout=WAIT_MS)
    assert "Archived" in panel.status_text
    assert service.get([parked], scopes=ALL, use=False).nodes[0].node.status == "archived"
    schedule.deleteLater()


def test_keep_takes_it_off_the_list_and_locking_stops_the_schedule(
    qtbot, open_session: Session, session_vault: Vault
) -> None:
    service = open_session.service
    assert service is not None
    lunch = _faded_note(service, session_vault, "Lunch at the noodle bar today")
    panel = _panel(qtbot, open_session)
    qtbot.waitUntil(lambda: panel.section_counts().get("retention") == 1, timeout=WAIT_MS)
    assert panel.select(f"fade:{lunch}")
    panel.keep_button.click()
    qtbot.waitUntil(lambda: panel.section_counts().get("retention") == 0, timeout=WAIT_MS)
    assert service.get([lunch], scopes=ALL, use=False).nodes[0].node.retention_label == "normal"
    schedule = RetentionSchedule(open_session)
    assert schedule.next_pass_in_ms > 0
    open_session.lock()
    assert schedule.next_pass_in_ms == -1
    schedule.deleteLater()


def test_the_window_runs_the_pass_and_says_what_auto_mode_archived(
    qtbot, open_session: Session, session_vault: Vault
) -> None:
    from cairn.ui.base.preferences import Preferences
    from cairn.ui.shell.main_window import MainWindow

    service = open_session.service
    assert service is not None
    service.change_setting("retention_mode", "auto")
    parked = _faded_note(service, session_vault, "Parked on level 3 today")
    window = MainWindow(open_session, Preferences())
    qtbot.addWidget(window)
    assert window.retention_schedule.next_pass_in_ms > 0  # scheduled after the unlock
    with qtbot.waitSignal(window.retention_schedule.passed, timeout=WAIT_MS):
        window.retention_schedule.run_now()
    assert "Archived 1 faded" in window.statusBar().currentMessage()
    assert service.get([parked], scopes=ALL, use=False).nodes[0].node.status == "archived"
