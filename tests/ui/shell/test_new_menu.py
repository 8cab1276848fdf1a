"""File › New: a note (Ctrl+Shift+N) and every kind of memory the pack lets a person write by
hand, each opening its form; the toolbar's New button drops down the same menu, the command
palette finds each entry, and Quick Capture stays Ctrl+N."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QKeySequence

from cairn.ui.shell.command_palette import menu_commands
from cairn.ui.shell.main_window import MainWindow
from cairn.ui.writing.memory_form import MemoryForm
from cairn.ui.writing.note_editor import NoteEditor

KINDS = ["Fact", "Person", "Place", "Project", "Task", "Event", "Organization", "Preference"]


def _file_new(window: MainWindow) -> list[str]:
    return [
        command.path[-1]
        for command in menu_commands(window.menuBar())
        if command.path[:2] == ("File", "New")
    ]


def test_file_new_lists_a_note_and_every_kind(window: MainWindow) -> None:
    assert _file_new(window) == ["Note…", *(f"{kind}…" for kind in KINDS), "Topic…"]
    assert window.new_note_action.shortcut() == QKeySequence("Ctrl+Shift+N")
    assert window.capture_action.shortcut() == QKeySequence("Ctrl+N")
    assert window.new_menu.button.menu() is window.new_menu  # the toolbar's New drops it down
    assert window.new_menu.button.accessibleName() == "New"
    texts = [action.text() for action in window.new_menu.actions() if action.text()]
    letters = [text[text.index("&") + 1].casefold() for text in texts]
    assert len(set(letters)) == len(letters)  # each entry its own key


def test_every_entry_opens_its_form(qtbot: Any, window: MainWindow) -> None:
    for type_name, action in window.new_menu.kind_actions.items():
        action.trigger()
        forms = [form for form in window.findChildren(MemoryForm) if form.isVisible()]
        assert [form.type_name for form in forms] == [type_name]
        assert not forms[0].editing and forms[0].title.text() == ""
        with qtbot.waitSignal(forms[0].destroyed):
            forms[0].reject()
    window.new_note_action.trigger()
    editors = window.findChildren(NoteEditor)
    assert len(editors) == 1 and editors[0].isVisible()
    editors[0].reject()


def test_a_memory_saved_from_the_menu_shows_in_the_detail_pane(
    qtbot: Any, window: MainWindow
) -> None:
    form = window.new_menu.new_memory("Place")
    assert form is not None
    form.title.setText("Harbour Lane")
    form.fields["country"].set_text("Netherlands")
    with qtbot.waitSignal(form.saved, timeout=15_000) as saved:
        form.save()
    qtbot.waitUntil(lambda: window.workspace.detail.title_label.text() == "Harbour Lane")
    node = window.session.service.get([saved.args[0]], scopes=["personal"]).nodes[0].node
    assert node.attrs == {"country": "Netherlands"}
    form.reject()


def test_the_kinds_wait_for_a_vault(qtbot: Any, window: MainWindow) -> None:
    assert all(action.isEnabled() for action in window.new_menu.kind_actions.values())
    with qtbot.waitSignal(window.session.locked):
        window.lock()
    assert set(window.new_menu.kind_actions) >= {"Fact", "Person", "Commitment"}
    assert not any(action.isEnabled() for action in window.new_menu.kind_actions.values())
    assert not window.new_menu.button.isEnabled() and not window.new_note_action.isEnabled()
    assert window.new_menu.new_memory("Fact") is None
