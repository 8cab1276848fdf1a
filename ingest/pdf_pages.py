"""What is on a PDF page: how much of it images cover, whether its text layer is too short for
that, and the text layer and the page's OCR put together without saying anything twice.

A scanner or a phone app often puts a line of text on a scanned page ("Scanned with ...", a
fax header, a page number) or a partial OCR layer of its own. Counting the text layer's
characters alone then takes the whole scan for a text page and reads only the stamp. So a page
is read by OCR when images cover most of it and its text layer is short for the area they
cover. Where the images sit is found by walking the page's content stream: each image is drawn
as the unit square mapped through the current transformation matrix (``cm``, ``q``/``Q``, and
a form's ``/Matrix``), so its place on the page is known without decoding a pixel.

A page that is a real text page (a long text layer) is never sent to OCR, however large its
background picture: that keeps a scanned book that already has an OCR layer from being read a
second time, and a slide deck with photo backgrounds from taking minutes.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Iterator
from typing import Any

from pypdf.generic import ContentStream

# "Most of the page": images cover at least this share of the page's visible area.
SCAN_COVERAGE = 0.5
# Body text set at 11-12 pt with margins holds about 30 characters a square inch (a Letter
# page of prose is 2,500-3,500 characters). A text layer with less than a tenth of that over
# the area the images cover is a stamp, a header or a partial layer, not the page's text: 280
# characters on a Letter-size scan; "Scanned with CamScanner" is 22.
BODY_TEXT_CHARS_PER_PT2 = 30 / 72**2
SHORT_LAYER_SHARE = 0.1
# Coverage is counted on a grid over the page: a hundredth of each side is far finer than the
# half-page decision needs, and the work is bounded whatever the images' number or shape.
_GRID = 100
# Bounds for a crafted file: forms drawn inside forms, operators walked in all, and images
# counted (past that many, the share found so far stands: it only errs towards the text layer).
_MAX_FORM_DEPTH = 12
_MAX_OPERATIONS = 200_000
_MAX_IMAGES = 5_000
# A layer line is in the OCR when some run of OCR words reads alike to this degree (character
# ratio): OCR misreads a letter or two of a line it did see ("w1th" for "with").
SAME_LINE = 0.8
_WORD = re.compile(r"\w+")

Matrix = tuple[float, float, float, float, float, float]
_IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def text_amount(text: str) -> int:
    """Characters that are not white space: what a text layer holds, however it is spaced."""
    return sum(1 for character in text if not character.isspace())


def short_for_its_images(layer: str, coverage: float, page_area: float) -> bool:
    """True when images cover most of the page and the text layer holds too little for the
    area they cover (``page_area`` in square points): the page is read by OCR."""
    if coverage < SCAN_COVERAGE:
        return False
    covered = coverage * page_area
    return text_amount(layer) < SHORT_LAYER_SHARE * BODY_TEXT_CHARS_PER_PT2 * covered


def longest_short_layer(page_area: float) -> float:
    """The most characters a text layer can hold and still be short on this page (when images
    cover all of it): a longer layer makes the images' places not worth finding."""
    return SHORT_LAYER_SHARE * BODY_TEXT_CHARS_PER_PT2 * page_area


def page_area(page: Any) -> float:
    """The visible area of the page (its crop box) in square points."""
    box = page.cropbox
    return abs(float(box.width) * float(box.height))


def image_coverage(page: Any) -> float:
    """The share of the page's visible area (0-1) that images are drawn over, counted once
    where they overlap. Raises what pypdf raises on a damaged content stream."""
    box = page.cropbox
    left, bottom = float(box.left), float(box.bottom)
    width, height = float(box.width), float(box.height)
    if width <= 0 or height <= 0:
        return 0.0
    contents = page.get_contents()
    resources = _resolve(page.get("/Resources"))
    if contents is None:
        return 0.0
    if "/XObject" not in (resources or {}) and b"BI" not in contents.get_data():
        return 0.0  # no image to draw: a text page's stream is not worth parsing
    grid = bytearray(_GRID * _GRID)
    one_row = b"\x01" * _GRID
    boxes = _image_boxes(contents, resources, page.pdf)
    for x0, y0, x1, y1 in itertools.islice(boxes, _MAX_IMAGES):
        first = _cell(x0 - left, width)
        last = _cell(x1 - left, width, upper=True)
        if first >= last:
            continue
        for row in range(_cell(y0 - bottom, height), _cell(y1 - bottom, height, upper=True)):
            start = row * _GRID
            grid[start + first : start + last] = one_row[first:last]
    return grid.count(1) / len(grid)


def _cell(offset: float, side: float, upper: bool = False) -> int:
    """A coordinate as a grid index, clipped to the page; an upper bound rounds up."""
    share = min(max(offset / side, 0.0), 1.0) * _GRID
    index = int(share)
    return min(index + (1 if upper and index < share else 0), _GRID)


def _image_boxes(
    contents: ContentStream, resources: Any, pdf: Any
) -> Iterator[tuple[float, float, float, float]]:
    """The page-space bounding box of every image drawn by the content stream, forms
    followed into."""
    walk = _Walk(pdf)
    yield from walk.boxes(contents.operations, resources, _IDENTITY, 0)


class _Walk:
    """One page's walk: a form drawn many times is parsed once, and the operators walked in
    all are counted against ``_MAX_OPERATIONS``."""

    def __init__(self, pdf: Any) -> None:
        self.pdf = pdf
        self.left = _MAX_OPERATIONS
        self.forms: dict[int, tuple[Any, list[tuple[Any, bytes]]]] = {}

    def form(self, drawn: Any) -> list[tuple[Any, bytes]]:
        # The object is kept with its operations, so its id is not reused while cached.
        if id(drawn) not in self.forms:
            self.forms[id(drawn)] = (drawn, ContentStream(drawn, self.pdf).operations)
        return self.forms[id(drawn)][1]

    def boxes(
        self, operations: list[tuple[Any, bytes]], resources: Any, matrix: Matrix, depth: int
    ) -> Iterator[tuple[float, float, float, float]]:
        saved: list[Matrix] = []
        for operands, operator in operations:
            self.left -= 1
            if self.left < 0:
                return
            if operator == b"q":
                saved.append(matrix)
            elif operator == b"Q":
                matrix = saved.pop() if saved else matrix
            elif operator == b"cm" and len(operands) == 6:
                matrix = _multiply(_matrix(operands), matrix)
            elif operator == b"INLINE IMAGE":
                yield _unit_square(matrix)
            elif operator == b"Do" and operands:
                drawn = _xobject(resources, operands[0])
                if drawn is None:
                    continue
                kind = drawn.get("/Subtype")
                if kind == "/Image":
                    yield _unit_square(matrix)
                elif kind == "/Form" and depth < _MAX_FORM_DEPTH:
                    placed = _multiply(_matrix(drawn.get("/Matrix", _IDENTITY)), matrix)
                    own = _resolve(drawn.get("/Resources")) or resources  # old files inherit
                    yield from self.boxes(self.form(drawn), own, placed, depth + 1)


def _resolve(value: Any) -> Any:
    return value.get_object() if hasattr(value, "get_object") else value


def _xobject(resources: Any, name: Any) -> Any:
    try:
        return _resolve(_resolve(resources["/XObject"])[name])
    except (KeyError, TypeError, AttributeError):
        return None


def _matrix(values: Any) -> Matrix:
    a, b, c, d, e, f = (float(_resolve(value)) for value in list(values)[:6])
    return a, b, c, d, e, f


def _multiply(first: Matrix, then: Matrix) -> Matrix:
    """``first`` applied, then ``then`` (PDF's row-vector order: first × then)."""
    a, b, c, d, e, f = first
    a2, b2, c2, d2, e2, f2 = then
    return (
        a * a2 + b * c2,
        a * b2 + b * d2,
        c * a2 + d * c2,
        c * b2 + d * d2,
        e * a2 + f * c2 + e2,
        e * b2 + f * d2 + f2,
    )


def _unit_square(matrix: Matrix) -> tuple[float, float, float, float]:
    """An image fills the unit square of its space: its corners through the matrix, boxed."""
    a, b, c, d, e, f = matrix
    xs = (e, a + e, c + e, a + c + e)
    ys = (f, b + f, d + f, b + d + f)
    return min(xs), min(ys), max(xs), max(ys)


def merge(layer: str, ocr: str) -> str:
    """The page's text from its text layer and its OCR, each thing said once. A layer line the
    OCR also read (a stamp printed on the scan, an invisible OCR layer of the same image) is
    left to the OCR, which has it in its place on the page; the layer's other lines (a stamp
    only in the text layer) come first, as they are."""
    ocr_words = _WORD.findall(ocr.lower())
    if not ocr_words:
        return layer
    anchors: dict[str, list[int]] = {}
    for position, word in enumerate(ocr_words):
        for key in _keys(word):
            anchors.setdefault(key, []).append(position)
    kept = [line for line in layer.splitlines() if not _read_by_ocr(line, ocr_words, anchors)]
    return "\n".join([*kept, "", ocr] if kept else [ocr])


def _keys(word: str) -> set[str]:
    """A word's first and last three letters: a word OCR misread keeps one of them."""
    return {word[:3], word[-3:]}


def _read_by_ocr(line: str, ocr_words: list[str], anchors: dict[str, list[int]]) -> bool:
    """Whether the OCR read this line: as a run of words, or in pieces that hold most of its
    letters (a layer can join on one baseline what the OCR reads apart, a graph's axis and its
    legend). A stamp whose common words the OCR read here and there is still not read."""
    words = _WORD.findall(line.lower())
    if not words:
        return True  # punctuation or rules only: nothing the OCR's words would lack
    if _run_read(words, ocr_words, anchors):
        return True
    if len(words) == 1:
        return False
    pieces = sum(len(word) for word in words if _run_read([word], ocr_words, anchors))
    return pieces >= SAME_LINE * sum(len(word) for word in words)


def _run_read(words: list[str], ocr_words: list[str], anchors: dict[str, list[int]]) -> bool:
    """Whether some run of the OCR's words reads like these words. Only runs that share the
    start or the end of one of the words with the OCR are compared, so the work grows with the
    matches, not with the product of the two texts."""
    starts = {
        position - index + shift
        for index, word in enumerate(words)
        for key in _keys(word)
        for position in anchors.get(key, ())
        for shift in (-1, 0, 1)
    }
    wanted = " ".join(words)
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(wanted)
    # OCR may split or join a word ("Cam Scanner"): runs one word shorter or longer count too.
    sizes = {max(1, len(words) - 1), len(words), len(words) + 1}
    for start in sorted(s for s in starts if 0 <= s < len(ocr_words)):
        for size in sizes:
            matcher.set_seq1(" ".join(ocr_words[start : start + size]))
            if (
                matcher.real_quick_ratio() >= SAME_LINE
                and matcher.quick_ratio() >= SAME_LINE
                and matcher.ratio() >= SAME_LINE
            ):
                return True
    return False
