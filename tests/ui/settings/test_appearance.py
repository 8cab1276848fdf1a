"""Settings › Appearance in the real window: a dark theme applies a dark palette at once, the
text size changes the application's font (the detail pane's title grows with it, the review
list keeps its entries whole), OK keeps them in this computer's preferences, Cancel puts back
what was kept, and the saved look is applied at start."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtGui import QFontMetrics, QPalette
from PySide6.QtWidgets import QApplication, QTreeWidget, QTreeWidgetItem

from cairn.ui.base import appearance
from cairn.ui.base.preferences import Preferences
from cairn.ui.detail.memory_view import TITLE_POINT_SCALE
from cairn.ui.settings.dialog import SettingsDialog
from cairn.ui.shell.main_window import MainWindow
from tests.app.dedup.test_review_queue import KEY, KEY_REWORDED


@pytest.fixture(autouse=True)
def _the_system_look_after(qapp: QApplication) -> Iterator[None]:
    """The application outlives a test: its look goes back to the system's after each."""
    system_size = QApplication.font().pointSizeF()
    yield
    appearance.apply_theme(qapp, "system")
    appearance.apply_font_size(qapp, "system")
    assert QApplication.font().pointSizeF() == system_size


def _settings(window: MainWindow) -> SettingsDialog:
    dialog = window.open_settings()
    assert dialog is not None
    dialog.show_page(dialog.appearance)
    return dialog


def test_a_dark_theme_applies_a_dark_palette_at_once(qtbot, window: MainWindow) -> None:
    assert not appearance.is_dark(QApplication.palette())
    dialog = _settings(window)
    page = dialog.appearance
    page.theme.setCurrentIndex(page.theme.findData("dark"))
    palette = QApplication.palette()
    assert appearance.is_dark(palette)
    assert palette.color(QPalette.ColorRole.Base).name() == appearance.DARK[QPalette.ColorRole.Base]
    # The window's own widgets draw with it, once the change has reached them.
    field = window.workspace.search.search_field
    qtbot.waitUntil(lambda: appearance.is_dark(field.palette()))
    assert QApplication.style().name().lower() == "fusion"
    with qtbot.waitSignal(dialog.applied):
        dialog.apply(close=True)
    assert window.preferences.theme() == "dark"
    assert Preferences().theme() == "dark"  # written to the file, for the next start


def test_cancel_puts_back_the_look_that_was_kept(qtbot, window: MainWindow) -> None:
    before = QApplication.palette().color(QPalette.ColorRole.Window).name()
    dialog = _settings(window)
    page = dialog.appearance
    page.theme.setCurrentIndex(page.theme.findData("dark"))
    page.font_size.setCurrentIndex(page.font_size.findData("largest"))
    assert appearance.is_dark(QApplication.palette())
    dialog.reject()
    assert QApplication.palette().color(QPalette.ColorRole.Window).name() == before
    assert window.preferences.theme() == "system"
    assert window.preferences.font_size() == "system"


def test_the_text_size_changes_the_application_font(qtbot, window: MainWindow) -> None:
    system_size = QApplication.font().pointSizeF()
    dialog = _settings(window)
    page = dialog.appearance
    page.font_size.setCurrentIndex(page.font_size.findData("large"))
    assert QApplication.font().pointSizeF() == pytest.approx(system_size * 1.15)
    label = window.vault_label  # a widget of the window, with no font of its own
    qtbot.waitUntil(lambda: label.font().pointSizeF() == pytest.approx(system_size * 1.15))
    with qtbot.waitSignal(dialog.applied):
        dialog.apply(close=True)
    assert Preferences().font_size() == "large"


def test_the_saved_look_is_applied_at_start(qapp: QApplication) -> None:
    system_size = QApplication.font().pointSizeF()
    preferences = Preferences()
    preferences.set_theme("dark")
    preferences.set_font_size("larger")
    appearance.apply_look(qapp, preferences.theme(), preferences.font_size())
    assert appearance.is_dark(QApplication.palette())
    assert QApplication.font().pointSizeF() == pytest.approx(system_size * 1.3)


def test_an_unknown_choice_in_the_file_reads_as_the_system(tmp_path) -> None:
    path = tmp_path / "prefs.ini"
    path.write_text("[appearance]\ntheme=purple\nfont_size=enormous\n")
    preferences = Preferences(path)
    assert (preferences.theme(), preferences.font_size()) == ("system", "system")


def _entry_width(tree: QTreeWidget, item: QTreeWidgetItem) -> int:
    depth = 0 if item.parent() is None else 1
    text = QFontMetrics(item.font(0)).horizontalAdvance(item.text(0))
    return text + depth * tree.indentation()


def test_the_largest_text_grows_the_title_and_keeps_review_entries_whole(
    qtbot, window: MainWindow
) -> None:
    service = window.session.service
    note = service.write("Note", "Ferry times", "The ferry leaves at nine.").node
    service.write("Note", *KEY)
    service.write("Note", *KEY_REWORDED)  # kept, awaiting review: an entry in the list
    window.open_node(note.id)
    title = window.workspace.detail.title_label
    qtbot.waitUntil(lambda: title.text() == "Ferry times")
    window.show_review()
    window.session.changed.emit()
    review = window.workspace.review
    tree = review._tree
    qtbot.waitUntil(lambda: tree.topLevelItemCount() > 0 and tree.topLevelItem(0).childCount())
    assert title.font().pointSizeF() == pytest.approx(
        QApplication.font().pointSizeF() * TITLE_POINT_SCALE
    )

    dialog = _settings(window)
    page = dialog.appearance
    page.font_size.setCurrentIndex(page.font_size.findData("largest"))
    largest = QApplication.font().pointSizeF()
    qtbot.waitUntil(lambda: title.font().pointSizeF() == pytest.approx(largest * TITLE_POINT_SCALE))
    assert title.font().bold()
    # Every entry of the review list is whole: as wide as its text, scrolled to if need be.
    qtbot.waitUntil(lambda: tree.font().pointSizeF() == pytest.approx(largest))
    items = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    items += [item.child(j) for item in list(items) for j in range(item.childCount())]
    widest = max(_entry_width(tree, item) for item in items)
    qtbot.waitUntil(lambda: tree.header().sectionSize(0) >= widest)
    dialog.reject()  # Cancel: the text size that was kept comes back
    qtbot.waitUntil(lambda: title.font().pointSizeF() < largest * TITLE_POINT_SCALE)
