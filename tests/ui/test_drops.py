"""Drops hand Cairn local files and folders; web links are refused with a sentence (real
QMimeData and real drop events)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget

from cairn.ui.drops import FileDropFilter, local_paths, read_drop


def _mime(*urls: QUrl) -> QMimeData:
    mime = QMimeData()
    mime.setUrls(list(urls))
    return mime


def _files(tmp_path: Path) -> tuple[Path, Path]:
    note = tmp_path / "note.md"
    note.write_text("# A note\n", encoding="utf-8")
    folder = tmp_path / "notes folder"
    folder.mkdir()
    return note, folder


def test_local_files_and_folders_are_kept_in_order_and_web_links_refused(
    qtbot: object, tmp_path: Path
) -> None:
    note, folder = _files(tmp_path)
    mime = _mime(
        QUrl.fromLocalFile(str(note)),
        QUrl("https://example.org/paper.pdf"),
        QUrl.fromLocalFile(str(folder)),
        QUrl.fromLocalFile(str(note)),  # named twice: once
    )
    assert local_paths(mime) == [str(note), str(folder)]
    dropped = read_drop(mime)
    assert dropped.refused == ["https://example.org/paper.pdf"]
    assert dropped.message is not None
    assert "https://example.org/paper.pdf" in dropped.message
    assert "Download it first" in dropped.message
    assert "being added" in dropped.message  # the local ones still are


def test_a_drop_of_only_links_gives_no_paths(qtbot: object) -> None:
    mime = _mime(QUrl("http://example.org/a"), QUrl("ftp://example.org/b"))
    assert local_paths(mime) == []
    dropped = read_drop(mime)
    assert dropped.message is not None and "2 links" in dropped.message
    assert "being added" not in dropped.message
    assert read_drop(_mime()).message is None
    text_only = QMimeData()
    text_only.setText("just words")
    assert local_paths(text_only) == []


def test_the_drop_filter_accepts_files_dropped_on_the_window(qtbot: object, tmp_path: Path) -> None:
    note, folder = _files(tmp_path)
    window = QWidget()
    qtbot.addWidget(window)  # type: ignore[attr-defined]
    drops = FileDropFilter(window)
    assert window.acceptDrops()
    dropped: list[list[str]] = []
    refused: list[str] = []
    drops.paths_dropped.connect(dropped.append)
    drops.refused.connect(refused.append)
    mime = _mime(
        QUrl.fromLocalFile(str(note)),
        QUrl.fromLocalFile(str(folder)),
        QUrl("https://example.org/x"),
    )
    at = QPointF(5, 5)
    enter_at = QPoint(5, 5)  # a drag enters at a whole pixel (Qt's QDragEnterEvent)
    action = Qt.DropAction.CopyAction
    buttons, keys = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(enter_at, action, mime, buttons, keys)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(at, action, mime, buttons, keys)
    QApplication.sendEvent(window, drop)
    assert drop.isAccepted()
    assert dropped == [[str(note), str(folder)]]
    assert len(refused) == 1 and "https://example.org/x" in refused[0]

    words = QMimeData()
    words.setText("not a file")
    ignored = QDragEnterEvent(enter_at, action, words, buttons, keys)
    ignored.ignore()
    QApplication.sendEvent(window, ignored)
    assert not ignored.isAccepted()
