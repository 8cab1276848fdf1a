"""What a person is told when a reader fails in a way it did not plan for.

Readers raise ``ExtractionError`` with a sentence for what they foresee. Two failures they do
not foresee still need a sentence, never an exception's class name:

- **Nesting deeper than Cairn reads.** Python's JSON and mail parsers, PyYAML, pypdf and
  Cairn's own XML walks go down a file's structure by recursion, and Python stops a recursion
  about a thousand calls down (``RecursionError``). No program writes a document nested that
  deeply; a damaged or hostile file does (a JSON array inside an array 200,000 times, a
  multipart inside a multipart 3,000 times). A reader that knows its format catches the error
  and says with ``too_deep`` how deep the file goes, measured here without recursion
  (``json_depth``, ``xml_depth``), and what to do; what none catches, the extraction worker
  says in general terms.
- **A reader's own fault** (a bug of Cairn's or of a library, met on an input nobody thought
  of). The person is told that the reader stopped and what to try; a developer gets ``trace``:
  the error's kind and where it happened, on the ``cairn.ingest`` logger (Cairn's processes
  send it to the log in the data folder, ``app/process/diagnostic_log.py``; with no handler set up,
  Python prints it on stderr). Its message is left out, as it may quote the file.
"""

from __future__ import annotations

import logging
import re
import traceback
from xml.etree import ElementTree

from cairn.ingest.document import ExtractionError

log = logging.getLogger("cairn.ingest")

# Why a part of a file (a page, an attachment, a chapter, a message) was not read, as a clause
# of its warning.
NESTED_TOO_DEEP = "it is nested more deeply than Cairn reads"
NEEDS_MEMORY = "it needs more memory than this computer has free"
DAMAGED = "it is damaged"
UNFORESEEN = "the reader stopped on something in it that it did not expect"

_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


def too_deep(name: str, depth: int | None, inside: str, fix: str) -> ExtractionError:
    """The failure of a file nested ``depth`` levels deep (None: not measured), ``inside``
    saying what is inside what; ``fix`` says what to do."""
    how = (
        f"nested {depth:,} levels deep ({inside}), more than Cairn reads"
        if depth
        else f"nested deeper than Cairn reads ({inside})"
    )
    return ExtractionError(
        f"{name} is {how}: no ordinary file is built like that, so it is damaged or made to "
        f"stop readers. {fix}"
    )


def part_reason(exc: Exception, reader: str, damaged: tuple[type[Exception], ...] = ()) -> str:
    """Why a part of a file could not be read, as a clause for its warning (the file's other
    parts are kept). ``damaged`` are the errors a library raises on a damaged part; any other
    that no reader foresaw leaves a ``trace`` too, ``reader`` naming the one that met it ("the
    PDF reader")."""
    if isinstance(exc, ExtractionError):
        return str(exc)
    if isinstance(exc, RecursionError):
        return NESTED_TOO_DEEP
    if isinstance(exc, MemoryError):
        return NEEDS_MEMORY
    if isinstance(exc, damaged):
        return DAMAGED
    trace(exc, reader)
    return UNFORESEEN


def trace(exc: BaseException, reader: str) -> None:
    """Leaves a developer what an unforeseen error was and where it happened (its frames,
    not its message)."""
    where = "".join(traceback.TracebackException.from_exception(exc).stack.format()).rstrip()
    log.error(
        "%s met an unexpected %s, a fault to report (its message is left out: it may quote "
        "the file). Where it happened:\n%s",
        reader,
        type(exc).__name__,
        where,
    )


def json_depth(text: str) -> int:
    """How deeply JSON's arrays and objects nest, counted without parsing it (brackets in
    strings do not count)."""
    brackets = _NOT_BRACKETS.sub("", _JSON_STRING.sub("", text))
    depth = deepest = 0
    for bracket in brackets:
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def xml_depth(root: ElementTree.Element) -> int:
    """How deeply a parsed XML tree's elements nest (the root is level 1), counted without
    recursion."""
    deepest = 0
    pending = [(root, 1)]
    while pending:
        element, depth = pending.pop()
        deepest = max(deepest, depth)
        pending.extend((child, depth + 1) for child in element)
    return deepest
