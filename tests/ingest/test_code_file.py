"""Code files: Python by its structure (docstrings, classes, functions with line ranges),
other languages as located text."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from cairn.ingest import code_file
from cairn.ingest.document import ExtractionError

CODE = b'''"""Keeps the bees' records."""

import json

LIMIT = 3


class Hive:
    """One hive and its frames."""

    @property
    def frames(self) -> int:
        return 10

    def inspect(self, note: str) -> str:
        """Record an inspection."""
        return json.dumps(note)


async def swarm_alert() -> None:
    pass


if __name__ == "__main__":
    print(LIMIT)
'''


def test_python_is_read_by_its_structure() -> None:
    doc = code_file.extract(CODE, "hives.py")
    assert doc.media_type == "text/x-python"
    assert doc.title == "hives.py"
    by_place = {s.locator.heading: s for s in doc.segments}
    assert doc.segments[0].text == "Keeps the bees' records."
    hive = by_place[("Hive",)]
    assert hive.text.startswith("class Hive:") and "@property" not in hive.text
    frames = by_place[("Hive", "frames")]
    assert frames.text.startswith("@property")
    assert (frames.locator.line_start, frames.locator.line_end) == (11, 13)
    assert '"""Record an inspection."""' in by_place[("Hive", "inspect")].text
    assert ("swarm_alert",) in by_place
    module_code = [s.text for s in doc.segments if not s.locator.heading][1:]
    assert module_code == [
        "import json\n\nLIMIT = 3",
        'if __name__ == "__main__":\n    print(LIMIT)',
    ]
    # Every line of code is in some segment: nothing is left out.
    kept = "\n".join(s.text for s in doc.segments)
    for line in CODE.decode().splitlines():
        if line.strip() and not line.startswith('"""'):
            assert line.strip() in kept, line


def test_python_that_does_not_parse_is_kept_as_text() -> None:
    doc = code_file.extract(b"def broken(:\n    pass\n", "broken.py")
    assert any("does not parse" in w for w in doc.warnings)
    assert "def broken(:" in doc.text


def test_other_languages_are_located_text() -> None:
    doc = code_file.extract(b'fn main() {\n    println!("hi");\n}\n\nfn other() {}\n', "main.rs")
    assert doc.media_type == "text/x-rust"
    assert [(s.locator.line_start, s.locator.line_end) for s in doc.segments] == [(1, 3), (5, 5)]


def test_this_project_reads_itself() -> None:
    path = Path(code_file.__file__)
    doc = code_file.extract(path.read_bytes(), path.name)
    assert ("extract",) in {s.locator.heading for s in doc.segments}


def test_python_saved_as_utf16_without_a_byte_order_mark_is_read_by_its_structure(
    tmp_path: Path,
) -> None:
    path = tmp_path / "hives.py"
    path.write_bytes(CODE.decode().encode("utf-16-le"))
    doc = code_file.extract(path.read_bytes(), path.name)
    assert doc.segments[0].text == "Keeps the bees' records."
    assert ("Hive", "inspect") in {s.locator.heading for s in doc.segments}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_bytes_named_as_code_are_refused_as_not_text(tmp_path: Path, seed: int) -> None:
    path = tmp_path / "tool.rs"
    path.write_bytes(random.Random(seed).randbytes(50_000))
    with pytest.raises(ExtractionError, match=r"^tool\.rs does not look like text"):
        code_file.extract(path.read_bytes(), path.name)
