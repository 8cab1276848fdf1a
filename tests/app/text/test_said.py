"""Who said a text (``text.said``): the name before a said line's colon, and nothing else."""

from __future__ import annotations

import pytest

from cairn.app.text import said


@pytest.mark.parametrize(
    ("text", "speaker"),
    [
        ("Ines: we went camping by the lake", "Ines"),
        ("9:41 Ines: on my way", "Ines"),
        ("Anna Maria Rossi: the boiler is fixed", "Anna Maria Rossi"),
        ("  Marco: indented, as a pasted chat is", "Marco"),
        ("O'Brien: the invoice is paid", "O'Brien"),
    ],
)
def test_a_said_line_names_its_speaker(text: str, speaker: str) -> None:
    assert said.speaker(text) == speaker


@pytest.mark.parametrize(
    "text",
    [
        "ines: a name is written with a capital",
        "Dear Ines, thanks for the tomatoes",
        "https://example.org: a link",
        "The boiler man came: it is fixed",  # more than three words before the colon
        "Ines:no space after the colon is a ratio or a time, not a line",
        "",
    ],
)
def test_other_texts_have_no_speaker(text: str) -> None:
    assert said.speaker(text) is None
