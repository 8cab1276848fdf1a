"""Two memories side by side, for the decisions of the review queue: is the new one the same
as the one already kept? The person needs both texts, where each came from and why the gate
asked, in one glance; a list of titles would make them open both one after the other.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import MemoryPreview, ReviewItem

# The gate's flags in words.
FLAG_WORDS = {
    "possible_contradiction": (
        "The numbers, dates or names differ: one may correct the other. If the new one "
        "replaces the old, keep both; the old one can then be marked as replaced."
    ),
}
KIND_WORDS = {
    "duplicate": "Possibly the same memory",
    "label_conflict": "The same name for two different kinds of thing",
    "revive_candidate": "The same name as an archived memory",
}
SIDE_HEADINGS = {
    "duplicate": ("New", "Already kept"),
    "label_conflict": ("New", "Already kept, with the same name"),
    "revive_candidate": ("New", "Archived, with the same name"),
}


class MemoryCard(QFrame):
    """One memory of the pair: title, type and status, source, text, and Open."""

    open_requested = Signal(str)

    def __init__(self, side: str, parent: QWidget | None = None) -> None:
        """``side``: which memory of the pair it shows, as a screen reader says it ("the new
        memory")."""
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName(side.capitalize())
        self._id: str | None = None
        self.heading = QLabel("")
        self.title = QLabel("")
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.kind = QLabel("")
        self.source = QLabel("")
        self.source.setWordWrap(True)
        self.source.setTextFormat(Qt.TextFormat.PlainText)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setAccessibleName(f"Text of {side}")
        self.open_button = QPushButton("Open")
        self.open_button.setAccessibleName(f"Open {side}")
        self.open_button.setToolTip("Show it in the detail pane.")
        self.open_button.clicked.connect(self._open)
        layout = QVBoxLayout(self)
        for widget in (self.heading, self.title, self.kind, self.source, self.text):
            layout.addWidget(widget)
        layout.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignLeft)

    def show_memory(self, heading: str, preview: MemoryPreview | None, source: str | None) -> None:
        self.heading.setText(heading)
        if preview is None:  # merged away or moved out of sight since the list was read
            self._id = None
            self.title.setText("(no longer there)")
            for label in (self.kind, self.source):
                label.setText("")
            self.text.setPlainText("")
            self.open_button.setEnabled(False)
            return
        self._id = preview.id
        self.title.setText(preview.title or "(untitled)")
        when = preview.recorded_at[:10]
        self.kind.setText(" · ".join(p for p in (preview.shelf, preview.status, when) if p))
        self.source.setText(f"From {source}" if source else "Written in Cairn")
        empty = "(no text)"
        if preview.shelf == "Document":  # a PDF's or a recording's text is in its passages
            empty = "(A file: its text is in its passages. Open it to read them.)"
        self.text.setPlainText(preview.text or empty)
        self.open_button.setEnabled(True)

    def clear(self) -> None:
        self._id = None
        for label in (self.heading, self.title, self.kind, self.source):
            label.setText("")
        self.text.setPlainText("")
        self.open_button.setEnabled(False)

    def _open(self) -> None:
        if self._id:
            self.open_requested.emit(self._id)


class CompareView(QWidget):
    """A review item: what the gate saw (score, reason, flags) over the two memories."""

    open_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.headline = QLabel("")
        font = self.headline.font()
        font.setBold(True)
        self.headline.setFont(font)
        self.why = QLabel("")
        self.why.setWordWrap(True)
        self.why.setTextFormat(Qt.TextFormat.PlainText)
        self.new = MemoryCard("the new memory")
        self.kept = MemoryCard("the memory already kept")
        for card in (self.new, self.kept):
            card.open_requested.connect(self.open_requested)
        layout = QGridLayout(self)
        layout.addWidget(self.headline, 0, 0, 1, 2)
        layout.addWidget(self.why, 1, 0, 1, 2)
        layout.addWidget(self.new, 2, 0)
        layout.addWidget(self.kept, 2, 1)
        layout.setRowStretch(2, 1)

    def show_item(self, item: ReviewItem, sources: dict[str, str | None]) -> None:
        self.headline.setText(KIND_WORDS.get(item.kind, item.kind))
        self.why.setText(explain(item))
        new_heading, kept_heading = SIDE_HEADINGS.get(item.kind, ("New", "Already kept"))
        for card, heading, side in (
            (self.new, new_heading, item.node),
            (self.kept, kept_heading, item.other),
        ):
            card.show_memory(heading, side, sources.get(side.id) if side else None)

    def clear(self) -> None:
        self.headline.setText("")
        self.why.setText("")
        self.new.clear()
        self.kept.clear()


def explain(item: ReviewItem) -> str:
    """Why the gate asked, in words: its reason, the similarity, and each flag."""
    parts = [item.reason[:1].upper() + item.reason[1:]] if item.reason else []
    if (
        item.kind == "duplicate"
        and item.score is not None
        and f"{item.score:.2f}" not in item.reason
    ):
        parts.append(f"Similarity {item.score:.0%}.")
    parts += [FLAG_WORDS.get(flag, flag.replace("_", " ")) for flag in item.flags]
    return " ".join(p if p.endswith(".") else p + "." for p in parts)
