"""What a drag-and-drop hands to Cairn: local files and folders, never anything from the web.

Cairn reads only files on this computer (nothing opens a network connection), so a dropped web
link is refused with a sentence that says what to do instead, rather than silently ignored.
``FileDropFilter`` lets the main window accept drops anywhere on itself with one line:

    drops = FileDropFilter(window)
    drops.paths_dropped.connect(ingest_panel.start)
    drops.refused.connect(window.show_message)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QMimeData, QObject, Signal
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QWidget


@dataclass(frozen=True)
class Dropped:
    """The local paths of a drop, in the order given, each once; and what was refused."""

    paths: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # the URLs that are not local files

    @property
    def message(self) -> str | None:
        """The sentence to show when something was refused, else None."""
        if not self.refused:
            return None
        shown = self.refused[0] if len(self.refused) == 1 else f"{len(self.refused)} links"
        kept = " The files dropped with it are being added." if self.paths else ""
        return (
            f"Cairn only adds files from this computer, so it did not fetch {shown}. "
            f"Download it first, then drop the downloaded file.{kept}"
        )


def read_drop(mime: QMimeData) -> Dropped:
    """Split a drop's URLs into local paths (files and folders) and refused links."""
    paths: list[str] = []
    refused: list[str] = []
    for url in mime.urls():
        if url.isLocalFile():
            path = url.toLocalFile()
            if path and path not in paths:
                paths.append(path)
        elif not url.isEmpty():
            refused.append(url.toDisplayString())
    return Dropped(paths, refused)


def local_paths(mime: QMimeData) -> list[str]:
    """The local files and folders a drop names; anything else is left out (see
    ``read_drop`` for what was left out and the sentence to show)."""
    return read_drop(mime).paths


def carries_urls(mime: QMimeData) -> bool:
    """Whether a drag is worth accepting at all: it names files or links."""
    return mime.hasUrls()


class FileDropFilter(QObject):
    """Accepts file drops on ``target`` (and on its children that do not take drops
    themselves): ``paths_dropped`` with the local paths, ``refused`` with the sentence to show
    when links from the web were dropped."""

    paths_dropped = Signal(list)  # list[str]
    refused = Signal(str)

    def __init__(self, target: QWidget) -> None:
        super().__init__(target)
        target.setAcceptDrops(True)
        target.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            # QDragEnterEvent and QDragMoveEvent are QDropEvents: one check covers the three.
            assert isinstance(event, QDropEvent)
            mime = event.mimeData()
            if mime is None or not carries_urls(mime):
                return False
            event.acceptProposedAction()
            if kind == QEvent.Type.Drop:
                self.handle(mime)
            return True
        return super().eventFilter(watched, event)

    def handle(self, mime: QMimeData) -> Dropped:
        """Emit what a drop means; returns it (the main window may also call this for a
        paste of copied files)."""
        dropped = read_drop(mime)
        if dropped.message:
            self.refused.emit(dropped.message)
        if dropped.paths:
            self.paths_dropped.emit(dropped.paths)
        return dropped
