"""Drops hand Cairn local files and folders; web links are refused with a sentence (real
QMimeData and real drop events)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QUrl

from cairn.ui.ingest.drops import read_drop


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
    assert read_drop(mime).paths == [str(note), str(folder)]
    dropped = read_drop(mime)
    assert dropped.refused == ["https://example.org/paper.pdf"]
    assert dropped.message is not None
    assert "https://example.org/paper.pdf" in dropped.message
    assert "Download it first" in dropped.message
    assert "being added" in dropped.message  # the local ones still are


def test_a_drop_of_only_links_gives_no_paths(qtbot: object) -> None:
    mime = _mime(QUrl("http://example.org/a"), QUrl("ftp://example.org/b"))
    assert read_drop(mime).paths == []
    dropped = read_drop(mime)
    assert dropped.message is not None and "2 links" in dropped.message
    assert "being added" not in dropped.message
    assert read_drop(_mime()).message is None
    text_only = QMimeData()
    text_only.setText("just words")
    assert read_drop(text_only).paths == []
