"""Entry point of ``cairn-desktop``.

The PySide6 window is built on top of the engine in a later step; until then this entry point
tells the user how to reach their vault with the command line instead of failing obscurely.
"""

from __future__ import annotations

import sys


def main() -> int:
    print(
        "The Cairn window is not part of this version yet. Use the command line: "
        "`cairn --help` (try `cairn demo`).",
        file=sys.stderr,
    )
    return 1
