"""A snippet is what a memory says: no file bookkeeping, Markdown as a reader sees it, and the
matched words still marked wherever the markup went."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cairn.app.text.snippets import hidden_lines, plain_line, readable

START, END = "\x02", "\x03"
FILE = {
    "path": "/home/someone/notes/daily-notes.md",
    "media_type": "text/markdown",
    "sha256": "5ca127499649c01a2dbf9b81ee8dfa9bd6d1cf4b52ad692c41da6931ed77350f",
}


def test_file_bookkeeping_is_left_out_whole_or_cut() -> None:
    hidden = hidden_lines(FILE)
    whole = (
        f"{START}daily{END}-notes\nmedia type: text/markdown\n"
        f"path: /home/someone/notes/{START}daily{END}-notes.md"
    )
    assert readable(whole, hidden, unmarked=START + END) == f"{START}daily{END}-notes"
    cut = "…someone/notes/daily-notes.md\nsha256: 5ca12749"
    assert readable(cut, hidden, unmarked=START + END) == ""
    # Cut so short the key itself is cut: what is left still only begins the bookkeeping.
    short = f"The {START}pharmacy{END} opens at eight.\nmedia…"
    assert (
        readable(short, hidden, unmarked=START + END) == f"The {START}pharmacy{END} opens at eight."
    )


def test_a_line_of_content_that_shares_a_word_with_the_path_stays() -> None:
    hidden = hidden_lines(FILE)
    assert readable("Daily notes start at eight.", hidden) == "Daily notes start at eight."
    # A tag is what the person wrote, not bookkeeping.
    assert (
        readable("tags: notes, daily", hidden_lines(FILE | {"tags": ["x"]})) == "tags: notes, daily"
    )


def test_markdown_is_shown_as_text_with_the_marks_kept() -> None:
    marked = (
        "## Setup\n- Open **" + START + "Settings" + END + " → Sync** and [[Daily Notes|daily]]\n"
        "1. run `make` then see [the docs](https://example.org)\n"
        "```bash\nrm -rf build\n```\n| a | b |\n|---|---|\n> quoted *words*"
    )
    assert readable(marked, unmarked=START + END).split("\n") == [
        "Setup",
        "Open " + START + "Settings" + END + " → Sync and daily",
        "run make then see the docs",
        "rm -rf build",
        "a · b",
        "quoted words",
    ]


def test_what_a_cut_leaves_of_markup_goes_too() -> None:
    assert plain_line('…Open Daily Note"** and more') == '…Open Daily Note" and more'
    assert plain_line("…templates](../features/templates.md)** - Create") == "…templates - Create"
    assert readable("[navigation]: navigation.md\nText stays") == "Text stays"


def test_words_with_underscores_and_stars_inside_stay_as_written() -> None:
    assert plain_line("snake_case_name and 2*3*4") == "snake_case_name and 2*3*4"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=200))
def test_plain_text_never_grows_and_keeps_its_marks(text: str) -> None:
    marked = START + text + END
    shown = readable(marked, unmarked=START + END)
    assert shown.count(START) <= 1 and shown.count(END) <= 1
    assert len(shown) <= len(marked)


def test_a_notes_apps_syntax_is_not_shown() -> None:
    logseq = (
        "- Queries find blocks\n  id:: 6018fb3e-6bb0-4ab5-9b94-fd0f0a4f4f1a\n"
        "  collapsed:: true\n- #+BEGIN_NOTE\n- Use ((6018fb3e-6bb0-4ab5-9b94-fd0f0a4f4f1a)) "
        "and {{query (todo now)}} here\n- #+END_NOTE\n- ![diagram](../assets/flow.png)"
    )
    assert readable(logseq).split("\n") == [
        "Queries find blocks",
        "Use and here",
        "[picture: diagram]",
    ]


def test_a_section_without_a_heading_is_named_by_its_first_words() -> None:
    from cairn.app.ingestion.shapes import opening_words

    assert opening_words("- The **kiln** reached cone 6 in nine hours.") == (
        "The kiln reached cone 6 in …"
    )
    assert opening_words("Short one.") == "Short one."
    assert opening_words("https://example.org/" + "x" * 200).endswith(" …")
    assert len(opening_words("https://example.org/" + "x" * 200)) <= 62
    assert opening_words("   ") == "a section"
