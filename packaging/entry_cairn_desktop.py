"""The `cairn-desktop` program of the PyInstaller bundle (packaging/cairn.spec): the installed
entry point ``cairn.ui.main:main``, which also serves the spawned worker processes
(freeze_support)."""

import sys

from cairn.ui.main import main

if __name__ == "__main__":
    sys.exit(main())
