"""OCR with Tesseract: a page image in; its text, and how sure Tesseract was of it, out.

Tesseract runs as its own program, ``tesseract stdin stdout``: the page goes in through a pipe
and the words come back through one, so no image or text of a memory is written to a file, not
even a temporary one in a private folder (DESIGN §2: no plaintext outside the vault). That is
why pytesseract is not used for the call: it always saves the image and Tesseract's output as
temporary files (``pytesseract.save``), and a 0700 folder would still put them on the disk.

A page is read in one run with orientation detection (``--psm 1``, which needs the ``osd``
language data): Tesseract finds how far the page is turned and reads it upright. A page with
too little text to tell is read as it is; without the ``osd`` data every page is, with a
warning. One run does what a separate OSD run, a turn and a read do, in less time (the UNLV
page: 5.3 s against 7.7 s) and as well or better (turned by 90°, 0.962 against 0.956 of the
words). The output is TSV (each word with its place and confidence): the text is rebuilt from
it line by line, and the page's mean word confidence is kept so a poor scan can be pointed out.

``pdf_page_ocr(settings)`` is the ``ocr_page`` hook of ``pdf.extract``: a scanned page is read
from the images it holds (``pdf_images.py`` takes them out of the PDF).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from PIL import Image

from cairn.ingest import lifetime, pdf_images
from cairn.ingest.document import ExtractionError

# Above this an image is refused before its pixels are decoded: 40 MP is a 600-dpi scan of an
# A3 page or the largest phone photo; more is a mistake or a decompression bomb, and Tesseract's
# time and memory grow with the pixel count.
MAX_PIXELS = 40_000_000
# A page whose words average less than this (0-100) is named in the warnings: at that level
# most words are wrong (a photo of a scene, handwriting, a blurred or very small scan).
LOW_CONFIDENCE = 50.0
# On a PDF page that images cover most of, OCR of fewer words than this found no writing worth
# the name there (a photo's stray marks read as a letter or two).
FEW_WORDS = 3
DEFAULT_TIMEOUT_S = 300.0  # for one run of Tesseract on one page
# One thread per Tesseract: its OpenMP threads make a page several times slower on a small
# machine (13 s against 3.8 s for the UNLV page on 2 cores; tesseract-ocr/tesseract#3109).
OMP_THREAD_LIMIT = "1"
_LANGUAGE = re.compile(r"^[A-Za-z0-9_]+(?:/[A-Za-z0-9_]+)?$")  # eng, chi_sim, script/Latin
NOT_INSTALLED = (
    "Tesseract is not installed: install it (Debian/Ubuntu: apt-get install tesseract-ocr) to "
    "read text in images and scans, or set the path to the tesseract program in the OCR settings."
)
ORIENTATION_NOT_CHECKED = (
    "the page orientation was not checked: Tesseract's orientation data is not installed "
    "(Debian/Ubuntu: apt-get install tesseract-ocr-osd); a turned page may read as nonsense"
)


@dataclass(frozen=True)
class OcrSettings:
    languages: tuple[str, ...] = ("eng",)  # Tesseract language packs, tried together
    tesseract_cmd: str = "tesseract"  # the program, by name on the PATH or by its path
    timeout_s: float = DEFAULT_TIMEOUT_S

    def __post_init__(self) -> None:
        if not self.languages:
            raise ValueError("OCR needs at least one language, such as 'eng'")
        for language in self.languages:
            if not _LANGUAGE.match(language):
                raise ValueError(f"{language!r} is not a Tesseract language name such as 'eng'")


@dataclass(frozen=True)
class PageText:
    """One page (or one image on a PDF page) as Tesseract read it."""

    text: str
    confidence: float | None  # mean word confidence, 0-100; None when no word was found
    words: int
    warnings: tuple[str, ...] = ()


def too_large(what: str, pixels: int) -> ExtractionError:
    return ExtractionError(
        f"{what} is {pixels / 1e6:.0f} megapixels; Cairn reads images up to "
        f"{MAX_PIXELS // 1_000_000} megapixels. Scale it down and add it again."
    )


class Tesseract:
    """The tesseract program with the settings' languages, checked when it is made: a missing
    program or language pack fails the file with what to install."""

    def __init__(self, settings: OcrSettings) -> None:
        self.settings = settings
        listing = self._run(None, ["--list-langs"])
        # "List of available languages in ... (2):", then one name a line.
        names = listing.stdout.decode("utf-8", "replace").splitlines()[1:]
        installed = {name.strip() for name in names if name.strip()}
        for language in settings.languages:
            if language not in installed:
                package = language.lower().replace("_", "-").replace("/", "-")
                raise ExtractionError(
                    f"Tesseract has no language pack for {language!r}: install it "
                    f"(Debian/Ubuntu: apt-get install tesseract-ocr-{package}) or remove "
                    f"{language!r} from the OCR languages in the settings."
                )
        self.can_orient = "osd" in installed

    def read(self, image: Image.Image) -> PageText:
        """The words of one page image. Nothing of it is written anywhere."""
        languages = "+".join(self.settings.languages)
        mode = "1" if self.can_orient else "3"  # 1: with orientation detection; 3: without
        # TSV by variables, not by the "tsv" config file, which a custom tessdata may lack.
        tsv = ["-c", "tessedit_create_tsv=1", "-c", "tessedit_create_txt=0"]
        done = self._run(_plain(image), ["-l", languages, "--psm", mode, *tsv])
        if done.returncode != 0:
            raise ExtractionError(f"Tesseract could not read the image ({_last_line(done)}).")
        text, confidence, words = words_from_tsv(done.stdout.decode("utf-8", "replace"))
        warnings = () if self.can_orient else (ORIENTATION_NOT_CHECKED,)
        return PageText(text, confidence, words, warnings)

    def _run(self, page: Image.Image | None, args: list[str]) -> subprocess.CompletedProcess[bytes]:
        through_pipes = ["stdin", "stdout"] if page is not None else []
        try:
            return subprocess.run(  # noqa: S603 - a fixed argument list, no shell
                [self.settings.tesseract_cmd, *through_pipes, *args],
                input=_encode(page) if page is not None else None,
                capture_output=True,
                timeout=self.settings.timeout_s,
                env={**os.environ, "OMP_THREAD_LIMIT": OMP_THREAD_LIMIT},
                check=False,
                preexec_fn=lifetime.programs_end_with_us(),  # a page may take a minute
            )
        except (FileNotFoundError, PermissionError, NotADirectoryError):
            raise ExtractionError(NOT_INSTALLED) from None
        except subprocess.TimeoutExpired:
            raise ExtractionError(
                f"Tesseract took longer than {self.settings.timeout_s:.0f} s on one page and was "
                "stopped. Scale the image down or split the document, and add it again."
            ) from None


def words_from_tsv(tsv: str) -> tuple[str, float | None, int]:
    """Text (a line per line, a blank line between paragraphs), mean word confidence and word
    count from Tesseract's TSV. Columns: level page block par line word left top width height
    conf text; level 5 is a word."""
    lines: list[str] = []
    confidences: list[float] = []
    line_key: tuple[str, ...] | None = None
    words: list[str] = []

    def flush() -> None:
        if words:
            lines.append(" ".join(words))
            words.clear()

    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or cells[0] != "5" or not cells[11].strip():
            continue
        key = (cells[2], cells[3], cells[4])
        if key != line_key:
            flush()
            if line_key is not None and key[:2] != line_key[:2]:
                lines.append("")  # a new paragraph
            line_key = key
        words.append(cells[11].strip())
        if float(cells[10]) >= 0:
            confidences.append(float(cells[10]))
    flush()
    mean = round(sum(confidences) / len(confidences), 1) if confidences else None
    return "\n".join(lines), mean, len(confidences)


def summarise(
    pages: Mapping[int, PageText], text_layers: Mapping[int, str] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """Document metadata and warnings for OCR'd pages (page number -> what was read).
    ``text_layers`` holds the short text layer of a PDF page that images cover most of: such a
    page is named when the OCR found little there too, since then neither gave its text."""
    layers = text_layers or {}
    metadata: dict[str, Any] = {
        "ocr_confidence": _mean_confidence(list(pages.values())),
        "ocr_pages": [
            {"page": n, "confidence": p.confidence, "words": p.words}
            | ({"text_layer_chars": len(layers[n])} if n in layers else {})
            for n, p in sorted(pages.items())
        ],
    }
    warnings: list[str] = []
    for number, page in sorted(pages.items()):
        if number in layers:
            poor = _poor_page(number, page, layers[number])
            warnings.extend([poor] if poor else [])
        elif page.confidence is not None and page.confidence < LOW_CONFIDENCE:
            warnings.append(
                f"page {number} was read with low confidence ({page.confidence:.0f}/100): "
                "its text may be wrong in places; a sharper scan or photo reads better"
            )
        warnings.extend(w for w in page.warnings if w not in warnings)
    # A page left unread already says why; one read in full that held no words is named here.
    blank = [
        n
        for n, p in sorted(pages.items())
        if n not in layers and not p.text.strip() and _read_in_full(p)
    ]
    if blank:
        listed = ", ".join(map(str, blank))
        warnings.append(f"no text was found on page(s) {listed} (a picture without writing?)")
    return metadata, warnings


def _poor_page(number: int, page: PageText, layer: str) -> str | None:
    """The warning for a page mostly covered by images, whose text layer is short, when the OCR
    of its images found little (fewer than ``FEW_WORDS`` words, when none was left unread) or
    was unsure of what it read; None when the OCR read it well."""
    few = page.words < FEW_WORDS and _read_in_full(page)
    unsure = page.confidence is not None and page.confidence < LOW_CONFIDENCE
    if not few and not unsure:
        return None
    found = "no words" if page.words == 0 else f"{page.words} word(s)"
    sure = f" with low confidence ({page.confidence:.0f}/100)" if unsure else ""
    return (
        f"page {number} is mostly an image, and little of its text could be read: its text "
        f"layer holds only {len(layer)} characters and OCR found {found}{sure}; a sharper scan "
        "reads better (or the image holds no writing)"
    )


def _read_in_full(page: PageText) -> bool:
    """No image of the page was left unread (an unread one says why in its own warning)."""
    return set(page.warnings) <= {ORIENTATION_NOT_CHECKED}


class PdfPageOcr:
    """The ``ocr_page`` hook of ``pdf.extract``: the images on a scanned page, read in order.
    Tesseract is checked at the first scanned page, so a PDF with a text layer on every page
    never needs it."""

    def __init__(self, settings: OcrSettings) -> None:
        self.settings = settings
        self._tesseract: Tesseract | None = None

    def __call__(self, number: int, page: Any) -> PageText:
        if self._tesseract is None:
            self._tesseract = Tesseract(self.settings)
        read: list[PageText] = []
        notes: list[str] = []
        for found in pdf_images.page_images(page, MAX_PIXELS):
            if isinstance(found, str):
                notes.append(f"page {number}: {found}")
            else:
                read.append(self._tesseract.read(found))
        return PageText(
            text="\n\n".join(p.text for p in read if p.text),
            confidence=_mean_confidence(read),
            words=sum(p.words for p in read),
            warnings=(*dict.fromkeys(w for p in read for w in p.warnings), *notes),
        )


def pdf_page_ocr(settings: OcrSettings | None = None) -> PdfPageOcr:
    """The ``ocr_page`` hook for ``pdf.extract`` with these settings."""
    return PdfPageOcr(settings or OcrSettings())


def ocr_pdf_page(number: int, page: Any) -> PageText:
    """The ``ocr_page`` hook with the default settings (English)."""
    return PdfPageOcr(OcrSettings())(number, page)


def installed(tesseract_cmd: str = "tesseract", timeout_s: float = 10.0) -> tuple[str, set[str]]:
    """The version of the tesseract program and its installed language packs (``osd``
    included); raises ``ExtractionError`` saying what to install when there is no program."""
    program = shutil.which(tesseract_cmd)
    if program is None:
        raise ExtractionError(NOT_INSTALLED)
    try:
        runs = [
            subprocess.run(  # noqa: S603 - a fixed argument list, no shell
                [program, flag], capture_output=True, timeout=timeout_s, check=False
            )
            for flag in ("--version", "--list-langs")
        ]
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ExtractionError(f"{program} could not be run ({exc}). {NOT_INSTALLED}") from None
    # "tesseract 5.3.0" first (on stdout or, in older versions, stderr).
    version_lines = (runs[0].stdout + runs[0].stderr).decode("utf-8", "replace").split()
    version = version_lines[1] if len(version_lines) > 1 else "unknown"
    # "List of available languages in ... (2):", then one name a line.
    names = runs[1].stdout.decode("utf-8", "replace").splitlines()[1:]
    return version, {name.strip() for name in names if name.strip()}


def _mean_confidence(pages: list[PageText]) -> float | None:
    """Over all words, so a page of three words weighs less than a page of three hundred."""
    counted = [(p.confidence, p.words) for p in pages if p.confidence is not None and p.words]
    words = sum(n for _, n in counted)
    return round(sum(c * n for c, n in counted) / words, 1) if words else None


def _plain(image: Image.Image) -> Image.Image:
    """The image as 1-bit, grey or RGB, which every Tesseract build reads; transparency on
    white (a transparent background is black once dropped, and black text would vanish)."""
    if image.mode in ("1", "L", "RGB"):
        return image
    if image.mode.startswith("I;16") or image.mode == "I":  # 16-bit grey: keep the top 8 bits
        return image.convert("I").point(lambda value: value * (1 / 256)).convert("L")
    if "A" in image.getbands() or "transparency" in image.info:
        rgba = image.convert("RGBA")
        flat = Image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        return flat
    return image.convert("RGB")


def _encode(page: Image.Image) -> bytes:
    """Uncompressed TIFF: quick to write, and it carries the resolution (which Tesseract's
    orientation detection takes only from the image, not from ``--dpi``)."""
    buffer = io.BytesIO()
    dpi = page.info.get("dpi")
    plausible = isinstance(dpi, tuple) and len(dpi) == 2 and 70 <= float(dpi[0]) <= 2400
    page.save(buffer, format="TIFF", **({"dpi": dpi} if plausible else {}))
    return buffer.getvalue()


def _last_line(done: subprocess.CompletedProcess[bytes]) -> str:
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else f"exit code {done.returncode}"
