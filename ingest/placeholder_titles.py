"""A title stored in a file's metadata, kept only when it names the document.

Programs fill the title field with what they have at hand when the author gave none: their own
default ("Untitled document", "Document1", "Presentation2"), their own name ("Adobe Photoshop
PDF"), or the name of the file they printed ("Microsoft Word - report.docx", "scan_0042.pdf",
a path). Such a title says nothing of the document, and the file's own name says more, so it
is not used. The test is by the shape of these titles, not a list of them:

- nothing but generic words, the program's own words (its ``/Creator`` and ``/Producer``) and
  numbers; no letters at all; one word with a counter glued on, a default in any language
  ("Document1", "Präsentation1", "Mappe3");
- a file name: it ends in a document or image extension, or holds a path;
- "<program> - <rest>": the rest is judged instead (Word and its kin print the file name after
  their own).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Words that name no document by themselves: what programs call a new file. A title made of
# these alone (and numbers, and the program's name) is a default, however they are combined.
GENERIC_WORDS = frozenset(
    {"untitled", "document", "doc", "new", "file", "pdf", "presentation", "slide", "slides",
     "spreadsheet", "workbook", "book", "sheet", "drawing", "image", "picture", "scan",
     "scanned", "page", "title", "no", "none", "unknown", "blank", "default", "copy", "of",
     "print", "temp", "tmp", "microsoft", "word", "adobe", "acrobat", "office"}
)  # fmt: skip
# What programs print from: a title ending in one of these is a file's name.
FILE_EXTENSIONS = frozenset(
    {"pdf", "doc", "docx", "docm", "dot", "dotx", "odt", "ott", "rtf", "txt", "md", "tex",
     "dvi", "ps", "eps", "ppt", "pptx", "odp", "key", "xls", "xlsx", "ods", "numbers", "pages",
     "htm", "html", "xps", "oxps", "indd", "qxd", "qxp", "wpd", "pub", "vsd", "vsdx", "jpg",
     "jpeg", "png", "tif", "tiff", "bmp", "gif", "webp", "heic", "svg", "ai", "psd"}
)  # fmt: skip
# "Microsoft Word - report.docx", "Microsoft PowerPoint - talk": the program, then the rest.
_PROGRAM_PREFIX = re.compile(r"^\s*microsoft\s+[\w ]{2,30}?\s+-\s+(?P<rest>.+)$", re.I)
_EXTENSION = re.compile(r"\.([A-Za-z0-9]{1,8})\s*$")
# A path: "C:\Users\...", "\\server\...", "/home/...", "~/...".
_PATH = re.compile(r"(^|\s)([A-Za-z]:\\|\\\\|~?/)\S")
_TOKEN = re.compile(r"[^\W\d_]+|\d+")
# A program's numbered default: a single word and a counter, with no space between.
_COUNTED_DEFAULT = re.compile(r"^[^\W\d_]+\d{1,3}$")


def document_title(title: object, programs: Iterable[object] = ()) -> str | None:
    """``title`` tidied when it names the document, else None. ``programs`` are the names of
    the programs that made the file (a PDF's ``/Creator`` and ``/Producer``)."""
    if not isinstance(title, str):
        return None
    tidy = " ".join(title.split())
    prefixed = _PROGRAM_PREFIX.match(tidy)
    if prefixed:
        tidy = prefixed.group("rest").strip()
    if _is_file_name(tidy):
        return None
    program_words = {word for name in programs if isinstance(name, str) for word in _words(name)}
    if _COUNTED_DEFAULT.match(tidy):
        return None
    words = _words(tidy)
    if not any(word.isalpha() for word in words):
        return None  # empty, or only numbers and punctuation
    if all(w.isdigit() or w in GENERIC_WORDS or w in program_words for w in words):
        return None
    return tidy


def _is_file_name(title: str) -> bool:
    extension = _EXTENSION.search(title)
    if extension and extension.group(1).lower() in FILE_EXTENSIONS:
        return True
    return bool(_PATH.search(title))


def _words(text: str) -> list[str]:
    """Lower-cased runs of letters and runs of digits: "Document1" is "document", "1"."""
    return [token.lower() for token in _TOKEN.findall(text)]
