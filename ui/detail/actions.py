"""What the detail pane's buttons do, apart from the pane: the service calls that run in a
worker, the rules for which actions a memory allows, and the two dialogs (edit, forget).

Editing never overwrites: it writes the new text as a new version and supersedes the old one,
so the history keeps what the memory said before. The pack decides which types may be
superseded (the personal pack: every kind but a document's passage), so only those can be
edited here.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import History, MemoryService, Node, NodeDetail, Pack

SUPERSEDES = "supersedes"


@dataclass(frozen=True)
class Loaded:
    """What the pane shows for one id: the memory and its versions, or nothing if it is gone."""

    asked: str
    detail: NodeDetail | None
    history: History | None


def load_detail(service: MemoryService, node_id: str, use: bool = True) -> Loaded:
    """A memory with its history; ``use``: it counts as used (the person opened it)."""
    scopes = service.scopes()
    got = service.get([node_id], scopes=scopes, use=use)
    if not got.nodes:
        return Loaded(node_id, None, None)
    detail = got.nodes[0]
    return Loaded(node_id, detail, service.history(detail.node.id, scopes=scopes))


def write_new_version(service: MemoryService, old: Node, title: str, body: str) -> str:
    """The edited text as a new version that supersedes ``old`` (one transaction: see
    ``MemoryService.revise``); returns the new id."""
    versions = service.revise(old.id, title, body, scopes=service.scopes())
    return versions.chain[versions.position].id


def supersede(service: MemoryService, old_id: str, new_id: str) -> str:
    service.supersede(old_id, new_id, scopes=service.scopes())
    return new_id


def can_supersede(pack: Pack, node: Node) -> bool:
    """Whether the pack lets a newer memory replace this one (and it is not history already)."""
    if node.status == "superseded":
        return False
    return pack.edge_for(node.type, node.type, (SUPERSEDES,)) is not None


def why_not_editable(pack: Pack, node: Node) -> str:
    if node.status == "superseded":
        return "This is an older version: open the newest one to change it."
    return (
        f"A {node.type} is not edited here: Cairn keeps versions of notes, facts, events and "
        "the like, and the pack does not let one replace another of this kind."
    )


def forget_warning(detail: NodeDetail) -> str:
    """What forgetting removes, said before it happens."""
    node = detail.node
    parts = [f"Forget “{node.title}” for good? This cannot be undone."]
    removed = f"The {node.type.lower()}, its text and attributes, and its links"
    if node.type == "Document":
        removed += ", and every passage read from this file"
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


class EditDialog(QDialog):
    """The title and text of a memory; saving makes a new version."""

    def __init__(self, node: Node, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Edit {node.type.lower()}")
        explanation = QLabel(
            "Saving keeps what it said before as an older version, which the Versions list shows."
        )
        explanation.setWordWrap(True)
        self.title_field = QLineEdit(node.title)
        self.body_field = QPlainTextEdit(node.body)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self._save = buttons.button(QDialogButtonBox.StandardButton.Save)
        self.title_field.textChanged.connect(lambda text: self._save.setEnabled(bool(text.strip())))
        layout = QVBoxLayout(self)
        layout.addWidget(explanation)
        layout.addWidget(QLabel("Title"))
        layout.addWidget(self.title_field)
        layout.addWidget(QLabel("Text"))
        layout.addWidget(self.body_field, 1)
        layout.addWidget(buttons)
        self.resize(560, 420)

    def values(self) -> tuple[str, str]:
        return self.title_field.text().strip(), self.body_field.toPlainText()
