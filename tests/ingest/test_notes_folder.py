"""Whole vault folders: which files are notes, the names they answer to, and which note each
[[link]] means, on small generated vaults and on the real Logseq and Foam documentation."""

from __future__ import annotations

import functools
import time
from pathlib import Path

import pytest

from cairn.ingest import textfile
from cairn.ingest.document import ExtractedDocument, ExtractionError
from cairn.ingest.notes_folder import LinkPlan, NotesFolder, detect, link_edges, open_folder

pytestmark = pytest.mark.serial

LOGSEQ_DOCS = "06_pkm/logseq_docs"
FOAM_DOCS = "06_pkm/foam_docs"


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _documents(vault: NotesFolder) -> dict[Path, ExtractedDocument]:
    """Each note extracted as the app does; a note that fails to read has no document."""
    found = {}
    for note in vault.notes:
        try:
            found[note.path] = textfile.extract(
                (vault.root / note.path).read_bytes(), note.path.name
            )
        except ExtractionError:
            continue
    return found


@functools.cache
def _read_corpus(root: Path) -> tuple[NotesFolder, dict[Path, ExtractedDocument], LinkPlan]:
    vault = open_folder(root)
    documents = _documents(vault)
    return vault, documents, link_edges(vault, documents)


def _resolved(vault: NotesFolder, link: str, source: str | None = None) -> str | None:
    note = vault.resolve(link, Path(source) if source else None)
    return note.path.as_posix() if note else None


# -- detect ---------------------------------------------------------------------------------


def test_detect_names_the_kind_of_notes_folder(tmp_path: Path) -> None:
    obsidian = _write(tmp_path / "o", {".obsidian/app.json": "{}", "a.md": "x"})
    logseq = _write(tmp_path / "l", {"logseq/config.edn": "{}", "pages/a.md": "- x"})
    bare_logseq = _write(tmp_path / "bl", {"pages/a.md": "- x", "journals/2024_01_01.md": "- y"})
    foam = _write(tmp_path / "f", {".foam/templates/t.md": "x", "a.md": "x"})
    vscode_foam = _write(
        tmp_path / "vf", {".vscode/extensions.json": '{"recommendations": ["foam.foam-vscode"]}'}
    )
    markdown = _write(tmp_path / "m", {"notes/a.md": "See [[b]].", "b.md": "B"})
    no_links = _write(tmp_path / "n", {"a.md": "Just text.", "b.txt": "[[not a note]]"})
    assert detect(obsidian) == "obsidian"
    assert detect(logseq) == "logseq"
    assert detect(bare_logseq) == "logseq"
    assert detect(foam) == "foam"
    assert detect(vscode_foam) == "foam"
    assert detect(markdown) == "markdown"
    assert detect(no_links) is None
    assert detect(tmp_path / "absent") is None
    assert detect(obsidian / "a.md") is None  # a file, not a folder


# -- a generated Obsidian vault -------------------------------------------------------------

OBSIDIAN = {
    ".obsidian/app.json": "{}",
    ".obsidian/snippets/readme.md": "[[Index]]",  # settings, not a note
    ".trash/Old.md": "[[Index]]",  # hidden folders are skipped
    "node_modules/pkg/README.md": "[[Index]]",
    "Index.md": (
        "# Home\n\n[[Meeting]] and [[b/Meeting]], [[Topic#Plans|our topic]], [[topic.md]],\n"
        "[[Subject]], [[Plan]], [[café]], [[Index]], [[Missing note]] and [[missing NOTE]].\n"
    ),
    "Topic.md": "---\naliases: [Subject]\n---\nA topic.\n",
    "a/Meeting.md": "Meeting in a. Back to [[Index]].\n",
    "b/Meeting.md": "Meeting in b.\n",
    "b/Note.md": "[[Meeting]] [[../a/Meeting]] [[/a/Meeting]] [[./Meeting]]\n",
    "c/Other.md": "[[Meeting]]\n",
    "deep/er/Plan.md": "Deep plan.\n",
    "top/Plan.md": "Top plan.\n",
    "Cafe\u0301.md": "A file name in NFD, as macOS writes it.\n",
    "Empty.md": "",
}


def test_an_obsidian_vault_lists_its_notes_and_skips_hidden_folders(tmp_path: Path) -> None:
    vault = open_folder(_write(tmp_path, OBSIDIAN))
    assert vault.kind == "obsidian"
    assert sorted(note.path.as_posix() for note in vault.notes) == sorted(
        name for name in OBSIDIAN if not name.startswith((".", "node_modules"))
    )
    topic = next(note for note in vault.notes if note.name == "Topic")
    assert topic.aliases == ("Subject",)
    assert "Empty" in {note.name for note in vault.notes}  # empty, but still a link target


def test_obsidian_links_resolve_by_path_then_folder_then_shortest_path(tmp_path: Path) -> None:
    vault = open_folder(_write(tmp_path, OBSIDIAN))
    # Two notes named "Meeting": the one in the linking note's folder comes first...
    assert _resolved(vault, "Meeting", "b/Note.md") == "b/Meeting.md"
    # ...else the fewest folders, then the first path in sort order.
    assert _resolved(vault, "Meeting", "c/Other.md") == "a/Meeting.md"
    assert _resolved(vault, "Plan", "Index.md") == "top/Plan.md"
    # Path-style links: from the root, relative to the note, or ending a longer path.
    assert _resolved(vault, "b/Meeting", "Index.md") == "b/Meeting.md"
    assert _resolved(vault, "../a/Meeting", "b/Note.md") == "a/Meeting.md"
    assert _resolved(vault, "/a/Meeting", "b/Note.md") == "a/Meeting.md"
    assert _resolved(vault, "er/Plan") == "deep/er/Plan.md"
    # Case, ".md", "#heading", "|label", Unicode normal forms and aliases.
    assert _resolved(vault, "topic.md") == "Topic.md"
    assert _resolved(vault, "TOPIC#Plans|our topic") == "Topic.md"
    assert _resolved(vault, "Subject") == "Topic.md"
    assert _resolved(vault, "CAFÉ") == "Cafe\u0301.md"
    assert _resolved(vault, "Missing note") is None
    assert _resolved(vault, "b/Plan") is None  # a path names that folder only


def test_obsidian_link_plan_has_distinct_edges_and_stub_names(tmp_path: Path) -> None:
    vault = open_folder(_write(tmp_path, OBSIDIAN))
    plan = link_edges(vault, _documents(vault))
    edges = {(src.as_posix(), dst.as_posix()) for src, dst in plan.edges}
    assert len(edges) == len(plan.edges)  # each pair once
    index = {dst for src, dst in edges if src == "Index.md"}
    assert index == {"a/Meeting.md", "b/Meeting.md", "Topic.md", "top/Plan.md", "Cafe\u0301.md"}
    assert ("a/Meeting.md", "Index.md") in edges
    assert {dst for src, dst in edges if src == "b/Note.md"} == {"b/Meeting.md", "a/Meeting.md"}
    assert plan.unresolved == ("Missing note",)  # one stub for both spellings; [[Index]] is self
    # An empty note is a note (notes apps make one for a link clicked before it was written).
    assert Path("Empty.md") in {links.source for links in plan.notes}


# -- a generated Logseq graph ---------------------------------------------------------------

LOGSEQ = {
    "logseq/config.edn": (
        ';; :journal/page-title-format "MMM do, yyyy"\n'
        '{:journal/page-title-format "EEE, yyyy-MM-dd"\n :hidden ["private" "/README.md"]}\n'
    ),
    "logseq/bak/pages/projects___cairn.md": "- an old copy",
    "logseq/.recycle/pages_gone.md": "- deleted",
    "README.md": "[[Projects/Cairn]]",
    "private/secret.md": "- [[Projects/Cairn]]",
    "pages/projects___cairn.md": "alias:: PC, Cairn app\n\n- The [[Garden]] app #planning\n",
    "pages/Garden.md": "title:: Garden Plan\n\n- See [[projects/cairn]] and #[[Cairn app]]\n",
    "pages/Why%3F.md": "- Ask [[PC]], [[Cairn App]], [[garden plan]] and [[Garden Plan]]\n",
    "pages/Tools.org": "#+TITLE: Tool shed\n#+ALIAS: Shed\n\n* a [[Garden]] heading\n",
    "journals/2024_01_05.md": "- Worked on [[PC]] with [[Sat, 2024-01-06]] #[[Someday]]\n",
    "journals/2024_01_06.md": "- [[Why?]] ```[[in code]]``` `[[in code]]`\n",
}


def test_a_logseq_graph_names_pages_and_journals_as_logseq_does(tmp_path: Path) -> None:
    vault = open_folder(_write(tmp_path, LOGSEQ))
    assert vault.kind == "logseq"
    names = {note.path.as_posix(): note.name for note in vault.notes}
    assert names == {
        "journals/2024_01_05.md": "Fri, 2024-01-05",  # the configured format, not the comment
        "journals/2024_01_06.md": "Sat, 2024-01-06",
        "pages/Garden.md": "Garden Plan",  # title:: wins over the file name
        "pages/Tools.org": "Tool shed",
        "pages/Why%3F.md": "Why?",
        "pages/projects___cairn.md": "projects/cairn",
    }  # logseq/ (bak, .recycle) and the :hidden README.md and private/ are not notes
    assert _resolved(vault, "Projects/Cairn") == "pages/projects___cairn.md"
    assert _resolved(vault, "cairn app") == "pages/projects___cairn.md"  # alias::
    assert _resolved(vault, "Shed") == "pages/Tools.org"
    assert _resolved(vault, "Garden") is None  # the page is "Garden Plan" now
    assert _resolved(vault, "projects___cairn") is None  # a file name is not a page name


def test_logseq_tags_are_page_references(tmp_path: Path) -> None:
    vault = open_folder(_write(tmp_path, LOGSEQ))
    plan = link_edges(vault, _documents(vault))
    edges = {(src.as_posix(), dst.as_posix()) for src, dst in plan.edges}
    assert edges == {
        ("pages/Why%3F.md", "pages/projects___cairn.md"),  # [[PC]] and [[Cairn App]]: one edge
        ("pages/Why%3F.md", "pages/Garden.md"),
        ("pages/Garden.md", "pages/projects___cairn.md"),  # the #[[Cairn app]] tag adds nothing
        ("journals/2024_01_05.md", "pages/projects___cairn.md"),
        ("journals/2024_01_05.md", "journals/2024_01_06.md"),
        ("journals/2024_01_06.md", "pages/Why%3F.md"),
    }
    # Unresolved: links and tags alike; [[Garden]] from a page since renamed; not code.
    assert set(plan.unresolved) == {"Garden", "planning", "Someday"}


# -- the real Logseq documentation graph ----------------------------------------------------


def test_the_logseq_docs_graph_reconciles_with_its_readme(corpus: Path) -> None:
    root = corpus / LOGSEQ_DOCS
    started = time.perf_counter()
    vault = open_folder(root)
    documents = _documents(vault)
    plan = link_edges(vault, documents)
    assert time.perf_counter() - started < 2.0
    assert detect(root) == vault.kind == "logseq"
    # Notes: the README's 238 pages + 91 journals are the 238 Markdown pages and all 91
    # journals (75 .md + 16 .org); the graph also has 4 .org pages: 238 + 4 + 75 + 16 = 333.
    # README.md and LICENSE.md at the root are in config.edn's :hidden, so not notes.
    assert len(vault.notes) == 333
    assert sum(note.path.suffix == ".org" for note in vault.notes) == 20
    # Links: the README's 2,226 is every "[[...]]" in the .md files, repeats included. Of those,
    # 6 sit in fenced code and 38 in inline code (examples of syntax, not references), 10 are
    # #[[tags]] (counted as tags below) and 897 repeat a name already linked in the same file:
    # 2,226 = 1,275 + 897 + 38 + 6 + 10 (.org files hold no Markdown links; they are read as
    # plain text). The extractor once found 1,158: a fence opened in a Logseq bullet ("- ```")
    # was missed, so its closing fence hid 137 links until the next fence, a heading's link
    # was not read (+1), and 21 inline-code examples counted as links.
    assert sum(len(doc.links) for doc in documents.values()) == 1275
    # Targets: the README's 735 distinct texts are 715 link names + 15 only ever in code
    # ("PKM", "{date}"...) + 2 only as #[[tags]] ("minor change", "Snap to grid") + 2 case
    # variants whose other spelling is a link ("Kanru", "logseq") + 1 empty "[[ ]]"; the 715
    # are 711 names case-insensitively. With the 13 names that occur only as tags (#docs,
    # "tags:: theme", #[[minor change]], the priorities [#A] and [#C], which Logseq counts as
    # pages too...), 724 names are used: 246 are pages or aliases, 478 are not (stub topics).
    names = {name.casefold() for doc in documents.values() for name in doc.links + doc.tags}
    assert len(names) == 724
    assert len(plan.unresolved) == 478
    assert sum(vault.resolve(name) is not None for name in names) == 246
    # Edges: 1,322 (note, name) pairs (1,275 links + 47 tags not also linked in that note)
    # = 778 distinct note -> note edges + 519 unresolved + 10 links of a page to itself
    # (often via its own alias) + 15 second names for a page the note already links to.
    assert len(plan.edges) == 778
    assert len(set(plan.edges)) == 778


@pytest.mark.parametrize(
    ("link", "page"),
    [
        ("Whiteboard/Action Bar/Reload", "pages/Whiteboard___Action Bar___Reload.md"),
        ("whiteboard/action bar/reload#Usage", "pages/Whiteboard___Action Bar___Reload.md"),
        ("Reload", "pages/Whiteboard___Action Bar___Reload.md"),  # alias:: Reload
        ("Devon Zuegel", "pages/devon.md"),  # alias:: [[Devon Zuegel]]
        ("term/embedded page", "pages/page_embed.md"),  # alias:: term/embedded page
        ("New to Logseq?", "pages/New to Logseq%3F.md"),  # title:: New to Logseq?
        ("custom page title", "pages/term.page title.md"),  # title::, not the file name
        ("Apr 1st, 2021", "journals/2021_04_01.md"),  # a journal by its date
        ("Oct 8th, 2020", "journals/2020_10_08.org"),
        ("Changelog 2020", "pages/Changelog_2020.org"),  # #+TITLE: Changelog 2020
    ],
)
def test_logseq_docs_links_resolve_to_their_pages(corpus: Path, link: str, page: str) -> None:
    vault, _, _ = _read_corpus(corpus / LOGSEQ_DOCS)
    assert _resolved(vault, link) == page


def test_logseq_docs_edges_from_real_pages(corpus: Path) -> None:
    _, _, plan = _read_corpus(corpus / LOGSEQ_DOCS)
    edges = {(src.as_posix(), dst.as_posix()) for src, dst in plan.edges}
    # "{{embed [[Basic settings]] }}" references the page it embeds.
    assert ("pages/Settings.md", "pages/Basic settings.md") in edges
    # "type:: [[Tool]]" reaches the page whose alias:: is Tool.
    reload_page = "pages/Whiteboard___Action Bar___Reload.md"
    assert (reload_page, "pages/Whiteboard___Tool.md") in edges
    assert {"Fixed issues", "Logseq", "A"} <= set(plan.unresolved)
    assert "PKM" not in plan.unresolved  # only ever written in inline code


# -- the real Foam documentation ------------------------------------------------------------


def test_the_foam_docs_reconcile_with_their_readme(corpus: Path) -> None:
    root = corpus / FOAM_DOCS
    vault, documents, plan = _read_corpus(root)
    # No .foam/ or .vscode/ was kept in the corpus: a folder of notes with [[links]].
    assert detect(root) == vault.kind == "markdown"
    assert len(vault.notes) == 86
    # Wikilinks: the README's 299 is every "[[...]]", repeats included. Foam's docs teach
    # wikilink syntax, so most are examples: 55 in fenced code, 45 in inline code, 18 repeat a
    # name already linked in the same file: 299 = 181 + 18 + 45 + 55.
    assert sum(len(doc.links) for doc in documents.values()) == 181
    # Targets: the 150 distinct raw texts are 128 once "#heading"/"|label" is dropped, of
    # which 51 occur only in code examples ("my-note", "image.png"...), leaving 77 real link
    # names. (The README's 131 matches no such count: it equals the raw texts with picture
    # links dropped and cut to their last path segment, likely an artefact of its script.)
    names = {name.casefold() for doc in documents.values() for name in doc.links}
    assert len(names) == 77
    # 75 resolve; 2 are broken in Foam's own docs: [[cli-grep]] (the note is cli/grep.md)
    # and [[publishing]] (a folder, no note). Foam tags are not links. All 181 pairs are
    # distinct edges but the 2 unresolved: 179.
    assert sorted(plan.unresolved) == ["cli-grep", "publishing"]
    assert len(plan.edges) == len(set(plan.edges)) == 179
    edges = {(src.as_posix(), dst.as_posix()) for src, dst in plan.edges}
    features = "docs/user/features"
    assert (f"{features}/note-properties.md", f"{features}/templates.md") in edges  # #Metadata
    getting_started = "docs/user/getting-started/installation.md"
    assert (getting_started, "docs/user/tools/cli.md") in edges  # [[cli|CLI documentation]]


@pytest.mark.parametrize(
    ("link", "source", "note"),
    [
        ("recipes", "docs/index.md", "docs/user/recipes/recipes.md"),
        ("templates#Metadata", "x.md", "docs/user/features/templates.md"),
        ("cli|CLI documentation", "x.md", "docs/user/tools/cli.md"),  # not the cli/ folder
        ("search|foam search", "x.md", "docs/user/tools/cli/search.md"),
        ("principles.md", "docs/user/index.md", "docs/principles.md"),
        ("user/tools/cli/grep", "x.md", "docs/user/tools/cli/grep.md"),
    ],
)
def test_foam_links_resolve_to_their_notes(corpus: Path, link: str, source: str, note: str) -> None:
    vault, _, _ = _read_corpus(corpus / FOAM_DOCS)
    assert _resolved(vault, link, source) == note


def test_attachments_resolve_to_the_folders_files_and_titles_are_file_names(
    tmp_path: Path,
) -> None:
    from cairn.ingest import notes_folder, textfile

    root = tmp_path / "vault"
    (root / ".obsidian").mkdir(parents=True)
    (root / "att").mkdir()
    (root / "att" / "diagram.png").write_bytes(b"png")
    (root / "paper.pdf").write_bytes(b"pdf")
    (root / "Formats.md").write_text(
        "## Embed files\n\n![[diagram.png]] [[paper.pdf|p]] ![[gone.ogg]] [[Settings#Look]]\n"
    )
    (root / "Settings.md").write_text("# Preferences\n\n## Look\n\nDark.\n")
    folder = notes_folder.open_folder(root)
    docs = {
        n.path: textfile.extract((root / n.path).read_bytes(), n.path.name) for n in folder.notes
    }
    plan = notes_folder.link_edges(folder, docs)
    formats = next(n for n in plan.notes if n.source == Path("Formats.md"))
    assert formats.attachments == (Path("att/diagram.png"), Path("paper.pdf"))
    assert formats.targets == (Path("Settings.md"),) and formats.unresolved == ()
    assert formats.anchors == ((Path("Settings.md"), "Look"),)
    naming = notes_folder.Naming.of(root, folder.kind)
    assert naming.title_of(Path("Settings.md"), docs[Path("Settings.md")]) == "Settings"


def test_foam_titles_a_note_by_the_heading_it_opens_with(tmp_path: Path) -> None:
    """Foam shows a note by its front matter title, else its opening "# heading", else its
    file name; links still find it by its file name."""
    from cairn.ingest import notes_folder, textfile

    (tmp_path / ".foam").mkdir()
    naming = notes_folder.Naming.of(tmp_path, notes_folder.detect(tmp_path) or "")
    assert naming.kind == notes_folder.FOAM
    opening = textfile.extract(b"# Daily Notes\n\nOne a day.\n", "daily-notes.md")
    assert naming.title_of(Path("daily-notes.md"), opening) == "Daily Notes"
    plain = textfile.extract(b"No heading here.\n", "loose-thought.md")
    assert naming.title_of(Path("loose-thought.md"), plain) == "loose-thought"
    assert naming.name(Path("daily-notes.md"), opening) == "daily-notes"
