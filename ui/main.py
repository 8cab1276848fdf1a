"""Entry point of ``cairn-desktop``: the Qt application and its one window.

The style and palette are the platform's (Fusion on most Linux desktops, the native style on
macOS and Windows), light or dark as the desktop is set, unless the person chose a theme or a
text size in Settings › Appearance (``ui/base/appearance.py``), applied before the window shows;
nothing in the window hard-codes a colour, so it follows a change of scheme while it runs.
``freeze_support`` comes first because ingest starts a worker process with the spawn method,
which re-runs this entry point in a frozen (packaged) build.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QTimer, qVersion
from PySide6.QtWidgets import QApplication

from cairn.app import api
from cairn.ui.base import appearance, ui_thread_gc
from cairn.ui.base.preferences import Preferences
from cairn.ui.shell.main_window import MainWindow

APPLICATION_NAME = "Cairn"
ORGANISATION_NAME = "Cairn"
# The name of packaging/org.example.cairn.desktop: desktops match the running window to its
# launcher entry and icon by it (Wayland's app id; the X11 window's application id).
DESKTOP_FILE_ID = "org.example.cairn"
SIGNAL_POLL_MS = 250
# `cairn-desktop --smoke-test` shows the window, lets it run a second and quits: the packaged
# build's test (tests/bundle/test_bundle.py) uses it to prove the bundle's Qt works.
SMOKE_TEST_FLAG = "--smoke-test"
SMOKE_TEST_MS = 1000


def main(argv: list[str] | None = None) -> int:
    api.protect_process()  # first: a crash must not write memory to a core file
    multiprocessing.freeze_support()
    # Faults and the long operations' timings go to the data folder's log (never a memory).
    api.start_log("window", qt=f"{qVersion()} (PySide6 {pyside_version})")
    # An export killed before it finished left plaintext beside its destination: removed
    # now, and the window says so once it shows.
    swept = api.sweep_unfinished_exports()
    args = sys.argv if argv is None else argv
    smoke_test = SMOKE_TEST_FLAG in args[1:]
    args = [arg for arg in args if arg != SMOKE_TEST_FLAG]
    app = QApplication.instance() or QApplication(args)
    assert isinstance(app, QApplication)
    app.setApplicationName(APPLICATION_NAME)
    app.setApplicationDisplayName(APPLICATION_NAME)
    app.setOrganizationName(ORGANISATION_NAME)
    app.setDesktopFileName(DESKTOP_FILE_ID)
    if getattr(sys, "frozen", False):
        # The packaged build's launcher points these at its own Qt; Qt has read them by now, and
        # a program the window opens (a PDF viewer) must not load that Qt's plugins into its own.
        for name in ("QT_PLUGIN_PATH", "QML2_IMPORT_PATH"):
            os.environ.pop(name, None)
    ui_thread_gc.install(app)  # before any worker starts: see that module

    preferences = Preferences()
    appearance.apply_look(app, preferences.theme(), preferences.font_size())
    window = MainWindow(preferences=preferences)
    # `cairn-desktop PATH` preselects that vault on the unlock screen.
    if len(args) > 1 and not window.session.is_open:
        window.unlock_screen.show_open(Path(args[1]).expanduser())

    # Ctrl+C in the terminal closes the window properly (and with it the vault). Qt's event
    # loop gives Python no chance to run its signal handler unless some Python code runs now
    # and then: the timer is that chance.
    signal.signal(signal.SIGINT, lambda *_: window.close())
    ticker = QTimer()
    ticker.timeout.connect(lambda: None)
    ticker.start(SIGNAL_POLL_MS)

    window.show()
    if swept:
        QTimer.singleShot(0, lambda: window.tell_unfinished_exports(swept))
    if smoke_test:
        QTimer.singleShot(SMOKE_TEST_MS, lambda: _end_smoke_test(app, window))
    return app.exec()


def _end_smoke_test(app: QApplication, window: MainWindow) -> None:
    shown = window.isVisible()
    print("window ok" if shown else "window not shown", flush=True)
    window.close()
    app.exit(0 if shown else 1)


if __name__ == "__main__":
    sys.exit(main())
