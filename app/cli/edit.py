"""``cairn edit ID``: change a memory's title or text. The change is a new version that
supersedes the old one (``MemoryService.revise``), so the old text stays as history.

The new text comes from ``--title``/``--body``, from standard input (``cairn edit ID < note.md``),
or from the person's editor (``$VISUAL``, else ``$EDITOR``). The editor is handed a file that
holds the memory's text, so the file is made in a folder kept in memory (``$XDG_RUNTIME_DIR``,
else ``/dev/shm``), readable by its owner only, and removed afterwards: no plaintext of a memory
reaches the disk. Where there is no such folder, the command says to use standard input.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from cairn.app.cli.common import emit, open_service, scopes_of
from cairn.app.errors import InvalidRequest
from cairn.app.models import Node

Verb = Callable[..., argparse.ArgumentParser]
IN_MEMORY_FOLDERS = ("XDG_RUNTIME_DIR", "/dev/shm")  # noqa: S108 (a tmpfs, chosen on purpose)
HEADER = (
    "# The first line is the title; the text starts after the blank line below it.\n"
    "# These three lines are not kept. Save and quit to store a new version;\n"
    "# leave it unchanged (or empty) to change nothing.\n"
)


def cmd_edit(args: argparse.Namespace) -> int:
    # Read standard input before asking for the passphrase: the prompt reads the terminal.
    given = args.title is not None or args.body is not None
    reads = args.body == "-" or (not given and not sys.stdin.isatty())
    piped = sys.stdin.read() if reads else None
    with open_service(args) as service:
        scopes = scopes_of(service, args)
        found = service.get([args.id], scopes=scopes, use=False)
        if not found.nodes:
            raise InvalidRequest(f"No memory {args.id} in the scopes you can see.")
        old = found.nodes[0].node
        title, body = _new_text(args, old, piped)
        if (title, body) == (old.title, old.body):
            print("Nothing changed; the memory stays as it was.")
            return 0
        history = service.revise(old.id, title, body, scopes=scopes)
    new = history.chain[history.position]
    emit(
        args,
        history.as_dict(),
        lambda: print(f"edited: {new.id} {new.title} (the old text stays as {old.id})"),
    )
    return 0


def _new_text(args: argparse.Namespace, old: Node, piped: str | None) -> tuple[str, str]:
    if args.title is not None or args.body is not None:
        body = piped if args.body == "-" else args.body
        return (args.title or old.title), (old.body if body is None else body)
    if piped is not None:
        return old.title, piped
    return _from_editor(old)


def _from_editor(old: Node) -> tuple[str, str]:
    folder = _in_memory_folder()
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    command = shlex.split(editor)
    if not command or shutil.which(command[0]) is None:
        raise InvalidRequest(
            f"The editor {editor!r} was not found. Set VISUAL or EDITOR, or give the text on "
            "standard input: cairn edit ID < text.md"
        )
    with tempfile.TemporaryDirectory(prefix="cairn-edit-", dir=folder) as private:
        path = Path(private) / f"{old.id}.md"
        path.write_text(f"{HEADER}{old.title}\n\n{old.body}", encoding="utf-8")
        path.chmod(0o600)
        done = subprocess.run([*command, str(path)], check=False)  # noqa: S603 (the person's editor)
        if done.returncode != 0:
            raise InvalidRequest(
                f"The editor ended with status {done.returncode}; nothing changed."
            )
        text = path.read_text(encoding="utf-8")
    return parse_edited(text, old)


def parse_edited(text: str, old: Node) -> tuple[str, str]:
    """The title (the first line after the header Cairn wrote) and the text (after the blank
    line that follows it). An empty file keeps the memory as it was. Only the header's own
    lines are dropped: a title that starts with # (a Markdown heading) is kept."""
    lines = text.splitlines()
    header = HEADER.splitlines()
    while lines and lines[0] in header:
        lines.pop(0)
    if not "".join(lines).strip():
        return old.title, old.body
    title = lines[0].strip()
    rest = lines[1:]
    if rest and not rest[0].strip():
        rest = rest[1:]
    return title, "\n".join(rest)


def _in_memory_folder() -> Path:
    runtime = os.environ.get(IN_MEMORY_FOLDERS[0])
    for candidate in (runtime, IN_MEMORY_FOLDERS[1]):
        if candidate and Path(candidate).is_dir() and os.access(candidate, os.W_OK):
            return Path(candidate)
    raise InvalidRequest(
        "There is no folder kept in memory (XDG_RUNTIME_DIR or /dev/shm) to hand the text to an "
        "editor without writing it to disk. Give the text on standard input instead: "
        "cairn edit ID < text.md"
    )


def register(verb: Verb, scoped: argparse.ArgumentParser) -> None:
    edit = verb(
        "edit",
        cmd_edit,
        "change a memory's title or text (a new version; the old one stays as history)",
        scoped,
    )
    edit.add_argument("id")
    edit.add_argument("--title", help="the new title (default: keep it)")
    edit.add_argument(
        "--body", help="the new text, or - to read it from standard input (default: keep it)"
    )
