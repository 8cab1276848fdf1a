"""Text and Markdown extraction: decoding with clear refusals, front matter and Logseq page
properties, headings and line ranges, and the links and tags a note states."""

from __future__ import annotations

import codecs
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
