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

``build_nested`` writes a second folder: files nested deeper than any program writes them
(structures inside structures, thousands of levels down), each of which must fail alone, or be
read in part, with a sentence saying how deep it goes, never a ``RecursionError``; ``NESTED``
says what each must be told. They are built by the functions below (a depth given), which the
readers' own tests use too.
"""

from __future__ import annotations

import os
import random
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.app import ingest_files as files
from tests.conftest import without_root_override
from tests.ingest import kept_files as kept

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
        _CATALOG,
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
        _FONT,
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    return _pdf(bodies + [_PAGE % (b"2 0 R", b"")] * pages)


def cairn(*args: str) -> list[str]:
    """The command line of ``cairn ARGS`` with this interpreter."""
    return [sys.executable, "-m", "cairn.app.cli", *args]


# -- nested deeper than any program writes ------------------------------------------------------

# name -> (the state it must end in, words its reason or its warnings must hold).
NESTED: dict[str, tuple[str, tuple[str, ...]]] = {
    "result.json": (
        "failed",
        ("nested 200,001 levels deep", "more than Cairn reads", "export the chat again"),
    ),
    "deep.eml": ("failed", ("nested 3,001 levels deep", "parts inside parts", "mail program")),
    "forwarded.eml": ("failed", ("nested 3,001 levels deep", "parts inside parts")),
    "mailbox.mbox": ("ingested", ("message 2 is nested 3,001 levels deep", "left out")),
    "deep.docx": ("failed", ("nested 100,005 levels deep", "word/document.xml", "save it again")),
    "deep.odt": ("failed", ("nested 100,004 levels deep", "content.xml", "save it again")),
    "arrays.pdf": ("failed", ("nested deeper than Cairn reads", "arrays and dictionaries")),
    "page-tree.pdf": ("failed", ("nested deeper than Cairn reads", "more than 100 levels down")),
    "deep.html": ("ingested", ()),
    "front-matter.md": ("ingested", ("front matter is nested more than 32 levels deep",)),
    "aliases.md": ("ingested", ("front matter's aliases", "kept as text")),
    "deep.py": ("ingested", ("nested more deeply than Python parses", "kept as text")),
}


def build_nested(root: Path) -> Path:
    """Writes the files of ``NESTED`` under ``root`` (which must not exist yet), beside the
    good notes."""
    files.write(root, dict(GOOD))
    made = {
        "result.json": nested_telegram(200_000),
        "deep.eml": nested_multipart_mail(3000),
        "forwarded.eml": nested_forwards_mail(3000),
        "mailbox.mbox": kept.mbox_bytes([kept.email_message("Kept", "The boat is ready.")])
        + b"From x Tue Mar  5 09:30:00 2024\n"
        + nested_multipart_mail(3000),
        "deep.docx": nested_docx(100_000),
        "deep.odt": kept.odt_bytes(
            "<text:section>" * 100_000 + "<text:p>Deep</text:p>" + "</text:section>" * 100_000
        ),
        "arrays.pdf": nested_array_pdf(100_000),
        "page-tree.pdf": nested_page_tree_pdf(5000),
        "deep.html": nested_html(200_000),
        "front-matter.md": (
            "---\ntags: " + "[" * 3000 + "]" * 3000 + "\n---\n# Deep\n\nA note.\n"
        ).encode(),
        "aliases.md": alias_bomb_front_matter(),
        "deep.py": ("x = " + "-" * 5000 + "1\n").encode(),
    }
    for name, data in made.items():
        (root / name).write_bytes(data)
    return root


def nested_telegram(depth: int) -> bytes:
    """A Telegram chat export whose messages are lists inside lists ``depth`` deep."""
    head = b'{"name": "Ada", "type": "personal_chat", "id": 7, "messages": '
    return head + b"[" * depth + b"]" * depth + b"}"


def nested_multipart_mail(depth: int) -> bytes:
    """A message of ``depth`` multiparts, each the only part of the one around it."""
    lines = [b"From: Ada <ada@example.org>", b"To: ben@example.org", b"Subject: Deep"]
    lines += [b"MIME-Version: 1.0"]
    for level in range(depth):
        lines += [b'Content-Type: multipart/mixed; boundary="b%d"' % level, b"", b"--b%d" % level]
    lines += [b"Content-Type: text/plain", b"", b"The innermost words."]
    lines += [b"--b%d--" % level for level in reversed(range(depth))]
    return b"\n".join(lines) + b"\n"


def nested_forwards_mail(depth: int) -> bytes:
    """A message forwarded inside a message ``depth`` times (message/rfc822 parts)."""
    message = b"From: ada@example.org\nSubject: The first\n\nThe first words.\n"
    for level in range(depth):
        message = (
            b"From: ada@example.org\nSubject: Fw %d\nMIME-Version: 1.0\n"
            b"Content-Type: message/rfc822\n\n" % level
        ) + message
    return message


def nested_docx(depth: int) -> bytes:
    """A Word document whose paragraph sits in content controls ``depth`` deep."""
    body = "<w:sdt>" * depth + "<w:p><w:r><w:t>Deep</w:t></w:r></w:p>" + "</w:sdt>" * depth
    return files.docx_with_body(body)


def nested_html(depth: int) -> bytes:
    """A page of ``depth`` unclosed elements and as many stray end tags: read in one pass."""
    return (
        "<html><body><p>The lighthouse log lists every storm.</p>" + "<div>" * depth
        + "The innermost room holds the lamp."
        + "</span>" * depth + "</body></html>"
    ).encode()  # fmt: skip


def alias_bomb_front_matter() -> bytes:
    """Front matter whose aliases repeat a list nine times over at each of nine levels (a
    billion values spelled out), in a dozen lines."""
    lines = ["---", "a: &a [x, x, x, x, x, x, x, x, x]"]
    previous = "a"
    for name in "bcdefghi":
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
        previous = name
    return ("\n".join([*lines, "---", "# Aliases", "", "A note.", ""])).encode()


def pdf_without_page_tree() -> bytes:
    """A PDF whose catalog lost the slash of its ``/Pages`` key, as a flipped byte leaves it:
    pypdf meets a catalog without pages with an AttributeError of its own."""
    whole = files.pdf_bytes([["The harbour ledger."]])
    return whole.replace(b"/Catalog /Pages", b"/Catalog  Pages", 1)


def nested_array_pdf(depth: int) -> bytes:
    """A one-page PDF whose page dictionary holds arrays inside arrays ``depth`` deep."""
    page = _PAGE % (b"2 0 R", b" /Junk " + b"[" * depth + b"]" * depth)
    return _pdf([_CATALOG, b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>", _FONT, _CONTENT, page])


def nested_page_tree_pdf(depth: int) -> bytes:
    """A PDF whose one page sits ``depth`` groups of pages down (each /Pages the only kid of
    the one above)."""
    groups = [2, *range(5, 5 + depth - 1)]  # the object numbers of the /Pages nodes
    page = 5 + depth - 1
    tree = {}
    for level, number in enumerate(groups):
        parent = b" /Parent %d 0 R" % groups[level - 1] if level else b""
        kid = groups[level + 1] if level + 1 < len(groups) else page
        tree[number] = b"<< /Type /Pages%s /Kids [%d 0 R] /Count 1 >>" % (parent, kid)
    tree[page] = _PAGE % (b"%d 0 R" % groups[-1], b"")
    bodies = {1: _CATALOG, 3: _FONT, 4: _CONTENT, **tree}
    return _pdf([bodies[number] for number in range(1, page + 1)])


_TEXT = b"BT /F1 12 Tf 72 720 Td (The harbour ledger.) Tj ET"
_CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"
_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
_CONTENT = b"<< /Length %d >>\nstream\n" % len(_TEXT) + _TEXT + b"\nendstream"
# Objects 1-4 are the catalog, the page tree's root, the font and the content stream.
# A page: its parent, then more of its dictionary.
_PAGE = (
    b"<< /Type /Page /Parent %s /MediaBox [0 0 612 792] "
    b"/Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R%s >>"
)


def _pdf(bodies: list[bytes]) -> bytes:
    """A PDF of these objects (numbered from 1, the catalog first) and its cross-reference
    table."""
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
