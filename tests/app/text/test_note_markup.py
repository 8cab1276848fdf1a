"""What a note shows a reader: a notes app's syntax out, pictures named, [[links]] as links
the window can open by name."""

from __future__ import annotations

from cairn.app.text.note_markup import LINK_SCHEME, for_reading, link_target


def test_links_become_links_and_syntax_goes() -> None:
    text = (
        "- See [[Ada Brook]] and [[Harbour history#Pier|the pier]]\n"
        "  id:: 6018fb3e-6bb0-4ab5-9b94-fd0f0a4f4f1a\n-\n"
        "- ![[sketch.png]] {{embed [[Plans]]}}"
    )
    assert for_reading(text).split("\n") == [
        f"- See [Ada Brook]({LINK_SCHEME}Ada%20Brook) and "
        f"[the pier]({LINK_SCHEME}Harbour%20history)",
        "- [picture: sketch.png] ",
    ]
    assert link_target(f"{LINK_SCHEME}Ada%20Brook") == "Ada Brook"
    assert link_target("https://example.org") is None


def test_text_without_markup_is_left_as_it_was() -> None:
    plain = "# Title\n\nA paragraph with **bold** and a [web link](https://example.org).\n"
    assert for_reading(plain) == plain
