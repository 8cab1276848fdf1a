"""The ingest panel with the real vault, embedder and extraction worker: progress reaches the
panel, every file ends as added or failed with its reason (a failure shown as soon as it is
known), Stop says so at once, keeps what was read and offers to resume the rest, earlier
failures are listed, paths given during a run wait for the next one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QTreeWidget

from cairn.app.ingestion.report import IngestProgress, IngestReport
from cairn.ui.base.session import Session
from cairn.ui.ingest.panel import IngestPanel
from cairn.ui.ingest.rows import FileList
from tests.app import ingest_files as files

RUN_TIMEOUT_MS = 60_000


def _button(panel: IngestPanel, text: str) -> QPushButton:
    return next(b for b in panel.findChildren(QPushButton) if b.text() == text)


def _by_name(panel: IngestPanel) -> dict[str, tuple[str, str]]:
    return {Path(path).name: row for path, row in panel.file_rows().items()}


@pytest.fixture
def panel(qtbot, open_session: Session) -> IngestPanel:
    widget = IngestPanel(open_session)
    qtbot.addWidget(widget)
    return widget


def test_a_run_shows_progress_and_ends_with_each_file_added_or_failed(
    qtbot, panel: IngestPanel, open_session: Session, tmp_path: Path
) -> None:
    folder = files.write(
        tmp_path / "trip notes",
        {
            "kayak.md": "# Kayak trip\n\nWe paddled around the lighthouse island at dawn.\n",
            "recipe.txt": "Bake the rye loaf for forty minutes with a tray of water below.\n",
            "garden.txt": files.prose("garden", 5) + "\n",
            "program.txt": files.binary_bytes(),  # a binary file named .txt
        },
    )
    events: list[IngestProgress] = []
    busy: list[str | None] = []
    changed: list[bool] = []
    at_done: dict[str, tuple[str, str]] = {}

    def before_the_report(event: IngestProgress) -> None:
        if event.stage == "done":
            at_done.update(_by_name(panel))

    panel.progressed.connect(events.append)
    panel.progressed.connect(before_the_report)
    panel.busy_changed.connect(busy.append)
    open_session.changed.connect(lambda: changed.append(True))

    with qtbot.waitSignal(panel.finished, timeout=RUN_TIMEOUT_MS) as finished:
        panel.start([str(folder)])
        assert panel.is_running
    report = finished.args[0]
    assert isinstance(report, IngestReport)

    stages = {event.stage for event in events}
    assert {"scanning", "reading", "embedding", "writing", "done"} <= stages
    assert busy[0] is not None and busy[-1] is None  # the status bar was told, then freed
    assert changed  # the library was told (during the run, and once more at its end)
    assert not panel.is_running
    # Each file's outcome reached its row while the run went, before the report came.
    assert at_done["kayak.md"] == ("done", "1 passage")
    assert at_done["program.txt"][0] == "failed" and "binary file" in at_done["program.txt"][1]

    rows = _by_name(panel)
    assert {name: state for name, (state, _) in rows.items()} == {
        "kayak.md": "done",
        "recipe.txt": "done",
        "garden.txt": "done",
        "program.txt": "failed",
    }
    assert "binary file" in rows["program.txt"][1]
    assert report.counts() == {"ingested": 3, "failed": 1}
    assert panel.stage_text == "Done."
    assert "3 files added" in panel.summary_text
    assert "1 could not be read" in panel.summary_text

    # A row shows the file below the dropped folder, and a double-click opens its Document.
    tree = panel.findChild(FileList)
    assert tree is not None
    item = tree.findItems("kayak.md", Qt.MatchFlag.MatchEndsWith)[0]
    assert item.text(0) == str(Path("trip notes") / "kayak.md")
    kayak = next(o for o in report.files if o.path.endswith("kayak.md"))
    with qtbot.waitSignal(panel.open_requested) as opened:
        tree.itemDoubleClicked.emit(item, 0)
    assert opened.args == [kayak.document_id]

    # Earlier failures come from the vault, not from this run's report.
    _button(panel, "Show earlier failures").click()
    qtbot.waitUntil(lambda: bool(panel.earlier_failures()), timeout=10_000)
    [(path, reason)] = panel.earlier_failures()
    assert path.endswith("program.txt") and "binary file" in reason

    # Locking forgets the file names shown.
    open_session.lock()
    assert panel.file_rows() == {}
    assert panel.summary_text == "" and panel.earlier_failures() == []


def test_stop_says_stopping_leaves_the_rest_not_read_and_resume_adds_it(
    qtbot, panel: IngestPanel, open_session: Session, tmp_path: Path
) -> None:
    folder = files.write(
        tmp_path / "many",
        {f"note_{n:02d}.txt": files.prose(f"stop {n}", 12) + "\n" for n in range(15)},
    )
    stop = _button(panel, "Stop")
    assert not stop.isEnabled()
    right_after: list[tuple[str, bool, str]] = []

    def stop_once_reading(event: IngestProgress) -> None:
        if event.stage == "embedding" and stop.isEnabled():  # once the first file is read
            stop.click()
            right_after.append((stop.text(), stop.isEnabled(), panel.stage_text))

    panel.progressed.connect(stop_once_reading)
    with qtbot.waitSignal(panel.finished, timeout=RUN_TIMEOUT_MS) as finished:
        panel.start([str(folder)])
    report = finished.args[0]
    panel.progressed.disconnect(stop_once_reading)

    assert right_after == [("Stopping…", False, "Stopping…")]  # said at once, not at the end
    assert report.cancelled
    rows = panel.file_rows()
    states = [state for state, _ in rows.values()]
    assert len(states) == 15
    assert states.count("cancelled") >= 10  # stopped early, not after the last file
    assert set(states) == {"done", "cancelled"}  # what was read is kept; never "failed"
    left = [path for path, (state, _) in rows.items() if state == "cancelled"]
    assert {panel.file_states()[path] for path in left} == {"Not read (stopped)"}
    assert panel.stage_text == "Stopped."
    assert panel.bar_value < 1.0  # the bar does not claim the run was done
    kept = states.count("done")
    assert panel.summary_text.startswith("Stopped as you asked: ")
    assert f"{kept} {'file' if kept == 1 else 'files'} added" in panel.summary_text
    assert f"{len(left)} files left to add; Resume adds them." in panel.summary_text
    assert stop.text() == "Stop" and not stop.isEnabled()

    # The vault keeps the run as unfinished; Resume adds the rest, and the offer goes.
    qtbot.waitUntil(lambda: panel.resume_bar.isVisibleTo(panel), timeout=10_000)
    assert "“many”" in panel.resume_bar.label.text()
    with qtbot.waitSignal(panel.finished, timeout=RUN_TIMEOUT_MS) as resumed:
        panel.resume_bar.resume_button.click()
    again = resumed.args[0]
    assert not again.cancelled
    assert again.counts() == {"unchanged": kept, "ingested": len(left)}
    assert {state for state, _ in panel.file_rows().values()} <= {"done", "unchanged"}
    assert panel.bar_value == 1.0
    service = open_session.service
    assert service is not None and service.unfinished_ingests() == []
    qtbot.wait(300)  # the panel asked the vault again: nothing is offered any more
    assert not panel.resume_bar.isVisibleTo(panel)


def test_paths_given_during_a_run_wait_for_the_next_one(
    qtbot, panel: IngestPanel, tmp_path: Path
) -> None:
    first = files.write(tmp_path / "first", {"one.txt": files.prose("one", 3)})
    second = files.write(tmp_path / "second", {"two.txt": files.prose("two", 3)})
    reports: list[IngestReport] = []
    panel.finished.connect(reports.append)
    panel.start([str(first)])
    panel.start([str(second)])  # queued: the first run is still going
    qtbot.waitUntil(lambda: len(reports) == 2, timeout=RUN_TIMEOUT_MS)
    assert [Path(o.path).name for o in reports[0].files] == ["one.txt"]
    assert [Path(o.path).name for o in reports[1].files] == ["two.txt"]
    assert _by_name(panel) == {"two.txt": ("done", "1 passage")}
    assert panel.summary_text.startswith("1 file added")


def test_without_an_open_vault_the_panel_says_so(qtbot, tmp_path: Path) -> None:
    panel = IngestPanel(Session())
    qtbot.addWidget(panel)
    panel.start([str(tmp_path)])
    assert not panel.is_running
    assert "Open your vault first" in panel.summary_text
    assert panel.findChild(QTreeWidget) is not None


def test_links_that_loop_or_lead_nowhere_fail_alone_and_odd_names_show_readably(
    qtbot, panel: IngestPanel, tmp_path: Path
) -> None:
    folder = files.write(tmp_path / "old archive", {"kayak.md": "# Kayak\n\nAt dawn.\n"})
    (folder / "loop.md").symlink_to("loop.md")
    (folder / "dangling.md").symlink_to(folder / "nowhere.md")
    odd = Path(os.fsdecode(os.fsencode(folder) + b"/caf\xe9.txt"))
    odd.write_text("The crème brûlée recipe from the old archive.\n", encoding="utf-8")

    with qtbot.waitSignal(panel.finished, timeout=RUN_TIMEOUT_MS):
        panel.start([str(folder)])
    rows = _by_name(panel)
    assert {name: state for name, (state, _) in rows.items()} == {
        "kayak.md": "done",
        "caf\\xe9.txt": "done",
        "loop.md": "failed",
        "dangling.md": "failed",
    }
    assert "leads back to itself" in rows["loop.md"][1]
    assert "not there" in rows["dangling.md"][1]

    _button(panel, "Show earlier failures").click()
    qtbot.waitUntil(lambda: len(panel.earlier_failures()) == 2, timeout=10_000)
    reasons = {Path(path).name: reason for path, reason in panel.earlier_failures()}
    assert "leads back to itself" in reasons["loop.md"]
    assert "not there" in reasons["dangling.md"]


def test_dont_resume_lets_a_stopped_run_go_and_keeps_what_it_added(
    qtbot, panel: IngestPanel, open_session: Session, tmp_path: Path
) -> None:
    folder = files.write(
        tmp_path / "letters",
        {f"letter_{n:02d}.txt": files.prose(f"letter {n}", 12) + "\n" for n in range(8)},
    )
    stop = _button(panel, "Stop")

    def stop_once_read(event: IngestProgress) -> None:
        if event.stage == "embedding" and stop.isEnabled():
            stop.click()

    panel.progressed.connect(stop_once_read)
    with qtbot.waitSignal(panel.finished, timeout=RUN_TIMEOUT_MS) as finished:
        panel.start([str(folder)])
    added = finished.args[0].count("ingested")
    assert finished.args[0].cancelled and added >= 1
    qtbot.waitUntil(lambda: panel.resume_bar.isVisibleTo(panel), timeout=10_000)
    service = open_session.service
    assert service is not None

    panel.resume_bar.dismiss_button.click()
    assert not panel.resume_bar.isVisibleTo(panel)
    qtbot.waitUntil(lambda: service.unfinished_ingests() == [], timeout=10_000)
    assert len(service.sources()) == added  # nothing it added was removed
