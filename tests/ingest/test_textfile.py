"""Text and Markdown extraction: decoding with clear refusals, front matter and Logseq page
properties, headings and line ranges, and the links and tags a note states."""

from __future__ import annotations

import codecs
import io
import random
import time
import zipfile
from pathlib import Path

import pytest

from cairn.ingest.document import ExtractionError
from cairn.ingest.textfile import decode, extract, title_from_filename

NOTE = """---
title: Garden plans
aliases: [Allotment, "Plot 47"]
tags: [garden, spring]
created: 2024-03-01
---
# Garden plans

Dig the beds before [[Easter]] with [[Ana Lima|Ana]]. #sowing

## Seeds

Order from [[Seed Co#catalogue]] and #[[heirloom tomatoes]].
![[plan.png]] and ![[Sowing calendar]]

```python
# not a heading
x = "[[not a link]] #not-a-tag"
```
"""


def test_markdown_yields_title_aliases_tags_links_and_located_paragraphs() -> None:
    doc = extract(NOTE.encode(), "garden.md")
    assert doc.title == "Garden plans"
    assert doc.media_type == "text/markdown"
    assert doc.aliases == ("Allotment", "Plot 47")
    assert doc.tags == ("garden", "spring", "sowing", "heirloom tomatoes")
    assert doc.links == ("Easter", "Ana Lima", "Seed Co", "Sowing calendar")
    assert doc.metadata["created"] == "2024-03-01"  # plain text, not a date object
    seeds = [s for s in doc.segments if s.text.startswith("Order from")]
    assert seeds[0].locator.heading == ("Garden plans", "Seeds")
    assert (seeds[0].locator.line_start, seeds[0].locator.line_end) == (13, 14)
    first = next(s for s in doc.segments if s.text.startswith("Dig"))
    assert first.locator.heading == ("Garden plans",)
    assert NOTE.split("\n")[first.locator.line_start - 1].startswith("Dig")
    code = next(s for s in doc.segments if "not a heading" in s.text)
    assert code.locator.heading == ("Garden plans", "Seeds")  # a comment in code, not a heading


def test_broken_front_matter_is_kept_as_text_with_a_warning() -> None:
    doc = extract(b"---\ntitle: [unclosed\n---\nBody text.\n", "x.md")
    assert any("front matter" in w for w in doc.warnings)
    assert "title: [unclosed" in doc.text and "Body text." in doc.text
    assert doc.title == "x"


def test_plain_text_keeps_hashes_and_brackets_as_words() -> None:
    doc = extract(b"# Not a heading in plain text\nSee [[this]] #here\n", "notes.txt")
    assert doc.media_type == "text/plain"
    assert doc.links == () and doc.tags == ()
    assert doc.segments[0].locator.heading == ()
    assert doc.title == "notes"


def test_logseq_page_properties_and_file_names() -> None:
    page = b"alias:: Reload, Refresh\ntags:: tool\n\n- Reloads the [[Whiteboard]] content\n"
    doc = extract(page, "Whiteboard___Action Bar___Reload.md")
    assert doc.title == "Whiteboard/Action Bar/Reload"
    assert doc.aliases == ("Reload", "Refresh")
    assert doc.tags == ("tool",)
    assert doc.links == ("Whiteboard",)
    assert title_from_filename("projects%2Fcairn.md") == "projects/cairn"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        ("caf\u00e9".encode("utf-8")[:-1] + b"\x81\x8d", "encoding"),
        (codecs.BOM_UTF16_LE + b"\x00\xd8A\x00", "says it is UTF-16 text but is not"),
    ],
)
def test_files_that_are_not_readable_text_are_refused_with_the_reason(
    data: bytes, reason: str
) -> None:
    with pytest.raises(ExtractionError, match=reason):
        decode(data, "bad.txt")


def test_byte_order_marks_and_old_windows_text_are_read() -> None:
    assert decode(codecs.BOM_UTF16_LE + "Grüße".encode("utf-16-le"), "a.txt") == "Grüße"
    assert decode(codecs.BOM_UTF8 + "naïve".encode(), "b.txt") == "naïve"
    assert decode("café – 5 €".encode("cp1252"), "c.txt") == "café – 5 €"


def test_a_real_logseq_page(corpus: Path) -> None:
    page = corpus / "06_pkm/logseq_docs/pages/Whiteboard___Action Bar___Reload.md"
    doc = extract(page.read_bytes(), page.name)
    assert doc.title == "Whiteboard/Action Bar/Reload"
    assert "Reload" in doc.aliases
    assert {"Tool", "All Platforms", "Publish Web"} <= set(doc.links)


def test_code_in_bullets_nested_fences_and_inline_spans_holds_no_links_or_tags() -> None:
    page = (
        "## Release [[Dec 1st, 2025]] #release\n"  # a heading's link and tag count
        "- A calculation:\n"
        "\t- ```calc\n"  # Logseq opens a fence inside a bullet
        "\t  [[in a bullet fence]] #no\n"
        "\t  ```\n"
        "- After the fence: [[Real link]]\n"
        "````markdown\n"  # a four-backtick block that shows a three-backtick one
        "```foam-query\n"
        'filter: "#research"\n'
        "```\n"
        "[[still code]]\n"
        "````\n"
        "Type `[[PKM]]` or ``#card``; ```[[one line]]``` is inline code too.\n"
        "See [the section](#anchor) and #kept.\n"
    )
    doc = extract(page.encode(), "page.md")
    assert doc.links == ("Dec 1st, 2025", "Real link")
    assert doc.tags == ("release", "kept")
    fence = next(s for s in doc.segments if "in a bullet fence" in s.text)
    assert fence.locator.heading == ("Release [[Dec 1st, 2025]] #release",)


# -- text or not: encodings without a byte-order mark, and bytes that are no text --------------

ENGLISH = "The allotment committee met on Tuesday.\n\nWe agreed to buy a second water pump."
GERMAN = "Grüße aus München!\n\nDie Bäume blühen früh, und der Straßenbahnfahrer grüßt höflich."
FRENCH = "Où est la bibliothèque ?\n\nÇa dépend : l’élève a déjà lu « Les Misérables » à Noël."
GREEK = "Καλημέρα από την Αθήνα.\n\nΟ κήπος είναι γεμάτος λουλούδια τον Απρίλιο."
NOT_TEXT = ("does not look like text", "binary file", "save it as UTF-8")


def _written(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _refused(path: Path) -> str:
    with pytest.raises(ExtractionError) as refusal:
        extract(path.read_bytes(), path.name)
    return str(refusal.value)


@pytest.mark.parametrize("text", [ENGLISH, GERMAN, FRENCH, GREEK], ids=["en", "de", "fr", "el"])
@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_without_a_byte_order_mark_are_read(
    tmp_path: Path, text: str, encoding: str
) -> None:
    path = _written(tmp_path, "note.txt", text.encode(encoding))
    assert not path.read_bytes().startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    doc = extract(path.read_bytes(), path.name)
    assert doc.text == text
    assert [s.locator.line_start for s in doc.segments] == [1, 3]


@pytest.mark.parametrize(
    ("bom", "encoding"),
    [
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
        (codecs.BOM_UTF32_LE, "utf-32-le"),
        (codecs.BOM_UTF32_BE, "utf-32-be"),
    ],
)
def test_text_with_a_byte_order_mark_is_read_without_the_mark(
    tmp_path: Path, bom: bytes, encoding: str
) -> None:
    path = _written(tmp_path, "note.md", bom + f"# Notes\n\n{FRENCH}".encode(encoding))
    doc = extract(path.read_bytes(), path.name)
    assert doc.title == "Notes"
    assert doc.text == f"Notes\n\n{FRENCH}"


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("drop_nul", [False, True], ids=["as-is", "no-NUL-bytes"])
def test_random_bytes_named_markdown_are_refused_as_not_text(
    tmp_path: Path, seed: int, drop_nul: bool
) -> None:
    data = random.Random(seed).randbytes(100_000)
    if drop_nul:  # no NUL to give it away: the characters it decodes to must
        data = data.replace(b"\x00", b"")
    message = _refused(_written(tmp_path, "random.md", data))
    assert message.startswith("random.md does not look like text")
    for words in NOT_TEXT:
        assert words in message


@pytest.mark.parametrize("seed", [10, 11, 12])
def test_pictures_and_archives_named_as_text_are_refused(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + rng.randbytes(30_000)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        entry = zipfile.ZipInfo("notes.txt", date_time=(2024, 3, 1, 12, 0, 0))
        entry.compress_type = zipfile.ZIP_DEFLATED
        words = [rng.choice(["pump", "seed", "bed", "water", "spring"]) for _ in range(20_000)]
        zipped.writestr(entry, " ".join(words) + rng.randbytes(20_000).hex())
    # Sixteen-bit samples of eight-bit values: every high byte is zero, as in UTF-16 text, but
    # the characters they would be are mostly control characters.
    samples = b"".join(rng.randrange(256).to_bytes(2, "little") for _ in range(20_000))
    for name, data in (
        ("photo.txt", png),
        ("archive.md", archive.getvalue()),
        ("pcm.txt", samples),
    ):
        message = _refused(_written(tmp_path, name, data))
        assert message.startswith(f"{name} does not look like text"), message
        for words in NOT_TEXT:
            assert words in message


def test_old_windows_text_with_accents_is_read(tmp_path: Path) -> None:
    text = (
        "Le café crème coûte 3 € ; don´t forget the crêpes.\n\nNaïve Zoë says “très bien” – voilà."
    )
    path = _written(tmp_path, "menu.txt", text.encode("cp1252"))
    assert extract(path.read_bytes(), path.name).text == text
    assert decode(b"caf\xe9 cr\xe8me", "short.txt") == "café crème"


def test_multilingual_utf8_with_emoji_is_read(tmp_path: Path) -> None:
    # U+1FAE8 (shaking face) is newer than some Pythons' Unicode tables: still text.
    text = (
        "Ελληνικά: η θάλασσα είναι ήρεμη.\n\n日本語の文章です。桜が咲きました。\n\n"
        "Emoji: 🌱🌻🐝 and 🫠🫨 — done ✅"
    )
    path = _written(tmp_path, "mixed.md", text.encode())
    assert extract(path.read_bytes(), path.name).text == text


def test_a_few_stray_control_characters_do_not_make_text_binary(tmp_path: Path) -> None:
    lines = [
        f"Line {n}: the pump ran for {n} minutes and the beds were watered." for n in range(30)
    ]
    lines[3] += "\x07"  # a bell
    lines[8] = "\x1b[31mERROR\x1b[0m " + lines[8]  # terminal colours
    lines[12] += " \x01\x7f"
    text = "\n".join(lines) + "\f\n"
    path = _written(tmp_path, "log.txt", text.encode())
    doc = extract(path.read_bytes(), path.name)
    assert "\x07" in doc.text and "\x1b[31mERROR" in doc.text
    assert doc.text.startswith("Line 0: the pump ran")


def test_links_in_tables_to_headings_and_to_files() -> None:
    text = (
        "## Embed files\n\n"
        "| [[Settings\\|the settings]] | ![[diagram.png]] |\n"
        "See [[Settings#Appearance]], [[Editor#Fonts#Size|size]], [[Sync#^block1]],\n"
        "[[paper.pdf|the paper]], ![[talk.ogg]], ![[Canvas]], [[Release 1.2]] and\n"
        "![map](assets/harbour%20map.png) [site](https://example.org/a.png).\n"
    )
    doc = extract(text.encode(), "Accepted file formats.md")
    assert doc.title == "Accepted file formats"  # a level-2 heading is a section, not the title
    assert doc.links == ("Settings", "Editor", "Sync", "Canvas", "Release 1.2")
    assert doc.anchors == (("Settings", "Appearance"), ("Editor", "Size"))
    assert doc.attachments == ("diagram.png", "paper.pdf", "talk.ogg", "assets/harbour map.png")
    assert extract(b"# Harbour\n\nText.\n", "h.md").title == "Harbour"  # an opening title
    assert extract(b"Text.\n\n# Later\n", "later.md").title == "later"


def test_a_line_of_brackets_is_read_in_one_pass() -> None:
    """A Markdown link's text may hold brackets one level deep; a line of 100,000 "[" costs
    one pass, not a scan to the line's end from each of them."""
    started = time.monotonic()
    note = extract(("[" * 100_000 + "]" * 100_000 + "(a.pdf)\n").encode(), "n.md")
    assert note.attachments == ()
    assert time.monotonic() - started < 30
    linked = extract(b"See [the plan [v2]](plans/plan.pdf) and ![map](img/map.png).\n", "n.md")
    assert linked.attachments == ("plans/plan.pdf", "img/map.png")


def test_an_empty_markdown_note_is_a_note_with_its_name() -> None:
    """Notes apps make an empty note for a link clicked before anything was written in it:
    it is kept with its name, so links to it find it."""
    from cairn.ingest import textfile

    document = textfile.extract(b"", "Spring floods.md")
    assert (document.title, document.media_type, document.segments) == (
        "Spring floods",
        "text/markdown",
        (),
    )
