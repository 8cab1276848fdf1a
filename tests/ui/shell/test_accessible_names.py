"""Every field, list, choice, progress bar, tab bar and wordless button of the window and of
each dialog it opens has a name a screen reader can say (``tests/ui/accessible.py`` says what
counts): the unlock and create screens, the workspace with every panel, dock and tab, the
welcome, and quick capture, export, every page of Settings, the note editor, the form of every
kind, an inbox capture, the Replace with… and Link… pickers, the guide, the keys and the
command palette."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QTabBar, QWidget

from cairn.ui.base.session import Session
from cairn.ui.memory.pickers import LinkDialog, MemoryPicker
from cairn.ui.shell.main_window import MainWindow
from cairn.ui.shell.workspace import bring_forward
from cairn.ui.writing.inbox_item import InboxItemDialog
from cairn.ui.writing.memory_form import MemoryForm
from tests.ui.accessible import unnamed


def _walked(qtbot, opened: QWidget | None) -> list[str]:
    assert opened is not None
    qtbot.addWidget(opened)
    found = [f"{type(opened).__name__}: {where}" for where in unnamed(opened)]
    if isinstance(opened, QDialog):
        opened.done(0)
    return found


def _every_kind(qtbot, form: MemoryForm | None) -> list[str]:
    """The form with the fields of each kind it offers, one after the other."""
    assert form is not None
    found: list[str] = []
    for index in range(form.kind.count()):
        form.kind.setCurrentIndex(index)
        found += [f"{form.kind.currentText()} form: {where}" for where in unnamed(form)]
    form.title.clear()  # nothing to ask about on closing
    return found + _walked(qtbot, form)


def test_every_widget_a_screen_reader_announces_has_a_name(
    qtbot, window: MainWindow, open_session: Session
) -> None:
    service = open_session.service
    note = service.write("Note", "Ferry times", "The ferry leaves at nine.").node
    service.write("Person", "Ada Brook", "Runs the ferry.")
    capture = service.inbox_capture("ask about the winter timetable")
    window.open_node(note.id)
    qtbot.waitUntil(lambda: window.workspace.detail.current_node_id == note.id)
    window.welcome.show()
    bring_forward(window.workspace, "ingest")  # both docks open, tabbed together
    window.show_review()
    qtbot.waitUntil(lambda: bool(window.workspace.window.findChildren(QTabBar)))

    found = [f"window: {where}" for where in unnamed(window)]
    found += _walked(qtbot, window.quick_capture())
    found += _walked(qtbot, window.export())
    found += _walked(qtbot, window.open_settings())
    found += _walked(qtbot, window.new_note())
    found += _every_kind(qtbot, window.new_menu.new_memory("Fact"))
    found += _walked(qtbot, InboxItemDialog(open_session, capture.id, window))
    found += _walked(qtbot, MemoryPicker(open_session, "Replace", "Find it.", parent=window))
    pack = service.pack_rules()
    found += _walked(qtbot, LinkDialog(open_session, pack, note.id, "Note", note.title, window))
    found += _walked(qtbot, window.open_user_guide())
    found += _walked(qtbot, window.show_shortcuts())
    palette = window.open_command_palette()
    found += [f"palette: {where}" for where in unnamed(palette)]
    palette.close()
    assert found == [], "\n".join(found)


def test_a_button_says_what_it_is_named(qtbot, open_session: Session) -> None:
    """What a button shows and what a screen reader says of it name the same thing."""
    capture = open_session.service.inbox_capture("renew the passport")
    dialog = InboxItemDialog(open_session, capture.id)
    qtbot.addWidget(dialog)
    for button in dialog.kind_buttons.values():
        shown = button.text().replace("&", "").lower()
        assert button.accessibleName().lower().startswith(shown), button.accessibleName()
