"""PyInstaller runtime hook of the bundle (packaging/cairn.spec), run before Cairn's code.

The bundle's launcher puts its own library folder first on LD_LIBRARY_PATH and keeps the
person's value, if there was one, in LD_LIBRARY_PATH_ORIG. Cairn's process no longer needs the
variable once it has started (the dynamic loader reads it at start-up), but every program Cairn
runs would inherit it: the system's tesseract or jbig2dec would then load the bundle's copies of
libraries (libz, libpng, libstdc++...) instead of the ones it was built against, and may crash.
So the person's value is put back for them. The bundle's own worker processes are unaffected:
the launcher sets the variable again when they start.
"""

import os
import sys


def _restore_library_path() -> None:
    original = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is not None:
        os.environ["LD_LIBRARY_PATH"] = original
        return
    # No saved value: whatever of the bundle's own folder is on the variable was put there by
    # the launcher; anything else is the person's and stays.
    bundle = getattr(sys, "_MEIPASS", None)
    current = os.environ.get("LD_LIBRARY_PATH")
    if bundle is None or current is None:
        return
    kept = [path for path in current.split(os.pathsep) if path and not path.startswith(bundle)]
    if kept:
        os.environ["LD_LIBRARY_PATH"] = os.pathsep.join(kept)
    else:
        del os.environ["LD_LIBRARY_PATH"]


_restore_library_path()
