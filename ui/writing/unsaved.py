"""The question a writing window asks before it closes with changes not saved: Save, Discard
or Cancel. It is window-modal and answered through a signal, not a nested event loop: the
window keeps drawing, and a lock meanwhile still clears the text."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def ask_to_save(
    parent: QWidget,
    title: str,
    text: str,
    *,
    save: Callable[[], None],
    discard: Callable[[], None],
) -> QMessageBox:
    """Ask, and call ``save`` or ``discard`` with the answer (nothing for Cancel)."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        title,
        text,
        QMessageBox.StandardButton.Save
        | QMessageBox.StandardButton.Discard
        | QMessageBox.StandardButton.Cancel,
        parent,
    )
    box.setDefaultButton(QMessageBox.StandardButton.Save)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def answered(button: int) -> None:
        if button == QMessageBox.StandardButton.Discard:
            discard()
        elif button == QMessageBox.StandardButton.Save:
            save()

    box.finished.connect(answered)
    box.open()
    return box
