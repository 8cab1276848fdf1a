"""``make screenshots``: render each main view of the window into PNG files for the README.

Runs the real window on a new vault in a temporary data folder (nothing of the person's own
data is touched), fills it with a few invented notes and files, and grabs: the create/unlock
screen, the welcome of a new vault, search results, a note in the detail pane, an ingest in
progress, the review panel, the graph, the note editor, a form, and the command palette.
Under Xvfb (the Makefile starts it) the window is drawn as on a desktop.

    python -m cairn.ui.shell.screenshots OUTPUT_DIR
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from cairn.app.api import IngestRequest

if TYPE_CHECKING:  # imported in _shoot, once the data folder is set
    from cairn.ui.shell.main_window import MainWindow

PASSPHRASE = "screenshot passphrase, long enough"  # noqa: S105 - a throwaway vault
SIZE = (1360, 860)
NOTES = {
    "garden.md": "# Garden plan\n\nLena Vos suggested moving the herb bed next to the pond. "
    "The tomatoes need more sun; try the south wall. Order seeds from Green Acre Ltd before "
    "March.\n\n## Watering\n\nWater early in the morning. The rain barrel holds 200 litres.",
    "trip.md": "# Trip to Lisbon\n\nFlights booked for 12 May. Lena Vos recommends the tram "
    "to Belém and the bookshop on Rua do Carmo. Museum passes are cheaper online.\n\n"
    "See [[Garden plan]] for what to ask the neighbours while away.",
    "pharmacy.txt": "The pharmacy on Baker Street opens at eight on weekdays and closes at "
    "six. Lena Vos works there on Tuesdays and Thursdays.",
    "recipe.md": "# Bread\n\n500 g flour, 350 g water, 10 g salt, a spoon of starter. Knead, "
    "rest overnight, bake at 230 degrees for 40 minutes.",
}
MANY = 14  # files of the ingest that is shown in progress


def wait_until(done: Callable[[], bool], timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError("the window did not get there in time")
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        time.sleep(0.01)


def settle(ms: int = 300) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def grab(widget: QWidget, out: Path, name: str) -> None:
    settle()
    path = out / name
    widget.grab().save(str(path))
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0] if args else "docs/screenshots").resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cairn-shots-") as scratch:
        home = Path(scratch)
        os.environ["CAIRN_DATA_DIR"] = str(home / "data")
        os.environ["XDG_CONFIG_HOME"] = str(home / "config")
        app = QApplication.instance() or QApplication([])
        assert isinstance(app, QApplication)
        app.setOrganizationName("Cairn screenshots")
        app.setApplicationName("Cairn")
        return _shoot(app, home, out)


def _shoot(app: QApplication, home: Path, out: Path) -> int:
    from cairn.app import api
    from cairn.ui.shell.main_window import MainWindow

    window = MainWindow()
    window.resize(*SIZE)
    window.show()
    grab(window, out, "01-unlock.png")

    vault = api.Config.from_environment().default_vault
    window.session.create(vault, PASSPHRASE)
    wait_until(lambda: window.session.is_open)
    service = window.session.service
    assert service is not None
    wait_until(lambda: window.welcome.panel.isVisible(), 30)
    grab(window, out, "00-welcome.png")
    notes = home / "notes"
    notes.mkdir()
    for name, text in NOTES.items():
        (notes / name).write_text(text, encoding="utf-8")
    service.write("Person", "Lena Vos", attrs={"occupation": "pharmacist"})
    service.write("Project", "Garden", "Herbs, tomatoes and the pond.")
    service.ingest(IngestRequest.of([notes]))
    # A near-copy, so the review panel has something to show.
    (home / "trip-copy.md").write_text(
        NOTES["trip.md"].replace("12 May", "14 May"), encoding="utf-8"
    )
    service.ingest(IngestRequest.of([home / "trip-copy.md"]))
    window.session.changed.emit()

    search = window.workspace.search
    shown: list[str] = []
    search.results_shown.connect(shown.append)
    search.search_field.setText("who works at the pharmacy")
    wait_until(lambda: bool(shown))
    grab(window, out, "02-search.png")
    garden = [
        hit.id
        for hit in service.search("herb bed by the pond", scopes=service.scopes()).results
        if hit.title == "garden"
    ]
    if garden:  # a note read from the folder: its text rendered, the search's words marked
        shown.clear()
        search.search_field.setText("herb bed by the pond")
        wait_until(lambda: bool(shown))
        window.open_node(garden[0], "herb bed by the pond")
        wait_until(lambda: _detail_shows(window, garden[0]))
        grab(window, out, "03-detail.png")
    lena = service.search("Lena Vos", scopes=service.scopes()).results

    many = home / "inbox"
    many.mkdir()
    for number in range(MANY):
        (many / f"letter-{number:02d}.md").write_text(
            f"# Letter {number}\n\n" + NOTES["garden.md"] * 3, encoding="utf-8"
        )
    window.ingest_paths([str(many)])  # the ingest dock comes forward with it
    ingest = window.workspace.ingest
    wait_until(lambda: "reading" in ingest.stage_text.lower())
    grab(window, out, "04-ingest.png")
    wait_until(lambda: not ingest.is_running, 300)

    window.show_review()
    review = window.workspace.review
    review.refresh()
    wait_until(lambda: not review.is_loading)
    waiting = review.section_counts().get("duplicate", 0)
    if waiting:  # the first pair side by side, as a person working the queue sees it
        first = next(key for key in review.entry_keys() if key.startswith("item:"))
        review.select(first)
    grab(window, out, "05-review.png")

    window.show_graph()
    graph = window.workspace.graph
    if lena:
        shown_pictures: list[bool] = []
        graph.picture_shown.connect(lambda: shown_pictures.append(True))
        graph.show_ego(lena[0].id)
        wait_until(lambda: bool(shown_pictures), 60)
        settle(500)
        graph.canvas.fit()
    grab(window, out, "06-graph.png")
    window.focus_search()

    editor = window.new_note()
    if editor is not None:
        editor.title.setText("Seeds to order")
        editor.body.setPlainText("- basil\n- **cherry tomatoes** for [[Garden]]\n")
        editor.tags.setText("garden, spring")
        editor.move(window.geometry().center() - editor.rect().center())
        grab(editor, out, "07-note-editor.png")
        editor.body.document().setModified(False)
        editor.done(0)
    form = window.new_menu.new_memory("Person")
    if form is not None:
        form.title.setText("Ada Lindqvist")
        form.body.setPlainText("Repairs wooden boats at the harbour.")
        grab(form, out, "08-form.png")
        form.done(0)
    palette = window.open_command_palette()
    palette.filter.setText("new")
    grab(window, out, "09-command-palette.png")
    palette.close()
    window.session.lock()
    window.close()
    app.processEvents()
    return 0


def _detail_shows(window: MainWindow, node_id: str) -> bool:
    return window.workspace.detail.current_node_id == node_id


if __name__ == "__main__":
    sys.exit(main())
