"""A light Markdown highlighter for the note editor: headings, emphasis, code, ``[[links]]`` and
#tags stand out while the text stays the plain Markdown that is saved.

Qt renders Markdown itself (``QTextDocument.setMarkdown``) for the preview; while writing, a
few regular expressions per block are all a note needs, and they cost nothing per keystroke.
"""

from __future__ import annotations

import re

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

# [[Target]] while it is being typed: the text after the last "[[" of the line, up to the cursor.
OPEN_LINK = re.compile(r"\[\[([^\[\]\n|#]*)$")
_IN_CODE = 1  # block state: inside a fenced code block

_SPANS = [
    (re.compile(r"^#{1,6}\s.*$"), "heading"),
    (re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__"), "strong"),
    (re.compile(r"(?<![*\w])\*[^*\n]+\*(?!\*)|(?<![_\w])_[^_\n]+_(?!_)"), "emphasis"),
    (re.compile(r"`[^`\n]+`"), "code"),
    (re.compile(r"\[\[[^\]\n]+\]\]|\[[^\]\n]+\]\([^)\n]+\)"), "link"),
    (re.compile(r"(?<![\w&])#[\w/-]+"), "tag"),
]


def _formats() -> dict[str, QTextCharFormat]:
    formats: dict[str, QTextCharFormat] = {}
    for name in ("heading", "strong", "emphasis", "code", "link", "tag"):
        formats[name] = QTextCharFormat()
    formats["heading"].setFontWeight(QFont.Weight.Bold)
    formats["strong"].setFontWeight(QFont.Weight.Bold)
    formats["emphasis"].setFontItalic(True)
    formats["code"].setFontFamilies(["monospace"])
    formats["link"].setForeground(QColor("#2a6fb0"))
    formats["link"].setFontUnderline(True)
    formats["tag"].setForeground(QColor("#7a4fb0"))
    return formats


class MarkdownHighlighter(QSyntaxHighlighter):
    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._formats = _formats()

    def highlightBlock(self, text: str) -> None:
        fence = text.lstrip().startswith("```")
        in_code = self.previousBlockState() == _IN_CODE
        if in_code or fence:
            self.setFormat(0, len(text), self._formats["code"])
            self.setCurrentBlockState(0 if (in_code and fence) else _IN_CODE)
            return
        self.setCurrentBlockState(0)
        for pattern, name in _SPANS:
            for match in pattern.finditer(text):
                self.setFormat(match.start(), match.end() - match.start(), self._formats[name])
