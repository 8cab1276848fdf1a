"""A hostile folder, built at test time (nothing binary is committed): the files and folders an
adversarial run against ``cairn ingest`` found to sink a whole batch, beside good notes that
must still be kept. Each entry says what a person should be told about it.

- ``locked.txt`` and ``locked-folder/`` have no read permission (they only bite a process that
  is not root, or root without its override capabilities: ``conftest.without_root_override``);
- ``caf\\xe9 cr\\xe8me.txt`` has a Latin-1 name that is not UTF-8;
- ``loop`` is a symbolic link to itself and ``dangling`` one to nothing;
- ``noise.md`` is random bytes, ``utf16.txt`` is UTF-16 without a byte-order mark;
- ``pages.pdf`` has many pages drawn from one shared content stream (each page the same text),
  which passes the reader's budget and makes a passage per page.
"""

from __future__ import annotations

import os
import random
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.app import ingest_files as files
from tests.conftest import without_root_override

__all__ = ["without_root_override"]  # the permission tests run cairn through it

LATIN1_NAME = b"caf\xe9 cr\xe8me.txt"
GOOD = {
    "good/kayak.md": "# Kayak trip\n\nWe paddled around the lighthouse island at dawn.\n",
    "good/recipe.txt": "Bake the rye loaf for forty minutes with a tray of water below.\n",
}


@dataclass(frozen=True)
class Hostile:
    root: Path
    locked_file: Path
    locked_folder: Path
    latin1_file: Path
    loop: Path
    dangling: Path
    noise: Path
    utf16: Path


def build(root: Path, *, seed: int = 15) -> Hostile:
    """Writes the hostile folder under ``root`` (which must not exist yet)."""
    rng = random.Random(seed)
    files.write(root, dict(GOOD))
    locked_file = root / "locked.txt"
    locked_file.write_text("A note nobody may read.\n", encoding="utf-8")
    locked_folder = root / "locked-folder"
    locked_folder.mkdir()
    (locked_folder / "inside.md").write_text("# Inside\n\nHidden away.\n", encoding="utf-8")
    latin1 = Path(os.fsdecode(os.fsencode(root) + b"/" + LATIN1_NAME))
    latin1.write_text("The old archive kept the crème brûlée recipe.\n", encoding="utf-8")
    loop = root / "loop"
    loop.symlink_to("loop")
    dangling = root / "dangling.md"
    dangling.symlink_to(root / "nowhere.md")
    noise = root / "noise.md"
    noise.write_bytes(rng.randbytes(100_000))
    utf16 = root / "utf16.txt"
    utf16.write_bytes("Grandmother's letter about the orchard in spring.\n".encode("utf-16-le"))
    for path in (locked_file, locked_folder):
        path.chmod(0)
    return Hostile(root, locked_file, locked_folder, latin1, loop, dangling, noise, utf16)


def unlock(hostile: Hostile) -> None:
    """Gives the locked entries back their permissions (so a rerun reads them, and pytest can
    remove the folder)."""
    hostile.locked_folder.chmod(0o755)
    hostile.locked_file.chmod(0o644)


def shared_stream_pdf(pages: int) -> bytes:
    """A PDF of ``pages`` pages that all draw one content stream: tiny on disk, a passage a page
    once read."""
    text = "The ledger for the harbour repairs lists every invoice of the spring quarter."
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode("latin-1")
    kids = " ".join(f"{5 + n} 0 R" for n in range(pages))
    bodies = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    bodies += [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"
    ] * pages
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(bodies, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(bodies) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(bodies) + 1,
        xref,
    )
    return bytes(out)


def cairn(*args: str) -> list[str]:
    """The command line of ``cairn ARGS`` with this interpreter."""
    return [sys.executable, "-m", "cairn.app.cli", *args]
