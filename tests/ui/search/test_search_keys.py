"""Keys of the search field in the real window: Esc clears the search and brings back the
listing; Esc in an empty field moves to the results, and with no results does nothing."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from cairn.ui.shell.main_window import MainWindow

WAIT_MS = 10_000


def test_esc_clears_the_search_then_moves_to_the_results(qtbot, window: MainWindow) -> None:
    service = window.session.service
    service.write("Note", "Pharmacy hours", "The pharmacy opens at eight.")
    service.write("Note", "Kiln firing", "Cone 6 for the stoneware glaze.")
    search = window.workspace.search
    field = search.search_field
    window.activateWindow()
    window.focus_search()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    qtbot.keyClicks(field, "pharmacy")
    qtbot.waitUntil(lambda: search.shown_query == "pharmacy", timeout=WAIT_MS)

    qtbot.keyClick(field, Qt.Key.Key_Escape)
    assert field.text() == ""
    qtbot.waitUntil(lambda: search.shown_query == "", timeout=WAIT_MS)  # the newest again
    assert {row.title for row in search.model.rows()} >= {"Pharmacy hours", "Kiln firing"}
    assert QApplication.focusWidget() is field  # the first Esc only clears

    qtbot.keyClick(field, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is search.results_view)
    assert window.session.is_open and window.isVisible()


def test_esc_in_an_empty_field_with_nothing_listed_does_nothing(qtbot, window: MainWindow) -> None:
    search = window.workspace.search
    field = search.search_field
    window.activateWindow()
    window.focus_search()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    qtbot.waitUntil(lambda: search.shown_query == "", timeout=WAIT_MS)
    assert search.model.rowCount() == 0  # a new vault
    qtbot.keyClick(field, Qt.Key.Key_Escape)
    assert QApplication.focusWidget() is field
    assert window.session.is_open and window.isVisible()
