"""A memory's text in the detail pane: a note rendered from its Markdown (headings, lists,
emphasis, links as words), any other text as written, with the words of the search that found
it marked, and a section scrolled to and marked when it was a section that was opened.

The widget is as tall as its text (the pane scrolls, not the text), read-only and selectable.
Marks are only drawn (Qt's extra selections): the text itself is never changed. A mark is a
background colour and bold, and the line above the text says in words how many there are, so
it is not told by colour alone.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QFont,
    QPalette,
    QResizeEvent,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QTextEdit, QWidget

from cairn.app.api import link_target, readable_snippet, reading_markdown

MARK_LIGHT = QColor("#ffe98a")  # a highlighter's yellow on a light page
MARK_DARK = QColor("#7a6400")  # the same, dimmed for a dark one
SECTION_LIGHT = QColor("#dbe9ff")
SECTION_DARK = QColor("#203a5e")
MIN_WORD = 2  # shorter query words ("a", "I") would mark half the text
_WORD = re.compile(r"\w+", re.UNICODE)
# Words too common to be worth marking; the search leaves them out for the same reason.
_COMMON = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "my",
        "me",
        "do",
        "did",
        "does",
    ]
)


def query_words(query: str) -> list[str]:
    """The words of ``query`` worth marking in a text, each once, longest first (so a longer
    word is marked whole where a shorter one is its start)."""
    words = {w.casefold() for w in _WORD.findall(query)}
    kept = [w for w in words if len(w) >= MIN_WORD and w not in _COMMON]
    return sorted(kept, key=lambda w: (-len(w), w))


class NoteText(QTextBrowser):
    link_opened = Signal(str)  # a [[link]] clicked: the name of the memory it names

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setOpenLinks(False)  # a [[link]] opens its memory here; a web link, the browser
        self.anchorClicked.connect(self._clicked)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Text")
        self.viewport().setAutoFillBackground(False)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self.marks = 0  # how many places are marked for the search's words
        self._section: QTextEdit.ExtraSelection | None = None
        self._words: list[QTextEdit.ExtraSelection] = []

    # -- content --------------------------------------------------------------------------

    def show_text(self, text: str, *, markdown: bool, query: str = "") -> None:
        """Show ``text`` (rendered when it is Markdown) with ``query``'s words marked."""
        self._section = None
        if markdown:
            self.setMarkdown(reading_markdown(text))
        else:
            self.setPlainText(text)
        self.mark_words(query)
        self._fit()

    def mark_words(self, query: str) -> None:
        """Mark every place a word of ``query`` starts a word of the text (so "garden" marks
        "gardens" too, as the search's stemming would find it)."""
        selections: list[QTextEdit.ExtraSelection] = []
        document = self.document()
        look = QTextCharFormat()
        look.setBackground(self._colour(MARK_LIGHT, MARK_DARK))
        look.setFontWeight(QFont.Weight.Bold)
        marked: set[tuple[int, int]] = set()
        for word in query_words(query):
            cursor = QTextCursor(document)
            while True:
                cursor = document.find(word, cursor)
                if cursor.isNull():
                    break
                if not _starts_word(document, cursor.selectionStart()):
                    continue
                _to_word_end(document, cursor)
                span = (cursor.selectionStart(), cursor.selectionEnd())
                if any(a <= span[0] < b for a, b in marked):
                    continue  # inside a longer word's mark already
                marked.add(span)
                selection = QTextEdit.ExtraSelection()
                selection.cursor = QTextCursor(cursor)
                selection.format = look
                selections.append(selection)
        self._words = selections
        self.marks = len(selections)
        self._apply()

    def focus_section(self, section_text: str) -> int | None:
        """Mark where a section's text begins, and say where (a y offset in this widget) so
        the pane can scroll there; None when it is not found (the text was edited since)."""
        first = next((line for line in readable_snippet(section_text).split("\n") if line), "")
        if not first:
            return None
        cursor = self.document().find(first[:80])
        if cursor.isNull():
            return None
        block = cursor.block()
        selection = QTextEdit.ExtraSelection()
        selection.cursor = QTextCursor(block)
        selection.cursor.select(QTextCursor.SelectionType.BlockUnderCursor)
        selection.format.setBackground(self._colour(SECTION_LIGHT, SECTION_DARK))
        selection.format.setProperty(QTextCharFormat.Property.FullWidthSelection, True)
        self._section = selection
        self._apply()
        return int(self.cursorRect(cursor).top())

    def _clicked(self, url: QUrl) -> None:
        name = link_target(url.toString())
        if name is not None:
            self.link_opened.emit(name)
        elif url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)  # the person's browser or mail program, not Cairn

    # -- sizing -------------------------------------------------------------------------------

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._text_height())

    def _fit(self) -> None:
        self.setFixedHeight(self._text_height())

    def _text_height(self) -> int:
        margins = self.contentsMargins()
        height = self.document().size().height()
        return int(height) + margins.top() + margins.bottom() + 2

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.document().setTextWidth(self.viewport().width())
        self._fit()

    # -- helpers ------------------------------------------------------------------------------

    def _apply(self) -> None:
        extra = ([self._section] if self._section else []) + self._words
        self.setExtraSelections(extra)

    def _colour(self, light: QColor, dark: QColor) -> QColor:
        window = self.palette().color(QPalette.ColorRole.Base)
        return dark if window.lightness() < 128 else light


def _to_word_end(document: QTextDocument, cursor: QTextCursor) -> None:
    """Stretch a match to the end of its word: "note" found in "Notes" marks "Notes"."""
    end = cursor.selectionEnd()
    while document.characterAt(end).isalnum():
        end += 1
    cursor.setPosition(cursor.selectionStart())
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)


def _starts_word(document: QTextDocument, position: int) -> bool:
    return position == 0 or not document.characterAt(position - 1).isalnum()
