"""The settings dialog of the real window lists its pages on the left and shows each whole at
its first size: no page is wider than the dialog, no label shows a stray "&", and the dialog
is no bigger than the screen."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QScrollArea

from cairn.ui.shell.main_window import MainWindow
from tests.ui.mnemonics import literal_ampersands

PAGES = [
    "Appearance",
    "Security",
    "Memory",
    "Backup",
    "Reading files",
    "Watched folders",
    "Search",
    "Graph server",
]


def test_every_page_is_listed_and_fits_the_dialogs_width(qtbot, window: MainWindow) -> None:
    dialog = window.open_settings()
    assert dialog is not None
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(dialog.memory_page.isEnabled)
    names = [dialog.page_list.item(row).text() for row in range(dialog.page_list.count())]
    assert names == PAGES
    screen = QApplication.primaryScreen().availableGeometry()
    assert dialog.width() <= screen.width() and dialog.height() <= screen.height()
    for row, name in enumerate(names):
        dialog.page_list.setCurrentRow(row)
        area = dialog.pages.currentWidget()
        assert isinstance(area, QScrollArea)
        qtbot.waitUntil(lambda a=area: a.widget().isVisible())
        QApplication.processEvents()
        assert not area.horizontalScrollBar().isVisible(), f"{name} is wider than the dialog"
    assert literal_ampersands(dialog) == []
