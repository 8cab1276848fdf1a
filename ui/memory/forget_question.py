"""The question before a memory is forgotten for good: what goes with it, said before it
happens, and a button named for what it does. Forget is the only deletion and is never undone,
so the question is asked wherever Forget is offered (the detail pane, a memory's menu)."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from cairn.app.api import NodeDetail


def forget_warning(detail: NodeDetail) -> str:
    """What forgetting removes, said before it happens."""
    node = detail.node
    parts = [f"Forget “{node.title}” for good? This cannot be undone."]
    removed = f"The {node.type.lower()}, its text and attributes, and its links"
    if node.type == "Document":
        removed += ", and every section read from its file (the file itself stays)"
    parts.append(removed + " will be deleted from the vault.")
    if detail.edge_counts.incoming or detail.edge_counts.outgoing:
        parts.append("The memories it is linked to stay; only the links go.")
    parts.append("To hide it but keep it, archive it instead.")
    return " ".join(parts)


def confirm_forget(parent: QWidget, detail: NodeDetail) -> QMessageBox:
    """The confirmation, with the destructive button named for what it does."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Forget this memory?")
    box.setText(forget_warning(detail))
    box.addButton("Forget for good", QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(box.addButton(QMessageBox.StandardButton.Cancel))
    return box
