"""What a drag-and-drop hands to Cairn: local files and folders, never anything from the web.

Cairn reads only files on this computer (nothing opens a network connection), so a dropped web
link is refused with a sentence that says what to do instead, rather than silently ignored.
The main window is the one place that takes drops (``MainWindow.dropEvent``); this module says
what a drop holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QMimeData


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
