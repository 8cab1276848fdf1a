"""File › New, which the toolbar's New button drops down too: a note (Ctrl+Shift+N), then a
memory of each kind a person writes by hand (fact, person, place, project, task, event…), each
opening its form. The kinds are the open vault's pack's (``writing.kinds``), read again at every
unlock; while the vault is locked the menu lists the shipped pack's kinds, greyed, so the
command palette and Help's list of commands still show them.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from cairn.app.api import MemoryService, Pack
from cairn.ui.base.session import Session
from cairn.ui.writing.kinds import form_types, kind_label, taken_letters, with_mnemonic
from cairn.ui.writing.memory_form import MemoryForm


class NewMenu(QMenu):
    def __init__(
        self,
        session: Session,
        note_action: QAction,
        open_node: Callable[[str], None],
        parent: QWidget,
    ) -> None:
        """``note_action`` opens the note editor; ``open_node`` shows a memory saved."""
        super().__init__("&New", parent)
        self._session = session
        self._open_node = open_node
        self.addAction(note_action)
        self.addSeparator()
        self.kind_actions: dict[str, QAction] = {}
        self.button = QToolButton(parent)
        self.button.setText("New")
        self.button.setAccessibleName("New")
        self.button.setToolTip("Write a new note, or a fact, person, task… in its form")
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.button.setMenu(self)
        service = session.service
        self._show_kinds(service)
        session.unlocked.connect(self._show_kinds)
        session.locked.connect(self._locked)

    def _locked(self) -> None:
        self._show_kinds(None)

    def _show_kinds(self, service: MemoryService | None) -> None:
        """One action per kind of the open vault's pack (the shipped pack's while locked)."""
        for action in self.kind_actions.values():
            self.removeAction(action)
            action.deleteLater()
        node_types = service.node_types() if service is not None else Pack.bundled().node_types
        taken = taken_letters(action.text() for action in self.actions())
        self.kind_actions = {}
        for type_name in form_types(node_types):
            text = with_mnemonic(kind_label(type_name), taken) + "…"
            action = QAction(text, self)
            action.triggered.connect(lambda _=False, name=type_name: self.new_memory(name))
            action.setEnabled(service is not None)
            self.addAction(action)
            self.kind_actions[type_name] = action
        self.button.setEnabled(service is not None)

    def new_memory(self, type_name: str) -> MemoryForm | None:
        """File › New › Fact, Person…: the form for a new memory of ``type_name``."""
        if not self._session.is_open:
            return None
        form = MemoryForm(self._session, self.parentWidget(), type_name=type_name)
        form.saved.connect(self._open_node)
        form.open_requested.connect(self._open_node)
        form.finished.connect(form.deleteLater)
        form.show()
        form.activateWindow()  # the person asked for it: it takes the keyboard
        return form
