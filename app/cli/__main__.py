"""``python -m cairn.app.cli``: the ``cairn`` command, as the entry point runs it."""

from cairn.app.cli.main import main

raise SystemExit(main())
