"""The window's file and folder choosers, opened without blocking: a nested event loop (the static
``QFileDialog.get…`` calls) would hold every worker's answer until the dialog closed, and a
test could not drive it. Each returns the dialog, open; what is chosen goes to ``chosen``."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QFileDialog, QWidget


def choose_files(
    parent: QWidget, caption: str, chosen: Callable[[list[str]], object]
) -> QFileDialog:
    dialog = _dialog(parent, caption, QFileDialog.FileMode.ExistingFiles)
    dialog.filesSelected.connect(chosen)
    dialog.open()
    return dialog


def choose_folder(parent: QWidget, caption: str, chosen: Callable[[str], object]) -> QFileDialog:
    dialog = _dialog(parent, caption, QFileDialog.FileMode.Directory)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    dialog.fileSelected.connect(chosen)
    dialog.open()
    return dialog


def _dialog(parent: QWidget, caption: str, mode: QFileDialog.FileMode) -> QFileDialog:
    dialog = QFileDialog(parent, caption)
    dialog.setAccessibleName(caption)
    dialog.setFileMode(mode)
    dialog.finished.connect(dialog.deleteLater)
    return dialog
