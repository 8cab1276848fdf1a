"""What the detail pane asks before an act: the memory that replaces the one shown, the memory
to link it to and how, and whether to forget it for good.

Each question opens window-modal without a nested event loop (``open``, not ``exec``: the
window keeps drawing, and a lock meanwhile still closes it), calls ``then`` with the answer
only when the person accepts, and is deleted once it closes, so a used dialog does not stay
behind as a hidden child of the pane. Each returns its dialog, for a test to answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QMessageBox, QWidget

from cairn.app.api import Node, NodeDetail, Pack
from cairn.ui.base.session import Session
from cairn.ui.memory.forget_question import confirm_forget
from cairn.ui.memory.pickers import LinkDialog, LinkOption, MemoryPicker
from cairn.ui.rows.results_model import ResultRow

Asking = TypeVar("Asking", bound=QDialog)


def ask_replacement(
    session: Session, pack: Pack, node: Node, parent: QWidget, then: Callable[[str], None]
) -> MemoryPicker:
    """Replace with…: the newer memory, of a kind the pack lets replace ``node``; ``then``
    gets its id."""
    picker = MemoryPicker(
        session,
        "Replace with a newer memory",
        f"Find the memory that replaces “{node.title}”. This one stays as an older version.",
        accepts=lambda other: pack.edge_for(other, node.type, ("supersedes",)) is not None,
        exclude=frozenset({node.id}),
        parent=parent,
    )

    def accepted() -> None:
        row = picker.chosen()
        if row is not None:
            then(str(row.node_id))

    return _open_once(picker, accepted)


def ask_link(
    session: Session,
    pack: Pack,
    node: Node,
    parent: QWidget,
    then: Callable[[ResultRow, LinkOption], None],
) -> LinkDialog:
    """Link…: the other memory and how the two are related; ``then`` gets both."""
    dialog = LinkDialog(session, pack, node.id, node.type, node.title, parent)

    def accepted() -> None:
        chosen = dialog.chosen_link()
        if chosen is not None:
            then(*chosen)

    return _open_once(dialog, accepted)


def ask_forget(detail: NodeDetail, parent: QWidget, then: Callable[[], None]) -> QMessageBox:
    """Forget…: what goes with the memory, said first; ``then`` runs only if the person
    presses the button named for it."""
    box = confirm_forget(parent, detail)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def answered(button: Any) -> None:
        if box.buttonRole(button) == QMessageBox.ButtonRole.DestructiveRole:
            then()

    box.buttonClicked.connect(answered)
    box.open()
    return box


def _open_once(dialog: Asking, accepted: Callable[[], None]) -> Asking:
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.accepted.connect(accepted)
    dialog.open()
    return dialog
