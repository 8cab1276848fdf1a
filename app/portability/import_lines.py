"""The lines of a JSON Lines export read back as data, and nothing more trusted than that.

Each line must be UTF-8 (as the export writes it, without a byte-order mark) holding one JSON
object with a ``kind``. What ``json.loads`` would let through unsaid is refused here, by line:
a name given twice in one object (the last would win without a word), an integer too long to
be a number of any column (``import_rules.Huge``, so the field's rule names it), and a value
nested so deep that the decoder runs out of stack (``RecursionError``). The bytes read are
hashed as they go: the import records the file's SHA-256, so a second run of the same import
knows the file it finished (``jsonl_import``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import IO, Any

from cairn.app.portability.import_rules import MAX_DIGITS, MAX_LINE, Huge, Refused

BOM = b"\xef\xbb\xbf"
_CHUNK = 1024 * 1024


def read(handle: IO[bytes], digest: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each line that is not blank; ``digest`` (a ``hashlib``
    object) takes in every byte read. Raises ``Refused`` with the line number."""
    number = 0
    while True:
        raw = handle.readline(MAX_LINE + 1)
        if not raw:
            return
        digest.update(raw)
        number += 1
        if len(raw) > MAX_LINE:
            raise Refused(f"it is longer than {MAX_LINE // (1024 * 1024)} MB", line=number)
        if not raw.strip():
            continue
        yield number, _object(raw, number)


def file_digest(handle: IO[bytes]) -> str:
    """The SHA-256 of what is left to read of ``handle``."""
    digest = hashlib.sha256()
    while chunk := handle.read(_CHUNK):
        digest.update(chunk)
    return digest.hexdigest()


def _object(raw: bytes, number: int) -> dict[str, Any]:
    if raw.startswith(BOM):
        raise Refused(
            "it begins with a byte-order mark (EF BB BF), which Cairn never writes: an editor "
            "saved the file again",
            line=number,
        )
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(
            f"it is not UTF-8 text (byte {raw[exc.start]:#04x} at byte {exc.start + 1} of the "
            "line)",
            line=number,
        ) from None
    try:
        data = json.loads(line, object_pairs_hook=_pairs, parse_int=_integer)
    except RecursionError:
        raise Refused(
            "it is nested deeper than JSON can be read here (lists or objects inside each "
            "other thousands of levels down); no export of Cairn's is",
            line=number,
        ) from None
    except Refused as refused:
        refused.line = number
        raise
    except ValueError as exc:
        said = exc.msg.removesuffix(" at") if isinstance(exc, json.JSONDecodeError) else str(exc)
        place = f", at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise Refused(
            f"it is not a whole JSON line ({said}{place}): it was cut short or damaged",
            line=number,
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        raise Refused(
            "it is not a line of a Cairn export (each is a JSON object with a kind)", line=number
        )
    return data


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for twice, _ in pairs:
            if twice in seen:
                break
            seen.add(twice)
        shown = twice if len(twice) <= 40 else f"{twice[:40]}..."
        raise Refused(f"it gives {shown!r} twice in one object; which one is meant is not known")
    return found


def _integer(digits: str) -> int | Huge:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        return Huge(len(digits.lstrip("-")))
    return int(digits)
