"""The `cairn` program of the PyInstaller bundle (packaging/cairn.spec): the installed entry point
``cairn.app.cli.main:main``, which also serves the spawned worker processes (freeze_support)."""

import sys

from cairn.app.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
