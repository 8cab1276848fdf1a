"""A whole Obsidian, Logseq or Foam (plain Markdown) notes folder (what Obsidian calls a
vault; a ``NotesFolder`` here, never the encrypted ``storage`` one): which files are its notes,
the name each note answers to, and which note each ``[[link]]`` means. Plain data; no database.

The app ingests each note with ``textfile.extract`` and asks ``link_edges`` which notes each
one links to (an edge) and which names no note answers to (a stub topic). Names match case-
insensitively after Unicode NFC normalisation and whitespace folding; a "#heading", "^block" or
"|label" part is ignored. Which note a name means depends on the kind of folder:

- Logseq: a page is named by its ``title::`` property, else by its file name, where "___" is
  "/" and "%3F"-style escapes are decoded; a journal ``journals/2021_04_01.md`` is the page
  "Apr 1st, 2021" (or ``:journal/page-title-format`` in ``logseq/config.edn``). A link names a
  page or else one of its ``alias::`` names. Tags (``#tag``, ``#[[two words]]``, ``tags::``)
  are page references in Logseq, so they make edges too. ``.org`` pages are notes as well,
  named by ``#+TITLE:`` (their text is read as plain text, so their own links are not
  read); files in ``logseq/`` and in the config's ``:hidden`` list are not notes.
- Obsidian and Foam: a note is named by its file stem and its path. A link is tried, in order,
  (1) as a path from the linking note's folder ("./x", "../x", "sub/x", or a bare name in the
  same folder), (2) as a path from the folder root ("/x" too), (3) against every note whose
  path ends with it (a bare stem, or "folder/Note"): when several do, the one with the fewest
  folders wins, then the first path in sort order, (4) against front matter ``aliases``.
  A ".md" suffix is optional. Tags are not links in these tools.

A link or embed that names a file of another kind (``![[x.png]]``, ``[[x.pdf|the paper]]``,
``![](assets/x.png)``) is an attachment: it resolves like a note's path, among the folder's
other files, to the file itself (``NoteLinks.attachments``), never to a stub. A
``[[Note#Heading]]`` link names the note and, in ``NoteLinks.anchors``, the heading.

A note's title (``title_of``) is the name its tool shows: the front matter ``title`` (Logseq's
``title::``, an Org page's ``#+TITLE:``), else, in Foam, the heading the note opens with
(Foam titles a note so: "daily-notes.md" opening with "# Daily Notes" is "Daily Notes"),
else its page name (Logseq) or its file name (Obsidian, Foam, Markdown). Never a heading
inside it: "## Embed files" in "Accepted file formats.md" is a section of that note.
"""

from __future__ import annotations

import os
import posixpath
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from urllib.parse import unquote

from cairn.ingest import textfile
from cairn.ingest.document import ExtractedDocument, ExtractionError

OBSIDIAN, LOGSEQ, FOAM, MARKDOWN = "obsidian", "logseq", "foam", "markdown"
SKIPPED_DIRS = frozenset({"node_modules"})  # and every hidden one (.obsidian, .git, .trash...)
_ORG_KEYWORD = re.compile(r"^#\+(title|alias):[ \t]*(.*?)[ \t]*$", re.M | re.I)
_JOURNAL_FILE = re.compile(r"^(\d{4})[_-](\d{2})[_-](\d{2})$")
_DATE_TOKEN = re.compile(r"yyyy|yy|MMMM|MMM|MM|M|EEEE|EEE|EE|E|do|dd|d")
_MONTHS = "January February March April May June July August September October November December"
_WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday"
_DEFAULT_JOURNAL_TITLE = "MMM do, yyyy"


@dataclass(frozen=True)
class FolderNote:
    path: Path  # relative to the folder root, as on disk
    name: str  # the page name the folder knows it by
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class NoteLinks:
    source: Path
    targets: tuple[Path, ...]  # the notes it links to, each once, never itself
    unresolved: tuple[str, ...]  # the names no note answers to, each once
    attachments: tuple[Path, ...] = ()  # the folder's other files it embeds or links, each once
    anchors: tuple[tuple[Path, str], ...] = ()  # (note, heading) of each [[Note#Heading]]


@dataclass(frozen=True)
class LinkPlan:
    notes: tuple[NoteLinks, ...]

    @property
    def edges(self) -> tuple[tuple[Path, Path], ...]:
        """Distinct (source note, target note) pairs."""
        return tuple((links.source, target) for links in self.notes for target in links.targets)

    @property
    def unresolved(self) -> tuple[str, ...]:
        """Every name no note answers to, once per folder (first spelling seen)."""
        seen: dict[str, str] = {}
        for name in (name for links in self.notes for name in links.unresolved):
            seen.setdefault(_key(name), name)
        return tuple(seen.values())


@dataclass(frozen=True)
class NotesFolder:
    root: Path
    kind: str
    notes: tuple[FolderNote, ...]
    files: tuple[Path, ...] = ()  # its other files (pictures, recordings, PDFs...), relative
    _names: dict[str, list[FolderNote]] = field(init=False, repr=False, compare=False)
    _paths: dict[str, FolderNote] = field(init=False, repr=False, compare=False)
    _aliases: dict[str, list[FolderNote]] = field(init=False, repr=False, compare=False)
    _files: dict[str, list[Path]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names: dict[str, list[FolderNote]] = {}
        aliases: dict[str, list[FolderNote]] = {}
        for note in self.notes:
            names.setdefault(_key(note.name), []).append(note)
            for alias in note.aliases:
                aliases.setdefault(_key(alias), []).append(note)
        paths = {_key(_without_suffix(note.path.as_posix())): note for note in self.notes}
        files: dict[str, list[Path]] = {}
        for path in self.files:
            files.setdefault(_key(path.name), []).append(path)
        object.__setattr__(self, "_files", files)
        object.__setattr__(self, "_names", names)
        object.__setattr__(self, "_aliases", aliases)
        object.__setattr__(self, "_paths", paths)

    def resolve(self, link: str, source: Path | None = None) -> FolderNote | None:
        """The note ``link`` means when written in ``source`` (rules in the module docstring)."""
        name = " ".join(re.split(r"[|#]", link, maxsplit=1)[0].rstrip("\\").split())
        if not name:
            return None
        if self.kind == LOGSEQ:
            found = self._names.get(_key(name)) or self._aliases.get(_key(name))
            return found[0] if found else None
        name = _without_suffix(name)
        folder = posixpath.dirname(source.as_posix()) if source is not None else ""
        if not name.startswith("/"):
            near = self._paths.get(_key(posixpath.normpath(posixpath.join(folder, name))))
            if near is not None:
                return near
        key = _key(name.lstrip("/"))
        if key in self._paths:
            return self._paths[key]
        stem = key.rsplit("/", 1)[-1]
        found = [note for note in self._names.get(stem, []) if _ends_with(note, key)]
        found = found or self._aliases.get(key, [])
        return min(found, key=lambda n: (len(n.path.parts), n.path.as_posix()), default=None)

    def resolve_file(self, link: str, source: Path | None = None) -> Path | None:
        """The file (not a note) ``link`` names when written in ``source``: a path from the
        note's folder, then from the folder root, then the file of that name with the fewest
        folders (as Obsidian finds attachments, wherever its settings put them)."""
        name = " ".join(link.split("|", 1)[0].rstrip("\\").split())
        if not name:
            return None
        folder = posixpath.dirname(source.as_posix()) if source is not None else ""
        found = self._files.get(_key(posixpath.basename(name)), [])
        wanted = [posixpath.normpath(name.lstrip("/"))]
        if not name.startswith("/"):
            wanted.insert(0, posixpath.normpath(posixpath.join(folder, name)))
        for path in wanted:
            for candidate in found:
                if _key(candidate.as_posix()) == _key(path):
                    return candidate
        ending = [p for p in found if _key("/" + p.as_posix()).endswith(_key("/" + name))]
        return min(ending, key=lambda p: (len(p.parts), p.as_posix()), default=None)


def detect(folder: Path) -> str | None:
    """The kind of notes folder: Obsidian, Logseq, Foam, plain Markdown notes that use
    ``[[links]]``, or None when it is not a notes folder."""
    if not folder.is_dir():
        return None
    if (folder / ".obsidian").is_dir():
        return OBSIDIAN
    if (folder / "logseq" / "config.edn").is_file() or all(
        (folder / d).is_dir() for d in ("pages", "journals")
    ):
        return LOGSEQ
    if (folder / ".foam").is_dir() or any(
        "foam" in _read(folder / ".vscode" / f).lower()
        for f in ("settings.json", "extensions.json")
    ):
        return FOAM
    if any("[[" in _read(folder / path) for path in _note_files(folder, MARKDOWN)):
        return MARKDOWN
    return None


def open_folder(folder: Path, kind: str | None = None) -> NotesFolder:
    """The notes of a notes folder, each named as its tool names it (``kind`` if given, else
    what ``detect`` says; a folder of Markdown files without links is read as Markdown)."""
    kind = kind or detect(folder) or MARKDOWN
    naming = Naming.of(folder, kind)
    notes = []
    for path in _note_files(folder, kind, naming.hidden):
        try:
            doc: ExtractedDocument | None = textfile.extract(
                (folder / path).read_bytes(), path.name
            )
        except (OSError, ExtractionError):
            doc = None  # an empty or unreadable note is still a name to link to
        notes.append(FolderNote(path, naming.name(path, doc), naming.aliases(path, doc)))
    notes_at = {note.path for note in notes}
    files = tuple(p for p in _files(folder, kind) if p not in notes_at)
    return NotesFolder(folder, kind, tuple(notes), files)


@dataclass(frozen=True)
class Naming:
    """How a kind of notes folder names its notes (Logseq's journal title format, its hidden
    pages), read once per folder."""

    kind: str
    journal_format: str = _DEFAULT_JOURNAL_TITLE
    hidden: tuple[str, ...] = ()

    @classmethod
    def of(cls, folder: Path, kind: str) -> Naming:
        if kind != LOGSEQ:
            return cls(kind)
        config = _read(folder / "logseq" / "config.edn")
        config = "\n".join(
            line for line in config.splitlines() if not line.lstrip().startswith(";")
        )
        journal = re.search(r':journal/page-title-format\s+"([^"]+)"', config)
        fmt = journal.group(1) if journal else _DEFAULT_JOURNAL_TITLE
        return cls(kind, fmt, tuple(_edn_strings(config, ":hidden")))

    def is_note(self, path: Path) -> bool:
        """Whether ``path`` (relative to the folder) is a note of this kind of folder."""
        suffixes = textfile.MARKDOWN_SUFFIXES | ({".org"} if self.kind == LOGSEQ else set())
        return path.suffix.lower() in suffixes

    def name(self, path: Path, doc: ExtractedDocument | None) -> str:
        """The name links find the note by: Logseq's page name, else the file name."""
        if self.kind == LOGSEQ:
            title = _declared_title(path, doc) or _logseq_name(path, self.journal_format)
        else:
            title = path.stem
        return unicodedata.normalize("NFC", title)

    def title_of(self, path: Path, doc: ExtractedDocument | None) -> str:
        """The title the tool shows: a declared title, else (Foam) the heading the note opens
        with, else the name; never a heading inside it."""
        declared = _declared_title(path, doc)
        if not declared and self.kind == FOAM and doc is not None:
            declared = doc.title  # front matter's, else the opening "# heading", else the name
        return unicodedata.normalize("NFC", declared or self.name(path, doc))

    def aliases(self, path: Path, doc: ExtractedDocument | None) -> tuple[str, ...]:
        if doc is None:
            return ()
        if path.suffix.lower() == ".org":
            return tuple(_split(_org_keywords(doc).get("alias", "")))
        return doc.aliases


def _declared_title(path: Path, doc: ExtractedDocument | None) -> str:
    """The title a note states (front matter, ``title::``, ``#+TITLE:``), or ""."""
    if doc is None:
        return ""
    title: object
    if path.suffix.lower() == ".org":
        title = _org_keywords(doc).get("title")
    else:
        title = doc.metadata.get("title")
    if isinstance(title, list):
        title = title[0] if title else None
    return title.strip() if isinstance(title, str) else ""


def _org_keywords(doc: ExtractedDocument) -> dict[str, str]:
    if not doc.segments:  # "#+TITLE:" and "#+ALIAS:" open an Org page
        return {}
    return {k.lower(): v for k, v in _ORG_KEYWORD.findall(doc.segments[0].text)}


def link_edges(folder: NotesFolder, documents: Mapping[Path, ExtractedDocument]) -> LinkPlan:
    """For each note with an extracted document (keyed by ``FolderNote.path``): the notes its
    links name and the names no note answers to. In a Logseq folder, tags count as links."""
    plan = []
    for note in folder.notes:
        doc = documents.get(note.path)
        if doc is None:
            continue
        names: Iterable[str] = doc.links + doc.tags if folder.kind == LOGSEQ else doc.links
        targets: dict[Path, None] = {}
        unresolved: dict[str, str] = {}
        files: dict[Path, None] = {}
        for name in names:
            target = folder.resolve(name, note.path)
            if target is not None:
                if target.path != note.path:
                    targets.setdefault(target.path, None)
                continue
            file = folder.resolve_file(name, note.path)  # [[data.csv]]: a file, not a note
            if file is not None:
                files.setdefault(file, None)
            else:
                unresolved.setdefault(_key(name), name)
        for name in doc.attachments:
            # A picture or recording that is not there is no subject to make a stub of.
            file = folder.resolve_file(name, note.path)
            if file is not None:
                files.setdefault(file, None)
        anchors: dict[tuple[Path, str], None] = {}
        for name, heading in doc.anchors:
            target = folder.resolve(name, note.path)
            if target is not None:
                anchors.setdefault((target.path, heading), None)
        plan.append(
            NoteLinks(
                note.path, tuple(targets), tuple(unresolved.values()), tuple(files), tuple(anchors)
            )
        )
    return LinkPlan(tuple(plan))


def _note_files(root: Path, kind: str, hidden: Iterable[str] = ()) -> Iterator[Path]:
    """The folder's note files, folder by folder in name order, outside hidden folders."""
    suffixes = textfile.MARKDOWN_SUFFIXES | ({".org"} if kind == LOGSEQ else set())
    hidden = [entry.strip("/") for entry in hidden]
    for path in _files(root, kind):
        text = path.as_posix()
        if path.suffix.lower() in suffixes and not any(
            text == entry or text.startswith(entry + "/") for entry in hidden
        ):
            yield path


def _files(root: Path, kind: str) -> Iterator[Path]:
    """Every file of the folder outside hidden folders (and Logseq's own ``logseq/``)."""
    for folder, dirs, names in os.walk(root):
        here = Path(folder).relative_to(root)
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in SKIPPED_DIRS
            and not (kind == LOGSEQ and here == Path() and d == "logseq")
        )
        yield from (here / name for name in sorted(names) if not name.startswith("."))


def _logseq_name(path: Path, title_format: str) -> str:
    journal = _JOURNAL_FILE.match(path.stem) if path.parts[0] == "journals" else None
    if journal:
        try:
            return _journal_title(date(*(int(part) for part in journal.groups())), title_format)
        except ValueError:
            pass  # not a real date: named like any page
    return unquote(textfile.title_from_filename(path.name))  # "a___b%3F.md" is "a/b?"


def _journal_title(day: date, fmt: str) -> str:
    """``day`` in a Logseq (date-fns) format such as "MMM do, yyyy" or "yyyy-MM-dd"."""
    month, weekday = _MONTHS.split()[day.month - 1], _WEEKDAYS.split()[day.weekday()]
    nth = "th" if 11 <= day.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
    values = {"yyyy": f"{day.year:04d}", "yy": f"{day.year % 100:02d}", "EEEE": weekday}
    values |= {"MMMM": month, "MMM": month[:3], "MM": f"{day.month:02d}", "M": str(day.month)}
    values |= {"do": f"{day.day}{nth}", "dd": f"{day.day:02d}", "d": str(day.day)}
    return _DATE_TOKEN.sub(lambda m: values.get(m.group(0), weekday[:3]), fmt)


def _edn_strings(config: str, key: str) -> list[str]:
    vector = re.search(re.escape(key) + r"\s*\[([^\]]*)\]", config)
    return re.findall(r'"([^"]*)"', vector.group(1)) if vector else []


def _ends_with(note: FolderNote, key: str) -> bool:
    path = _key(_without_suffix(note.path.as_posix()))
    return path == key or path.endswith("/" + key)


def _without_suffix(name: str) -> str:
    stem, dot, suffix = name.rpartition(".")
    return stem if dot and f".{suffix.lower()}" in textfile.MARKDOWN_SUFFIXES else name


def _split(names: str) -> Iterator[str]:
    return (name.strip() for name in names.split(",") if name.strip())


def _key(name: str) -> str:
    return unicodedata.normalize("NFC", " ".join(name.split()).casefold())


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
