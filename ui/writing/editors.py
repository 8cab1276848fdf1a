"""The editor of a memory, whatever its kind: what the detail pane's Edit opens.

A note (typed in the window, or read from a notes folder) opens the note editor; a fact, a
person, a task and every other kind a person writes by hand opens the form, as an edit that
keeps the old version as history. A stub (a name linked before it was described) opens the
form as the new memory that describes it: the write finds the stub by its name and fills it
in, keeping what links to it. A file's document or section, and an older version, are not
edited here (the file is edited where it lives; an older version is history).
"""

from __future__ import annotations

from pathlib import PurePath

from PySide6.QtWidgets import QDialog, QWidget

from cairn.app.api import Node, is_note_file, shelf_of
from cairn.ui.base.session import Session
from cairn.ui.writing.kinds import NOTE, form_types
from cairn.ui.writing.memory_form import MemoryForm
from cairn.ui.writing.note_editor import NoteEditor


def open_editor(session: Session, node: Node, parent: QWidget | None = None) -> QDialog | None:
    """Show the editor of ``node`` and return it (its ``saved`` signal carries the id of the
    version saved); None when ``node`` is not edited by hand or the vault is locked."""
    service = session.service
    if service is None or node.status == "superseded":
        return None
    editor: QDialog
    if shelf_of(node.type, node.attrs) == NOTE:
        about = ""
        if is_note_file(node.type, node.attrs):
            name = PurePath(node.source or "").name or "its file"
            about = (
                f"Read from {name}. Saving keeps the new text in Cairn as a new version; "
                "the file itself is not changed."
            )
        editor = NoteEditor(session, parent, node, about)
    elif node.type not in form_types(service.node_types()):
        return None
    elif node.status == "stub":
        editor = MemoryForm(session, parent, type_name=node.type, title=node.title)
    else:
        editor = MemoryForm(session, parent, node=node)
    editor.finished.connect(editor.deleteLater)
    editor.show()
    editor.activateWindow()  # the person asked for it: it takes the keyboard
    return editor
