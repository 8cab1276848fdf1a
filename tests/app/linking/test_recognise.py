"""Names by their capitals (``recognise``): what English capitalises for a name is found, what
it capitalises for other reasons (a sentence's head, a heading, an interjection, a licence, a
placeholder, code) is not; and on the real notes and conversations of the corpus."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from cairn.app.linking.recognise import CaseEvidence, Mention, recognise
from cairn.ingest import textfile
from cairn.ingest.chunking import chunk

CORPUS = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus"


def names(text: str, *teaching: str) -> list[tuple[str, str]]:
    """The names ``text`` states, to a vault that has read ``teaching`` and ``text``."""
    evidence = CaseEvidence()
    for taught in (*teaching, text):
        evidence.learn(taught)
    return [(m.name, m.type) for m in recognise(text, evidence)]


def test_names_inside_a_sentence_are_found_with_their_cues() -> None:
    found = names(
        "Last week I met Dr. Maria Jansen at the clinic. The boiler was serviced by Hendrik "
        "from Warmtech, and my friend Ana flew in from Lisbon with her colleague Tomas Lima."
    )
    assert found == [
        ("Maria Jansen", "Person"),
        ("Hendrik", "Person"),
        ("Warmtech", "Place"),
        ("Ana", "Person"),
        ("Lisbon", "Place"),
        ("Tomas Lima", "Person"),
    ]


def test_a_word_mostly_seen_in_lower_case_is_no_name() -> None:
    """The vault's own use decides: "Example" heads a sentence here, "example" is ordinary."""
    taught = "This is an example of a note. Another example follows, a good example."
    assert names("See the Example below for details.", taught) == []
    # Without the lesson, a capital inside a sentence is taken as a name.
    assert names("See the Example below for details.") == [("Example", "Topic")]


def test_the_head_of_a_sentence_needs_the_vault_to_have_seen_the_name() -> None:
    assert names("Glad you came. Wanna see it? Congrats!") == []
    assert names("Yesterday Ines called.", "I called Ines back.") == [("Ines", "Person")]
    # A word alone at a sentence's head, never seen inside one: no name yet.
    assert names("Ines called.") == []


def test_a_name_spoken_to_is_no_mention() -> None:
    assert names("Thanks, Caroline! Hey Mel! Wow, Caroline, that is great.") == []
    assert names("Caroline: I went to Paris with Melanie.") == [
        ("Paris", "Topic"),
        ("Melanie", "Topic"),
    ]


def test_the_people_a_chat_is_between_are_spoken_to_not_of() -> None:
    """A chat line's speaker ("Ana: ...") is a participant: named in the other's lines she is
    addressed ("same here Ana."), and every line of hers would name her."""
    chat = "Ana: I saw Bruno at the market.\nLeo: Nice, same here Ana. Bruno sells figs."
    assert names(chat) == [("Bruno", "Topic")]
    assert names("Thanks Melanie - love the vase!") == []


def test_boilerplate_code_placeholders_and_headings_make_no_name() -> None:
    text = (
        "Copyright JS Foundation and other contributors.\n"
        "Permission is hereby granted, free of charge, to Any Person obtaining a copy.\n"
        "Replace Your Company with the name you use.\n"
        "# Getting Started With Notes\n"
        "Run `Foo Bar` or see https://Example.org/Some Page for more.\n"
        "```\nclass Widget Factory:\n    pass\n```\n"
        "Outline View\n"
        "We export PDF and API docs in any order; I'm not sure. Don't ask.\n"
    )
    assert names(text) == []


def test_runs_join_over_of_and_break_at_numbers_and_list_marks() -> None:
    assert names("We read about the Bank of England and the Lord of the Rings.") == [
        ("Bank of England", "Organization"),
        ("Lord of the Rings", "Topic"),
    ]
    # A version number or a list's dash between two capitals ends a name.
    assert names("Release of Beta 0.10.14 Desktop app - Fix Android build", "fix the app") == []


def test_a_quoted_title_is_a_name_whatever_its_words() -> None:
    assert names('I loved "The Name of the Wind" by Patrick Rothfuss.') == [
        ("Name of the Wind", "Topic"),
        ("Patrick Rothfuss", "Person"),
    ]


def test_each_name_is_listed_once_in_order() -> None:
    evidence = CaseEvidence()
    text = "I saw Ana in the morning and Ana again with Bruno at noon."
    evidence.learn(text)
    assert recognise(text, evidence) == [Mention("Ana", "Topic"), Mention("Bruno", "Topic")]


# -- the corpus ---------------------------------------------------------------------------------

# Words a chat or a notes folder capitalises that are no name: each must not be recognised.
NOT_NAMES = {
    "Glad",
    "Wanna",
    "Congrats",
    "Woohoo",
    "Awesome",
    "Example",
    "Your Company",
    "Copyright",
    "I'm",
    "Thanks",
}


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus (../shared/corpus) is absent")
def test_on_the_dev_conversations_names_recur_and_chat_words_do_not() -> None:
    data = json.loads((CORPUS / "07_conversations/locomo_dev/locomo_dev.json").read_text())
    conversation = data[0]["conversation"]
    evidence = CaseEvidence()
    counts: Counter[str] = Counter()
    sessions = [k for k in conversation if k.startswith("session_") and "date" not in k]
    for key in sorted(sessions, key=lambda k: int(k.split("_")[1])):
        for turn in conversation[key]:
            text = f"{turn['speaker']}, {conversation[key + '_date_time']}\n"
            text += f"{turn['speaker']}: {turn['text']}"
            evidence.learn(text)
            counts.update(m.name for m in recognise(text, evidence))
    assert not NOT_NAMES & set(counts)
    recurring = {name for name, n in counts.items() if n >= 2}
    assert len(recurring) >= 2, counts  # a pet, a child named in several turns


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus (../shared/corpus) is absent")
def test_on_a_notes_folder_tools_are_found_and_boilerplate_is_not() -> None:
    evidence = CaseEvidence()
    passages = []
    for path in sorted((CORPUS / "06_pkm/foam_docs").rglob("*.md")):
        document = textfile.extract(path.read_bytes(), path.name)
        passages += [p.text for p in chunk(document.segments)]
    for text in passages:
        evidence.learn(text)
    counts: Counter[str] = Counter()
    for text in passages:
        counts.update(m.name for m in recognise(text, evidence))
    assert not NOT_NAMES & set(counts)
    assert {"Foam", "GitHub", "VS Code"} <= set(counts), counts.most_common(20)
    assert not any("Foundation" in name or "License" in name for name in counts)


def test_the_calendar_is_no_name_in_the_plural_either() -> None:
    assert names("The pottery class meets on Sundays, and on Mondays in June we swim.") == []


def test_a_patch_in_a_mail_and_code_outside_a_fence_make_no_name() -> None:
    mail = (
        "Thanks, this fixes the oops we saw with Samba.\n"
        "> --- a/fs/cifs/Kconfig\n"
        "> +++ b/fs/cifs/Kconfig\n"
        "> @@ -122,6 +122,14 @@ config CIFS_FSCACHE\n"
        ">  \tdepends on CIFS && EXPERIMENTAL\n"
        "> +\tSay Y here to enable Local Caching.\n"
        "if (CreationTime == 0) { rc = -EINVAL; }\n"
        "The TCP_ServerInfo struct holds it.\n"
    )
    assert names(mail) == [("Samba", "Topic")]
