"""Labels that would show their "&" as it is: a label with a mnemonic needs a buddy (the field
its key jumps to). QFormLayout gives one to a row whose field is a widget, never to a row whose
field is a layout, which is how "&Save in:" once reached the screen."""

from __future__ import annotations

import re

from PySide6.QtWidgets import QLabel, QWidget

# One "&" before a character that is not another "&" ("&&" is how a label shows one "&").
MNEMONIC = re.compile(r"(?<!&)&(?!&)\S")


def literal_ampersands(root: QWidget) -> list[str]:
    """The texts of the labels under ``root`` that show a mnemonic's "&" instead of using it."""
    return [
        label.text()
        for label in root.findChildren(QLabel)
        if "<" not in label.text()  # rich text writes "&amp;", and has no mnemonic
        and MNEMONIC.search(label.text())
        and label.buddy() is None
    ]
