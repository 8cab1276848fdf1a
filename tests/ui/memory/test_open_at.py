"""Opening a memory's source says only what happened: which program the desktop would open a
kind of file with (the freedesktop.org associations, read from a desktop laid out in the
test's folder), "No program here opens PDFs" with Show in folder when there is none, and a
plain sentence when the folder cannot be shown either. Nothing is claimed opened that was not.
The offscreen platform of the tests starts no program, which is what the last test shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cairn.app.ingestion.request import IngestRequest
from cairn.ui.base.session import Session
from cairn.ui.memory import desktop_apps
from cairn.ui.memory.open_at import kind_name, show_in_folder
from tests.app.ingest_files import pdf_bytes
from tests.ui.detail.test_detail_pane import make_pane, service_of, show


@pytest.fixture
def desktop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty desktop: no application, no association, no viewer on PATH."""
    root = tmp_path / "desktop"
    for name in ("home-data", "system-data", "home-config", "system-config", "bin"):
        (root / name).mkdir(parents=True)
    monkeypatch.setenv("XDG_DATA_HOME", str(root / "home-data"))
    monkeypatch.setenv("XDG_DATA_DIRS", str(root / "system-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "home-config"))
    monkeypatch.setenv("XDG_CONFIG_DIRS", str(root / "system-config"))
    (root / "bin" / "viewer").write_text("#!/bin/sh\nexit 0\n")
    (root / "bin" / "viewer").chmod(0o755)
    monkeypatch.setenv("PATH", str(root / "bin"))
    return root


def install(desktop: Path, desktop_id: str, lines: str, where: str = "system-data") -> None:
    folder = desktop / where / "applications"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / desktop_id).write_text(f"[Desktop Entry]\nType=Application\n{lines}\n")


def test_the_desktops_application_for_a_kind_of_file(desktop: Path) -> None:
    assert desktop_apps.application_for_type("application/pdf") is None
    install(
        desktop, "reader.desktop", "Name=Page Reader\nExec=viewer %f\nMimeType=application/pdf;"
    )
    install(desktop, "gone.desktop", "Name=Gone\nExec=not-installed %f\nMimeType=text/plain;")
    found = desktop_apps.application_for_type("application/pdf")
    assert found == desktop_apps.DesktopApp("reader.desktop", "Page Reader")
    # A program that is not installed opens nothing.
    assert desktop_apps.application_for_type("text/plain") is None

    # The person's default comes first; the person's own entry may hide a system one.
    install(desktop, "editor.desktop", "Name=Editor\nExec=viewer\nMimeType=text/plain;")
    lists = desktop / "home-config" / "mimeapps.list"
    lists.write_text("[Default Applications]\napplication/pdf=editor.desktop;\n")
    assert _name_for("application/pdf") == "Editor"
    install(desktop, "editor.desktop", "Name=Editor\nHidden=true", where="home-data")
    assert _name_for("application/pdf") == "Page Reader"

    # A folder's cache of associations is read when it has one; Markdown is plain text too.
    cache = desktop / "system-data" / "applications" / "mimeinfo.cache"
    cache.write_text("[MIME Cache]\ntext/plain=reader.desktop;\n")
    note = desktop / "note.md"
    note.write_text("# A note\n")
    assert desktop_apps.application_for(note) == found
    assert desktop_apps.application_for(desktop) is None  # no file manager


def _name_for(mime_type: str) -> str | None:
    found = desktop_apps.application_for_type(mime_type)
    return found.name if found is not None else None


def test_no_program_for_pdfs_says_so_and_offers_the_folder(
    qtbot: Any, open_session: Session, tmp_path: Path, desktop: Path
) -> None:
    service = service_of(open_session)
    pdf = tmp_path / "tide-tables.pdf"
    pdf.write_bytes(pdf_bytes([["Tide tables."], ["Spring tides peak in March."]]))
    assert not service.ingest(IngestRequest.of([pdf])).failed
    hits = service.search("spring tides march", scopes=service.scopes(), limit=5).results
    passage = next(hit for hit in hits if hit.type == "Passage")
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, passage.id)
    assert not pane.folder_button.isVisible()

    pane.open_button.click()
    assert pane.notice.text() == "No program here opens PDFs; install one, or Show in folder."
    assert "Opened" not in pane.notice.text()
    assert pane.folder_button.isVisible() and pane.folder_button.accessibleName()

    pane.folder_button.click()  # no file manager either: said plainly, with where the file is
    assert (
        pane.notice.text()
        == f"No file manager here opens folders either. The file is in {tmp_path}."
    )
    assert not pane.folder_button.isVisible()


@pytest.mark.qt_log_ignore("This plugin does not support QPlatformServices::openDocument")
def test_a_program_the_desktop_did_not_start_is_not_called_opened(
    qtbot: Any, open_session: Session, tmp_path: Path, desktop: Path
) -> None:
    install(
        desktop, "reader.desktop", "Name=Page Reader\nExec=viewer %f\nMimeType=application/pdf;"
    )
    install(desktop, "files.desktop", "Name=Files\nExec=viewer %U\nMimeType=inode/directory;")
    service = service_of(open_session)
    pdf = tmp_path / "harbour.pdf"
    pdf.write_bytes(pdf_bytes([["The harbour crane."]]))
    assert not service.ingest(IngestRequest.of([pdf])).failed
    document = service.sources()[0].document_id
    pane = make_pane(qtbot, open_session)
    show(qtbot, pane, document)
    pane.open_button.click()
    assert pane.notice.text() == (
        f"The desktop did not start Page Reader for harbour.pdf. Show in folder, or open it "
        f"yourself: it is in {tmp_path}."
    )
    assert pane.folder_button.isVisible()
    said = show_in_folder(str(pdf))
    assert (
        not said.ok
        and said.message == f"The desktop did not start Files. The file is in {tmp_path}."
    )


def test_kinds_of_file_are_named_as_a_person_says_them() -> None:
    assert kind_name(Path("/a/linn.pdf")) == "PDFs"
    assert kind_name(Path("/a/talk.MP3")) == "recordings"
    assert kind_name(Path("/a/scan.tiff")) == "pictures"
    assert kind_name(Path("/a/letter.docx")) == "DOCX files"
