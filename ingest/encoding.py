"""Is a file text, and in which encoding? Shared by the text, Markdown, HTML and source code
extractors, so a binary file with a text name fails the same way everywhere.

- A byte-order mark (UTF-8, UTF-16, UTF-32) says the encoding.
- Without one, NUL bytes decide between UTF-16/32 and binary: Latin, Cyrillic, Greek... text
  in UTF-16 has a NUL in the high byte of every space, digit and ASCII letter, so one byte
  position of each pair holds most of the zeros; random or compressed data has as few at one
  position as at the other, and programs have many at both. A file with NULs that fits
  neither is binary, as git and grep take it.
- Otherwise UTF-8, then Windows-1252 (the codepage most old notes were written in). Latin-1
  is not tried: it accepts any bytes, so it could never say no.
- Whatever decoding is chosen, the result must read as text: control characters, unassigned
  and private-use code points (and, for Windows-1252, symbols prose hardly uses) are counted in
  the first 64 Ki characters. Random bytes give about one in ten; text, almost none.

Every decision looks at a bounded sample, so it is cheap and gives the same answer every time;
the whole file is still decoded strictly.
"""

from __future__ import annotations

import codecs
import unicodedata
from collections import Counter

from cairn.ingest.document import ExtractionError

SAMPLE = 65536  # bytes looked at to choose an encoding, characters looked at to judge it
_BOMS = (  # UTF-32-LE's mark starts with UTF-16-LE's, so it is tried first
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8-sig", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
)
# UTF-16 without a mark: at least this share of the pairs has a zero high byte (a space, digit,
# ASCII or Latin-1 letter), and the other byte of the pair is zero at most a quarter as often.
# Chinese or Japanese text without ASCII has too few; such a file is refused as not text.
UTF16_MIN_ZERO_SHARE = 0.10
UTF16_MIN_RATIO = 4
# Text may hold a few odd characters (a stray bell, a private-use icon); more than
# ODD_ALLOWANCE plus this share of the sample, and it is not text.
ODD_MAX_SHARE = 0.02
ODD_ALLOWANCE = 2
# Controls common in text files: tab, line feed, vertical tab, form feed, carriage return;
# backspace (overstrike in saved man pages) and escape (colours in terminal logs).
_TEXT_CONTROLS = frozenset("\t\n\v\f\r\b\x1b")
# Windows-1252 symbols that random bytes give as often as any letter but prose hardly uses.
_RARE_IN_LEGACY_TEXT = frozenset("¤¦¨¬¯¸¹ˆ˜‡")
_C0_BYTES = bytes(b for b in range(32) if chr(b) not in _TEXT_CONTROLS) + b"\x7f"


def decode(data: bytes, name: str) -> str:
    """The text of a file, or an ``ExtractionError`` that says what is wrong with it."""
    if not data:
        raise ExtractionError(f"{name} is empty: there is nothing to keep.")
    marked = _decode_marked(data, name)
    if marked is not None:
        return _checked(marked, name, legacy=False)
    sample = data[:SAMPLE]
    if 0 in sample:
        for encoding in _wide_encodings(sample):
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError:
                continue
            if _reads_as_text(text, legacy=False):
                return text
        raise _not_text(name)
    try:
        return _checked(data.decode("utf-8"), name, legacy=False)
    except UnicodeDecodeError:
        pass
    try:
        return _checked(data.decode("cp1252"), name, legacy=True)
    except UnicodeDecodeError:
        pass
    # Neither: text in some other 8-bit encoding has no control bytes; random bytes do.
    if _too_odd(sum(sample.count(byte) for byte in _C0_BYTES), len(sample)):
        raise _not_text(name)
    raise ExtractionError(
        f"{name} is text in an encoding Cairn cannot tell (not UTF-8, UTF-16 or Windows-1252). "
        "Save it as UTF-8 in a text editor and add it again."
    )


def _decode_marked(data: bytes, name: str) -> str | None:
    """The text after a byte-order mark, None without one."""
    failure = ""  # why the first encoding a mark named did not fit
    for bom, encoding, label in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError as exc:
                # FF FE 00 00 may still be UTF-16 whose first character is a NUL.
                failure = failure or f"it is {label} text but is not ({exc})"
    if not failure:
        return None
    raise ExtractionError(
        f"{name} says {failure}. Save it as UTF-8 in a text editor and add it again."
    )


def _wide_encodings(sample: bytes) -> list[str]:
    """The encodings with two or four bytes a character that fit where the zeros are."""
    found = []
    quads = len(sample) // 4 * 4
    if quads:
        # UTF-32's top byte is always zero: last in little-endian order, first in big-endian.
        if sample[3:quads:4].count(0) == quads // 4:
            found.append("utf-32-le")
        if sample[0:quads:4].count(0) == quads // 4:
            found.append("utf-32-be")
    pairs = len(sample) // 2
    # The high byte of a pair comes second in little-endian order, first in big-endian.
    high_second, high_first = sample[1 : 2 * pairs : 2].count(0), sample[0 : 2 * pairs : 2].count(0)
    for zeros, other, encoding in (
        (high_second, high_first, "utf-16-le"),
        (high_first, high_second, "utf-16-be"),
    ):
        if zeros >= UTF16_MIN_ZERO_SHARE * pairs and zeros >= UTF16_MIN_RATIO * other:
            found.append(encoding)
    return found


def _checked(text: str, name: str, *, legacy: bool) -> str:
    if not _reads_as_text(text, legacy=legacy):
        raise _not_text(name)
    return text


def _reads_as_text(text: str, *, legacy: bool) -> bool:
    """Whether the start of ``text`` has few enough characters that text does not have."""
    sample = text[:SAMPLE]
    odd = 0
    for char, count in Counter(sample).items():
        if _is_odd(char, legacy):
            odd += count
    return not _too_odd(odd, len(sample))


def _is_odd(char: str, legacy: bool) -> bool:
    if char in _TEXT_CONTROLS:
        return False
    if legacy and char in _RARE_IN_LEGACY_TEXT:
        return True
    category = unicodedata.category(char)
    if category in ("Cc", "Co", "Cs"):
        return True
    # Unassigned only within the Basic Multilingual Plane: emoji and scripts beyond it may be
    # newer than this Python's Unicode tables.
    return category == "Cn" and ord(char) < 0x10000


def _too_odd(odd: int, total: int) -> bool:
    return odd > ODD_ALLOWANCE + ODD_MAX_SHARE * total


def _not_text(name: str) -> ExtractionError:
    return ExtractionError(
        f"{name} does not look like text: it looks like a binary file. If it is a document of "
        "another kind, give it the right file name extension; if it is text in an unusual "
        "encoding, save it as UTF-8 in a text editor and add it again."
    )
