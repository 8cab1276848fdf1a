"""The "before" of a scale line: an older Cairn, taken from git, measured in the same run.

``bench.run --before REV`` writes the source folders of commit REV (``app``, ``storage``,
``ingest``, ``ui``) into a temporary folder and puts a ``cairn`` package made of them ahead of the
installed one on the path of the processes that build and probe its vault; the bench's own code
(``bench.build``, ``bench.probe``, ``bench.ui_probe``) is today's, calling only what both have.
The model file is not in git (the install builds it): the current one is copied in, so both
sides embed queries at the same cost. The older Cairn builds its own vault, in its own format.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from io import BytesIO
from pathlib import Path

from bench.corpus import PROJECT_ROOT

SOURCE_FOLDERS = ("app", "storage", "ingest", "ui")
MODEL_FILES = PROJECT_ROOT / "app" / "model_files"
# The last commit before vectors were kept as int8 codes and the window's open stopped waiting
# for them (issue 19): what ``make bench`` compares with.
DEFAULT_REVISION = "a608722"


def prepare(revision: str, folder: Path) -> dict[str, str]:
    """The environment of a process that imports ``cairn`` as it was at ``revision``."""
    archive = subprocess.run(
        ["git", "-C", str(PROJECT_ROOT), "archive", "--format=tar", revision, *SOURCE_FOLDERS],
        check=True,
        stdout=subprocess.PIPE,
    ).stdout
    tree = folder / "tree"
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    for model_file in MODEL_FILES.glob("*"):
        target = tree / "app" / "model_files" / model_file.name
        if model_file.is_file() and not target.exists():
            shutil.copy2(model_file, target)
    package = folder / "path" / "cairn"
    package.mkdir(parents=True)
    for name in SOURCE_FOLDERS:
        (package / name).symlink_to(tree / name, target_is_directory=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(package.parent), env.get("PYTHONPATH")]))
    return env


def revision_name(revision: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(PROJECT_ROOT), "log", "-1", "--format=%h %s", revision],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    return done.stdout.strip()
