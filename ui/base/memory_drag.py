"""A memory dragged out of the window: what it carries, and the mouse handling that starts it.

Dropped on a text editor a memory pastes as its title and text (``text/plain``); an editor
that reads Markdown gets the ``[[Title]]`` link a notes folder understands
(``text/markdown``), a rich-text one the title (``text/html``). The memory's id rides along
under Cairn's own type, so the window knows its own drag: it carries no file, and dropped back
on the window it never starts an ingest. One place builds this, so the detail pane, the
results list and the graph give the same thing.

``DragSource`` starts such a drag from any widget (a label, a list's viewport): it asks its
callback for the data under the mouse when the mouse has moved far enough with the button held.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from PySide6.QtCore import QEvent, QMimeData, QObject, QPoint, Qt
from PySide6.QtGui import QDrag, QMouseEvent
from PySide6.QtWidgets import QApplication, QWidget

MEMORY_TYPE = "application/x-cairn-memory"
MARKDOWN_TYPE = "text/markdown"
# A wikilink's name cannot hold these: notes apps read them as the link's end, an alias or a
# heading.
_NOT_IN_LINKS = re.compile(r"[\[\]|#^]")


def wikilink(title: str) -> str:
    """The ``[[Title]]`` link a person pastes into a note to point at this memory."""
    name = " ".join(_NOT_IN_LINKS.sub(" ", title).split())
    return f"[[{name}]]"


def memory_mime(node_id: str, title: str, body: str = "") -> QMimeData:
    """A memory as a drag or the clipboard carries it."""
    mime = QMimeData()
    mime.setText(f"{title}\n\n{body}" if body.strip() else title)
    mime.setData(MARKDOWN_TYPE, wikilink(title).encode("utf-8"))
    mime.setHtml(f"<p>{html.escape(title)}</p>")
    mime.setData(MEMORY_TYPE, node_id.encode("utf-8"))
    return mime


def is_memory_drag(mime: QMimeData) -> bool:
    """Whether a drop is a memory dragged out of a Cairn window."""
    return mime.hasFormat(MEMORY_TYPE)


def dragged_id(mime: QMimeData) -> str | None:
    if not is_memory_drag(mime):
        return None
    return bytes(mime.data(MEMORY_TYPE).data()).decode("utf-8") or None


MimeAt = Callable[[QPoint], QMimeData | None]


class DragSource(QObject):
    """Starts a drag of what ``mime_at(position)`` gives from ``widget`` (nothing: no drag)."""

    def __init__(self, widget: QWidget, mime_at: MimeAt) -> None:
        super().__init__(widget)
        self._widget = widget
        self._mime_at = mime_at
        self._pressed: QPoint | None = None
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is not self._widget or not isinstance(event, QMouseEvent):
            return False
        if event.type() == QEvent.Type.MouseButtonPress:
            left = event.button() == Qt.MouseButton.LeftButton
            self._pressed = event.position().toPoint() if left else None
        elif event.type() == QEvent.Type.MouseButtonRelease:
            self._pressed = None
        elif event.type() == QEvent.Type.MouseMove and self._pressed is not None:
            moved = (event.position().toPoint() - self._pressed).manhattanLength()
            if moved >= QApplication.startDragDistance():
                start, self._pressed = self._pressed, None
                return self._start(start)
        return False

    def _start(self, position: QPoint) -> bool:
        mime = self._mime_at(position)
        if mime is None:
            return False
        drag = QDrag(self._widget)
        drag.setMimeData(mime)
        # The platform runs the drag until the drop; a drag is the person's own gesture, never
        # something a test or a worker waits on.
        drag.exec(Qt.DropAction.CopyAction)
        return True
