"""Watched folders in the window, with the real vault, watcher and ingest child process: a
folder added in the ingest panel is read at once and listed in Settings; a file edited, renamed
and deleted while the window is open reaches the vault within seconds and the search shows it;
what changes while the vault is locked is added at the unlock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cairn.app.ingestion.report import IngestReport
from cairn.ui.rows.results_model import ResultRow
from cairn.ui.shell.main_window import MainWindow
from tests.app import ingest_files as files
from tests.ui.windows import PASSPHRASE, new_vault_window

RUN_MS = 120_000  # a run, from the change to its report: a few seconds, ample on a busy CI


def _next_run(qtbot: Any, window: MainWindow, change: Any) -> IngestReport:
    """Make ``change`` and wait for the run the watcher starts for it."""
    with qtbot.waitSignal(window.workspace.ingest.finished, timeout=RUN_MS) as finished:
        change()
    report: IngestReport = finished.args[0]
    return report


def _search(qtbot: Any, window: MainWindow, query: str) -> list[ResultRow]:
    search = window.workspace.search
    with qtbot.waitSignal(search.results_shown, timeout=30_000):
        search.search_field.setText(query)
        search.refresh()
    rows: list[ResultRow] = search.results_view.model().rows()
    return rows


def test_a_watched_folder_follows_edits_renames_and_deletes(qtbot: Any, tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    folder.mkdir()
    (folder / "heron.txt").write_text("A grey heron stood in the reeds by the weir.\n")

    window = new_vault_window(qtbot, tmp_path)
    unlock = window.unlock_screen
    ingest = window.workspace.ingest

    # Added in the ingest panel: what it holds now is read at once, and it is listed.
    report = _next_run(qtbot, window, lambda: ingest.watched_box.add_folder(str(folder)))
    assert [(f.state, Path(f.path).name) for f in report.files] == [("ingested", "heron.txt")]
    qtbot.waitUntil(lambda: "watching" in " ".join(ingest.watched_box.shown()), timeout=10_000)
    assert str(folder) in ingest.watched_box.shown()[0]
    dialog = window.open_settings()
    assert dialog is not None and dialog.watched_folders is not None
    assert str(folder) in dialog.watched_folders.shown()[0]
    dialog.reject()

    # Edited: the new version is what the search finds.
    edit = lambda: (folder / "heron.txt").write_text(  # noqa: E731
        "A grey heron caught a silver eel below the weir at dusk.\n"
    )
    report = _next_run(qtbot, window, edit)
    assert [f.state for f in report.files] == ["replaced"]
    assert ingest.watched_run  # a routine save: the status bar says so, no notification
    qtbot.waitUntil(lambda: "Watched folders" in window.statusBar().currentMessage())
    rows = _search(qtbot, window, "heron silver eel")
    assert any(r.source_name == "heron.txt" for r in rows)

    # Renamed: the same memory, under the new name.
    kept_id = report.files[0].document_id
    rename = lambda: (folder / "heron.txt").rename(folder / "birds at the weir.txt")  # noqa: E731
    report = _next_run(qtbot, window, rename)
    moved = [f for f in report.files if f.state == "moved"]
    assert [(m.document_id, Path(m.path).name) for m in moved] == [
        (kept_id, "birds at the weir.txt")
    ]
    rows = _search(qtbot, window, "heron silver eel")
    names = {r.source_name for r in rows}
    assert "birds at the weir.txt" in names and "heron.txt" not in names
    assert ingest.file_rows()[str(folder / "birds at the weir.txt")][0] == "moved"

    # Deleted: reported, and the memory is kept.
    report = _next_run(qtbot, window, lambda: (folder / "birds at the weir.txt").unlink())
    assert report.removed == [str(folder / "birds at the weir.txt")]
    assert "no longer in the folder" in ingest.summary_text
    rows = _search(qtbot, window, "heron silver eel")
    assert any(r.node_id == kept_id for r in rows)

    # Locked: nothing is watched; the unlock catches up.
    window.lock()
    (folder / "otter.txt").write_text("An otter crossed the weir pool at first light.\n")
    unlock.passphrase.setText(PASSPHRASE)
    with qtbot.waitSignal(ingest.finished, timeout=RUN_MS) as finished:
        unlock.unlock_button.click()
    states = {Path(f.path).name: f.state for f in finished.args[0].files}
    assert states == {"otter.txt": "ingested"}
    rows = _search(qtbot, window, "otter weir pool")
    assert any(r.source_name == "otter.txt" for r in rows)
    window.session.lock()


def test_stopping_a_drop_keeps_the_watched_changes_waiting(qtbot: Any, tmp_path: Path) -> None:
    """A watched folder's change that came while a drop ran still runs when the drop is
    stopped: the watcher will not hand it over again before the next unlock."""
    folder = tmp_path / "journal"
    folder.mkdir()
    window = new_vault_window(qtbot, tmp_path)
    ingest = window.workspace.ingest
    _next_run(qtbot, window, lambda: ingest.watched_box.add_folder(str(folder)))
    qtbot.waitUntil(lambda: "watching" in " ".join(ingest.watched_box.shown()), timeout=10_000)

    dropped = files.write(
        tmp_path / "dropped", {f"day {n}.txt": files.prose(n) + "\n" for n in range(400)}
    )
    ingest.start([str(dropped)])
    assert ingest.is_running and not ingest.watched_run
    (folder / "otter.txt").write_text("An otter crossed the weir pool at first light.\n")
    qtbot.waitUntil(lambda: "1 more item" in ingest.waiting_text, timeout=RUN_MS)
    with qtbot.waitSignal(ingest.finished, timeout=RUN_MS) as stopped:
        ingest.cancel()
    assert stopped.args[0].cancelled
    with qtbot.waitSignal(ingest.finished, timeout=RUN_MS) as watched:
        pass  # the watched changes run next, on their own
    assert ingest.watched_run
    states = {Path(f.path).name: f.state for f in watched.args[0].files}
    assert states == {"otter.txt": "ingested"}
    window.session.lock()
