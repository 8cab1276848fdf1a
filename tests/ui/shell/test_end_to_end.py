"""The whole window, as a person uses it: create a vault, drop three files from the corpus on
the window, wait for the ingest, search, open a result, see it in the graph, lock, unlock."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from cairn.ui.shell.main_window import MainWindow
from tests.ui.windows import PASSPHRASE, new_vault_window

FILES = (
    "05_documents/py-pdf_sample-files/004-pdflatex-4-pages/pdflatex-4-pages.pdf",
    "05_documents/mammoth_docx/tables.docx",
    "06_pkm/foam_docs/docs/user/features/graph-view.md",
)


def _drop(window: MainWindow, paths: list[Path]) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(
        QPointF(20, 20),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)


def test_create_drop_search_open_graph_lock_unlock(
    qtbot: Any, tmp_path: Path, corpus: Path
) -> None:
    files = []
    for relative in FILES:
        source = corpus / relative
        if not source.exists():
            matches = sorted(source.parent.glob("*" + source.suffix))
            source = matches[0]
        files.append(Path(shutil.copy(source, tmp_path / source.name)))

    window = new_vault_window(qtbot, tmp_path)
    unlock = window.unlock_screen
    assert window.stack.currentWidget() is window.workspace.window

    ingest = window.workspace.ingest
    with qtbot.waitSignal(ingest.finished, timeout=180_000) as finished:
        _drop(window, files)
    report = finished.args[0]
    assert report.counts() == {"ingested": 3}, report.as_dict()

    search = window.workspace.search
    with qtbot.waitSignal(search.results_shown, timeout=30_000):
        search.search_field.setText("graph visualization")
    results = search.results_view
    assert results.model().rowCount() > 0
    first = results.model().index(0, 0)
    detail = window.workspace.detail
    with qtbot.waitSignal(detail.loaded, timeout=30_000):
        results.activated.emit(first)
    shown = detail.current_node_id
    assert shown is not None

    graph = window.workspace.graph  # it follows what the detail pane opened
    window.show_graph()
    assert graph.isVisible() and graph.root == shown
    qtbot.waitUntil(lambda: graph.node_count() > 1, timeout=30_000)

    window.lock()
    assert window.session.service is None
    assert window.stack.currentWidget() is window.unlock_screen
    unlock.passphrase.setText(PASSPHRASE)
    with qtbot.waitSignal(window.session.unlocked, timeout=60_000):
        unlock.unlock_button.click()
    service = window.session.service
    assert service is not None
    service.wait_for_vectors()  # the window opened with its vectors loading behind it
    assert service.search("graph visualization", scopes=service.scopes()).results
    window.session.lock()
